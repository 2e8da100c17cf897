#!/usr/bin/env python3
"""Reads a safetensors file with only the standard library and NumPy, as a user of tinyamp's
files would, to show that NumPy sees the same numbers tinyamp wrote.

    read_safetensors_with_numpy.py FILE                   print the tensors
    read_safetensors_with_numpy.py FILE EXPECTED.json     compare with the values in EXPECTED.json
    ... --writer EXE                                      first run `EXE FILE EXPECTED.json`
    ... --library                                         read with Python's safetensors package
                                                          (safetensors.numpy, bf16 through ml-dtypes)
                                                          instead of the few lines below

EXPECTED.json is what tests/io/write_safetensors_sample.cpp writes:
{"metadata": {...}, "tensors": [{"name", "dtype", "shape", "values"}, ...]} in file order, with
"nan", "inf", "-inf" as strings. Exits 0 when everything matches, 1 when not, 77 (a skip for
CTest) when NumPy (or, with --library, safetensors or ml-dtypes) is not installed.
"""
import json
import math
import struct
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("NumPy is not installed for " + sys.executable + "; skipping (install python3-numpy)")
    sys.exit(77)

# Little-endian NumPy dtypes for the safetensors dtypes. BF16 has none: it is read as uint16
# and moved into the top half of a float32, which is what a bfloat16 is.
NUMPY_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "BOOL": "?", "BF16": "<u2"}


def read_safetensors(path):
    """Returns (metadata, [(name, dtype, numpy array)]) in the order of the data."""
    with open(path, "rb") as f:
        data = f.read()
    (header_length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_length].decode("utf-8"))
    buffer = data[8 + header_length :]
    metadata = header.pop("__metadata__", {})
    entries = sorted(header.items(), key=lambda item: tuple(item[1]["data_offsets"]))
    tensors, position = [], 0
    for name, entry in entries:
        begin, end = entry["data_offsets"]
        if begin != position:
            raise ValueError(f"{name}: data starts at {begin}, expected {position}")
        array = np.frombuffer(buffer[begin:end], dtype=NUMPY_DTYPES[entry["dtype"]])
        if entry["dtype"] == "BF16":
            array = (array.astype(np.uint32) << 16).view("<f4")
        tensors.append((name, entry["dtype"], array.reshape(entry["shape"])))
        position = end
    if position != len(buffer):
        raise ValueError(f"{len(buffer) - position} bytes after the last tensor")
    if header_length % 8 != 0:
        raise ValueError(f"the header length {header_length} is not a multiple of 8")
    return metadata, tensors


def read_with_library(path):
    """The same, read by the safetensors package itself: what a Python user would call."""
    try:
        import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy, which safetensors.numpy uses)
        from safetensors import safe_open
    except ImportError as e:
        print(f"{e} for {sys.executable}; skipping (pip install safetensors ml-dtypes)")
        sys.exit(77)
    names = {"float64": "F64", "float32": "F32", "float16": "F16", "bfloat16": "BF16", "int64": "I64", "bool": "BOOL"}
    with safe_open(path, framework="np") as f:
        metadata = f.metadata() or {}
        tensors = []
        for name in f.keys():
            array = f.get_tensor(name)
            dtype = names[array.dtype.name]
            if dtype == "BF16":
                array = array.astype(np.float32)  # exact: every bfloat16 is a float32
            tensors.append((name, dtype, array))
    # safe_open lists the names sorted; the comparison wants file order, which tinyamp's data offsets give.
    with open(path, "rb") as f:
        (header_length,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_length).decode("utf-8"))
    header.pop("__metadata__", None)
    order = sorted(header, key=lambda name: header[name]["data_offsets"][0])
    tensors.sort(key=lambda t: order.index(t[0]))
    return metadata, tensors


def as_float(value):
    return float(value) if isinstance(value, str) else value  # "nan", "inf", "-inf"


def same(got, want):
    """Exactly equal, -0.0 and 0.0 told apart, NaN equal to NaN."""
    if isinstance(want, (bool, int)) and not isinstance(got, float):  # I64 and BOOL
        return got == want and type(got) is type(want)
    want = as_float(want)
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


def compare(metadata, tensors, expected):
    problems = []
    if metadata != expected["metadata"]:
        problems.append(f"metadata {metadata} != {expected['metadata']}")
    names = [name for name, _, _ in tensors]
    want_names = [t["name"] for t in expected["tensors"]]
    if names != want_names:
        problems.append(f"tensors {names} != {want_names}")
    for (name, dtype, array), want in zip(tensors, expected["tensors"]):
        if dtype != want["dtype"] or list(array.shape) != want["shape"]:
            problems.append(f"{name}: {dtype} {list(array.shape)} != {want['dtype']} {want['shape']}")
            continue
        got = array.ravel().tolist()  # Python floats (exact), ints or bools
        for i, (g, w) in enumerate(zip(got, want["values"])):
            if not same(g, w):
                problems.append(f"{name}[{i}]: Python reads {g!r}, tinyamp wrote {w!r}")
    return problems


def main(argv):
    args = list(argv[1:])
    writer = None
    library = "--library" in args
    if library:
        args.remove("--library")
    if "--writer" in args:
        i = args.index("--writer")
        writer = args[i + 1]
        del args[i : i + 2]
    if len(args) not in (1, 2) or (writer and len(args) != 2):
        print(__doc__)
        return 2
    if writer:
        subprocess.run([writer] + args, check=True)

    metadata, tensors = read_with_library(args[0]) if library else read_safetensors(args[0])
    for name, dtype, array in tensors:
        print(f"{name}: {dtype} {list(array.shape)} {array.ravel().tolist()}")
    if len(args) == 1:
        return 0
    with open(args[1], encoding="utf-8") as f:
        expected = json.load(f)
    problems = compare(metadata, tensors, expected)
    for p in problems:
        print("MISMATCH " + p)
    if problems:
        return 1
    reader = "Python's safetensors package" if library else "NumPy"
    print(f"{reader} reads all {len(tensors)} tensors and the metadata exactly as tinyamp wrote them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
