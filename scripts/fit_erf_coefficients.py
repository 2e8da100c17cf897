#!/usr/bin/env python3
"""Fits the polynomial coefficients of kernels/cpu/erf_approx.h and prints them as C++ arrays.

    python3 scripts/fit_erf_coefficients.py        (needs numpy; the kernels' tests do not)

Each polynomial is fit by least squares on 4000 Chebyshev nodes, weighted for relative error, then
reweighted 30 times (Lawson's iteration) towards the smallest largest error, in double:
  kSmall  erf(x) / x = P(x^2) on (0, 1], degree 6 in x^2
  kLarge  erfcx(x) = e^(x^2) erfc(x) = Q(x - 2.5) on [1, 4], degree 11
  kExp    e^r on [-ln2/2, ln2/2], degree 6
The header keeps them rounded to f32. The accuracy that counts, of the f32 functions as compiled,
is measured by tests/kernels/gelu_kernel_test.cpp against libm.
"""
import math

import numpy as np


def fit(fn, lo, hi, degree, variable):
    k = np.arange(4000)
    xs = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / len(k))
    y = np.array([fn(x) for x in xs])
    basis = np.vander(variable(xs), degree + 1, increasing=True)
    relative = 1 / np.abs(y)
    weights = np.ones_like(xs)
    for _ in range(30):
        c, *_ = np.linalg.lstsq(basis * (relative * weights)[:, None], y * relative * weights, rcond=None)
        error = np.abs((basis @ c - y) * relative)
        weights *= (error / error.max() + 1e-3) ** 0.5
        weights /= weights.mean()
    return c, np.abs((basis @ c - y) * relative).max()


def show(name, coefficients, error):
    print(f"// largest relative error before rounding to f32: {error:.3g}")
    print(f"constexpr float {name}[] = {{" + ", ".join(f"{float(np.float32(c))!r}f" for c in coefficients) + "};")


def main():
    show("kSmall", *fit(lambda x: math.erf(x) / x, 1e-9, 1.0, 6, lambda x: x * x))
    show("kLarge", *fit(lambda x: math.exp(x * x) * math.erfc(x), 1.0, 4.0, 11, lambda x: x - 2.5))
    show("kExp", *fit(math.exp, -math.log(2) / 2, math.log(2) / 2, 6, lambda x: x))


if __name__ == "__main__":
    main()
