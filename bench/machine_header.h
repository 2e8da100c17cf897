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
    backends::cpu::MatmulHardware hardware;  ///< the CPU's name, features in use, f32 and bf16 tiers, peaks, expectation
    unsigned logical_cpus = 0;
    std::string detected;     ///< the CPU's features before the TINYAMP_CPU cap, e.g. "f16c avx2 fma"
    std::string tinyamp_cpu;  ///< TINYAMP_CPU's value, "" when unset
    bool amx_in_use = false;
    std::string amx;          ///< kernels::cpu::amx_status(): "in use ...", "available but off: ..." or "not available: ..."
    std::string f16_tier;     ///< the GEMM tier of a 2048^3 f16 product (f32's and bf16's are in `hardware`)

    /// "GEMM tiers: f32 avx2, f16 avx2, bf16 avx2": what a table title repeats.
    std::string tiers() const;
};

/// Reads the CPU (and times its two instructions, a few milliseconds).
MachineInfo describe_machine();
void print_machine_header(std::ostream& out, const MachineInfo& machine);

}  // namespace tinyamp::bench
