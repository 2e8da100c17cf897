// Which GEMM tier gemm() picks: the best the CPU features allow, capped by TINYAMP_CPU, never a
// fast one for f64 or for products too small to repay the packing.
#include <doctest/doctest.h>

#include <cstring>
#include <optional>
#include <string>

#include <tinyamp/tinyamp.h>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/gemm.h"
#include "tests/support/gemm_matrices.h"

using namespace tinyamp;
using kernels::cpu::GemmTier;
namespace cpu = kernels::cpu;

namespace {

cpu::CpuFeatures every_feature()
{
    cpu::CpuFeatures f;
    f.f16c = f.avx2 = f.fma = f.avx512f = f.avx512bf16 = f.amx_bf16 = true;
    return f;
}

}  // namespace

TEST_CASE("gemm tiers: the best the CPU features allow, never for f64 or tiny products")
{
    const cpu::CpuFeatures all = every_feature(), portable{};
    CHECK(cpu::gemm_tier<BFloat16>(256, 256, 256, all) == GemmTier::amx);
    CHECK(cpu::gemm_tier<float>(256, 256, 256, all) == GemmTier::avx512);  // the bf16 kernels are for bf16 only
    CHECK(cpu::gemm_tier<Half>(256, 256, 256, all) == GemmTier::avx512);
    CHECK(cpu::gemm_tier<double>(256, 256, 256, all) == GemmTier::portable);
    CHECK(cpu::gemm_tier<float>(2, 2, 2, all) == GemmTier::portable);  // too small to repay the packing
    CHECK(cpu::gemm_tier<BFloat16>(256, 256, 256, portable) == GemmTier::portable);

    cpu::CpuFeatures no_amx = all;
    no_amx.amx_bf16 = false;
    CHECK(cpu::gemm_tier<BFloat16>(256, 256, 256, no_amx) == GemmTier::avx512_bf16);
    cpu::CpuFeatures amx_without_avx512 = all;  // no real CPU: the amx tier's packing and f32 products need AVX-512
    amx_without_avx512.avx512f = amx_without_avx512.avx512bf16 = false;
    CHECK(cpu::gemm_tier<BFloat16>(256, 256, 256, amx_without_avx512) == GemmTier::avx2);
    cpu::CpuFeatures no_bf16 = no_amx;
    no_bf16.avx512bf16 = false;
    CHECK(cpu::gemm_tier<BFloat16>(256, 256, 256, no_bf16) == GemmTier::avx512);  // widened to f32 while packing
    cpu::CpuFeatures avx2_only = no_bf16;
    avx2_only.avx512f = false;
    CHECK(cpu::gemm_tier<BFloat16>(256, 256, 256, avx2_only) == GemmTier::avx2);
    CHECK(cpu::gemm_tier<Half>(256, 256, 256, avx2_only) == GemmTier::avx2);
    cpu::CpuFeatures no_fma = avx2_only;
    no_fma.fma = false;
    CHECK(cpu::gemm_tier<float>(256, 256, 256, no_fma) == GemmTier::portable);
}

TEST_CASE("TINYAMP_CPU caps the features: portable, avx2, avx512, avx512bf16, amx, anything else is refused")
{
    const cpu::CpuFeatures all = every_feature();
    auto tier_under = [&](const char* setting) { return cpu::best_gemm_tier<BFloat16>(cpu::cap_cpu_features(all, setting).value()); };
    CHECK(tier_under("portable") == GemmTier::portable);
    CHECK(tier_under("avx2") == GemmTier::avx2);
    CHECK(tier_under("avx512") == GemmTier::avx512);
    CHECK(tier_under("avx512bf16") == GemmTier::avx512_bf16);
    CHECK(tier_under("amx") == GemmTier::amx);
    // Unset (an empty value): everything but AMX until its tier is verified on an AMX CPU.
    CHECK(tier_under("") == (cpu::kAmxOnByDefault ? GemmTier::amx : GemmTier::avx512_bf16));
    CHECK(cpu::cap_cpu_features(all, "portable")->str() == "portable");
    CHECK(cpu::cap_cpu_features(all, "avx2")->str() == "f16c avx2 fma");
    CHECK(cpu::cap_cpu_features(all, "amx")->str() == "f16c avx2 fma avx512f avx512bf16 amx");
    CHECK_FALSE(cpu::cap_cpu_features(all, "AVX2").has_value());
    CHECK_FALSE(cpu::cap_cpu_features(all, "sse").has_value());
    // A cap never adds what the CPU lacks.
    cpu::CpuFeatures old_cpu;
    old_cpu.f16c = old_cpu.avx2 = old_cpu.fma = true;
    CHECK(cpu::best_gemm_tier<float>(cpu::cap_cpu_features(old_cpu, "avx512bf16").value()) == GemmTier::avx2);
    CHECK(cpu::best_gemm_tier<BFloat16>(cpu::cap_cpu_features(old_cpu, "amx").value()) == GemmTier::avx2);
}

TEST_CASE("AMX is reported with the reason it cannot be used, and never in use unless the CPU has it")
{
    const cpu::CpuFeatures detected = cpu::detect_cpu_features();
    const std::string reason = cpu::amx_unavailable_reason();
    MESSAGE("CPU " << cpu::cpu_model_name() << "; detected " << detected.str() << "; AMX: " << (reason.empty() ? "available" : reason));
    CHECK(detected.amx_bf16 == reason.empty());
    if (!detected.amx_bf16) CHECK_FALSE(cpu::cpu_features().amx_bf16);
    CHECK_FALSE(cpu::cpu_model_name().empty());
}

TEST_CASE("gemm runs the tier cpu_features() allows: the reference's bits under TINYAMP_CPU=portable")
{
    const auto g =
        test::GemmCase<float, float>::make(cpu::Transpose::no, cpu::Transpose::no, 70, 90, 80, 1.0, 0.0, cpu::BiasAlong::rows, 3, 2);
    const auto dispatched = g.run([](auto... args) { cpu::gemm<float, float>(args...); });
    const auto reference = g.run([](auto... args) { cpu::gemm_reference<float, float>(args...); });
    const bool same_bits = std::memcmp(dispatched.data.data(), reference.data.data(), dispatched.data.size() * sizeof(float)) == 0;
    const GemmTier tier = cpu::gemm_tier<float>(70, 90, 80, cpu::cpu_features());
    MESSAGE("features in use: " << cpu::cpu_features().str() << "; gemm tier for f32 70x90x80: " << std::string(cpu::gemm_tier_name(tier)));
    CHECK(tier == cpu::best_gemm_tier<float>(cpu::cpu_features()));
    if (tier == GemmTier::portable) CHECK(same_bits);
}
