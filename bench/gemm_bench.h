#pragma once
// GEMM throughput, C = A B on square N x N matrices: tinyamp in f32, f16 and bf16 against OpenBLAS
// sgemm (f32) and oneDNN's matmul (f32 and bf16), at 1 and 2 threads. Each library sets its own
// thread count: tinyamp::set_num_threads, openblas_set_num_threads, omp_set_num_threads (oneDNN).
// (PyTorch's torch.mm is measured by bench/pytorch_peer.py, outside this program.)

#include <array>
#include <cstdint>
#include <string>

namespace tinyamp::bench {

enum class GemmImpl { tinyamp_f32, openblas_f32, onednn_f32, tinyamp_f16, tinyamp_bf16, onednn_bf16 };

// In the order they run: the tinyamp cases side by side, and the two oneDNN ones, so the pause for
// the other libraries' spinning threads (library_switch.h) comes only when the library changes.
inline constexpr std::array<GemmImpl, 6> kGemmImpls{GemmImpl::openblas_f32, GemmImpl::tinyamp_f32, GemmImpl::tinyamp_f16,
                                                     GemmImpl::tinyamp_bf16, GemmImpl::onednn_bf16, GemmImpl::onednn_f32};
inline constexpr std::array<std::int64_t, 4> kGemmSizes{256, 512, 1024, 2048};
inline constexpr std::array<int, 2> kGemmThreads{1, 2};

/// "gemm/tinyamp_bf16/n:1024/threads:2": the Google Benchmark name (usable in --benchmark_filter).
std::string gemm_bench_name(GemmImpl impl, std::int64_t n, int threads);

/// Multiply-adds count twice: 2 N^3 floating-point operations per product.
inline double gemm_flops(std::int64_t n) { return 2.0 * double(n) * double(n) * double(n); }

/// Registers every (N, threads, library) case with Google Benchmark, in that order, so the
/// libraries take turns on the same N. A oneDNN dtype this oneDNN has no matmul for on this CPU
/// (onednn_unavailable_reason) is left out.
void register_gemm_benchmarks();

}  // namespace tinyamp::bench
