#pragma once
// PyTorch as a peer, where it is installed: bench/pytorch_peer.py times torch.mm, a Linear(8,8)
// forward, the digits epoch and the GPT step, and prints JSON; scripts/bench.sh hands that file to tinyamp-bench
// (--pytorch-results=FILE), whose summary prints tinyamp / PyTorch ratios from it. Without the
// flag the summary says that PyTorch was not measured; nothing here needs PyTorch to build.

#include <map>
#include <optional>
#include <string>

namespace tinyamp::bench {

struct PytorchResults {
    std::string file;            ///< where they were read from
    std::string version;         ///< torch.__version__, e.g. "2.15.0+cpu"
    std::string cpu_capability;  ///< torch.backends.cpu.get_cpu_capability(): "AVX2", "AVX512"...
    double probe_f32_gflops = 0, probe_bf16_gflops = 0;  ///< torch.mm at N = 256 on one thread
    std::map<std::string, double> seconds;               ///< the median per call (or epoch), by case name
    std::map<std::string, std::string> skipped;          ///< cases the script left out, and why

    /// The median of `name` ("gemm/pytorch_f32/n:1024/threads:1", "dispatch/linear_forward/plain",
    /// "digits_epoch/bf16"), or nullopt when it did not run.
    std::optional<double> find(const std::string& name) const;
    /// "" when PyTorch's bf16 products are a fair peer here; else why not: its bf16 torch.mm runs
    /// below half its f32 speed, so it has no fast bf16 kernel for this CPU (PyTorch 2.x on a CPU
    /// without AVX-512 falls back to its generic loops) and any ratio against it would flatter tinyamp.
    std::string bf16_unfair_reason() const;
    /// "PyTorch 2.15.0 (CPU capability AVX2)".
    std::string description() const;
};

/// Reads the JSON bench/pytorch_peer.py printed. Throws std::runtime_error, naming the file, when it
/// cannot be read or is not that JSON.
PytorchResults load_pytorch_results(const std::string& path);

}  // namespace tinyamp::bench
