#pragma once
// The libraries tinyamp's GEMM is measured against, behind plain functions so that their headers
// (cblas.h, dnnl.hpp) stay in one .cpp each:
//  * OpenBLAS cblas_sgemm for f32 (gemm_peer_openblas.cpp);
//  * oneDNN's matmul primitive for f32, and for bf16 x bf16 -> bf16 with f32 accumulation, tinyamp's
//    bf16 contract (gemm_peer_onednn.cpp): one class, parametrized by the dtype.
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
/// the AVX2 kernels, at about half the speed.
bool openblas_uses_avx512_kernels();
/// On an AVX-512 CPU where OpenBLAS did not pick AVX-512 kernels (OPENBLAS_CORETYPE=Haswell in the
/// environment, or an OpenBLAS too old to know the CPU: 0.3.21 picked Prescott, SSE3, on the lent
/// Xeon), sets OPENBLAS_CORETYPE to the core OpenBLAS picks for such a CPU by itself (Cooperlake
/// with AVX-512 BF16, SkylakeX without) and starts this program again, once, with `argv`, so the
/// peer runs as fast as it can here. Returns when nothing needs doing (or the restart failed,
/// which it says). Call it first thing in main.
void give_openblas_its_avx512_kernels(char** argv);

/// omp_set_num_threads: Debian's oneDNN runs on OpenMP. Set it before making a primitive, since
/// oneDNN plans its work split for the thread count it sees then.
void onednn_set_threads(int threads);
/// "oneDNN 2.6.3 (CPU runtime OpenMP)".
std::string onednn_description();

/// One oneDNN matmul primitive for one shape and one dtype, made once (outside any timed loop)
/// and run many times: f32 x f32 -> f32, or bf16 x bf16 -> bf16 with f32 accumulation (tinyamp's
/// bf16 contract). Plain row-major layouts for A, B and C, as tinyamp and OpenBLAS take them.
class OnednnMatmul {
public:
    /// `dtype` is f32 or bf16. Throws std::runtime_error when this oneDNN has no matmul for it on
    /// this CPU (oneDNN 2.6 has none for bf16 on an AVX2-only CPU): see onednn_unavailable_reason.
    OnednnMatmul(DType dtype, std::int64_t m, std::int64_t n, std::int64_t k);
    ~OnednnMatmul();
    OnednnMatmul(const OnednnMatmul&) = delete;
    OnednnMatmul& operator=(const OnednnMatmul&) = delete;

    /// T is float for an f32 primitive, BFloat16 for a bf16 one (std::logic_error otherwise).
    template <class T>
    void run(const T* a, const T* b, T* c)
    {
        run_untyped(dtype_of<T>(), a, b, c);
    }
    /// The implementation oneDNN chose, e.g. "brg:avx512_core_bf16" or "gemm:jit"; see onednn_is_reference.
    std::string implementation() const;

private:
    void run_untyped(DType dtype, const void* a, const void* b, void* c);
    struct State;
    std::unique_ptr<State> state_;
};

/// "" when oneDNN can make a matmul of `dtype` on this CPU, else oneDNN's own words for why not
/// (tried once per dtype, on a small product).
std::string onednn_unavailable_reason(DType dtype);
/// True for oneDNN's reference kernels ("ref:any", "ref_int8:any"...): plain loops that give the
/// right answer slowly, kept for CPUs it has no fast kernel for. No peer to compare speeds with.
bool onednn_is_reference(const std::string& implementation);
/// True when the implementation runs on AMX tiles ("brg:avx512_core_amx").
bool onednn_uses_amx(const std::string& implementation);

}  // namespace tinyamp::bench
