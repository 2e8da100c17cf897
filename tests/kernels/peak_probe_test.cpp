// The instruction peaks: measured (a positive, finite figure) for each tier this CPU has, 0 for
// the portable tier and for the tiers it lacks. No figure is compared with a speed: timings are
// for the benchmark, not for tests.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <tinyamp/tinyamp.h>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/peak_probe.h"

using namespace tinyamp;
using kernels::cpu::GemmTier;
namespace cpu = kernels::cpu;

TEST_CASE("instruction_peak_gflops measures each tier's instruction this CPU has, and gives 0 for the rest")
{
    const cpu::CpuFeatures f = cpu::detect_cpu_features();
    CHECK(cpu::instruction_peak_gflops<float>(GemmTier::portable) == 0.0);
    CHECK(cpu::instruction_peak_gflops<BFloat16>(GemmTier::portable) == 0.0);
    auto check = [](double gflops, bool available, const char* what) {
        INFO(std::string(what) << ": " << gflops << " GFLOP/s");
        if (!available) {
            CHECK(gflops == 0.0);
            return;
        }
        CHECK(std::isfinite(gflops));
        CHECK(gflops > 0.0);
        MESSAGE(std::string(what) << ": " << gflops << " GFLOP/s on one core");
    };
    check(cpu::instruction_peak_gflops<float>(GemmTier::avx2), f.avx2 && f.fma, "avx2 FMA (f32)");
    check(cpu::instruction_peak_gflops<float>(GemmTier::avx512), f.avx512f && f.fma, "avx512 FMA (f32)");
    check(cpu::instruction_peak_gflops<BFloat16>(GemmTier::avx512_bf16), f.avx512f && f.fma && f.avx512bf16, "vdpbf16ps (bf16)");
    check(cpu::instruction_peak_gflops<BFloat16>(GemmTier::amx), f.amx_bf16, "tdpbf16ps (bf16)");
    // f32 on the bf16-only tiers runs the avx512 kernel: its FMA is what gets measured.
    check(cpu::instruction_peak_gflops<float>(GemmTier::amx), f.avx512f && f.fma, "avx512 FMA (f32 on the amx tier)");
}
