"""How the oracle writes numbers and dtypes into golden JSON, so that C++ reads them back exactly.

Floats are written as C99 hex strings (float.hex(): "0x1.8p+1", "inf", "-inf", "nan"), which
std::strtod parses back to the same double; an f32, f16 or bf16 value widened to a double is
exact, so nothing is lost. Dtypes use tinyamp's short names.
"""

import json
import os

import torch

DTYPE_NAMES = {
    torch.float64: "f64",
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.int64: "i64",
    torch.bool: "bool",
}
DTYPES = {name: dtype for dtype, name in DTYPE_NAMES.items()}
FLOAT_DTYPES = ["f64", "f32", "f16", "bf16"]


def hexf(value):
    """One number, exactly."""
    return float(value).hex()


def hex_values(t):
    """Every element of a tensor, row-major, exactly (as doubles)."""
    return [hexf(v) for v in t.detach().to(torch.float64).flatten().tolist()]


def as_f32(values):
    """Plain numbers rounded to f32 (what an f32 tensor holds), back as Python floats."""
    return torch.tensor(values, dtype=torch.float32).to(torch.float64).tolist()


def tensor_spec(t):
    """A tensor as the C++ test rebuilds it: dtype, shape and values."""
    return {"dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape), "values": hex_values(t)}


def from_spec(spec):
    """The tensor a tensor_spec describes (the oracle uses its own JSON too, so both sides agree)."""
    values = [float.fromhex(v) for v in spec["values"]]
    return torch.tensor(values, dtype=torch.float64).reshape(spec["shape"]).to(DTYPES[spec["dtype"]])


def write_golden(folder, name, payload):
    """Writes one golden file: sorted keys and fixed indentation, so a rerun gives the same bytes."""
    payload = dict(payload)
    payload["torch_version"] = torch.__version__
    # PyTorch's CPU kernels differ in rounding by instruction set (its AVX2/AVX-512 kernels fuse
    # multiply-adds, the default ones do not), so the goldens say which kernels made them.
    payload["torch_cpu_capability"] = torch.backends.cpu.get_cpu_capability()
    payload["generator"] = "tools/oracle/make_goldens.py"
    path = os.path.join(folder, name + ".json")
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps(payload, indent=1, sort_keys=True) + "\n")
    return path
