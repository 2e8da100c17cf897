#!/usr/bin/env python3
"""Writes tests/core/data/minifloat_ml_dtypes.txt: what ml_dtypes says about tinyamp's FP8 / MX formats.

For each format (f8e4m3fn, f8e5m2, e8m0, f4e2m1 = ml_dtypes' float8_e4m3fn, float8_e5m2,
float8_e8m0fnu, float4_e2m1fn):
  - `decode CODE F32BITS`: every code's value, as ml_dtypes converts it to float32;
  - 2^20 f32 inputs drawn with splitmix64 (below; tests/core/minifloat_oracle_test.cpp draws the
    same ones) and converted by ml_dtypes (astype, which does not saturate): `chunk I FNV` is the
    64-bit FNV-1a hash of the codes of inputs [4096 I, 4096 (I + 1)), and `pair BITS CODE` lists
    the first 1024 inputs with their codes, so a failing test can name an input.

The C++ test needs none of this: the file is committed. Run it again (same bytes: it is
deterministic) after a change of ml_dtypes:
    python3 tools/minifloat/make_ml_dtypes_oracle.py tests/core/data/minifloat_ml_dtypes.txt
"""
import sys

import ml_dtypes
import numpy as np

COUNT = 1 << 20   # inputs per format
CHUNK = 4096      # inputs per hash
PAIRS = 1024      # inputs written out with their codes

# name, ml_dtypes type, code bits, mantissa bits, exponent range of the "near the format" inputs
# (from two binades below the smallest subnormal to two above max, within f32's normals), seed.
FORMATS = [
    ("f8e4m3fn", ml_dtypes.float8_e4m3fn, 8, 3, -11, 10, 0x7E4D3F0000000001),
    ("f8e5m2", ml_dtypes.float8_e5m2, 8, 2, -18, 17, 0x7E5D2F0000000002),
    ("e8m0", ml_dtypes.float8_e8m0fnu, 8, 0, -126, 127, 0x7E8D0F0000000003),
    ("f4e2m1", ml_dtypes.float4_e2m1fn, 4, 1, -3, 4, 0x7E2D1F0000000004),
]

MASK64 = (1 << 64) - 1


def splitmix64(seed, count):
    """The i-th output (i = 0, 1, ...) of splitmix64 started at `seed`: a counter-based
    generator, so the C++ test computes the same numbers in the same order."""
    z = (np.uint64(seed) + np.arange(1, count + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def draw_inputs(seed, mantissa_bits, lo, hi):
    """f32 bit patterns: half of them any pattern (r >> 32), a quarter a random value with an
    exponent in [lo, hi], a quarter such a value with only the top mantissa_bits + 1 fraction
    bits (the format's values and the exact midpoints between them: ties)."""
    r = splitmix64(seed, COUNT)
    kind = r & np.uint64(3)
    raw = r >> np.uint64(32)
    sign = (r >> np.uint64(2)) & np.uint64(1)
    # the f32 exponent field: lo + 127 + (16 bits of r) mod (hi - lo + 1)
    offset = ((r >> np.uint64(8)) & np.uint64(0xFFFF)) % np.uint64(hi - lo + 1)
    field = offset + np.uint64(lo + 127)
    fraction = raw & np.uint64(0x7FFFFF)
    tie_mask = np.uint64(0x7FFFFF & ~((1 << (22 - mantissa_bits)) - 1))
    fraction = np.where(kind == np.uint64(3), fraction & tie_mask, fraction)
    near = (sign << np.uint64(31)) | (field << np.uint64(23)) | fraction
    return np.where(kind < np.uint64(2), raw, near).astype(np.uint32)


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & MASK64
    return h


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else "tests/core/data/minifloat_ml_dtypes.txt"
    lines = [
        "# ml_dtypes' conversions for tinyamp's FP8 / MX formats; written by",
        "# tools/minifloat/make_ml_dtypes_oracle.py (see there), read by tests/core/minifloat_oracle_test.cpp.",
        f"# ml_dtypes {ml_dtypes.__version__}, numpy {np.__version__}",
        "# format NAME ML_DTYPES_NAME BITS MANTISSA_BITS LO HI SEED COUNT CHUNK",
    ]
    np.seterr(all="ignore")
    for name, dtype, bits, mantissa, lo, hi, seed in FORMATS:
        lines.append(f"format {name} {dtype.__name__} {bits} {mantissa} {lo} {hi} {seed:#018x} {COUNT} {CHUNK}")
        codes = np.arange(1 << bits, dtype=np.uint8)
        values = codes.view(dtype).astype(np.float32).view(np.uint32)
        for c, v in zip(codes.tolist(), values.tolist()):
            lines.append(f"decode {c:#04x} {v:#010x}")
        inputs = draw_inputs(seed, mantissa, lo, hi)
        encoded = inputs.view(np.float32).astype(dtype).view(np.uint8)
        assert int(encoded.max()) < (1 << bits)
        for i in range(COUNT // CHUNK):
            lines.append(f"chunk {i} {fnv1a64(encoded[i * CHUNK:(i + 1) * CHUNK].tobytes()):#018x}")
        for b, c in zip(inputs[:PAIRS].tolist(), encoded[:PAIRS].tolist()):
            lines.append(f"pair {b:#010x} {c:#04x}")
    lines.append("end")
    with open(out_path, "w", encoding="ascii", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
