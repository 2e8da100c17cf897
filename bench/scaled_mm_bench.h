#pragma once
// The scaled FP8 / MX matrix product (kernels/cpu/scaled_mm.h) against the f32 GEMM it runs on,
// measured in the same run: per-tensor E4M3 x E4M3 and MXFP8 (E4M3 elements, e8m0 scales, blocks
// of 32) on square N x N operands laid out as torch._scaled_mm takes them (A [N, K], B^T [N, K]),
// and the f32 gemm on the same layout. On a CPU without FP8 arithmetic scaled_mm decodes each
// operand to f32 and runs that gemm, so the ratio is the price of the decoding; the operands
// themselves are 4 times smaller (1 byte a value against 4).

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace tinyamp::bench {

class ResultCollector;

enum class ScaledMmCase { f32_gemm, e4m3_tensorwise, mxfp8 };

inline constexpr std::array<ScaledMmCase, 3> kScaledMmCases{ScaledMmCase::f32_gemm, ScaledMmCase::e4m3_tensorwise, ScaledMmCase::mxfp8};
inline constexpr std::array<std::int64_t, 3> kScaledMmSizes{256, 512, 1024};

/// "scaled_mm/mxfp8/n:512": the Google Benchmark name (usable in --benchmark_filter).
std::string scaled_mm_bench_name(ScaledMmCase c, std::int64_t n);

/// Registers every (N, case) pair with Google Benchmark, the cases of one N side by side.
void register_scaled_mm_benchmarks();

/// The table: for each N, the median time of each case, its ratio to the f32 GEMM, and the bytes
/// of its two operands (scales included). Sizes filtered out by --benchmark_filter are left out.
void print_scaled_mm_table(std::ostream& out, const ResultCollector& results);

}  // namespace tinyamp::bench
