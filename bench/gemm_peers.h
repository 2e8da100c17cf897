#pragma once
// The libraries tinyamp's GEMM is measured against, behind plain functions so that their headers
// (cblas.h, dnnl.hpp) stay in one .cpp each:
//  * OpenBLAS cblas_sgemm for f32 (gemm_peer_openblas.cpp);
//  * oneDNN's matmul primitive for bf16 x bf16 -> bf16 with f32 accumulation, tinyamp's bf16
//    contract (gemm_peer_onednn.cpp).
// All buffers are row-major without padding: A [m, k], B [k, n], C [m, n]; C = A B.

#include <cstdint>
#include <memory>
#include <string>

#include <tinyamp/tinyamp.h>

namespace tinyamp::bench {

/// openblas_set_num_threads: the most threads OpenBLAS uses from the next call on.
void openblas_set_threads(int threads);
void openblas_sgemm(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, float* c);
/// "OpenBLAS 0.3.21 (DYNAMIC_ARCH ... SkylakeX MAX_THREADS=64)": openblas_get_config and the core it picked.
std::string openblas_description();
/// True when OpenBLAS runs one of its AVX-512 kernels (SkylakeX, Cooperlake, SapphireRapids).
/// OpenBLAS picks them when it loads, from the CPU it finds, unless OPENBLAS_CORETYPE names
/// another core: OPENBLAS_CORETYPE=Haswell (set in this project's machines' environment) gives it
/// the AVX2 kernels, at about half the speed. main.cpp then sets OPENBLAS_CORETYPE to an AVX-512
/// core and starts the program again, so the peer runs as fast as it can on this CPU.
bool openblas_uses_avx512_kernels();

/// omp_set_num_threads: Debian's oneDNN runs on OpenMP. Set it before making a primitive, since
/// oneDNN plans its work split for the thread count it sees then.
void onednn_set_threads(int threads);
/// "oneDNN 2.6.3 (CPU runtime OMP)".
std::string onednn_description();

/// One oneDNN matmul primitive for one shape, made once (outside any timed loop) and run many times.
class OnednnBf16Matmul {
public:
    OnednnBf16Matmul(std::int64_t m, std::int64_t n, std::int64_t k);
    ~OnednnBf16Matmul();
    OnednnBf16Matmul(const OnednnBf16Matmul&) = delete;
    OnednnBf16Matmul& operator=(const OnednnBf16Matmul&) = delete;

    void run(const BFloat16* a, const BFloat16* b, BFloat16* c);
    /// The implementation oneDNN chose, e.g. "brg:avx512_core_bf16" (a reference one would be a bad peer).
    std::string implementation() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace tinyamp::bench
