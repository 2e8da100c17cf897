#include "tinyamp/io/checkpoint.h"

#include <cmath>
#include <limits>
#include <optional>
#include <variant>

#include <nlohmann/json.hpp>

#include "tinyamp/tensor/factories.h"
#include "tinyamp/support/grad_mode.h"
#include "tinyamp/io/safetensors.h"

namespace tinyamp::io {
namespace {

using nlohmann::json;
constexpr const char* kFormat = "tinyamp-checkpoint/1";

// ---------------------------------------------------------------- tensors as JSON
// Optimizer state tensors (momentum buffers, Adam's moments) are written as numbers: JSON
// doubles print every f32/f64 value exactly. JSON has no inf or NaN, so those are strings.

json number_to_json(double v)
{
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

double number_from_json(const json& j, const std::string& where)
{
    if (j.is_number()) return j.get<double>();
    if (j == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (j == "inf") return std::numeric_limits<double>::infinity();
    if (j == "-inf") return -std::numeric_limits<double>::infinity();
    TINYAMP_FAIL(io, where, ": expected a number (or \"nan\", \"inf\", \"-inf\"), found ", j.dump());
}

json tensor_to_json(const Tensor& t)
{
    json data = json::array();
    for (double v : t.to_vector()) data.push_back(number_to_json(v));
    return {{"dtype", dtype_name(t.dtype())}, {"shape", t.shape()}, {"data", std::move(data)}};
}

Tensor tensor_from_json(const json& j, const std::string& where)
{
    TINYAMP_CHECK(j.is_object() && j.contains("dtype") && j.contains("shape") && j.contains("data") && j["dtype"].is_string() &&
                      j["shape"].is_array() && j["data"].is_array(),
                  io, where, ": a tensor is {\"dtype\": ..., \"shape\": [...], \"data\": [...]}, found ", j.dump().substr(0, 80));
    DType dtype = DType::f32;
    try {
        dtype = parse_dtype(j["dtype"].get<std::string>());
    } catch (const Error& e) {
        TINYAMP_FAIL(io, where, ": ", e.message());
    }
    Shape shape;
    for (const json& d : j["shape"]) {
        TINYAMP_CHECK(d.is_number_integer() && d.get<std::int64_t>() >= 0, io, where, ": shape sizes are integers >= 0");
        shape.push_back(d.get<std::int64_t>());
    }
    std::vector<double> values;
    for (const json& v : j["data"]) values.push_back(number_from_json(v, where));
    TINYAMP_CHECK(std::int64_t(values.size()) == numel(shape), io, where, ": ", values.size(), " values for shape ", shape_str(shape));
    return tensor(values, shape, dtype);
}

// ---------------------------------------------------------------- optimizer

json optimizer_to_json(const optim::OptimizerStateDict& sd)
{
    json groups = json::array();
    for (const optim::ParamGroupState& g : sd.param_groups) groups.push_back({{"options", g.options}, {"params", g.params}});
    json state = json::object();
    for (const auto& [index, entries] : sd.state) {
        json e = json::object();
        for (const auto& [name, t] : entries) e[name] = tensor_to_json(t);
        state[std::to_string(index)] = std::move(e);
    }
    return {{"type", sd.type}, {"param_groups", std::move(groups)}, {"state", std::move(state)}};
}

optim::OptimizerStateDict optimizer_from_json(const json& j)
{
    const std::string where = "optimizer state";
    TINYAMP_CHECK(j.is_object() && j.contains("type") && j["type"].is_string() && j.contains("param_groups") &&
                      j["param_groups"].is_array() && j.contains("state") && j["state"].is_object(),
                  io, where, ": expected {\"type\", \"param_groups\", \"state\"}");
    optim::OptimizerStateDict sd;
    sd.type = j["type"].get<std::string>();
    for (const json& g : j["param_groups"]) {
        TINYAMP_CHECK(g.is_object() && g.contains("options") && g["options"].is_object() && g.contains("params") && g["params"].is_array(),
                      io, where, ": each param group is {\"options\": {...}, \"params\": [...]}");
        optim::ParamGroupState group;
        for (const auto& [key, value] : g["options"].items()) group.options[key] = number_from_json(value, where + " option " + key);
        for (const json& p : g["params"]) {
            TINYAMP_CHECK(p.is_number_integer(), io, where, ": param indices are integers");
            group.params.push_back(p.get<std::int64_t>());
        }
        sd.param_groups.push_back(std::move(group));
    }
    for (const auto& [key, entries] : j["state"].items()) {
        std::int64_t index = -1;
        try {
            std::size_t used = 0;
            index = std::stoll(key, &used);
            if (used != key.size()) index = -1;
        } catch (const std::exception&) {
        }
        TINYAMP_CHECK(index >= 0 && entries.is_object(), io, where, ": state keys are parameter indices, found '", key, "'");
        for (const auto& [name, t] : entries.items()) sd.state[index][name] = tensor_from_json(t, where + " " + key + "." + name);
    }
    return sd;
}

// ---------------------------------------------------------------- scaler and scheduler

// A scheduler's state, of whichever of the three types it is; "type" names it in the file.
using SchedulerState = std::variant<optim::StepLRState, optim::CosineAnnealingLRState, optim::LambdaLRState>;
constexpr const char* kSchedulerTypes[] = {"StepLR", "CosineAnnealingLR", "LambdaLR"};  // in SchedulerState's order

SchedulerState scheduler_state(const optim::LRScheduler& s)
{
    if (const auto* step = dynamic_cast<const optim::StepLR*>(&s)) return step->state_dict();
    if (const auto* cosine = dynamic_cast<const optim::CosineAnnealingLR*>(&s)) return cosine->state_dict();
    if (const auto* lambda = dynamic_cast<const optim::LambdaLR*>(&s)) return lambda->state_dict();
    TINYAMP_FAIL(value, "save_checkpoint: this LR scheduler type cannot be saved (StepLR, CosineAnnealingLR and LambdaLR can)");
}

const char* scheduler_type(const optim::LRScheduler& s) { return kSchedulerTypes[scheduler_state(s).index()]; }

json scheduler_to_json(const optim::LRScheduler& s)
{
    const SchedulerState state = scheduler_state(s);
    json j{{"type", kSchedulerTypes[state.index()]}};
    std::visit(
        [&j](const auto& st) {
            j["last_epoch"] = st.last_epoch;
            j["base_lrs"] = st.base_lrs;
        },
        state);
    if (const auto* step = std::get_if<optim::StepLRState>(&state)) {
        j["step_size"] = step->step_size;
        j["gamma"] = step->gamma;
    } else if (const auto* cosine = std::get_if<optim::CosineAnnealingLRState>(&state)) {
        j["T_max"] = cosine->T_max;
        j["eta_min"] = cosine->eta_min;
    }
    return j;
}

// Decodes the file's scheduler state for `given`, which must be of the file's type.
SchedulerState scheduler_from_json(const json& j, const optim::LRScheduler& given, const std::string& path)
{
    TINYAMP_CHECK(j.is_object() && j.contains("last_epoch") && j["last_epoch"].is_number_integer() && j.contains("base_lrs") &&
                      j["base_lrs"].is_array() && (!j.contains("type") || j["type"].is_string()),
                  io, "lr_scheduler state: expected {\"type\", \"last_epoch\", \"base_lrs\", ...}");
    const std::string type = j.value("type", std::string("StepLR"));  // files saved before "type" hold a StepLR
    const std::string given_type = scheduler_type(given);
    TINYAMP_CHECK(type == given_type, value, "checkpoint '", path, "' holds a ", type, " state but the scheduler given is a ", given_type,
                  "; make the same kind of scheduler as the run that saved it");
    const auto last_epoch = j["last_epoch"].get<std::int64_t>();
    std::vector<double> base_lrs;
    for (const json& lr : j["base_lrs"]) base_lrs.push_back(number_from_json(lr, "lr_scheduler base_lrs"));
    const auto integer = [&](const char* key) {
        TINYAMP_CHECK(j.contains(key) && j[key].is_number_integer(), io, "lr_scheduler state: a ", type, " needs an integer \"", key, "\"");
        return j[key].get<std::int64_t>();
    };
    const auto number = [&](const char* key) {
        TINYAMP_CHECK(j.contains(key), io, "lr_scheduler state: a ", type, " needs \"", key, "\"");
        return number_from_json(j[key], std::string("lr_scheduler ") + key);
    };
    if (type == "StepLR") return optim::StepLRState{{last_epoch, base_lrs}, integer("step_size"), number("gamma")};
    if (type == "CosineAnnealingLR") return optim::CosineAnnealingLRState{{last_epoch, base_lrs}, integer("T_max"), number("eta_min")};
    return optim::LambdaLRState{{last_epoch, base_lrs}};
}

void load_scheduler(optim::LRScheduler& s, const SchedulerState& state)
{
    if (const auto* st = std::get_if<optim::StepLRState>(&state)) dynamic_cast<optim::StepLR&>(s).load_state_dict(*st);
    if (const auto* st = std::get_if<optim::CosineAnnealingLRState>(&state)) dynamic_cast<optim::CosineAnnealingLR&>(s).load_state_dict(*st);
    if (const auto* st = std::get_if<optim::LambdaLRState>(&state)) dynamic_cast<optim::LambdaLR&>(s).load_state_dict(*st);
}

// A non-negative integer of the metadata ("epoch", "step"); 0 when the key is absent and not
// `required`.
std::int64_t counter_from_metadata(const std::map<std::string, std::string>& meta, const char* key, bool required, const std::string& path)
{
    if (!meta.count(key) && !required) return 0;
    const std::string& text = meta.count(key) ? meta.at(key) : "";
    std::int64_t value = 0;
    std::size_t used = 0;
    try {
        value = std::stoll(text, &used);
    } catch (const std::exception&) {
    }
    TINYAMP_CHECK(!text.empty() && used == text.size() && value >= 0, io, "checkpoint '", path, "': bad ", key, " '", text, "'");
    return value;
}

json parse_json(const std::map<std::string, std::string>& metadata, const std::string& key, const std::string& path)
{
    try {
        return json::parse(metadata.at(key));
    } catch (const json::exception& e) {
        TINYAMP_FAIL(io, "checkpoint '", path, "': its \"", key, "\" metadata is not valid JSON (", e.what(),
                     "); the file is damaged: save it again");
    }
}

}  // namespace

void save_checkpoint(const std::string& path, const TrainingState& state)
{
    TINYAMP_CHECK(state.model != nullptr, value, "save_checkpoint: TrainingState.model is required");
    std::map<std::string, std::string> metadata{
        {"format", kFormat}, {"epoch", std::to_string(state.epoch)}, {"step", std::to_string(state.step)}};
    if (state.optimizer) metadata["optimizer"] = optimizer_to_json(state.optimizer->state_dict()).dump();
    if (state.scaler) metadata["grad_scaler"] = json(state.scaler->state_dict()).dump();
    if (state.scheduler) metadata["lr_scheduler"] = scheduler_to_json(*state.scheduler).dump();
    save_safetensors(path, state.model->state_dict(), metadata);
}

void load_checkpoint(const std::string& path, TrainingState& state)
{
    TINYAMP_CHECK(state.model != nullptr, value, "load_checkpoint: TrainingState.model is required");
    // 1. Read and decode everything; nothing in memory changes if this throws.
    const SafetensorsFile file = load_safetensors(path);
    const auto& meta = file.metadata;
    const bool ours = meta.count("format") != 0;
    TINYAMP_CHECK(!ours || meta.at("format") == kFormat, io, "checkpoint '", path, "' has format '", meta.at("format"),
                  "', which this tinyamp cannot read (it reads ", kFormat, ")");
    auto require = [&](const char* key, const char* what, bool wanted) {
        TINYAMP_CHECK(!wanted || meta.count(key), value, "checkpoint '", path, "' has no ", what,
                      " state (it was saved without one); pass nullptr for it to load the rest");
        return wanted;
    };
    std::optional<optim::OptimizerStateDict> optimizer;
    std::optional<std::map<std::string, double>> scaler;
    std::optional<SchedulerState> scheduler;
    if (require("optimizer", "optimizer", state.optimizer != nullptr)) optimizer = optimizer_from_json(parse_json(meta, "optimizer", path));
    if (require("grad_scaler", "GradScaler", state.scaler != nullptr && state.scaler->is_enabled())) {
        const json j = parse_json(meta, "grad_scaler", path);
        TINYAMP_CHECK(j.is_object(), io, "checkpoint '", path, "': the GradScaler state is not a JSON object");
        scaler.emplace();
        for (const auto& [key, value] : j.items()) (*scaler)[key] = number_from_json(value, "GradScaler " + key);
    }
    if (require("lr_scheduler", "lr scheduler", state.scheduler != nullptr))
        scheduler = scheduler_from_json(parse_json(meta, "lr_scheduler", path), *state.scheduler, path);
    // Files saved before "step" existed have none: 0.
    const std::int64_t epoch = ours ? counter_from_metadata(meta, "epoch", true, path) : 0;
    const std::int64_t step = ours ? counter_from_metadata(meta, "step", false, path) : 0;

    // 2. Apply part by part. Each load validates before it changes anything; if a later part is
    //    refused, the earlier parts are put back from snapshots, so the objects stay as they were.
    nn::NamedTensors model_before;
    {
        NoGradGuard no_grad;
        for (const auto& [name, t] : state.model->state_dict()) model_before.emplace_back(name, t.clone());
    }
    const std::optional<optim::OptimizerStateDict> optimizer_before =
        state.optimizer ? std::optional(state.optimizer->state_dict()) : std::nullopt;
    const std::optional<std::map<std::string, double>> scaler_before = scaler ? std::optional(state.scaler->state_dict()) : std::nullopt;
    try {
        state.model->load_state_dict(file.tensors);
        if (optimizer) state.optimizer->load_state_dict(*optimizer);
        if (scaler) state.scaler->load_state_dict(*scaler);
        if (scheduler) load_scheduler(*state.scheduler, *scheduler);
    } catch (const Error& e) {
        state.model->load_state_dict(model_before);
        if (optimizer_before) state.optimizer->load_state_dict(*optimizer_before);
        if (scaler_before) state.scaler->load_state_dict(*scaler_before);
        throw Error(e.kind(), "checkpoint '" + path + "' does not fit: " + e.message());
    }
    state.epoch = epoch;
    state.step = step;
}

}  // namespace tinyamp::io
