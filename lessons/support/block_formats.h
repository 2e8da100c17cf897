#pragma once
// NVFP4 by its rules, for lesson 19 (step by step, where fp8_linear does it all at once): the values a tensor
// keeps after NVIDIA's two-level FP4 cast, computed with the public rule functions
// (amp::nvfp4_tensor_scale, amp::nvfp4_block_scale) and minifloat::encode / decode, as torchao's
// nvfp4_quantize does. Lab 19.2 asks the student to write the same thing.
//
//   const std::vector<double> kept = lesson::nvfp4_round_trip(values);   // E2M1 x E4M3 per 16 x f32
#include <vector>

namespace tinyamp::lesson {

/// `values` (one tensor, read in blocks of 16) cast to NVFP4 and decoded back: one f32 tensor
/// scale amax / (448 * 6), one E4M3 scale per block of 16 from the block's amax, E2M1 codes of
/// value / (block scale * tensor scale), saturating at 6.
std::vector<double> nvfp4_round_trip(const std::vector<double>& values);

}  // namespace tinyamp::lesson
