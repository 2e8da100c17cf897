#pragma once
// Before timing anything: each benchmarked GEMM (tinyamp f32/f16/bf16, OpenBLAS, oneDNN f32 and
// bf16) multiplies one small non-square problem, and its C is compared with tinyamp's reference
// GEMM on the same inputs, so nobody benchmarks garbage (a wrong layout, a transposed operand, a
// wrong dtype). A oneDNN dtype with no matmul on this CPU is reported, and left out.

#include <iosfwd>

namespace tinyamp::bench {

/// Prints one line per library (worst error as a fraction of the tolerance) and returns true
/// when all are within tolerance.
bool check_gemm_results(std::ostream& out);

}  // namespace tinyamp::bench
