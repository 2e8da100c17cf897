#pragma once
// GradScaler: loss scaling for f16 training, as torch.amp.GradScaler.
//
//   scaler.scale(loss).backward();  // gradients are `scale` times too large: small ones survive f16
//   scaler.step(optimizer);         // unscale (1/scale, in f64); skip the step if any is inf/NaN
//   scaler.update();                // halve the scale after an overflow, double it after
//                                   // growth_interval clean steps
//
// Per optimizer, calls must go READY -> unscale_ (optional) -> step -> update; anything else is an
// error with PyTorch's message.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tinyamp/optim/optimizer.h"

namespace tinyamp::amp {

struct GradScalerOptions {
    double init_scale = 65536.0;  // 2^16
    double growth_factor = 2.0;
    double backoff_factor = 0.5;
    std::int64_t growth_interval = 2000;
    bool enabled = true;
};

/// PyTorch's _amp_update_scale_, exactly: on overflow scale *= backoff and the tracker resets;
/// otherwise the tracker counts up, and reaching growth_interval (==, after the increment)
/// multiplies the scale by growth, unless that would be inf. No floor: the scale may fall below 1.
void amp_update_scale_(float& scale, std::int32_t& growth_tracker, bool found_inf, double growth_factor, double backoff_factor,
                       std::int64_t growth_interval);

class GradScaler {
public:
    explicit GradScaler(const std::string& device_type = "cuda", GradScalerOptions options = {});

    /// outputs * scale (the scale is made on the first call, on the outputs' device).
    Tensor scale(const Tensor& outputs);
    std::vector<Tensor> scale(const std::vector<Tensor>& outputs);
    /// Divides the optimizer's gradients by the scale (f64 reciprocal) and records whether any
    /// is inf/NaN. f16 gradients are refused: unscale f32 master gradients.
    void unscale_(optim::Optimizer& optimizer);
    /// Unscales if not done yet, then steps unless an inf/NaN was found. Returns whether it stepped.
    bool step(optim::Optimizer& optimizer);
    /// Adjusts the scale from this iteration's overflow checks (or sets it to new_scale).
    void update(std::optional<double> new_scale = std::nullopt);

    double get_scale() const;
    double get_growth_factor() const { return growth_factor_; }
    void set_growth_factor(double v) { growth_factor_ = v; }
    double get_backoff_factor() const { return backoff_factor_; }
    void set_backoff_factor(double v) { backoff_factor_ = v; }
    std::int64_t get_growth_interval() const { return growth_interval_; }
    void set_growth_interval(std::int64_t v) { growth_interval_ = v; }
    std::int32_t get_growth_tracker() const { return growth_tracker_ ? *growth_tracker_ : init_growth_tracker_; }
    bool is_enabled() const { return enabled_; }

    /// The 5 keys of PyTorch's state_dict: scale, growth_factor, backoff_factor, growth_interval,
    /// _growth_tracker. Empty when disabled.
    std::map<std::string, double> state_dict() const;
    void load_state_dict(const std::map<std::string, double>& state);

    /// One entry per update(): the scale after it and whether the iteration overflowed (steps
    /// were skipped). Lessons and the GUI plot it.
    struct HistoryEntry {
        std::int64_t iteration;
        double scale;
        bool skipped;
    };
    const std::vector<HistoryEntry>& history() const { return history_; }

private:
    enum class Stage { ready, unscaled, stepped };
    struct OptimizerState {
        Stage stage = Stage::ready;
        std::optional<bool> found_inf;  // empty: no gradient was checked
    };
    void require_scale(const char* function) const;

    bool enabled_;
    DeviceType device_type_;
    double init_scale_;
    double growth_factor_;
    double backoff_factor_;
    std::int64_t growth_interval_;
    std::int32_t init_growth_tracker_ = 0;
    std::optional<float> scale_;                  // made lazily by the first scale()
    std::optional<std::int32_t> growth_tracker_;  // likewise
    std::optional<Device> scale_device_;
    std::map<const optim::Optimizer*, OptimizerState> per_optimizer_;
    std::vector<HistoryEntry> history_;
};

}  // namespace tinyamp::amp
