#pragma once
// Lab 19: block scaling, by hand. Write these in lab.cpp; check them with:  scripts/lab check 19
// Each function returns the values a cast keeps, decoded back to double, so that a test can
// compare them with the values it started from.
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab19 {

/// One scale for the whole tensor: s = format.max / amax (in f32), each value cast to
/// `format` as x * s (minifloat::encode, saturating) and decoded divided by s. All zeros stay zeros.
std::vector<double> per_tensor_round_trip(const std::vector<double>& values, const minifloat::Format& format);

/// MX: blocks of 32 consecutive values (the last may be shorter), each with the E8M0 scale
/// amp::mx_block_scale(block amax, element, mode), that is 2^(code - 127); each value is cast to
/// `element` as x / 2^(code - 127) (saturating) and decoded times 2^(code - 127).
std::vector<double> mx_round_trip(const std::vector<double>& values, const minifloat::Format& element, amp::ScaleCalculationMode mode);

/// NVFP4: one f32 tensor scale t = amp::nvfp4_tensor_scale(amax of all values); blocks of 16 with
/// the E4M3 scale b = decode(amp::nvfp4_block_scale(block amax, t)); each value cast to E2M1 as
/// x / (b * t) (in f32, saturating at 6) and decoded times b * t.
std::vector<double> nvfp4_round_trip(const std::vector<double>& values);

}  // namespace tinyamp::lab19
