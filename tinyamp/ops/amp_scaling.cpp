#include "tinyamp/ops/amp_scaling.h"

#include <cmath>
#include <optional>

#include "kernels/cuda/amp_cuda.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/elementwise.h"

namespace tinyamp::amp {
namespace {

void check_scalar(const char* op, const char* what, const Tensor& t, DType dtype, Device device)
{
    TINYAMP_CHECK(t.numel() == 1, shape, op, ": ", what, " must hold one element, got shape ", shape_str(t.shape()));
    TINYAMP_CHECK(t.dtype() == dtype, dtype, op, ": ", what, " must be ", dtype_name(dtype), ", got ", dtype_name(t.dtype()));
    // PyTorch's words first (reference §3.4), then which tensor and what to do.
    TINYAMP_CHECK(t.device() == device, device, "Expected all tensors to be on the same device, but found at least two devices, ",
                  device.str(), " and ", t.device().str(), "! (", op, ": ", what, " is on ", t.device().str(),
                  " but the other tensors are on ", device.str(), "; move it with .to(device))");
}

bool has_non_finite(const Tensor& t)
{
    for (double v : t.to_vector())
        if (!std::isfinite(v)) return true;
    return false;
}

struct NonFiniteCheckAndUnscaleOp {
    static constexpr const char* name = "_amp_foreach_non_finite_check_and_unscale_";
    static Tensor forward(Context&, const std::vector<Tensor>& grads, const Tensor& found_inf, const Tensor& inv_scale)
    {
        const Device device = found_inf.device();
        check_scalar(name, "found_inf", found_inf, DType::f32, device);
        check_scalar(name, "inv_scale", inv_scale, DType::f32, device);
        std::vector<kernels::cuda::GradBuffer> on_gpu;  // contiguous CUDA gradients: one kernel launch each
        std::optional<bool> multiply;  // inv_scale != 1, read once and only for a gradient on the host path (a GPU would wait)
        for (const Tensor& g : grads)  // every gradient checked before any is touched: an error leaves them all as they were
            TINYAMP_CHECK(g.device() == device, device,
                          "Expected all tensors to be on the same device, but found at least two devices, ", device.str(), " and ",
                          g.device().str(), "! (", name, ": a gradient is on ", g.device().str(), " but found_inf is on ", device.str(),
                          "; unscale each device's gradients with that device's found_inf)");
        for (const Tensor& g : grads) {
            if (device.is_cuda() && g.is_contiguous()) {
                on_gpu.push_back({g.data_ptr(), g.dtype(), g.numel()});
                g.storage()->bump_version();  // written in place on the device, as copy_ would
                continue;
            }
            if (has_non_finite(g)) found_inf.copy_(ones_like(found_inf));
            if (!multiply) multiply = inv_scale.item() != 1.0;
            if (*multiply) g.copy_(mul(g, inv_scale));
        }
        if (!on_gpu.empty())
            kernels::cuda::amp_foreach_non_finite_check_and_unscale_(on_gpu, static_cast<float*>(found_inf.data_ptr()),
                                                                      static_cast<const float*>(inv_scale.data_ptr()), device.index());
        return found_inf;
    }
};

struct UpdateScaleOp {
    static constexpr const char* name = "_amp_update_scale_";
    static Tensor forward(Context&, const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf, double growth_factor,
                          double backoff_factor, std::int64_t growth_interval)
    {
        const Device device = scale.device();
        check_scalar(name, "scale", scale, DType::f32, device);
        check_scalar(name, "growth_tracker", growth_tracker, DType::i64, device);
        check_scalar(name, "found_inf", found_inf, DType::f32, device);
        if (device.is_cuda()) {
            kernels::cuda::amp_update_scale_(static_cast<float*>(scale.data_ptr()), static_cast<std::int64_t*>(growth_tracker.data_ptr()),
                                             static_cast<const float*>(found_inf.data_ptr()), growth_factor, backoff_factor,
                                             growth_interval, device.index());
            scale.storage()->bump_version();
            growth_tracker.storage()->bump_version();
            return scale;
        }
        float s = float(scale.item());
        auto tracker = std::int32_t(growth_tracker.item());
        amp_update_scale_(s, tracker, found_inf.item() != 0.0, growth_factor, backoff_factor, growth_interval);
        scale.copy_(full({}, double(s), DType::f32));
        growth_tracker.copy_(full({}, double(tracker), DType::i64));
        return scale;
    }
};

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

Tensor amp_foreach_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf, const Tensor& inv_scale)
{
    return dispatch<NonFiniteCheckAndUnscaleOp>(grads, found_inf, inv_scale);
}

Tensor amp_update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf, double growth_factor,
                         double backoff_factor, std::int64_t growth_interval)
{
    return dispatch<UpdateScaleOp>(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval);
}

}  // namespace tinyamp::amp
