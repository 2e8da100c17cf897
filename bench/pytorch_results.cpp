#include "bench/pytorch_results.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace tinyamp::bench {

std::optional<double> PytorchResults::find(const std::string& name) const
{
    const auto it = seconds.find(name);
    if (it == seconds.end()) return std::nullopt;
    return it->second;
}

std::string PytorchResults::bf16_unfair_reason() const
{
    if (probe_bf16_gflops >= 0.5 * probe_f32_gflops) return "";
    char text[200];
    std::snprintf(text, sizeof text,
                  "PyTorch's bf16 torch.mm runs at %.1f GFLOP/s here against %.1f in f32 (N = 256, 1 thread): no fast bf16 kernel for this CPU",
                  probe_bf16_gflops, probe_f32_gflops);
    return text;
}

std::string PytorchResults::description() const { return "PyTorch " + version + " (CPU capability " + cpu_capability + ")"; }

PytorchResults load_pytorch_results(const std::string& path)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read PyTorch's results '" + path + "'");
    PytorchResults r;
    r.file = path;
    try {
        const nlohmann::json json = nlohmann::json::parse(in);
        r.version = json.at("torch_version").get<std::string>();
        r.cpu_capability = json.at("cpu_capability").get<std::string>();
        r.probe_f32_gflops = json.at("mm_probe").at("f32_gflops").get<double>();
        r.probe_bf16_gflops = json.at("mm_probe").at("bf16_gflops").get<double>();
        for (const auto& [name, result] : json.at("results").items()) r.seconds[name] = result.at("median_s").get<double>();
        for (const auto& [name, why] : json.at("skipped").items()) r.skipped[name] = why.get<std::string>();
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error("'" + path + "' is not the JSON of bench/pytorch_peer.py: " + e.what());
    }
    return r;
}

}  // namespace tinyamp::bench
