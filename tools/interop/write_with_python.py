#!/usr/bin/env python3
"""Writes the safetensors files that tinyamp's interop test loads (tests/io/python_interop_test.cpp):
files made by Python's own libraries, so the test checks tinyamp against them, not against itself.

    write_with_python.py [OUT_DIR]     (default: tests/io/data next to this repository's tools/)

Needs numpy, safetensors and ml-dtypes (for bfloat16); with torch installed it also writes the
PyTorch twin model's weights (the README's digits MLP) and the logits PyTorch computes with them.
The files are committed, so the test suite runs without any of these packages:

    numpy_written.safetensors   one tensor per dtype tinyamp has (F64 F32 F16 BF16 I64 BOOL), with
                                 signed zeros, subnormals, the largest finite values, inf and NaN,
                                 a 0-d and an empty tensor, and __metadata__, by safetensors.numpy
    numpy_written.json          the values the arrays held, as Python saw them ("nan", "inf" as strings)
    torch_twin.safetensors      nn.Sequential(Linear(64, 128), ReLU(), Linear(128, 10)) state_dict,
                                 seed 0, by safetensors.torch
    torch_twin.json             inputs (8 x 64) and the logits PyTorch computes for them, in f32
    torch_fp8.safetensors       F8_E4M3, F8_E5M2 and F8_E8M0 tensors cast by PyTorch's x.to(dtype)
                                 (overflow, ties, subnormals, NaN), by safetensors.torch
    torch_fp8.json              the f32 inputs, the codes PyTorch made and the values it reads back

Running it twice writes the same bytes.
"""
import json
import math
import os
import sys

try:
    import ml_dtypes
    import numpy as np
    from safetensors.numpy import save_file
except ImportError as e:
    sys.exit(f"{e}: install numpy, safetensors and ml-dtypes (pip install numpy safetensors ml-dtypes)")


def as_json(value):
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def float_values(dtype):
    """Values that probe a float format: zeros of both signs, the smallest subnormal, the largest
    finite value, a value that rounds in the format, inf and NaN."""
    info = ml_dtypes.finfo(dtype) if dtype == ml_dtypes.bfloat16 else np.finfo(dtype)
    smallest_subnormal = float(info.smallest_subnormal)
    return [0.0, -0.0, 1.0, -2.5, 1.0 / 3.0, smallest_subnormal, -float(info.max), float(info.max),
            math.inf, -math.inf, math.nan, 65504.0 if dtype == np.float16 else 1e30]


def numpy_sample():
    tensors = {
        "f64": np.array(float_values(np.float64), dtype=np.float64).reshape(3, 4),
        "f32": np.array(float_values(np.float32), dtype=np.float32).reshape(2, 2, 3),
        "f16": np.array(float_values(np.float16), dtype=np.float16),
        "bf16": np.array(float_values(ml_dtypes.bfloat16), dtype=ml_dtypes.bfloat16).reshape(4, 3),
        "i64": np.array([0, -1, 2**62, -(2**63), 2**63 - 1, 42], dtype=np.int64).reshape(2, 3),
        "bool": np.array([True, False, False, True, True], dtype=np.bool_),
        "scalar": np.array(7.25, dtype=np.float32),
        "empty": np.zeros((0, 3), dtype=np.float32),
    }
    metadata = {"written_by": "safetensors.numpy", "note": "tinyamp interop sample"}
    expected = {
        "metadata": metadata,
        "tensors": {
            name: {
                "dtype": {"float64": "f64", "float32": "f32", "float16": "f16", "bfloat16": "bf16",
                          "int64": "i64", "bool": "bool"}[array.dtype.name],
                "shape": list(array.shape),
                # float() of each element is exact: every format here fits in a double
                "values": [as_json(float(v)) if array.dtype.kind == "f" or array.dtype == ml_dtypes.bfloat16
                           else (bool(v) if array.dtype == np.bool_ else int(v)) for v in array.ravel()],
            }
            for name, array in tensors.items()
        },
    }
    return tensors, metadata, expected


def torch_twin():
    import torch
    from safetensors.torch import save_file as save_torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    inputs = torch.arange(8 * 64, dtype=torch.float32).reshape(8, 64).remainder(17) / 16  # digits-like, 0..1
    with torch.no_grad():
        logits = model(inputs)
    state = {name: t.contiguous() for name, t in model.state_dict().items()}
    expected = {"torch": torch.__version__, "inputs": inputs.ravel().tolist(), "input_shape": list(inputs.shape),
                "logits": logits.ravel().tolist(), "logit_shape": list(logits.shape)}
    return save_torch, state, expected


def torch_fp8():
    import torch

    inputs = {
        # 464 is the tie between 448 and the missing 480 (to even: 448); 465 and 1e9 overflow
        # (PyTorch saturates E4M3); 2^-10 is half the smallest subnormal (to even: 0).
        "e4m3": (torch.float8_e4m3fn, [0.0, -0.0, 1.0, -2.5, 1.0 / 3.0, 448.0, -448.0, 464.0, 465.0, 1e9, -1e9,
                                       2.0**-9, 2.0**-10, 1.5 * 2.0**-9, 17.0, math.nan]),
        # 61440 is the tie between 57344 and inf: PyTorch gives inf (its E5M2 cast does not saturate).
        "e5m2": (torch.float8_e5m2, [0.0, -0.0, 1.0, -2.5, 1.0 / 3.0, 57344.0, 61440.0, 1e9, -1e9, 2.0**-16,
                                     2.0**-17, 0.1, math.inf, -math.inf]),
        # Powers of two; 3.0 and 1.5 * 2^-3 are ties between powers, which E8M0's rule sends up.
        "e8m0": (torch.float8_e8m0fnu, [1.0, 0.5, 2.0**-127, 2.0**127, 3.0, 1.5 * 2.0**-3, 1000.0]),
    }
    tensors, expected = {}, {"torch": torch.__version__, "tensors": {}}
    for name, (dtype, values) in inputs.items():
        x = torch.tensor(values, dtype=torch.float32)
        cast = x.to(dtype)
        tensors[name] = cast
        expected["tensors"][name] = {
            "inputs": [as_json(v) for v in x.tolist()],
            "codes": cast.view(torch.uint8).tolist(),
            "values": [as_json(v) for v in cast.float().tolist()],
        }
    return tensors, expected


def main(argv):
    out_dir = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "io", "data")
    os.makedirs(out_dir, exist_ok=True)
    tensors, metadata, expected = numpy_sample()
    save_file(tensors, os.path.join(out_dir, "numpy_written.safetensors"), metadata=metadata)
    with open(os.path.join(out_dir, "numpy_written.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print(f"wrote numpy_written.safetensors ({len(tensors)} tensors) with safetensors.numpy")
    try:
        save_torch, state, twin = torch_twin()
    except ImportError:
        print("torch is not installed: torch_twin.* left as they are")
        return 0
    save_torch(state, os.path.join(out_dir, "torch_twin.safetensors"))
    with open(os.path.join(out_dir, "torch_twin.json"), "w", encoding="utf-8") as f:
        json.dump(twin, f)
        f.write("\n")
    print(f"wrote torch_twin.safetensors with torch {twin['torch']}")
    fp8, fp8_expected = torch_fp8()
    save_torch(fp8, os.path.join(out_dir, "torch_fp8.safetensors"))
    with open(os.path.join(out_dir, "torch_fp8.json"), "w", encoding="utf-8") as f:
        json.dump(fp8_expected, f, indent=1)
        f.write("\n")
    print(f"wrote torch_fp8.safetensors with torch {fp8_expected['torch']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
