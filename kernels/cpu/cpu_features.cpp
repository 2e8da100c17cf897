#include "kernels/cpu/cpu_features.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif
#if defined(__x86_64__) && defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

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
    add(amx_bf16, "amx");
    return s.empty() ? "portable" : s;
}

namespace {

// AMX takes three yeses: the CPU has the tiles and tdpbf16ps (CPUID), the OS saves the tile
// registers on a context switch (XCR0), and Linux lets this process use them. Linux (5.16 on)
// leaves the 8 KiB tile state off for each process until it asks, so that programs which never
// use AMX do not pay for it in every signal frame; the first tile instruction without leave
// kills the process with SIGILL. Asked once; "" when all three said yes.
std::string find_amx_unavailable_reason()
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return "this CPU does not report its extended features (CPUID leaf 7)";
    const bool amx_tile = (edx >> 24) & 1u, amx_bf16 = (edx >> 22) & 1u;  // CPUID.(7,0):EDX bits 24 and 22
    if (!amx_tile || !amx_bf16) return "this CPU has no AMX-BF16 (no tile matrix unit)";
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !((ecx >> 27) & 1u)) return "the OS has not enabled XSAVE (OSXSAVE)";
    unsigned xcr0_low = 0, xcr0_high = 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if (((xcr0_low >> 17) & 3u) != 3u) return "the OS does not save the AMX tile state (XCR0 bits 17 and 18 are off)";
#if defined(__linux__)
    constexpr long kArchReqXcompPerm = 0x1023;  // arch_prctl: ask for an extended state component
    constexpr long kXfeatureXtiledata = 18;     // the tile data (the 8 x 1 KiB registers)
    if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0)
        return std::string("Linux refused the AMX tile state (arch_prctl ARCH_REQ_XCOMP_PERM: ") + std::strerror(errno) +
               "; Linux 5.16 or newer grants it)";
    return "";
#else
    return "tinyamp asks for the AMX tile state only on Linux";
#endif
#else
    return "AMX is an x86-64 feature";
#endif
}

}  // namespace

std::string amx_unavailable_reason()
{
    static const std::string reason = find_amx_unavailable_reason();
    return reason;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// F16C from CPUID leaf 1 (ECX bit 29): Clang 14's __builtin_cpu_supports does not know "f16c"
// (GCC's does), and the fuzzing build uses Clang. The OS side is the AVX check beside it.
bool cpuid_has_f16c()
{
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) != 0;
}
#endif

CpuFeatures detect_cpu_features()
{
    CpuFeatures f;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    // libgcc's checks include the OS side (XGETBV), so a feature is only reported when the OS
    // also saves its registers.
    __builtin_cpu_init();
    f.f16c = cpuid_has_f16c() && __builtin_cpu_supports("avx");
    f.avx2 = __builtin_cpu_supports("avx2");
    f.fma = __builtin_cpu_supports("fma");
    f.avx512f = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl");
    f.avx512bf16 = f.avx512f && __builtin_cpu_supports("avx512bf16");
    f.amx_bf16 = amx_unavailable_reason().empty();
#endif
    return f;
}

std::optional<CpuFeatures> cap_cpu_features(const CpuFeatures& detected, std::string_view setting)
{
    CpuFeatures f = detected;
    if (setting == "amx") return f;
    f.amx_bf16 = false;
    if (setting.empty()) {  // unset: everything, AMX too unless kAmxOnByDefault is false
        f.amx_bf16 = kAmxOnByDefault && detected.amx_bf16;
        return f;
    }
    if (setting == "avx512bf16") return f;
    f.avx512bf16 = false;
    if (setting == "avx512") return f;
    f.avx512f = false;
    if (setting == "avx2") return f;
    if (setting == "portable") return CpuFeatures{};
    return std::nullopt;
}

std::string cpu_model_name()
{
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);)
        if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
            const std::size_t start = line.find_first_not_of(" \t", line.find(':') + 1);
            if (start != std::string::npos) return line.substr(start);
        }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    unsigned regs[12] = {};
    if (__get_cpuid(0x80000004u, &regs[0], &regs[1], &regs[2], &regs[3])) {
        for (unsigned leaf = 0; leaf < 3; ++leaf)
            __get_cpuid(0x80000002u + leaf, &regs[4 * leaf], &regs[4 * leaf + 1], &regs[4 * leaf + 2], &regs[4 * leaf + 3]);
        std::string brand(reinterpret_cast<const char*>(regs), sizeof(regs));
        brand = brand.substr(0, brand.find('\0'));
        const std::size_t start = brand.find_first_not_of(' ');
        if (start != std::string::npos) return brand.substr(start);
    }
#endif
    return "unknown CPU";
}

std::string amx_status(const CpuFeatures& detected, const CpuFeatures& in_use, std::string_view setting)
{
    if (!detected.amx_bf16) return "not available: " + amx_unavailable_reason();
    if (in_use.amx_bf16) return "in use (the amx GEMM tier)";
    if (setting.empty())
        return kAmxOnByDefault ? "available but off" : "available but off: kAmxOnByDefault is false (TINYAMP_CPU=amx turns it on)";
    return "available, left out by TINYAMP_CPU=" + std::string(setting);
}

const CpuFeatures& cpu_features()
{
    static const CpuFeatures chosen = [] {
        const CpuFeatures detected = detect_cpu_features();
        const char* env = std::getenv("TINYAMP_CPU");
        const std::string_view setting = env ? env : "";
        std::optional<CpuFeatures> capped = cap_cpu_features(detected, setting);
        if (!capped) {
            std::fprintf(stderr,
                         "tinyamp: warning: TINYAMP_CPU=%s is not one of portable, avx2, avx512, avx512bf16, amx; ignoring it and "
                         "using what this CPU has (%s)\n",
                         env, detected.str().c_str());
            capped = cap_cpu_features(detected, "");
        }
        const char* debug = std::getenv("TINYAMP_DEBUG");
        if (debug && *debug && std::strcmp(debug, "0") != 0) {
            std::fprintf(stderr, "tinyamp: CPU %s; detected: %s; in use: %s; AMX %s\n", cpu_model_name().c_str(), detected.str().c_str(),
                         capped->str().c_str(), amx_status(detected, *capped, setting).c_str());
        }
        return *capped;
    }();
    return chosen;
}

}  // namespace tinyamp::kernels::cpu
