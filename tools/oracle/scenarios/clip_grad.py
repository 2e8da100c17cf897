"""torch.nn.utils.clip_grad_norm_: the total norm it returns and the gradients after it, for three
parameters (one without a gradient), with a max_norm below and above the norm, inf and NaN
gradients with and without error_if_nonfinite, f32 and f64. Only norm_type 2 (tinyamp's only).
"""

import inspect

import torch

from golden_io import DTYPE_NAMES, DTYPES, as_f32, hex_values, hexf

BASE = [[0.5, -1.25, 3.0], [2.0, 0.1, -0.7, 1.9], None]
CASES = [
    ("clips", "f32", 1.0, False, {}),
    ("clips_f64", "f64", 1.0, False, {}),
    ("max_norm_above_norm", "f32", 100.0, False, {}),
    ("max_norm_equal_to_rounded_norm", "f32", None, False, {}),  # max_norm = the norm itself
    ("inf_no_error", "f32", 1.0, False, {(0, 1): float("inf")}),
    ("inf_error", "f32", 1.0, True, {(0, 1): float("inf")}),
    ("nan_no_error", "f32", 1.0, False, {(1, 2): float("nan")}),
    ("nan_error", "f32", 1.0, True, {(1, 2): float("nan")}),
]


def grads(dtype, inject):
    out = []
    for p, values in enumerate(BASE):
        if values is None:
            out.append(None)
            continue
        values = list(as_f32(values))
        for (q, e), v in inject.items():
            if q == p:
                values[e] = v
        out.append(torch.tensor(values, dtype=torch.float64).to(DTYPES[dtype]))
    return out


def make():
    cases = []
    for name, dtype, max_norm, error_if_nonfinite, inject in CASES:
        gs = grads(dtype, inject)
        params = [torch.zeros(len(v) if v else 2, dtype=DTYPES[dtype], requires_grad=True) for v in BASE]
        for p, g in zip(params, gs):
            p.grad = g
        if max_norm is None:
            max_norm = torch.linalg.vector_norm(torch.cat([g.double() for g in gs if g is not None])).item()
        case = {"case": name, "dtype": dtype, "max_norm": hexf(max_norm), "error_if_nonfinite": error_if_nonfinite,
                "grads_before": [None if g is None else hex_values(g) for g in gs]}
        try:
            norm = torch.nn.utils.clip_grad_norm_(params, max_norm, error_if_nonfinite=error_if_nonfinite)
            case.update({"error": False, "total_norm": hexf(norm.item()), "norm_dtype": DTYPE_NAMES[norm.dtype],
                         "grads_after": [None if p.grad is None else hex_values(p.grad) for p in params]})
        except RuntimeError as e:
            case.update({"error": True, "torch_error": str(e).splitlines()[0][:160]})
        cases.append(case)
    sig = inspect.signature(torch.nn.utils.clip_grad_norm_).parameters
    defaults = {"norm_type": hexf(sig["norm_type"].default), "error_if_nonfinite": sig["error_if_nonfinite"].default}
    return {"scenario": "clip_grad_norm", "cases": cases, "defaults": defaults}
