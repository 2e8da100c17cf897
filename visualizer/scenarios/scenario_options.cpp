// The scenarios' options: the named presets and the one-line summary.
#include <cmath>
#include <sstream>
#include <utility>

#include "visualizer/scenarios/scenario.h"

namespace tinyamp::viz {

namespace {

// A named scenario: its options, and where it opens.
struct Preset {
    std::string name;
    ScenarioOptions options;
    Opening opening;
};

// The character GPT (one block, 2 heads, width 16) on 2 windows of 12 characters of the King
// James text, in f16 on the CPU list with a GradScaler at PyTorch's defaults (2^16, growth every
// 2000 steps): f16, because the attention's ranges are what f16 tests (its logits against 65504,
// its gradients against 2^-14 and 2^-24): without the scaler every value of q's gradient (the
// attention's backward) is an f16 subnormal, at 2^16 all but a few are normal. The sizes
// keep every dimension apart in the labels: B 2, T 12, C 16, heads 2, head_dim 8, logits
// [2, 2, 12, 12]. lr 0.1 takes the loss from ln 62 = 4.13 to about 3 in 30 steps (momentum SGD
// as the other scenarios; 0.5 barely learns, 1 diverges).
ScenarioOptions gpt_preset(bool fused_attention)
{
    return {.model = "gpt",
            .dtype = f16,
            .scaler = true,
            .lr = 0.1,
            .batch_size = 2,
            .micro_batches = 1,
            .fused_attention = fused_attention};
}

const std::vector<Preset>& presets()
{
    static const std::vector<Preset> all = {
        // bf16 autocast on the CPU list: the first Linear's layer unfolded, its input and weights
        // cast to bf16 (the weights through the cast cache), the linear in bf16.
        {"mlp-bf16", {}, {.select = "linear"}},
        // The GPU's lists in f16 with a scaler. PyTorch's defaults (init_scale 2^16, growth_interval
        // 2000) would draw a flat line over the few dozen steps a student clicks through. From 2^24
        // the first steps overflow (skipped, the scale halves each time) until the gradients fit in
        // f16; then every 5 clean steps the scale doubles, until it overflows again: a sawtooth
        // (measured on seed 0: 6 skipped steps down to 2^18, then it swings between 2^18 and 2^19).
        // It opens on the first step's overflow: the last Linear's backward, every value inf,
        // under the cast's backward where the scaled gradient overflowed f16.
        {"mlp-f16-scaler",
         {.dtype = f16,
          .table = amp::PolicyTable::cuda(),
          .scaler = true,
          .scaler_options = {.init_scale = 16777216.0 /* 2^24 */, .growth_interval = 5}},
         {.select = "module:4:backward"}},
        // The same without the scaler: small gradients underflow to zero in f16. It opens on the
        // first Linear's backward, the smallest gradients, down to f16's subnormals.
        {"mlp-f16", {.dtype = f16, .table = amp::PolicyTable::cuda()}, {.select = "module:0:backward"}},
        // f32: the same gradients, with what f16 would flush of them.
        {"mlp-f32", {.autocast = false}, {.select = "module:0:backward"}},
        {"cnn-bf16", {.model = "cnn"}, {.select = "conv2d"}},
        // One forward pass a step keeps the big graph readable. It opens on the first layer, its
        // casts on a badge, beside its backward.
        {"deep-bf16", {.model = "deep", .micro_batches = 1}, {.select = "module:0"}},
        // FP8 training: every Linear through fp8_linear (f32 elsewhere, as tinyamp-train's FP8
        // modes), one forward pass a step. Delayed scaling shows the amax history growing step by
        // step; MXFP8 the block scales. Each opens on the first fp8_linear and its casts.
        {"mlp-fp8-delayed", {.autocast = false, .micro_batches = 1, .fp8 = "delayed"}, {.select = "fp8_linear"}},
        {"mlp-mxfp8", {.autocast = false, .micro_batches = 1, .fp8 = "mxfp8"}, {.select = "fp8_linear"}},
        // A one-block character GPT (gpt_preset says why these settings): its attention as one
        // fused op, or as the composite reference's matmul, mul, masked_fill, softmax, matmul.
        {"gpt", gpt_preset(true), {.select = "scaled_dot_product_attention"}},
        {"gpt-composite", gpt_preset(false), {.select = "softmax"}},
        // Rank 0 of a 2-rank DistributedDataParallel step of the digits MLP (f32), its gradients
        // all-reduced in bf16 in 3 buckets (tools/ddp_trace recorded it under mpirun). It opens
        // on the first all_reduce in backward: where gradients leave the rank, and in which dtype.
        {"ddp-bf16", {.recorded = "ddp_bf16_trace.json"}, {.select = "backward:all_reduce"}},
    };
    return all;
}

std::string joined_names()
{
    std::string out;
    for (const Preset& p : presets()) out.append(out.empty() ? "" : ", ").append(p.name);
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

// "recorded: ddp_bf16_trace.json, rank 0 of 2, 3 collectives": the file and what its collectives
// say of the run (a trace without any: the file alone).
std::string recorded_summary(const std::string& file, const trace::Trace& trace)
{
    std::string out = "recorded: " + file;
    int collectives = 0;
    for (const trace::Event& e : trace.events()) {
        if (!e.collective) continue;
        if (collectives++ == 0)
            out.append(", rank ").append(std::to_string(e.collective->rank)).append(" of ").append(std::to_string(e.collective->world_size));
    }
    if (collectives > 0) out.append(", ").append(std::to_string(collectives)).append(collectives == 1 ? " collective" : " collectives");
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
    for (const Preset& p : presets()) out.push_back(p.name);
    return out;
}

namespace {

const Preset& named_preset(const std::string& name)
{
    for (const Preset& p : presets())
        if (p.name == name) return p;
    TINYAMP_FAIL(value, "unknown scenario '", name, "': choose one of ", joined_names());
}

}  // namespace

ScenarioOptions Scenario::preset(const std::string& name) { return named_preset(name).options; }

Opening Scenario::opening(const std::string& name) { return named_preset(name).opening; }

std::string Scenario::summary() const
{
    if (!options_.recorded.empty()) return recorded_summary(options_.recorded, trace_);
    std::string out = options_.model;
    if (options_.model == "gpt")
        out.append(options_.fused_attention ? " (fused attention" : " (composite attention")
            .append(", context ")
            .append(std::to_string(options_.context))
            .append(")");
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
