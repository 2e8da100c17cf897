#include "kernels/cpu/cpu_features.h"

#include <cstdio>
#include <cstdlib>

namespace tinyamp::kernels::cpu {

std::string CpuFeatures::str() const
{
    std::string s;
    auto add = [&](bool on, const char* name) {
        if (!on) return;
        if (!s.empty()) s.push_back(' ');
        s.append(name);
    };
    add(f16c, "f16c");
    add(avx2, "avx2");
    add(fma, "fma");
    add(avx512f, "avx512f");
    add(avx512bf16, "avx512bf16");
    return s.empty() ? "portable" : s;
}

CpuFeatures detect_cpu_features()
{
    CpuFeatures f;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    // libgcc's checks include the OS side (XGETBV), so a feature is only reported when the OS
    // also saves its registers.
    __builtin_cpu_init();
    f.f16c = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
    f.avx2 = __builtin_cpu_supports("avx2");
    f.fma = __builtin_cpu_supports("fma");
    f.avx512f = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl");
    f.avx512bf16 = f.avx512f && __builtin_cpu_supports("avx512bf16");
#endif
    return f;
}

std::optional<CpuFeatures> cap_cpu_features(const CpuFeatures& detected, std::string_view setting)
{
    CpuFeatures f = detected;
    if (setting == "avx512bf16") return f;
    f.avx512bf16 = false;
    if (setting == "avx512") return f;
    f.avx512f = false;
    if (setting == "avx2") return f;
    if (setting == "portable") return CpuFeatures{};
    return std::nullopt;
}

const CpuFeatures& cpu_features()
{
    static const CpuFeatures chosen = [] {
        const CpuFeatures detected = detect_cpu_features();
        const char* env = std::getenv("TINYAMP_CPU");
        if (!env || !*env) return detected;
        if (const std::optional<CpuFeatures> capped = cap_cpu_features(detected, env)) return *capped;
        std::fprintf(stderr,
                     "tinyamp: warning: TINYAMP_CPU=%s is not one of portable, avx2, avx512, avx512bf16; ignoring it and using "
                     "every feature this CPU has (%s)\n",
                     env, detected.str().c_str());
        return detected;
    }();
    return chosen;
}

}  // namespace tinyamp::kernels::cpu
