#include "kernels/cpu/cpu_features.h"

#include <cstdlib>
#include <string_view>

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

const CpuFeatures& cpu_features()
{
    static const CpuFeatures chosen = [] {
        const char* env = std::getenv("TINYAMP_CPU");
        if (env && std::string_view(env) == "portable") return CpuFeatures{};
        return detect_cpu_features();
    }();
    return chosen;
}

}  // namespace tinyamp::kernels::cpu
