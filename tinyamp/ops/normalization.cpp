// layer_norm and batch_norm: the forward with the loops of kernels/cpu/normalization_loops.h; one
// backward for both, written with other ops in the statistics' dtype (f32 for f16/bf16 inputs).
// layer_norm on f32 CPU tensors has its own kernel instead, one pass per row each way
// (kernels/cpu/layer_norm_kernel.h): the GPT's nine LayerNorms a step, f32 under autocast too.
//
// Both compute y = xhat * weight + bias with xhat = (x - mean) * rstd, rstd = 1 / sqrt(var + eps);
// they differ in which elements share a mean and variance (a group) and which share a weight:
//   layer_norm:  groups are the trailing normalized dims; weight varies along them
//   batch_norm:  groups are channels, over N and the spatial dims; weight varies by channel
#include "tinyamp/ops/normalization.h"

#include "kernels/cpu/layer_norm_kernel.h"
#include "kernels/cpu/normalization_loops.h"
#include "kernels/cuda/softmax_cuda.h"
#include "tinyamp/support/grad_mode.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/ops/reduce.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

using kernels::cpu::AffineIndex;
using Dims = std::vector<std::int64_t>;

// Statistics are kept in f64 for f64 inputs and in f32 for all others.
DType stats_dtype(DType dtype) { return dtype == DType::f64 ? DType::f64 : DType::f32; }

void check_float_input(const char* op, const Tensor& x)
{
    TINYAMP_CHECK(is_floating_point(x.dtype()), dtype, op, " needs a floating point input, got ", dtype_name(x.dtype()),
                  "; convert it with .to(f32) first");
}

// weight, bias or a running stat: absent, or a float tensor of exactly `expected` shape.
void check_param(const char* op, const char* what, const Tensor& p, const Shape& expected, const std::string& reason)
{
    if (!p.defined()) return;
    TINYAMP_CHECK(p.shape() == expected, shape, op, ": ", what, " has shape ", shape_str(p.shape()), ", but ", reason,
                  ", so it needs shape ", shape_str(expected));
    TINYAMP_CHECK(is_floating_point(p.dtype()), dtype, op, ": ", what, " must be a floating point tensor, got ", dtype_name(p.dtype()));
}

// A parameter as a contiguous buffer in the statistics' dtype (undefined stays undefined).
Tensor in_stats_dtype(const Tensor& p, DType stats)
{
    return p.defined() ? layout::contiguous(layout::convert(p, stats)) : p;
}

template <class A>
const A* data_or_null(const Tensor& p)
{
    return p.defined() ? p.data_ptr<A>() : nullptr;
}

// x (contiguous) seen as [outer, groups, inner]: the mean and biased variance of each group.
void group_moments(const Tensor& x, std::int64_t outer, std::int64_t groups, std::int64_t inner, Tensor& mean, Tensor& var)
{
    mean = empty({groups}, stats_dtype(x.dtype()));
    var = empty({groups}, stats_dtype(x.dtype()));
    visit_float_dtype(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        using A = kernels::cpu::compute_t<T>;
        kernels::cpu::group_moments(x.data_ptr<T>(), outer, groups, inner, mean.data_ptr<A>(), var.data_ptr<A>());
    });
}

// var is in the statistics' dtype: f32 or f64.
Tensor inverse_std(const Tensor& var, double eps)
{
    Tensor rstd = empty(var.shape(), var.dtype());
    if (var.dtype() == DType::f64)
        kernels::cpu::inverse_std(var.data_ptr<double>(), var.numel(), eps, rstd.data_ptr<double>());
    else
        kernels::cpu::inverse_std(var.data_ptr<float>(), var.numel(), eps, rstd.data_ptr<float>());
    return rstd;
}

// y = (x - mean) * rstd * weight + bias, with x (contiguous) seen as [outer, groups, inner];
// weight and bias already in the statistics' dtype.
Tensor normalize(const Tensor& x, std::int64_t outer, std::int64_t groups, std::int64_t inner, const Tensor& mean, const Tensor& rstd,
                 const Tensor& weight, const Tensor& bias, AffineIndex affine)
{
    Tensor y = empty(x.shape(), x.dtype());
    visit_float_dtype(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        using A = kernels::cpu::compute_t<T>;
        kernels::cpu::normalize_groups(x.data_ptr<T>(), outer, groups, inner, mean.data_ptr<A>(), rstd.data_ptr<A>(), data_or_null<A>(weight),
                                       data_or_null<A>(bias), affine, y.data_ptr<T>());
    });
    return y;
}

// What the shared backward needs besides the saved tensors (x, weight, bias, mean, rstd; mean
// and rstd shaped to broadcast against x), saved by both forwards.
struct NormSaved {
    Dims stat_dims;    ///< the dims mean and rstd were taken over when they are x's own statistics, so the
                       ///< gradient flows through them too; empty when they are constants (batch norm in eval mode)
    Dims param_dims;   ///< the dims summed for the weight and bias gradients
    Shape param_view;  ///< weight's shape as it broadcasts against x
};

void save_for_norm_backward(ContextWith<NormSaved>& ctx, const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& mean,
                            const Tensor& rstd, const Shape& stats_view, Dims stat_dims, Dims param_dims, Shape param_view)
{
    ctx.save_for_backward({x, weight, bias, layout::view(mean, stats_view), layout::view(rstd, stats_view)});
    ctx.saved = {std::move(stat_dims), std::move(param_dims), std::move(param_view)};
}

struct NormGrads {
    Tensor x, weight, bias;
};

// The gradients of y = xhat * weight + bias with xhat = (x - mu) * rstd:
//   dweight = sum(g * xhat), dbias = sum(g)   over param_dims
//   dx = rstd * dxhat                          when mu and rstd are constants
//   dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))   when they are x's statistics
// with dxhat = g * weight, the means over stat_dims.
NormGrads norm_backward(ContextWith<NormSaved>& ctx, const Tensor& grad, std::size_t weight_input, std::size_t bias_input)
{
    const auto& saved = ctx.saved_tensors();
    const Tensor &x = saved[0], &weight = saved[1], &bias = saved[2], &mu = saved[3], &rstd = saved[4];
    const Dims& stat_dims = ctx.saved.stat_dims;
    const Dims& param_dims = ctx.saved.param_dims;
    const DType stats = mu.dtype();
    const Tensor g = grad.to(stats);
    const Tensor xhat = mul(sub(x.to(stats), mu), rstd);
    // No param dims when x is exactly the normalized shape (layer_norm without batch dims).
    auto param_sum = [&](const Tensor& t) { return param_dims.empty() ? t : sum(t, param_dims); };

    NormGrads out;
    if (weight.defined() && ctx.needs_input_grad(weight_input)) out.weight = param_sum(mul(g, xhat)).to(weight.dtype());
    if (bias.defined() && ctx.needs_input_grad(bias_input)) out.bias = param_sum(g).to(bias.dtype());
    if (ctx.needs_input_grad(0)) {
        const Tensor dxhat = weight.defined() ? mul(g, weight.to(stats).reshape(ctx.saved.param_view)) : g;
        Tensor dx;
        if (stat_dims.empty())
            dx = mul(dxhat, rstd);
        else
            dx = mul(rstd, sub(sub(dxhat, mean(dxhat, stat_dims, true)), mul(xhat, mean(mul(dxhat, xhat), stat_dims, true))));
        out.x = dx.to(x.dtype());
    }
    return out;
}

// LayerNorm's backward in one pass per row (kernels/cpu/layer_norm_kernel.h): f32 input and
// gradient on the CPU, unless backward itself is being recorded (create_graph needs the ops).
bool layer_norm_kernel_applies(const ContextWith<NormSaved>& ctx, const Tensor& grad)
{
    const Tensor& x = ctx.saved_tensors()[0];
    return x.device().is_cpu() && x.dtype() == DType::f32 && grad.dtype() == DType::f32 && grad.device().is_cpu() && !is_grad_enabled();
}

std::vector<Tensor> layer_norm_kernel_backward(ContextWith<NormSaved>& ctx, const Tensor& grad)
{
    const auto& saved = ctx.saved_tensors();
    const Tensor &x = saved[0], &weight = saved[1], &bias = saved[2];
    const Tensor xc = layout::contiguous(x), g = layout::contiguous(grad), mu = layout::contiguous(saved[3]), rstd = layout::contiguous(saved[4]);
    const Tensor w = in_stats_dtype(weight, DType::f32);
    const std::int64_t rows = mu.numel(), cols = rows == 0 ? 0 : x.numel() / rows;
    Tensor dx, dw, db;
    if (ctx.needs_input_grad(0)) dx = empty(x.shape(), DType::f32);
    if (weight.defined() && ctx.needs_input_grad(1)) dw = empty(weight.shape(), DType::f32);
    if (bias.defined() && ctx.needs_input_grad(2)) db = empty(bias.shape(), DType::f32);
    const auto ptr = [](const Tensor& t) { return t.defined() ? t.data_ptr<float>() : nullptr; };
    kernels::cpu::layer_norm_backward(g.data_ptr<float>(), xc.data_ptr<float>(), mu.data_ptr<float>(), rstd.data_ptr<float>(),
                                      w.defined() ? w.data_ptr<float>() : nullptr, rows, cols, ptr(dx), ptr(dw), ptr(db));
    return {dx, dw.defined() ? dw.to(weight.dtype()) : dw, db.defined() ? db.to(bias.dtype()) : db};
}

// The f32 forward on the CPU kernel (kernels/cpu/layer_norm_kernel.h): y, and each row's mean and rstd.
struct LayerNormRows {
    Tensor y, mean, rstd;
};
LayerNormRows layer_norm_kernel_forward(const Tensor& xc, std::int64_t rows, std::int64_t cols, const Tensor& weight, const Tensor& bias,
                                        double eps)
{
    LayerNormRows r{empty(xc.shape(), DType::f32), empty({rows}, DType::f32), empty({rows}, DType::f32)};
    const Tensor w = in_stats_dtype(weight, DType::f32), b = in_stats_dtype(bias, DType::f32);
    kernels::cpu::layer_norm_forward(xc.data_ptr<float>(), data_or_null<float>(w), data_or_null<float>(b), rows, cols, float(eps),
                                     r.y.data_ptr<float>(), r.mean.data_ptr<float>(), r.rstd.data_ptr<float>());
    return r;
}

struct LayerNormOp {
    static constexpr const char* name = "layer_norm";
    using Saved = NormSaved;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                          double eps)
    {
        const Device device = op_device(name, {x, weight, bias});
        check_float_input(name, x);
        const auto k = std::int64_t(normalized_shape.size());
        TINYAMP_CHECK(k > 0, shape, "layer_norm: normalized_shape is empty; give the sizes of the last dims to normalize over, e.g. ",
                      shape_str({x.dim() > 0 ? x.size(-1) : 1}));
        const std::int64_t lead = x.dim() - k;
        bool matches = lead >= 0;
        for (std::int64_t d = 0; matches && d < k; ++d) matches = x.size(lead + d) == normalized_shape[std::size_t(d)];
        TINYAMP_CHECK(matches, shape, "layer_norm: normalized_shape ", shape_str(normalized_shape), " must equal the last ", k,
                      " dimension(s) of the input, but the input has shape ", shape_str(x.shape()));
        const std::string reason = "normalized_shape is " + shape_str(normalized_shape);
        check_param(name, "weight", weight, normalized_shape, reason);
        check_param(name, "bias", bias, normalized_shape, reason);

        // [rows, cols]: one group per row, the weight varying along it.
        std::int64_t rows = 1;
        Shape stats_view;
        Dims stat_dims, param_dims;
        for (std::int64_t d = 0; d < x.dim(); ++d) {
            if (d < lead) {
                rows *= x.size(d);
                param_dims.push_back(d);
            } else {
                stat_dims.push_back(d);
            }
            stats_view.push_back(d < lead ? x.size(d) : 1);
        }
        const std::int64_t cols = numel(normalized_shape);
        const Tensor xc = layout::contiguous(x);
        const DType stats = stats_dtype(x.dtype());
        if (device.is_cuda()) {  // one CUDA block per row: its moments, then the normalized, affine row
            Tensor y = empty(x.shape(), x.dtype(), device), mu = empty({rows}, stats, device), rstd = empty({rows}, stats, device);
            const Tensor w = in_stats_dtype(weight, stats), b = in_stats_dtype(bias, stats);
            kernels::cuda::layer_norm_rows(xc.data_ptr(), x.dtype(), rows, cols, eps, w.defined() ? w.data_ptr() : nullptr,
                                           b.defined() ? b.data_ptr() : nullptr, stats, y.data_ptr(), mu.data_ptr(), rstd.data_ptr(),
                                           device.index());
            save_for_norm_backward(ctx, x, weight, bias, mu, rstd, stats_view, stat_dims, param_dims, normalized_shape);
            return y;
        }
        if (x.dtype() == DType::f32) {
            LayerNormRows r = layer_norm_kernel_forward(xc, rows, cols, weight, bias, eps);
            save_for_norm_backward(ctx, x, weight, bias, r.mean, r.rstd, stats_view, stat_dims, param_dims, normalized_shape);
            return r.y;
        }
        Tensor mu, var;  // f16, bf16, f64: the plain loops of normalization_loops.h
        group_moments(xc, 1, rows, cols, mu, var);
        const Tensor rstd = inverse_std(var, eps);
        save_for_norm_backward(ctx, x, weight, bias, mu, rstd, stats_view, stat_dims, param_dims, normalized_shape);
        return normalize(xc, 1, rows, cols, mu, rstd, in_stats_dtype(weight, stats), in_stats_dtype(bias, stats), AffineIndex::inner);
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        if (layer_norm_kernel_applies(ctx, grad)) return layer_norm_kernel_backward(ctx, grad);
        NormGrads g = norm_backward(ctx, grad, 1, 2);
        return {g.x, g.weight, g.bias};
    }
};

// running = (1 - momentum) * running + momentum * batch_stat, written into the caller's buffers
// (not an op, so nothing is recorded). running_var takes the unbiased variance var * n / (n - 1).
void update_running_stats(const Tensor& running_mean, const Tensor& running_var, const Tensor& mean, const Tensor& var,
                          std::int64_t count, double momentum)
{
    const std::vector<double> m = mean.to_vector(), v = var.to_vector();
    const double unbias = double(count) / double(count - 1);
    for (std::int64_t c = 0; c < running_mean.numel(); ++c) {
        const auto i = std::size_t(c);
        running_mean.set({c}, (1 - momentum) * running_mean.at({c}) + momentum * m[i]);
        running_var.set({c}, (1 - momentum) * running_var.at({c}) + momentum * v[i] * unbias);
    }
}

struct BatchNormOp {
    static constexpr const char* name = "batch_norm";
    using Saved = NormSaved;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                          const Tensor& bias, bool training, double momentum, double eps)
    {
        require_cpu(name, {x, running_mean, running_var, weight, bias});
        check_float_input(name, x);
        TINYAMP_CHECK(x.dim() >= 2, shape, "batch_norm expects an input of shape [N, C], [N, C, L] or [N, C, H, W], got shape ",
                      shape_str(x.shape()));
        const std::int64_t n = x.size(0), channels = x.size(1);
        const std::string reason = detail::concat("the input has ", channels, " channels (shape ", shape_str(x.shape()), ")");
        check_param(name, "weight", weight, {channels}, reason);
        check_param(name, "bias", bias, {channels}, reason);
        check_param(name, "running_mean", running_mean, {channels}, reason);
        check_param(name, "running_var", running_var, {channels}, reason);
        TINYAMP_CHECK(running_mean.defined() == running_var.defined(), value,
                      "batch_norm: give both running_mean and running_var, or neither (then batch statistics are always used)");

        // [N, C, spatial]: one group per channel, the weight varying by channel.
        std::int64_t spatial = 1;
        Dims reduce_dims{0};
        Shape per_channel{1, channels};
        for (std::int64_t d = 2; d < x.dim(); ++d) {
            spatial *= x.size(d);
            reduce_dims.push_back(d);
            per_channel.push_back(1);
        }
        // PyTorch's check and message: one value per channel has no variance to normalize by.
        TINYAMP_CHECK(!training || n * spatial > 1, value, "Expected more than 1 value per channel when training, got input of shape ",
                      shape_str(x.shape()));

        const Tensor xc = layout::contiguous(x);
        const DType stats = stats_dtype(x.dtype());
        const bool batch_stats = training || !running_mean.defined();
        Tensor mu, var;
        if (batch_stats) {
            group_moments(xc, n, channels, spatial, mu, var);
            if (training && running_mean.defined()) update_running_stats(running_mean, running_var, mu, var, n * spatial, momentum);
        } else {
            // Copies, so a later training step updating the buffers cannot change what backward reads.
            mu = layout::clone(layout::convert(running_mean, stats));
            var = layout::clone(layout::convert(running_var, stats));
        }
        const Tensor rstd = inverse_std(var, eps);
        save_for_norm_backward(ctx, x, weight, bias, mu, rstd, per_channel, batch_stats ? reduce_dims : Dims{}, reduce_dims, per_channel);
        return normalize(xc, n, channels, spatial, mu, rstd, in_stats_dtype(weight, stats), in_stats_dtype(bias, stats), AffineIndex::group);
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        NormGrads g = norm_backward(ctx, grad, 3, 4);
        return {g.x, Tensor(), Tensor(), g.weight, g.bias};  // the running stats get no gradient
    }
};

}  // namespace

Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias, double eps)
{
    return dispatch<LayerNormOp>(x, normalized_shape, weight, bias, eps);
}

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight, const Tensor& bias,
                  bool training, double momentum, double eps)
{
    return dispatch<BatchNormOp>(x, running_mean, running_var, weight, bias, training, momentum, eps);
}

}  // namespace tinyamp
