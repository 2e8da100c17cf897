"""Output dtypes of every op tinyamp's dispatcher knows, in torch.autocast("cpu") regions (bf16 and
f16) and with autocast off (plain type promotion), for uniform and mixed input dtypes.

Each case names a tinyamp op and how tinyamp calls it (the C++ test has the same table, keyed by
"case"); the tensors are written into the golden, so both sides run the same inputs. A case that
raises in PyTorch records "error"; tinyamp must then throw too.
"""

import itertools

import torch
import torch.nn.functional as F

from golden_io import DTYPES, DTYPE_NAMES, FLOAT_DTYPES, as_f32, from_spec, hexf

REGIONS = ["bf16", "f16", "off"]  # autocast dtype, or autocast disabled
MIXED_PAIRS = [("f32", "bf16"), ("f32", "f16"), ("f64", "f32"), ("bf16", "f16")]


def floats(shape, start=0, positive=False):
    """Small values, exact in every float dtype (multiples of 1/8 below 2)."""
    n = 1
    for s in shape:
        n *= s
    vals = [((i * 5 + start * 3) % 13 - 6) / 8 for i in range(n)]
    if positive:
        vals = [abs(v) + 0.25 for v in vals]
    return {"role": "float", "shape": list(shape), "values": [hexf(v) for v in as_f32(vals)]}


def fixed(dtype, shape, values):
    """A tensor whose dtype never changes (targets, conditions)."""
    return {"role": dtype, "shape": list(shape), "values": [hexf(v) for v in values]}


def probs(shape):
    """floats() moved into (0, 1), for binary_cross_entropy."""
    spec = floats(shape)
    spec["values"] = [hexf(v) for v in as_f32([(float.fromhex(v) + 1) / 2.5 for v in spec["values"]])]
    return spec


# case -> (tinyamp op name, torch call, inputs). The calls' other arguments are fixed here and in
# the C++ table (tests/oracle/autocast_dtypes_golden_test.cpp).
X = (2, 3)
CASES = {
    "matmul": ("matmul", lambda a, b: torch.matmul(a, b), [floats(X), floats((3, 2), 1)]),
    "mm": ("mm", lambda a, b: torch.mm(a, b), [floats(X), floats((3, 2), 1)]),
    "bmm": ("bmm", lambda a, b: torch.bmm(a, b), [floats((2, 2, 3)), floats((2, 3, 2), 1)]),
    "addmm": ("addmm", lambda c, a, b: torch.addmm(c, a, b), [floats((2,), 2), floats(X), floats((3, 2), 1)]),
    "linear": ("linear", lambda x, w, b: F.linear(x, w, b), [floats(X), floats((2, 3), 1), floats((2,), 2)]),
    "conv2d": ("conv2d", lambda x, w, b: F.conv2d(x, w, b), [floats((1, 2, 3, 3)), floats((2, 2, 2, 2), 1), floats((2,), 2)]),
    "add": ("add", lambda a, b: torch.add(a, b), [floats(X), floats(X, 1)]),
    "sub": ("sub", lambda a, b: torch.sub(a, b), [floats(X), floats(X, 1)]),
    "mul": ("mul", lambda a, b: torch.mul(a, b), [floats(X), floats(X, 1)]),
    "div": ("div", lambda a, b: torch.div(a, b), [floats(X), floats(X, 1, positive=True)]),
    "neg": ("neg", lambda a: torch.neg(a), [floats(X)]),
    "pow_scalar": ("pow", lambda a: torch.pow(a, 2.0), [floats(X)]),
    "pow_tensor": ("pow", lambda a, b: torch.pow(a, b), [floats(X, positive=True), floats(X, 1)]),
    "exp": ("exp", lambda a: torch.exp(a), [floats(X)]),
    "log": ("log", lambda a: torch.log(a), [floats(X, positive=True)]),
    "sqrt": ("sqrt", lambda a: torch.sqrt(a), [floats(X, positive=True)]),
    "tanh": ("tanh", lambda a: torch.tanh(a), [floats(X)]),
    "sigmoid": ("sigmoid", lambda a: torch.sigmoid(a), [floats(X)]),
    "erf": ("erf", lambda a: torch.erf(a), [floats(X)]),
    "relu": ("relu", lambda a: torch.relu(a), [floats(X)]),
    "gelu": ("gelu", lambda a: F.gelu(a), [floats(X)]),
    "where": ("where", lambda c, a, b: torch.where(c, a, b), [fixed("bool", X, [1, 0, 1, 1, 0, 0]), floats(X), floats(X, 1)]),
    "eq": ("eq", lambda a, b: torch.eq(a, b), [floats(X), floats(X, 1)]),
    "ne": ("ne", lambda a, b: torch.ne(a, b), [floats(X), floats(X, 1)]),
    "lt": ("lt", lambda a, b: torch.lt(a, b), [floats(X), floats(X, 1)]),
    "le": ("le", lambda a, b: torch.le(a, b), [floats(X), floats(X, 1)]),
    "gt": ("gt", lambda a, b: torch.gt(a, b), [floats(X), floats(X, 1)]),
    "ge": ("ge", lambda a, b: torch.ge(a, b), [floats(X), floats(X, 1)]),
    "cat": ("cat", lambda a, b: torch.cat([a, b], 0), [floats(X), floats((1, 3), 1)]),
    "stack": ("stack", lambda a, b: torch.stack([a, b], 0), [floats(X), floats(X, 1)]),
    "sum": ("sum", lambda a: torch.sum(a), [floats(X)]),
    "sum_dim": ("sum", lambda a: torch.sum(a, [1]), [floats(X)]),
    "mean": ("mean", lambda a: torch.mean(a), [floats(X)]),
    "max": ("max", lambda a: torch.max(a), [floats(X)]),
    "max_dim": ("max", lambda a: torch.max(a, 1).values, [floats(X)]),
    "argmax": ("argmax", lambda a: torch.argmax(a, 1), [floats(X)]),
    "softmax": ("softmax", lambda a: torch.softmax(a, 1), [floats(X)]),
    "log_softmax": ("log_softmax", lambda a: torch.log_softmax(a, 1), [floats(X)]),
    "layer_norm": ("layer_norm", lambda x, w, b: F.layer_norm(x, (3,), w, b), [floats(X), floats((3,), 1), floats((3,), 2)]),
    "batch_norm": ("batch_norm", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
                   [floats(X), floats((3,), 1), floats((3,), 2)]),
    "mse_loss": ("mse_loss", lambda a, b: F.mse_loss(a, b), [floats(X), floats(X, 1)]),
    "nll_loss": ("nll_loss", lambda a, t: F.nll_loss(a, t), [floats(X), fixed("i64", (2,), [0, 2])]),
    "cross_entropy": ("cross_entropy", lambda a, t: F.cross_entropy(a, t), [floats(X), fixed("i64", (2,), [0, 2])]),
    "binary_cross_entropy": ("binary_cross_entropy", lambda p, t: F.binary_cross_entropy(p, t), [probs(X), probs((2, 3))]),
    "binary_cross_entropy_with_logits": (
        "binary_cross_entropy_with_logits", lambda x, t, w: F.binary_cross_entropy_with_logits(x, t, pos_weight=w),
        [floats(X), probs(X), floats((3,), 1, positive=True)]),
    # View and copy ops go through the dispatcher too; autocast never lists them.
    "view": ("view", lambda a: a.view(3, 2), [floats(X)]),
    "reshape": ("reshape", lambda a: a.reshape(6), [floats(X)]),
    "transpose": ("transpose", lambda a: a.transpose(0, 1), [floats(X)]),
    "permute": ("permute", lambda a: a.permute(1, 0), [floats(X)]),
    "slice": ("slice", lambda a: a[:, 1:3], [floats(X)]),
    "select": ("select", lambda a: a.select(0, 1), [floats(X)]),
    "unsqueeze": ("unsqueeze", lambda a: a.unsqueeze(0), [floats(X)]),
    "squeeze": ("squeeze", lambda a: a.unsqueeze(0).squeeze(0), [floats(X)]),
    "expand": ("expand", lambda a: a[:1].expand(4, 3), [floats(X)]),
    "clone": ("clone", lambda a: a.clone(), [floats(X)]),
}


def combos(n_float):
    """The input dtypes tried: each float dtype for all float inputs, then mixed pairs both ways."""
    out = [[d] * n_float for d in FLOAT_DTYPES]
    if n_float >= 2:
        for x, y in MIXED_PAIRS:
            out.append([x] + [y] * (n_float - 1))
            out.append([y] + [x] * (n_float - 1))
    return out


def run_case(call, specs, float_dtypes, region):
    it = iter(float_dtypes)
    args = []
    for spec in specs:
        dtype = next(it) if spec["role"] == "float" else spec["role"]
        args.append(from_spec({"dtype": dtype, "shape": spec["shape"], "values": spec["values"]}))
    try:
        if region == "off":
            with torch.autocast("cpu", enabled=False):
                out = call(*args)
        else:
            with torch.autocast("cpu", dtype=DTYPES[region]):
                out = call(*args)
    except (RuntimeError, ValueError, TypeError) as e:
        return {"error": True, "torch_error": str(e).splitlines()[0][:160]}
    return {"error": False, "out": DTYPE_NAMES[out.dtype]}


def make():
    cases = []
    for key, (op, call, specs) in CASES.items():
        n_float = sum(1 for s in specs if s["role"] == "float")
        for region, dtypes in itertools.product(REGIONS, combos(n_float)):
            result = run_case(call, specs, dtypes, region)
            cases.append({"case": key, "op": op, "region": region, "inputs": dtypes, **result})
    inputs = {key: specs for key, (_, _, specs) in CASES.items()}
    return {"scenario": "autocast_dtypes", "inputs": inputs, "cases": cases,
            "regions": "bf16/f16: inside torch.autocast('cpu', dtype=...); off: autocast disabled"}
