#pragma once
// Lab 02: number formats. Write these in lab.cpp; check them with:  scripts/lab check 02
#include <tinyamp/tinyamp.h>

namespace tinyamp::lab02 {

/// `value` as `dtype` stores it (rounded to nearest, ties to even; inf on overflow, 0 on underflow).
double round_to(double value, DType dtype);

/// For a positive normal number x of `dtype`, the gap to the next larger number of `dtype`.
double spacing_at(double x, DType dtype);

/// True when `value` survives storage in `dtype`: it stays finite and, if it was not 0, non-zero.
bool survives_in(double value, DType dtype);

}  // namespace tinyamp::lab02
