#pragma once
// The matrices every GEMM benchmark multiplies: A and B of one size in f32, and the same values
// rounded to f16 and bf16, made once per size and kept, so no timed loop pays for making them
// and every library multiplies the same numbers.

#include <cstdint>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::bench {

struct GemmInputs {
    std::int64_t m = 0, n = 0, k = 0;  ///< A is [m, k], B is [k, n], both row-major
    std::vector<float> a, b;
    std::vector<Half> a_f16, b_f16;
    std::vector<BFloat16> a_bf16, b_bf16;
};

/// Values uniform in [-1, 1) from a fixed seed (kGemmInputSeed), the same on every run.
GemmInputs make_gemm_inputs(std::int64_t m, std::int64_t n, std::int64_t k);

/// The square inputs of size n, made on first use and kept for the whole run.
const GemmInputs& square_gemm_inputs(std::int64_t n);

inline constexpr std::uint64_t kGemmInputSeed = 20261121;

}  // namespace tinyamp::bench
