// The scenarios' options: the named presets and the one-line summary.
#include <cmath>
#include <sstream>
#include <utility>

#include "visualizer/scenarios/scenario.h"

namespace tinyamp::viz {

namespace {

using Preset = std::pair<std::string, ScenarioOptions>;

const std::vector<Preset>& presets()
{
    static const std::vector<Preset> all = {
        {"mlp-bf16", {}},
        // The GPU's lists in f16 with a scaler. PyTorch's defaults (init_scale 2^16, growth_interval
        // 2000) would draw a flat line over the few dozen steps a student clicks through. From 2^24
        // the first steps overflow (skipped, the scale halves each time) until the gradients fit in
        // f16; then every 5 clean steps the scale doubles, until it overflows again: a sawtooth
        // (measured on seed 0: 6 skipped steps down to 2^18, then it swings between 2^18 and 2^19).
        {"mlp-f16-scaler",
         {.dtype = f16,
          .table = amp::PolicyTable::cuda(),
          .scaler = true,
          .scaler_options = {.init_scale = 16777216.0 /* 2^24 */, .growth_interval = 5}}},
        // The same without the scaler: small gradients underflow to zero in f16.
        {"mlp-f16", {.dtype = f16, .table = amp::PolicyTable::cuda()}},
        {"mlp-f32", {.autocast = false}},
        {"cnn-bf16", {.model = "cnn"}},
        // One forward pass a step keeps the big graph readable.
        {"deep-bf16", {.model = "deep", .micro_batches = 1}},
        // FP8 training: every Linear through fp8_linear (f32 elsewhere, as tinyamp-train's FP8
        // modes), one forward pass a step. Delayed scaling shows the amax history growing step by
        // step; MXFP8 the block scales.
        {"mlp-fp8-delayed", {.autocast = false, .micro_batches = 1, .fp8 = "delayed"}},
        {"mlp-mxfp8", {.autocast = false, .micro_batches = 1, .fp8 = "mxfp8"}},
    };
    return all;
}

std::string joined_names()
{
    std::string out;
    for (const Preset& p : presets()) out.append(out.empty() ? "" : ", ").append(p.first);
    return out;
}

// "cpu table", "cuda table, edited" (a built-in table the GUI changed) or "custom table".
std::string table_text(const amp::PolicyTable& table)
{
    std::string out = std::string(table.name()).append(" table");
    const bool cpu = table.name() == "cpu", cuda = table.name() == "cuda";
    if ((cpu && table != amp::PolicyTable::cpu()) || (cuda && table != amp::PolicyTable::cuda())) out.append(", edited");
    return out;
}

// Loss scales are powers of two: "2^24" reads better than 1.67772e+07.
std::string scale_text(double scale)
{
    int exponent = 0;
    if (scale > 0 && std::frexp(scale, &exponent) == 0.5) return std::string("2^").append(std::to_string(exponent - 1));
    std::ostringstream out;
    out << scale;
    return out.str();
}

}  // namespace

std::vector<std::string> Scenario::names()
{
    std::vector<std::string> out;
    for (const Preset& p : presets()) out.push_back(p.first);
    return out;
}

ScenarioOptions Scenario::preset(const std::string& name)
{
    for (const Preset& p : presets())
        if (p.first == name) return p.second;
    TINYAMP_FAIL(value, "unknown scenario '", name, "': choose one of ", joined_names());
}

std::string Scenario::summary() const
{
    std::string out = options_.model;
    if (options_.autocast)
        out.append(", autocast ")
            .append(dtype_name(options_.dtype))
            .append(" (")
            .append(table_text(options_.table))
            .append("), cast cache ")
            .append(options_.cache_enabled ? "on" : "off");
    else
        out.append(", autocast off (f32)");
    if (!options_.fp8.empty()) out.append(", Linear layers in FP8 (").append(options_.fp8).append(" scaling)");
    if (options_.scaler)
        out.append(", GradScaler at ").append(scale_text(history_.empty() ? 1.0 : history_.back().scale));
    else
        out.append(", no GradScaler");
    return out.append(", step ").append(std::to_string(history_.size()));
}

}  // namespace tinyamp::viz
