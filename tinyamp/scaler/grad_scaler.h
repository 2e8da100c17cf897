#pragma once
/// \file
/// GradScaler: loss scaling for f16 training, as torch.amp.GradScaler.
///
/// \code
///   scaler.scale(loss).backward();  // gradients are `scale` times too large: small ones survive f16
///   scaler.step(optimizer);         // unscale (1/scale, in f64); skip the step if any is inf/NaN
///   scaler.update();                // halve the scale after an overflow, double it after
///                                   // growth_interval clean steps
/// \endcode
///
/// Per optimizer, calls must go READY -> unscale_ (optional) -> step -> update; anything else is an
/// error with PyTorch's message.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tinyamp/ops/amp_scaling.h"
#include "tinyamp/optim/optimizer.h"

namespace tinyamp::amp {

/// GradScaler's constructor arguments, with torch.amp.GradScaler's defaults.
struct GradScalerOptions {
    double init_scale = 65536.0;  ///< 2^16: the scale before the first update
    double growth_factor = 2.0;   ///< the scale is multiplied by it after growth_interval clean steps (must be > 1)
    double backoff_factor = 0.5;  ///< the scale is multiplied by it after an overflow (must be < 1)
    std::int64_t growth_interval = 2000;  ///< clean iterations in a row before the scale grows
    bool enabled = true;          ///< false: every call is a no-op (step just steps)
};

/// Dynamic loss scaling, torch.amp.GradScaler: multiplies the loss by a large scale so that small
/// f16 gradients do not flush to zero, divides the gradients back before the optimizer steps,
/// skips steps whose gradients overflowed, and adapts the scale. As in PyTorch, the scale is a
/// one-element f32 tensor and the growth tracker a one-element integer tensor, on the device of
/// the first outputs scaled; the work on them is done by the two dispatched ops of
/// ops/amp_scaling.h. A disabled scaler changes nothing: scale returns its input, step just
/// steps, get_scale is 1.
class GradScaler {
public:
    /// A scaler for `device_type` ("cpu" or "cuda", else Error(device)). A "cuda" scaler on a
    /// machine without a GPU warns (PyTorch's text) and disables itself. When enabled, throws
    /// Error(value) unless growth_factor > 1 and backoff_factor < 1.
    explicit GradScaler(const std::string& device_type = "cuda", GradScalerOptions options = {});
    virtual ~GradScaler() = default;  ///< virtual: distributed::ShardedGradScaler derives from it

    /// outputs * scale (the scale is made on the first call, on the outputs' device). The scale is
    /// a 0-D f32 tensor, so the usual type promotion applies: an f16 tensor with dimensions stays
    /// f16, a 0-D f16 loss gives f32.
    Tensor scale(const Tensor& outputs);
    /// Each of `outputs` scaled as above.
    std::vector<Tensor> scale(const std::vector<Tensor>& outputs);
    /// Divides the optimizer's gradients by the scale (f64 reciprocal, rounded to f32) in place and
    /// records whether any is inf/NaN. f16 gradients are refused (Error(value)): unscale f32 master
    /// gradients. Error(state) before any scale(), or when called twice or after step() in one
    /// iteration.
    void unscale_(optim::Optimizer& optimizer);
    /// Unscales if not done yet, then steps unless an inf/NaN was found (a skipped step leaves the
    /// parameters and the optimizer's state alone). Returns whether it stepped. Error(state) before
    /// any scale(), when called twice in one iteration, or when no gradient was checked.
    bool step(optim::Optimizer& optimizer);
    /// Adjusts the scale from this iteration's overflow checks over all optimizers (the op
    /// amp_update_scale_, where the scale lives), or sets it to new_scale (the growth tracker is left alone). Appends
    /// to history() and starts the next iteration. Error(state) when no inf check was recorded.
    void update(std::optional<double> new_scale = std::nullopt);

    /// The current scale (init_scale before the first scale(); 1 when disabled).
    double get_scale() const;
    double get_growth_factor() const { return growth_factor_; }     ///< the factor applied after growth_interval clean steps
    void set_growth_factor(double v) { growth_factor_ = v; }        ///< not checked (the constructor checks > 1)
    double get_backoff_factor() const { return backoff_factor_; }   ///< the factor applied after an overflow
    void set_backoff_factor(double v) { backoff_factor_ = v; }      ///< not checked (the constructor checks < 1)
    std::int64_t get_growth_interval() const { return growth_interval_; }  ///< clean steps before growth
    void set_growth_interval(std::int64_t v) { growth_interval_ = v; }     ///< sets the clean steps before growth
    /// Clean iterations since the last growth or overflow.
    std::int32_t get_growth_tracker() const;
    bool is_enabled() const { return enabled_; }  ///< false if disabled by the options or for lack of a GPU

    /// The 5 keys of PyTorch's state_dict: scale, growth_factor, backoff_factor, growth_interval,
    /// _growth_tracker. Empty when disabled.
    std::map<std::string, double> state_dict() const;
    /// Restores what state_dict() wrote (does nothing when disabled). Error(state) for an empty
    /// map, Error(value) for a missing key.
    void load_state_dict(const std::map<std::string, double>& saved);

    /// One entry per update(): the scale after it and whether the iteration overflowed (steps
    /// were skipped). Lesson 13 plots it.
    struct HistoryEntry {
        std::int64_t iteration;  ///< the update's number, from 1
        double scale;            ///< the scale after the update
        bool skipped;            ///< an inf/NaN was found, so the iteration's steps were skipped
    };
    /// Every update() so far, oldest first.
    const std::vector<HistoryEntry>& history() const { return history_; }

protected:
    /// Where unscale_ decides whether an optimizer's gradients overflowed: here, from this
    /// process's gradients alone (empty when it checked none). distributed::ShardedGradScaler
    /// overrides it to agree with the other processes, each of which holds only its shard.
    virtual std::optional<bool> agree_on_found_inf(std::optional<bool> local_found_inf) { return local_found_inf; }

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
    Tensor scale_;           // one f32 element, made by the first scale() on its outputs' device
    Tensor growth_tracker_;  // one i64 element, made with it
    std::map<const optim::Optimizer*, OptimizerState> per_optimizer_;
    std::vector<HistoryEntry> history_;
};

}  // namespace tinyamp::amp
