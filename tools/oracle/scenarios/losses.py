"""Each loss tinyamp has (tinyamp/ops/loss.h), in f32 and f64, every reduction: the value and the
gradient of every differentiable input, for fixed inputs. For reduction "none" the backward is
given a fixed grad_output; for "mean" and "sum" it starts from 1.
"""

import torch.nn.functional as F

from golden_io import DTYPES, as_f32, from_spec, hex_values, hexf

REDUCTIONS = ["none", "mean", "sum"]


def spec(values, shape, dtype="f32"):
    return {"dtype": dtype, "shape": list(shape), "values": [hexf(v) for v in as_f32(values)]}


def ints(values, shape):
    return {"dtype": "i64", "shape": list(shape), "values": [hexf(v) for v in values]}


N, C = 4, 3
LOGITS = [0.3, -1.2, 2.5, 0.0, 0.7, -0.4, -3.0, 1.1, 0.2, 5.0, -2.0, 0.9]
LOG_PROBS = [-1.5, -0.3, -2.2, -0.9, -1.1, -1.4, -0.05, -3.2, -4.0, -0.7, -0.8, -2.6]
PROBS = [0.9, 0.2, 0.5, 0.01, 0.75, 0.33, 0.6, 0.999, 0.0, 1.0, 0.45, 0.05]
TARGETS01 = [1.0, 0.0, 1.0, 0.0, 0.25, 1.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.0]

# name -> (tinyamp op, float inputs (name, values, shape, differentiable), other inputs, options, call)
LOSSES = {
    "mse_loss": ("mse_loss", [("input", LOGITS, (N, C), True), ("target", TARGETS01, (N, C), True)], {}, {},
                 lambda t, r, o: F.mse_loss(t["input"], t["target"], reduction=r)),
    "nll_loss": ("nll_loss", [("input", LOG_PROBS, (N, C), True)], {"target": ints([0, 2, 1, 2], (N,))}, {},
                 lambda t, r, o: F.nll_loss(t["input"], t["target"], reduction=r)),
    "nll_loss_ignore_index": ("nll_loss", [("input", LOG_PROBS, (N, C), True)], {"target": ints([0, -100, 1, 2], (N,))}, {},
                              lambda t, r, o: F.nll_loss(t["input"], t["target"], reduction=r)),
    "nll_loss_1d": ("nll_loss", [("input", LOG_PROBS[:C], (C,), True)], {"target": ints([1], ())}, {},
                    lambda t, r, o: F.nll_loss(t["input"], t["target"], reduction=r)),
    "cross_entropy": ("cross_entropy", [("input", LOGITS, (N, C), True)], {"target": ints([2, 0, 1, 0], (N,))}, {},
                      lambda t, r, o: F.cross_entropy(t["input"], t["target"], reduction=r)),
    "cross_entropy_ignore_index": ("cross_entropy", [("input", LOGITS, (N, C), True)], {"target": ints([2, 1, 1, 0], (N,))},
                                   {"ignore_index": 1},
                                   lambda t, r, o: F.cross_entropy(t["input"], t["target"], reduction=r, ignore_index=1)),
    "cross_entropy_all_ignored": ("cross_entropy", [("input", LOGITS, (N, C), True)],
                                  {"target": ints([-100, -100, -100, -100], (N,))}, {},
                                  lambda t, r, o: F.cross_entropy(t["input"], t["target"], reduction=r)),
    "binary_cross_entropy": ("binary_cross_entropy", [("input", PROBS, (N, C), True), ("target", TARGETS01, (N, C), False)],
                             {}, {}, lambda t, r, o: F.binary_cross_entropy(t["input"], t["target"], reduction=r)),
    "binary_cross_entropy_with_logits": (
        "binary_cross_entropy_with_logits", [("input", LOGITS, (N, C), True), ("target", TARGETS01, (N, C), True)], {}, {},
        lambda t, r, o: F.binary_cross_entropy_with_logits(t["input"], t["target"], reduction=r)),
    "binary_cross_entropy_with_logits_pos_weight": (
        "binary_cross_entropy_with_logits",
        [("input", LOGITS, (N, C), True), ("target", TARGETS01, (N, C), True), ("pos_weight", [2.0, 0.5, 1.25], (C,), False)],
        {}, {}, lambda t, r, o: F.binary_cross_entropy_with_logits(t["input"], t["target"], reduction=r,
                                                                   pos_weight=t["pos_weight"])),
}


def run(name, dtype, reduction):
    op, float_inputs, others, options, call = LOSSES[name]
    tensors, inputs = {}, {}
    for arg, values, shape, grad in float_inputs:
        inputs[arg] = spec(values, shape, dtype)
        tensors[arg] = from_spec(inputs[arg]).requires_grad_(grad)
    for arg, s in others.items():
        inputs[arg] = s
        tensors[arg] = from_spec(s)
    out = call(tensors, reduction, options)
    grad_output = None
    if reduction == "none":
        n = out.numel()
        grad_output = spec([((i * 3) % 5 - 2) / 4 for i in range(n)], out.shape, dtype)
        out.backward(from_spec(grad_output))
    else:
        out.backward()
    grads = {arg: hex_values(tensors[arg].grad) for arg, _, _, g in float_inputs if g}
    return {"case": name, "op": op, "dtype": dtype, "reduction": reduction, "options": options, "inputs": inputs,
            "grad_output": grad_output, "out_dtype": dtype if out.dtype == DTYPES[dtype] else str(out.dtype),
            "out_shape": list(out.shape), "value": hex_values(out), "grads": grads}


def make():
    cases = [run(name, dtype, r) for name in LOSSES for dtype in ["f64", "f32"] for r in REDUCTIONS]
    defaults = {"reduction": "mean", "ignore_index": -100}
    return {"scenario": "losses", "cases": cases, "defaults": defaults}
