#include <cblas.h>  // OpenBLAS's own cblas.h (its include folder comes first, see CMakeLists.txt)

#include "bench/gemm_peers.h"

#include <cctype>
#include <string>

namespace tinyamp::bench {

void openblas_set_threads(int threads) { openblas_set_num_threads(threads); }

void openblas_sgemm(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, float* c)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(m), blasint(n), blasint(k), 1.0f, a, blasint(k), b, blasint(n), 0.0f,
                c, blasint(n));
}

std::string openblas_description()
{
    return std::string(openblas_get_config()) + ", core " + openblas_get_corename();
}

bool openblas_uses_avx512_kernels()
{
    std::string core = openblas_get_corename();
    for (char& ch : core) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    for (const char* avx512_core : {"skylakex", "cooperlake", "sapphirerapids"})
        if (core.find(avx512_core) != std::string::npos) return true;
    return false;
}

}  // namespace tinyamp::bench
