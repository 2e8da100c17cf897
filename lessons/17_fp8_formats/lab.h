#pragma once
// Lab 17: the FP8 formats. Write these in lab.cpp; check them with:  scripts/lab check 17
#include <tinyamp/tinyamp.h>

namespace tinyamp::lab17 {

/// The largest relative error of rounding a value in the normal range of the float dtype `dtype`
/// to its nearest number: half the gap between 1 and the next number, from its mantissa bits
/// (0.0625 for f8e4m3fn, 0.125 for f8e5m2).
double relative_error_bound(DType dtype);

/// The width of a minifloat format's range in binades, log2(largest finite / smallest positive
/// number), from its layout alone: `exponent_bits`, `mantissa_bits`, `bias` and how it spends the
/// codes whose exponent field is all ones (`specials`: ieee, fn or finite; every one of them has
/// subnormals). 17.807 for E4M3 (4, 3, 7, fn), 31.807 for E5M2 (5, 2, 15, ieee).
double range_binades(int exponent_bits, int mantissa_bits, int bias, minifloat::Specials specials);

/// Of the finite nonzero elements of `values`, the share that become exactly 0 when cast to the
/// dtype `dtype` with to() (0 when there are none).
double flushed_share(const Tensor& values, DType dtype);

/// The FP8 dtype for a tensor that a scale will slide so that its largest |value| meets the
/// format's max: f8e4m3fn (the more precise) when at most `max_share` of its finite nonzero values
/// lie more than E4M3's range in binades below its largest |value| (those a scale could not save
/// in E4M3), else f8e5m2 (the wider). A tensor with no finite nonzero value gets f8e4m3fn.
DType fp8_format_for(const Tensor& values, double max_share);

}  // namespace tinyamp::lab17
