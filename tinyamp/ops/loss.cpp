// Loss functions. Each forward is one loop in the compute type (f32 for f16/bf16/f32, f64 for f64)
// that rounds once into the result. Each backward is written with other ops on f32 (f64) copies
// of the inputs, so it can itself be differentiated, and the gradient too is rounded only once:
// when the engine casts it back to the input's dtype.
#include "tinyamp/ops/loss.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/elementwise_loops.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/cuda_forward.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/ops/reduce.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

using kernels::cpu::compute_t;
using kernels::cpu::load;
using kernels::cpu::store;

// The dtype a loss's math runs in (what compute_t is for its element type).
DType compute_dtype(DType dtype) { return dtype == DType::f64 ? DType::f64 : DType::f32; }

// `t` in `dtype`, laid out contiguously for a loop over its elements.
Tensor dense(const Tensor& t, DType dtype) { return layout::contiguous(layout::convert(t, dtype)); }

void require_float(const char* op, const char* what, const Tensor& t, const char* hint)
{
    TINYAMP_CHECK(is_floating_point(t.dtype()), dtype, op, ": ", what, " must be a floating point tensor, got ", dtype_name(t.dtype()),
                  hint);
}

// Checks an (input, float target) pair of one shape and returns the dtype they meet in. With
// equal shapes, result_type is promote_types.
DType pointwise_dtype(const char* op, const Tensor& input, const Tensor& target)
{
    op_device(op, {input, target});
    require_float(op, "input", input, "; convert it with .to(f32)");
    require_float(op, "target", target, "; convert it with .to(f32) (class indices go to cross_entropy or nll_loss)");
    TINYAMP_CHECK(input.shape() == target.shape(), shape, op, ": target of shape ", shape_str(target.shape()),
                  " does not match input of shape ", shape_str(input.shape()),
                  "; give one target per input element (an [N, 1] input with an [N] target is the usual slip: reshape one of them)");
    return promote_types(input.dtype(), target.dtype());
}

// Whether `from` broadcasts to exactly `to` (aligned at the right, each size equal or 1).
bool broadcasts_to(const Shape& from, const Shape& to)
{
    if (from.size() > to.size()) return false;
    const std::size_t lead = to.size() - from.size();
    for (std::size_t i = 0; i < from.size(); ++i)
        if (from[i] != 1 && from[i] != to[lead + i]) return false;
    return true;
}

// The loss of each element (or sample), in the compute type, reduced as asked and rounded once
// into T. Mean divides by `count`; the mean of nothing is NaN, as in PyTorch.
template <class T>
Tensor reduce_losses(const std::vector<compute_t<T>>& losses, const Shape& shape, Reduction reduction, std::int64_t count)
{
    using C = compute_t<T>;
    if (reduction == Reduction::none) {
        Tensor out = empty(shape, dtype_of<T>());
        T* o = out.data_ptr<T>();
        for (std::size_t i = 0; i < losses.size(); ++i) o[i] = store<T>(losses[i]);
        return out;
    }
    C total = 0;
    for (C v : losses) total += v;
    if (reduction == Reduction::mean) total = count > 0 ? total / C(count) : std::numeric_limits<C>::quiet_NaN();
    Tensor out = empty({}, dtype_of<T>());
    *out.data_ptr<T>() = store<T>(total);
    return out;
}

// The float-target losses: fn(x_i, t_i, w_i) for every element in the compute type of `dtype`
// (w is 1 where no weight tensor is given), then reduced and rounded once into `dtype`.
template <class Fn>
Tensor pointwise_loss(DType dtype, const Tensor& x, const Tensor& t, const Tensor& w, Reduction reduction, Fn fn)
{
    Tensor out;
    visit_float_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        using C = compute_t<T>;
        const T* xs = x.data_ptr<T>();
        const T* ts = t.data_ptr<T>();
        const T* ws = w.defined() ? w.data_ptr<T>() : nullptr;
        std::vector<C> losses(std::size_t(x.numel()));
        for (std::size_t i = 0; i < losses.size(); ++i) losses[i] = fn(load(xs[i]), load(ts[i]), ws ? load(ws[i]) : C(1), i);
        out = reduce_losses<T>(losses, x.shape(), reduction, x.numel());
    });
    return out;
}

// The incoming gradient in the compute dtype, as the factor on each element's own gradient:
// itself for none (it has one value per element) and sum, grad / count for mean.
Tensor grad_factor(const Tensor& grad, Reduction reduction, std::int64_t count, DType ct)
{
    const Tensor g = grad.to(ct);
    return reduction == Reduction::mean ? div(g, double(count)) : g;
}

// max(x, lo) elementwise, as ops (so that it has a gradient).
Tensor clamp_min(const Tensor& x, double lo) { return where(lt(x, lo), scalar_like(lo, x), x); }

// log(1 + e^-x) written so that exp never overflows: max(-x, 0) + log(1 + e^-|x|).
Tensor softplus_of_neg(const Tensor& x)
{
    const Tensor abs_x = add(relu(x), relu(neg(x)));
    return add(relu(neg(x)), log(add(exp(neg(abs_x)), 1.0)));
}

// ---------------------------------------------------------------- class-index targets

// Scores [N, C] (or [C] with a 0-D target) and their i64 targets, checked and viewed as N rows.
struct ClassBatch {
    Tensor rows;       // [N, C], contiguous, in the input's dtype
    Tensor labels;     // [N], contiguous i64
    Shape loss_shape;  // of the unreduced loss: [N], or [] for one unbatched sample
    std::int64_t n = 0, classes = 0;
};

ClassBatch class_batch(const char* op, const Tensor& input, const Tensor& target, std::int64_t ignore_index)
{
    op_device(op, {input, target});
    require_float(op, "input", input, "; convert it with .to(f32)");
    TINYAMP_CHECK(input.dim() == 1 || input.dim() == 2, shape, op,
                  ": input must be [N, C] (N samples of C class scores) or [C] (one sample), got shape ", shape_str(input.shape()));
    TINYAMP_CHECK(target.dtype() == DType::i64, dtype, op, ": target must hold i64 class indices, got ", dtype_name(target.dtype()),
                  "; convert the labels with .to(i64) (class probabilities as targets are not supported)");
    ClassBatch b;
    b.loss_shape = input.dim() == 2 ? Shape{input.size(0)} : Shape{};
    TINYAMP_CHECK(target.shape() == b.loss_shape, shape, op, ": input of shape ", shape_str(input.shape()), " needs a target of shape ",
                  shape_str(b.loss_shape), " (one class index per sample), got ", shape_str(target.shape()));
    b.n = input.dim() == 2 ? input.size(0) : 1;
    b.classes = input.size(-1);
    TINYAMP_CHECK(b.classes > 0, shape, op, ": input of shape ", shape_str(input.shape()), " has no classes");
    b.rows = layout::contiguous(layout::reshape(input, {b.n, b.classes}));
    // On the input's device: a 0-D CPU target may join a CUDA input (op_device allows it), and the
    // kernels and the backward's masks read the labels where the input lives.
    b.labels = layout::contiguous(layout::to_device(layout::reshape(target, {b.n}), input.device()));
    const Tensor host_labels = layout::to_device(b.labels, Device::cpu());  // CUDA labels are checked on the host
    const std::int64_t* labels = host_labels.data_ptr<std::int64_t>();
    for (std::int64_t i = 0; i < b.n; ++i)
        TINYAMP_CHECK(labels[i] == ignore_index || (labels[i] >= 0 && labels[i] < b.classes), index, op, ": target ", labels[i],
                      " (sample ", i, ") is not a class index: with ", b.classes, " classes, targets must be in [0, ", b.classes,
                      ") or equal ignore_index (", ignore_index, ")");
    return b;
}

std::int64_t count_kept(const Tensor& labels, std::int64_t ignore_index)
{
    const Tensor host = layout::to_device(labels, Device::cpu());
    const std::int64_t* l = host.data_ptr<std::int64_t>();
    return std::int64_t(std::count_if(l, l + labels.numel(), [&](std::int64_t v) { return v != ignore_index; }));
}

// What backward needs about the targets, in the compute dtype `ct`.
struct TargetMasks {
    Tensor onehot;  // [N, C]: 1 at each sample's class (a row of 0s for ignored samples)
    Tensor weight;  // [N, 1]: how much each sample's loss counts: 0 if ignored, 1/kept for mean, else 1
};

TargetMasks target_masks(const Tensor& labels_1d, std::int64_t classes, std::int64_t ignore_index, Reduction reduction, DType ct)
{
    const Tensor labels = layout::contiguous(labels_1d);
    const std::int64_t n = labels.numel();
    const std::int64_t kept = count_kept(labels, ignore_index);
    TargetMasks m{zeros({n, classes}, ct, labels.device()), zeros({n, 1}, ct, labels.device())};
    const double w = reduction == Reduction::mean ? 1.0 / double(kept) : 1.0;  // used only when kept > 0
    if (labels.device().is_cuda()) {
        cuda_forward::target_masks(labels, classes, ignore_index, w, m.onehot, m.weight);
        return m;
    }
    visit_float_dtype(ct, [&](auto tag) {
        using C = decltype(tag);
        C* onehot = m.onehot.data_ptr<C>();
        C* weight = m.weight.data_ptr<C>();
        const std::int64_t* l = labels.data_ptr<std::int64_t>();
        for (std::int64_t i = 0; i < n; ++i) {
            if (l[i] == ignore_index) continue;
            onehot[i * classes + l[i]] = C(1.0);
            weight[i] = C(w);
        }
    });
    return m;
}

// The incoming gradient as a factor on rows: [N, 1] for none, else the 0-D value.
Tensor row_grad(const Tensor& grad, Reduction reduction, std::int64_t n, DType ct)
{
    const Tensor g = grad.to(ct);
    return reduction == Reduction::none ? g.reshape({n, 1}) : g;
}

// The forward of both class-index losses: on CUDA the class_loss kernel (`log_probs_given` says
// which loss), on the CPU `sample_loss(row, label)` for each sample that is not ignored (ignored
// ones give 0), then the reduction. `row` points at the sample's C scores, in the input's dtype.
template <class SampleLoss>
Tensor class_index_loss(const ClassBatch& b, bool log_probs_given, Reduction reduction, std::int64_t ignore_index,
                        SampleLoss sample_loss)
{
    const std::int64_t kept = count_kept(b.labels, ignore_index);
    if (b.rows.device().is_cuda())
        return cuda_forward::class_loss(log_probs_given, b.rows, b.labels, b.loss_shape, reduction, ignore_index, kept);
    const std::int64_t* labels = b.labels.data_ptr<std::int64_t>();
    Tensor out;
    visit_float_dtype(b.rows.dtype(), [&](auto tag) {
        using T = decltype(tag);
        std::vector<compute_t<T>> losses(std::size_t(b.n), 0);
        for (std::int64_t i = 0; i < b.n; ++i)
            if (labels[i] != ignore_index) losses[std::size_t(i)] = sample_loss(b.rows.data_ptr<T>() + i * b.classes, labels[i]);
        out = reduce_losses<T>(losses, b.loss_shape, reduction, kept);
    });
    return out;
}

// What the class-index losses keep for backward besides the labels.
struct ClassLossSaved {
    Shape input_shape;  ///< nll_loss: log_probs' shape (cross_entropy reads its saved logits')
    Reduction reduction = Reduction::mean;
    std::int64_t ignore_index = -100;
};

struct NllLossOp {
    static constexpr const char* name = "nll_loss";
    using Saved = ClassLossSaved;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& log_probs, const Tensor& target, Reduction reduction, std::int64_t ignore_index)
    {
        const ClassBatch b = class_batch(name, log_probs, target, ignore_index);
        ctx.save_for_backward({b.labels});
        ctx.saved = {log_probs.shape(), reduction, ignore_index};
        return class_index_loss(b, true, reduction, ignore_index, [](const auto* x, std::int64_t label) { return -load(x[label]); });
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        // d loss / d log_probs[n, c] = -weight[n] where c is n's class, 0 elsewhere.
        const Shape& shape = ctx.saved.input_shape;
        const Reduction reduction = ctx.saved.reduction;
        const Tensor& labels = ctx.saved_tensors()[0];
        const DType ct = compute_dtype(grad.dtype());
        const TargetMasks m = target_masks(labels, shape.back(), ctx.saved.ignore_index, reduction, ct);
        const Tensor g = neg(mul(mul(m.onehot, m.weight), row_grad(grad, reduction, labels.numel(), ct)));
        return {g.reshape(shape), Tensor()};
    }
};

struct CrossEntropyOp {
    static constexpr const char* name = "cross_entropy";
    using Saved = ClassLossSaved;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& logits, const Tensor& target, Reduction reduction, std::int64_t ignore_index)
    {
        const ClassBatch b = class_batch(name, logits, target, ignore_index);
        ctx.save_for_backward({logits, b.labels});
        ctx.saved = {Shape{}, reduction, ignore_index};
        return class_index_loss(b, false, reduction, ignore_index, [&](const auto* x, std::int64_t label) {
            // -log softmax(x)[t] = log(sum_j e^(x_j - m)) - (x_t - m), with m the row's maximum:
            // every exponent is <= 0, so nothing overflows, whatever the logits.
            auto m = load(x[0]);
            for (std::int64_t j = 1; j < b.classes; ++j) m = std::max(m, load(x[j]));
            decltype(m) total = 0;
            for (std::int64_t j = 0; j < b.classes; ++j) total += std::exp(load(x[j]) - m);
            return std::log(total) - (load(x[label]) - m);
        });
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        // d loss / d logits[n, :] = weight[n] (softmax(logits[n, :]) - onehot(target[n])).
        const Tensor& logits = ctx.saved_tensors()[0];
        const Tensor& labels = ctx.saved_tensors()[1];
        const Reduction reduction = ctx.saved.reduction;
        const std::int64_t n = labels.numel(), classes = logits.size(-1);
        if (n == 0) return {zeros_like(logits), Tensor()};
        const DType ct = compute_dtype(logits.dtype());
        const Tensor x = logits.reshape({n, classes}).to(ct);
        // Shifting by the row maximum changes nothing in softmax, so the shift is a constant
        // (detached) that only keeps exp from overflowing.
        const Tensor e = exp(sub(x, max(x.detach(), 1, true).values));
        const Tensor softmax = div(e, sum(e, {1}, true));
        const TargetMasks m = target_masks(labels, classes, ctx.saved.ignore_index, reduction, ct);
        const Tensor g = mul(mul(sub(softmax, m.onehot), m.weight), row_grad(grad, reduction, n, ct));
        return {g.reshape(logits.shape()), Tensor()};
    }
};

// ---------------------------------------------------------------- float targets

// What the losses on float targets keep for backward besides their inputs.
struct ReductionSaved {
    Reduction reduction = Reduction::mean;
};

struct MseLossOp {
    static constexpr const char* name = "mse_loss";
    using Saved = ReductionSaved;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& input, const Tensor& target, Reduction reduction)
    {
        const DType dtype = pointwise_dtype(name, input, target);
        ctx.save_for_backward({input, target});
        ctx.saved.reduction = reduction;
        if (input.device().is_cuda()) return cuda_forward::mse_loss(dense(input, dtype), dense(target, dtype), dtype, reduction);
        return pointwise_loss(dtype, dense(input, dtype), dense(target, dtype), Tensor(), reduction, [](auto x, auto t, auto, std::size_t) {
            return (x - t) * (x - t);
        });
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        // d/dx (x - t)^2 = 2 (x - t) = -d/dt
        const Tensor& input = ctx.saved_tensors()[0];
        const Tensor& target = ctx.saved_tensors()[1];
        const DType ct = compute_dtype(grad.dtype());
        const Tensor g = grad_factor(grad, ctx.saved.reduction, input.numel(), ct);
        const Tensor d_input = mul(mul(sub(input.to(ct), target.to(ct)), 2.0), g);
        return {ctx.needs_input_grad(0) ? d_input : Tensor(), ctx.needs_input_grad(1) ? neg(d_input) : Tensor()};
    }
};

struct BinaryCrossEntropyOp {
    static constexpr const char* name = "binary_cross_entropy";
    using Saved = ReductionSaved;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& probs, const Tensor& target, Reduction reduction)
    {
        require_cpu(name, {probs, target});
        const DType dtype = pointwise_dtype(name, probs, target);
        ctx.save_for_backward({probs, target});
        ctx.saved.reduction = reduction;
        return pointwise_loss(dtype, dense(probs, dtype), dense(target, dtype), Tensor(), reduction, [](auto p, auto t, auto, std::size_t i) {
            using C = decltype(p);
            TINYAMP_CHECK(p >= C(0) && p <= C(1), value, name, ": input must hold probabilities in [0, 1], but element ", i, " is ",
                          double(p), "; apply sigmoid first, or better pass the logits to binary_cross_entropy_with_logits");
            // Each log clamped at -100 (as PyTorch does): p = 0 or 1 costs 100, not inf (or 0 * inf = NaN).
            const C log_p = std::max(std::log(p), C(-100)), log_q = std::max(std::log1p(-p), C(-100));
            return -(t * log_p + (C(1) - t) * log_q);
        });
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        // d/dp = (p - t) / (p (1 - p)), the denominator kept >= PyTorch's EPSILON, a float 1e-12
        // (so f64 inputs are clamped at 1e-12f too); d/dt = log(1 - p) - log p, with forward's clamps.
        const DType ct = compute_dtype(grad.dtype());
        const Tensor p = ctx.saved_tensors()[0].to(ct);
        const Tensor t = ctx.saved_tensors()[1].to(ct);
        const Tensor g = grad_factor(grad, ctx.saved.reduction, p.numel(), ct);
        Tensor d_probs, d_target;
        if (ctx.needs_input_grad(0)) d_probs = mul(div(sub(p, t), clamp_min(mul(p, sub(1.0, p)), double(1e-12f))), g);
        if (ctx.needs_input_grad(1)) d_target = mul(sub(clamp_min(log(sub(1.0, p)), -100.0), clamp_min(log(p), -100.0)), g);
        return {d_probs, d_target};
    }
};

struct BinaryCrossEntropyWithLogitsOp {
    static constexpr const char* name = "binary_cross_entropy_with_logits";
    using Saved = ReductionSaved;
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& logits, const Tensor& target, Reduction reduction, const Tensor& pos_weight)
    {
        require_cpu(name, {logits, target});
        DType dtype = pointwise_dtype(name, logits, target);
        if (pos_weight.defined()) {
            require_cpu(name, {pos_weight});
            require_float(name, "pos_weight", pos_weight, "; convert it with .to(f32)");
            TINYAMP_CHECK(broadcasts_to(pos_weight.shape(), logits.shape()), shape, name, ": pos_weight of shape ",
                          shape_str(pos_weight.shape()), " must broadcast to the logits' shape ", shape_str(logits.shape()),
                          " (e.g. one weight per class: [C])");
            dtype = promote_types(dtype, result_type(logits, pos_weight));
        }
        ctx.save_for_backward({logits, target, pos_weight});
        ctx.saved.reduction = reduction;
        const Tensor w = pos_weight.defined() ? dense(layout::expand(pos_weight, logits.shape()), dtype) : Tensor();
        return pointwise_loss(dtype, dense(logits, dtype), dense(target, dtype), w, reduction, [](auto x, auto t, auto w_i, std::size_t) {
            using C = decltype(x);
            // -log sigmoid(x) = log(1 + e^-x) = max(-x, 0) + log(1 + e^-|x|): no exp of a positive number.
            // With pos_weight 1 the loss below is max(x, 0) - x t + log(1 + e^-|x|).
            const C softplus_neg = std::max(-x, C(0)) + std::log1p(std::exp(-std::abs(x)));
            return (C(1) - t) * x + (C(1) + (w_i - C(1)) * t) * softplus_neg;
        });
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        // loss = (1 - t) x + (1 + (w - 1) t) softplus(-x), with softplus(-x) = -log sigmoid(x):
        //   d/dx = (1 - t) - (1 + (w - 1) t)(1 - sigmoid(x))   (sigmoid(x) - t when w = 1)
        //   d/dt = -x + (w - 1) softplus(-x)                    (-x when w = 1)
        //   d/dw = t softplus(-x)
        const DType ct = compute_dtype(grad.dtype());
        const Tensor x = ctx.saved_tensors()[0].to(ct);
        const Tensor t = ctx.saved_tensors()[1].to(ct);
        const Tensor& pos_weight = ctx.saved_tensors()[2];
        const Tensor g = grad_factor(grad, ctx.saved.reduction, x.numel(), ct);
        if (!pos_weight.defined()) {
            return {ctx.needs_input_grad(0) ? mul(sub(sigmoid(x), t), g) : Tensor(), ctx.needs_input_grad(1) ? mul(neg(x), g) : Tensor(),
                    Tensor()};
        }
        const Tensor w_minus_1 = sub(pos_weight.to(ct), 1.0);
        const Tensor softplus_neg = softplus_of_neg(x);
        Tensor d_logits, d_target, d_weight;
        if (ctx.needs_input_grad(0))
            d_logits = mul(sub(sub(1.0, t), mul(add(mul(w_minus_1, t), 1.0), sub(1.0, sigmoid(x)))), g);
        if (ctx.needs_input_grad(1)) d_target = mul(add(neg(x), mul(w_minus_1, softplus_neg)), g);
        if (ctx.needs_input_grad(2)) d_weight = sum_to(mul(mul(t, softplus_neg), g), pos_weight.shape());
        return {d_logits, d_target, d_weight};
    }
};

}  // namespace

const char* reduction_name(Reduction reduction)
{
    switch (reduction) {
    case Reduction::none: return "none";
    case Reduction::mean: return "mean";
    case Reduction::sum: return "sum";
    }
    return "?";  // unreachable: every enumerator is handled above
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) { return dispatch<MseLossOp>(input, target, reduction); }

Tensor nll_loss(const Tensor& log_probs, const Tensor& target, Reduction reduction, std::int64_t ignore_index)
{
    return dispatch<NllLossOp>(log_probs, target, reduction, ignore_index);
}

Tensor cross_entropy(const Tensor& logits, const Tensor& target, Reduction reduction, std::int64_t ignore_index)
{
    return dispatch<CrossEntropyOp>(logits, target, reduction, ignore_index);
}

Tensor binary_cross_entropy(const Tensor& probs, const Tensor& target, Reduction reduction)
{
    return dispatch<BinaryCrossEntropyOp>(probs, target, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& logits, const Tensor& target, Reduction reduction, const Tensor& pos_weight)
{
    return dispatch<BinaryCrossEntropyWithLogitsOp>(logits, target, reduction, pos_weight);
}

}  // namespace tinyamp
