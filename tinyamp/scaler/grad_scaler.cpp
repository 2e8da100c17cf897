#include "tinyamp/scaler/grad_scaler.h"

#include <map>

#include "tinyamp/amp/autocast_state.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/support/grad_mode.h"
#include "tinyamp/support/warning.h"
#include "tinyamp/ops/elementwise.h"

namespace tinyamp::amp {

GradScaler::GradScaler(const std::string& device_type, GradScalerOptions options)
    : enabled_(options.enabled),
      device_type_(parse_autocast_device_type(device_type)),
      init_scale_(options.init_scale),
      growth_factor_(options.growth_factor),
      backoff_factor_(options.backoff_factor),
      growth_interval_(options.growth_interval)
{
    if (enabled_ && device_type_ == DeviceType::cuda && cuda_device_count() == 0) {
        warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.");
        enabled_ = false;
    }
    if (enabled_) {
        TINYAMP_CHECK(growth_factor_ > 1.0, value, "The growth factor must be > 1.0.");
        TINYAMP_CHECK(backoff_factor_ < 1.0, value, "The backoff factor must be < 1.0.");
    }
}

void GradScaler::require_scale(const char* function) const
{
    TINYAMP_CHECK(scale_.defined(), state, "Attempted ", function, " but _scale is None.  This may indicate your script did not use ",
                  "scaler.scale(loss or outputs) earlier in the iteration.");
}

Tensor GradScaler::scale(const Tensor& outputs)
{
    if (!enabled_) return outputs;
    if (!scale_.defined()) {
        scale_ = full({}, init_scale_, DType::f32, outputs.device());
        growth_tracker_ = full({}, double(init_growth_tracker_), DType::i64, outputs.device());
    }
    // A copy on the outputs' device: update() changes scale_ in place, and a loss scaled before
    // an update(new_scale) must still be able to run backward (mul saves its factor).
    return mul(outputs, outputs.device() == scale_.device() ? scale_.clone() : full({}, get_scale(), DType::f32, outputs.device()));
}

std::vector<Tensor> GradScaler::scale(const std::vector<Tensor>& outputs)
{
    std::vector<Tensor> scaled;
    for (const Tensor& t : outputs) scaled.push_back(scale(t));
    return scaled;
}

void GradScaler::unscale_(optim::Optimizer& optimizer)
{
    if (!enabled_) return;
    require_scale("unscale_");
    OptimizerState& checks = per_optimizer_[&optimizer];
    TINYAMP_CHECK(checks.stage != Stage::unscaled, state, "unscale_() has already been called on this optimizer since the last update().");
    TINYAMP_CHECK(checks.stage != Stage::stepped, state, "unscale_() is being called after step().");
    NoGradGuard no_grad;
    std::map<std::string, std::vector<Tensor>> per_device;  // "cpu", "cuda:0": one op call each
    for (const optim::ParamGroup& group : optimizer.param_groups())
        for (const Tensor& p : group.params) {
            if (!p.grad().defined()) continue;
            TINYAMP_CHECK(p.grad().dtype() != DType::f16, value, "Attempting to unscale FP16 gradients.");
            per_device[p.grad().device().str()].push_back(p.grad());
        }
    // The reciprocal is taken in f64 on purpose, then rounded to f32, as PyTorch does.
    const double inv_scale = double(float(1.0 / get_scale()));
    for (const auto& [device, grads] : per_device) {
        const Device on = grads.front().device();
        const Tensor found_inf = amp_foreach_non_finite_check_and_unscale_(grads, zeros({}, DType::f32, on), full({}, inv_scale, DType::f32, on));
        checks.found_inf = checks.found_inf.value_or(false) || found_inf.item() != 0.0;  // the one wait for a GPU
    }
    checks.found_inf = agree_on_found_inf(checks.found_inf);
    checks.stage = Stage::unscaled;
}

bool GradScaler::step(optim::Optimizer& optimizer)
{
    if (!enabled_) {
        optimizer.step();
        return true;
    }
    require_scale("step");
    {
        const OptimizerState& checks = per_optimizer_[&optimizer];
        TINYAMP_CHECK(checks.stage != Stage::stepped, state, "step() has already been called since the last update().");
        if (checks.stage == Stage::ready) unscale_(optimizer);
    }
    OptimizerState& checks = per_optimizer_[&optimizer];
    TINYAMP_CHECK(checks.found_inf.has_value(), state, "No inf checks were recorded for this optimizer.");
    const bool stepped = !*checks.found_inf;
    if (stepped) optimizer.step();  // skipped: parameters and optimizer state stay as they were
    checks.stage = Stage::stepped;
    return stepped;
}

void GradScaler::update(std::optional<double> new_scale)
{
    if (!enabled_) return;
    require_scale("update");
    bool found_inf = false;  // this iteration's steps were skipped (the history records it)
    bool any_check = false;
    for (const auto& [optimizer, checks] : per_optimizer_)
        if (checks.found_inf) {
            any_check = true;
            found_inf = found_inf || *checks.found_inf;
        }
    NoGradGuard no_grad;
    if (new_scale) {
        scale_.copy_(full({}, *new_scale, DType::f32, scale_.device()));  // the growth tracker is left alone
    } else {
        TINYAMP_CHECK(any_check, state, "No inf checks were recorded prior to update.");
        amp_update_scale_(scale_, growth_tracker_, full({}, found_inf ? 1.0 : 0.0, DType::f32, scale_.device()), growth_factor_,
                          backoff_factor_, growth_interval_);
    }
    history_.push_back({std::int64_t(history_.size()) + 1, get_scale(), found_inf});
    per_optimizer_.clear();
}

double GradScaler::get_scale() const
{
    if (!enabled_) return 1.0;
    return scale_.defined() ? scale_.item() : init_scale_;
}

std::int32_t GradScaler::get_growth_tracker() const
{
    return growth_tracker_.defined() ? std::int32_t(growth_tracker_.item()) : init_growth_tracker_;
}

std::map<std::string, double> GradScaler::state_dict() const
{
    if (!enabled_) return {};
    return {{"scale", get_scale()},
            {"growth_factor", growth_factor_},
            {"backoff_factor", backoff_factor_},
            {"growth_interval", double(growth_interval_)},
            {"_growth_tracker", double(get_growth_tracker())}};
}

void GradScaler::load_state_dict(const std::map<std::string, double>& saved)
{
    if (!enabled_) return;
    TINYAMP_CHECK(!saved.empty(), state, "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler.");
    auto get = [&](const char* key) {
        const auto it = saved.find(key);
        TINYAMP_CHECK(it != saved.end(), value, "GradScaler state dict has no '", key,
                      "'; it needs scale, growth_factor, backoff_factor, growth_interval and _growth_tracker");
        return it->second;
    };
    const double scale = get("scale"), growth = get("growth_factor"), backoff = get("backoff_factor");
    const double interval = get("growth_interval"), tracker = get("_growth_tracker");
    init_scale_ = scale;
    NoGradGuard no_grad;
    if (scale_.defined()) scale_.copy_(full({}, scale, DType::f32, scale_.device()));
    growth_factor_ = growth;
    backoff_factor_ = backoff;
    growth_interval_ = std::int64_t(interval);
    init_growth_tracker_ = std::int32_t(tracker);
    if (growth_tracker_.defined()) growth_tracker_.copy_(full({}, double(std::int32_t(tracker)), DType::i64, growth_tracker_.device()));
}

}  // namespace tinyamp::amp
