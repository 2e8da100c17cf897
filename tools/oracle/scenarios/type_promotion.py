"""Result dtypes of binary ops, autocast off, for every pair of tinyamp dtypes: tensor-tensor,
tensor with a 0-D tensor (both orders), two 0-D tensors, and a tensor with a Python int or float
(both orders where tinyamp has the overload). A case PyTorch refuses records "error".
"""

import itertools

import torch

from golden_io import DTYPE_NAMES, DTYPES

NAMES = ["f64", "f32", "f16", "bf16", "i64", "bool"]
OPS = {
    "result_type": torch.result_type,
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "pow": torch.pow,
    "eq": torch.eq, "lt": torch.lt,
    "where": lambda a, b: torch.where(torch.tensor(True), a, b),
}
# Kinds of operand pairs; "s" stands for the Python number of the kind's name.
KINDS = ["tensor_tensor", "tensor_0d", "0d_tensor", "0d_0d"]
SCALAR_KINDS = {"tensor_int": 2, "tensor_float": 2.5, "int_tensor": 2, "float_tensor": 2.5}
# With a number, Python's operators (2 - t, t < 2.5, ...), which take the number on either side.
SCALAR_OPS = {
    "result_type": torch.result_type,
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b, "eq": lambda a, b: a == b, "lt": lambda a, b: a < b,
}


def make_tensor(name, zero_d):
    values = 1 if zero_d else [1, 2]
    return torch.tensor(values).to(DTYPES[name])


def outcome(fn, a, b):
    try:
        r = fn(a, b)
    except (RuntimeError, TypeError) as e:
        return {"error": True, "torch_error": str(e).splitlines()[0][:160]}
    return {"error": False, "out": DTYPE_NAMES[r if isinstance(r, torch.dtype) else r.dtype]}


def make():
    cases = []
    for op, fn in OPS.items():
        for kind in KINDS:
            for x, y in itertools.product(NAMES, NAMES):
                a = make_tensor(x, kind.startswith("0d"))
                b = make_tensor(y, kind.endswith("0d"))
                cases.append({"op": op, "kind": kind, "a": x, "b": y, **outcome(fn, a, b)})
        if op not in SCALAR_OPS:
            continue
        for kind, number in SCALAR_KINDS.items():
            for x in NAMES:
                t = make_tensor(x, False)
                a, b = (t, number) if kind.startswith("tensor") else (number, t)
                if op == "result_type" and not kind.startswith("tensor"):
                    continue  # tinyamp's result_type takes two tensors; the number goes second via scalar_like
                cases.append({"op": op, "kind": kind, "a": x, "b": repr(number), **outcome(SCALAR_OPS[op], a, b)})
    return {"scenario": "type_promotion", "cases": cases,
            "values": "tensors hold [1, 2], 0-D tensors 1, converted to the dtype (bool: true)"}
