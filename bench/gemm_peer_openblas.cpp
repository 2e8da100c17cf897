#include <cblas.h>  // OpenBLAS's own cblas.h (its include folder comes first, see CMakeLists.txt)

#include "bench/gemm_peers.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "kernels/cpu/cpu_features.h"

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

void give_openblas_its_avx512_kernels(char** argv)
{
    const kernels::cpu::CpuFeatures cpu = kernels::cpu::detect_cpu_features();
    if (openblas_uses_avx512_kernels() || !cpu.avx512f || std::getenv("TINYAMP_BENCH_RESTARTED")) return;
    const char* before = std::getenv("OPENBLAS_CORETYPE");
    const char* core = cpu.avx512bf16 ? "Cooperlake" : "SkylakeX";
    std::cout << "OpenBLAS chose its " << openblas_get_corename() << " kernels on this AVX-512 CPU (OPENBLAS_CORETYPE="
              << (before ? before : "unset") << "): starting again with OPENBLAS_CORETYPE=" << core << '\n'
              << std::flush;
    setenv("OPENBLAS_CORETYPE", core, 1);
    setenv("TINYAMP_BENCH_RESTARTED", "1", 1);  // never more than once
    execv("/proc/self/exe", argv);
    std::cout << "  could not start again (" << std::strerror(errno) << "): OpenBLAS keeps its " << openblas_get_corename() << " kernels\n";
}

}  // namespace tinyamp::bench
