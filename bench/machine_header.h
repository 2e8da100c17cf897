#pragma once
// What tinyamp-bench runs on, printed first and repeated by the summary, so every table says which
// CPU and which GEMM tier produced it: the CPU's name, the features detected and those in use
// (TINYAMP_CPU caps them), AMX's status, the tier of each dtype's large product, and the per-core
// instruction peaks of tinyamp::backends::cpu::matmul_hardware().

#include <iosfwd>
#include <string>

#include <tinyamp/tinyamp.h>

namespace tinyamp::bench {

struct MachineInfo {
    std::string cpu_name;     ///< /proc/cpuinfo's model name (kernels::cpu::cpu_model_name)
    unsigned logical_cpus = 0;
    std::string detected;     ///< the CPU's features, e.g. "f16c avx2 fma"
    std::string in_use;       ///< after the TINYAMP_CPU cap
    std::string tinyamp_cpu;  ///< TINYAMP_CPU's value, "" when unset
    bool amx_in_use = false;
    std::string amx;          ///< "in use", "available but off: ..." or "not available: ..."
    std::string f32_tier, f16_tier, bf16_tier;  ///< the GEMM tier of a 2048^3 product of each dtype
    backends::cpu::MatmulHardware hardware;     ///< peaks, bf16_speed, expectation

    /// "GEMM tiers: f32 avx2, f16 avx2, bf16 avx2": what a table title repeats.
    std::string tiers() const;
};

/// Reads the CPU (and times its two instructions, a few milliseconds).
MachineInfo describe_machine();
void print_machine_header(std::ostream& out, const MachineInfo& machine);

}  // namespace tinyamp::bench
