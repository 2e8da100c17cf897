#include "bench/machine_header.h"

#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <thread>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/gemm.h"

namespace tinyamp::bench {

namespace {

namespace k = kernels::cpu;

// The tier of a product large enough for any tier (the benchmark's N = 2048).
template <class In>
std::string large_product_tier()
{
    return k::gemm_tier_name(k::gemm_tier<In>(2048, 2048, 2048, k::cpu_features()));
}

}  // namespace

std::string MachineInfo::tiers() const
{
    return "GEMM tiers: f32 " + hardware.f32_tier + ", f16 " + f16_tier + ", bf16 " + hardware.bf16_tier;
}

MachineInfo describe_machine()
{
    MachineInfo m;
    const k::CpuFeatures detected = k::detect_cpu_features(), in_use = k::cpu_features();
    const char* setting = std::getenv("TINYAMP_CPU");
    m.logical_cpus = std::thread::hardware_concurrency();
    m.detected = detected.str();
    m.tinyamp_cpu = setting ? setting : "";
    m.amx_in_use = in_use.amx_bf16;
    m.amx = k::amx_status(detected, in_use, m.tinyamp_cpu);
    m.f16_tier = large_product_tier<Half>();  // f32's and bf16's are in `hardware`
    m.hardware = backends::cpu::matmul_hardware();
    return m;
}

void print_machine_header(std::ostream& out, const MachineInfo& m)
{
    const backends::cpu::MatmulHardware& hw = m.hardware;
    char peaks[200];
    if (hw.f32_peak_gflops > 0)
        std::snprintf(peaks, sizeof peaks,
                      "  per-core instruction peaks, in registers: f32 %.0f GFLOP/s, bf16 %.0f GFLOP/s (%.1fx): bf16 products ", hw.f32_peak_gflops, hw.bf16_peak_gflops, hw.peak_ratio());
    else
        std::snprintf(peaks, sizeof peaks, "  per-core instruction peaks: not measured (no vector tier in use): bf16 products ");
    out << "  CPU: " << hw.cpu_name << ", " << m.logical_cpus << " logical CPUs\n"
        << "  features: detected " << m.detected << "; in use " << hw.features
        << (m.tinyamp_cpu.empty() ? " (TINYAMP_CPU unset)" : " (TINYAMP_CPU=" + m.tinyamp_cpu + ")") << '\n'
        << "  AMX: " << m.amx << '\n'
        << "  " << m.tiers() << " (the tier of each dtype's large products)\n"
        << "  bf16 is multiplied by " << hw.bf16_instruction << '\n'
        << peaks << backends::cpu::bf16_speed_name(hw.bf16_speed) << '\n'
        << "  expectation: " << hw.expectation << '\n';
}

}  // namespace tinyamp::bench
