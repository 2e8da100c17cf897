#include "tinyamp/amp/grad_scaler.h"

#include <cmath>
#include <map>

#include "kernels/cuda/amp.h"
#include "tinyamp/amp/autocast_state.h"
#include "tinyamp/core/cuda_memory.h"
#include "tinyamp/core/factories.h"
#include "tinyamp/core/grad_mode.h"
#include "tinyamp/core/warning.h"
#include "tinyamp/ops/elementwise.h"

namespace tinyamp::amp {
namespace {

bool has_non_finite(const Tensor& t)
{
    for (double v : t.to_vector())
        if (!std::isfinite(v)) return true;
    return false;
}

// The CUDA gradients of one device, checked and unscaled there by one kernel launch each; the
// host waits once, to read the found_inf flag, instead of once per gradient.
bool unscale_on_device(const std::vector<kernels::cuda::GradBuffer>& grads, float inv_scale, Device device)
{
    const Tensor found_inf = zeros({}, DType::f32, device);
    const Tensor inv = full({}, double(inv_scale), DType::f32, device);
    kernels::cuda::amp_foreach_non_finite_check_and_unscale_(grads, static_cast<float*>(found_inf.data_ptr()),
                                                              static_cast<const float*>(inv.data_ptr()), device.index());
    return found_inf.item() != 0.0;
}

// _amp_update_scale_ run by the CUDA kernel on a device copy of the scaler's state, read back.
void update_scale_on_device(float& scale, std::int32_t& growth_tracker, bool found_inf, double growth_factor, double backoff_factor,
                            std::int64_t growth_interval, Device device)
{
    struct State {
        float scale;
        std::int32_t growth_tracker;
        float found_inf;
    };
    State host{scale, growth_tracker, found_inf ? 1.0f : 0.0f};
    const int index = device.index();
    struct DeviceBuffer {  // released however this function ends
        void* p;
        int index;
        ~DeviceBuffer() { cuda_memory::release(p, index); }
    } buffer{cuda_memory::allocate(sizeof(State), index), index};
    auto* d = static_cast<State*>(buffer.p);
    cuda_memory::copy(d, device, &host, Device::cpu(), sizeof(State));
    kernels::cuda::amp_update_scale_(&d->scale, &d->growth_tracker, &d->found_inf, growth_factor, backoff_factor, growth_interval, index);
    cuda_memory::copy(&host, Device::cpu(), d, device, sizeof(State));
    scale = host.scale;
    growth_tracker = host.growth_tracker;
}

}  // namespace

void amp_update_scale_(float& scale, std::int32_t& growth_tracker, bool found_inf, double growth_factor, double backoff_factor,
                       std::int64_t growth_interval)
{
    if (found_inf) {
        scale = float(double(scale) * backoff_factor);
        growth_tracker = 0;
        return;
    }
    const std::int32_t successful = growth_tracker + 1;  // incremented before the comparison
    if (successful == growth_interval) {
        const float grown = float(double(scale) * growth_factor);
        if (std::isfinite(grown)) scale = grown;  // never grow to inf
        growth_tracker = 0;
    } else {
        growth_tracker = successful;
    }
}

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
    TINYAMP_CHECK(scale_.has_value(), state, "Attempted ", function, " but _scale is None.  This may indicate your script did not use ",
                  "scaler.scale(loss or outputs) earlier in the iteration.");
}

Tensor GradScaler::scale(const Tensor& outputs)
{
    if (!enabled_) return outputs;
    if (!scale_) {
        scale_ = float(init_scale_);
        growth_tracker_ = init_growth_tracker_;
        scale_device_ = outputs.device();
    }
    return mul(outputs, full({}, double(*scale_), DType::f32, outputs.device()));
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
    OptimizerState& state = per_optimizer_[&optimizer];
    TINYAMP_CHECK(state.stage != Stage::unscaled, state, "unscale_() has already been called on this optimizer since the last update().");
    TINYAMP_CHECK(state.stage != Stage::stepped, state, "unscale_() is being called after step().");
    // The reciprocal is taken in f64 on purpose, then rounded to f32, as PyTorch does.
    const float inv_scale = float(1.0 / double(*scale_));
    NoGradGuard no_grad;
    std::map<int, std::vector<kernels::cuda::GradBuffer>> on_gpu;  // CUDA device index -> its gradients
    for (const optim::ParamGroup& group : optimizer.param_groups())
        for (const Tensor& p : group.params) {
            const Tensor& g = p.grad();
            if (!g.defined()) continue;
            TINYAMP_CHECK(g.dtype() != DType::f16, value, "Attempting to unscale FP16 gradients.");
            if (g.device().is_cuda() && g.is_contiguous()) {  // done on the device below, in place (as copy_ would, bump the version)
                on_gpu[g.device().index()].push_back({g.data_ptr(), g.dtype(), g.numel()});
                g.storage()->bump_version();
                continue;
            }
            const bool bad = has_non_finite(g);
            state.found_inf = state.found_inf.value_or(false) || bad;
            if (inv_scale != 1.0f) g.copy_(mul(g, full({}, double(inv_scale), DType::f32, g.device())));
        }
    for (const auto& [index, grads] : on_gpu) {
        const bool bad = unscale_on_device(grads, inv_scale, Device::cuda(index));
        state.found_inf = state.found_inf.value_or(false) || bad;
    }
    state.stage = Stage::unscaled;
}

bool GradScaler::step(optim::Optimizer& optimizer)
{
    if (!enabled_) {
        optimizer.step();
        return true;
    }
    require_scale("step");
    {
        const OptimizerState& state = per_optimizer_[&optimizer];
        TINYAMP_CHECK(state.stage != Stage::stepped, state, "step() has already been called since the last update().");
        if (state.stage == Stage::ready) unscale_(optimizer);
    }
    OptimizerState& state = per_optimizer_[&optimizer];
    TINYAMP_CHECK(state.found_inf.has_value(), state, "No inf checks were recorded for this optimizer.");
    const bool stepped = !*state.found_inf;
    if (stepped) optimizer.step();  // skipped: parameters and optimizer state stay as they were
    state.stage = Stage::stepped;
    return stepped;
}

void GradScaler::update(std::optional<double> new_scale)
{
    if (!enabled_) return;
    require_scale("update");
    bool found_inf = false;  // this iteration's steps were skipped (the history records it)
    bool any_check = false;
    for (const auto& [optimizer, state] : per_optimizer_)
        if (state.found_inf) {
            any_check = true;
            found_inf = found_inf || *state.found_inf;
        }
    if (new_scale) {
        scale_ = float(*new_scale);  // the growth tracker is left alone
    } else {
        TINYAMP_CHECK(any_check, state, "No inf checks were recorded prior to update.");
        if (scale_device_ && scale_device_->is_cuda())
            update_scale_on_device(*scale_, *growth_tracker_, found_inf, growth_factor_, backoff_factor_, growth_interval_, *scale_device_);
        else
            amp_update_scale_(*scale_, *growth_tracker_, found_inf, growth_factor_, backoff_factor_, growth_interval_);
    }
    history_.push_back({std::int64_t(history_.size()) + 1, double(*scale_), found_inf});
    per_optimizer_.clear();
}

double GradScaler::get_scale() const
{
    if (!enabled_) return 1.0;
    return scale_ ? double(*scale_) : init_scale_;
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

void GradScaler::load_state_dict(const std::map<std::string, double>& state)
{
    if (!enabled_) return;
    TINYAMP_CHECK(!state.empty(), state, "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler.");
    auto get = [&](const char* key) {
        const auto it = state.find(key);
        TINYAMP_CHECK(it != state.end(), value, "GradScaler state dict has no '", key,
                      "'; it needs scale, growth_factor, backoff_factor, growth_interval and _growth_tracker");
        return it->second;
    };
    const double scale = get("scale"), growth = get("growth_factor"), backoff = get("backoff_factor");
    const double interval = get("growth_interval"), tracker = get("_growth_tracker");
    init_scale_ = scale;
    if (scale_) scale_ = float(scale);
    growth_factor_ = growth;
    backoff_factor_ = backoff;
    growth_interval_ = std::int64_t(interval);
    init_growth_tracker_ = std::int32_t(tracker);
    if (growth_tracker_) growth_tracker_ = std::int32_t(tracker);
}

}  // namespace tinyamp::amp
