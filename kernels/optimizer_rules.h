#pragma once
/// \file
/// The per-element update of each optimizer, written once for both devices: the CPU loop
/// (tinyamp/optim/update_loop.h) and the CUDA kernel (kernels/cuda/optimizer_step_cuda.cu) call the
/// same rule, so a parameter on the GPU gets the same operations, in the same order, as on the
/// CPU: PyTorch's single-tensor SGD and Adam/AdamW, each add with alpha (and lerp, addcmul) a
/// fused multiply-add as PyTorch's CPU kernels fuse it. T is the "opmath" type: f32, or f64 for
/// f64 parameters. The scalars are rounded to T once, when the rule is made (as PyTorch rounds
/// its Python floats to the tensor's dtype).

#include <cmath>

#ifdef __CUDACC__
#define TINYAMP_HOST_DEVICE __host__ __device__
#else
#define TINYAMP_HOST_DEVICE
#endif

namespace tinyamp::kernels {

/// PyTorch's `a.add_(b, alpha=alpha)`: a + alpha * b with one rounding (std::fma is exact by
/// definition, on the CPU and on the GPU).
template <class T>
TINYAMP_HOST_DEVICE T add_scaled(T a, T alpha, T b)
{
    return std::fma(alpha, b, a);
}

/// PyTorch's lerp (ATen/native/Lerp.h), which Adam uses for its first moment: a + w (b - a),
/// written from the other end when w is large so that w == 1 gives exactly b.
template <class T>
TINYAMP_HOST_DEVICE T lerp(T a, T b, T w)
{
    return std::abs(w) < T(0.5) ? std::fma(w, b - a, a) : std::fma(w - T(1), b - a, b);
}

/// SGD's scalars for one parameter, in f64 as the options hold them.
struct SgdScalars {
    double lr, weight_decay, momentum, dampening;
    bool nesterov;
    bool first;  ///< the momentum buffer is new: it becomes d itself
};

/// SGD for one element: d = g + wd w (skipped for wd = 0); without momentum w -= lr d; with it
/// buf = d the first time, else momentum buf + (1 - dampening) d, and w -= lr (nesterov ?
/// d + momentum buf : buf). (w, g, buf, unused)
template <class T>
struct SgdRule {
    T neg_lr, weight_decay, momentum, one_minus_dampening;
    bool decay, use_momentum, nesterov, first;
    explicit SgdRule(const SgdScalars& s)
        : neg_lr(T(-s.lr)), weight_decay(T(s.weight_decay)), momentum(T(s.momentum)), one_minus_dampening(T(1 - s.dampening)),
          decay(s.weight_decay != 0), use_momentum(s.momentum != 0), nesterov(s.nesterov), first(s.first)
    {
    }
    TINYAMP_HOST_DEVICE void operator()(T& w, T g, T& buf, T&) const
    {
        const T d = decay ? add_scaled(g, weight_decay, w) : g;
        if (!use_momentum) {
            w = add_scaled(w, neg_lr, d);
            return;
        }
        buf = first ? d : add_scaled(buf * momentum, one_minus_dampening, d);
        w = add_scaled(w, neg_lr, nesterov ? add_scaled(d, momentum, buf) : buf);
    }
};

/// Adam's scalars for one parameter at step t, in f64 (the bias corrections are computed there).
struct AdamScalars {
    double lr, beta1, beta2, eps, weight_decay, bias_correction2_sqrt, step_size;
    bool decoupled;  ///< AdamW: decay the weight itself, not through the gradient
};

/// Adam/AdamW for one element, PyTorch's operations in order: g.add(p, alpha=wd) (Adam) or
/// p.mul_(1 - lr wd) (AdamW); exp_avg.lerp_(g, 1 - b1); exp_avg_sq.mul_(b2).addcmul_(g, g, 1 - b2);
/// p.addcdiv_(m, sqrt(v) / bc2_sqrt + eps, -step_size) (not fused). (w, g, m, v)
template <class T>
struct AdamRule {
    T decoupled_factor, weight_decay, one_minus_beta1, one_minus_beta2, beta2, neg_step_size, bias_correction2_sqrt, eps;
    bool decoupled, decay;
    explicit AdamRule(const AdamScalars& s)
        : decoupled_factor(T(1 - s.lr * s.weight_decay)), weight_decay(T(s.weight_decay)), one_minus_beta1(T(1 - s.beta1)),
          one_minus_beta2(T(1 - s.beta2)), beta2(T(s.beta2)), neg_step_size(T(-s.step_size)),
          bias_correction2_sqrt(T(s.bias_correction2_sqrt)), eps(T(s.eps)), decoupled(s.decoupled), decay(s.weight_decay != 0)
    {
    }
    TINYAMP_HOST_DEVICE void operator()(T& w, T grad, T& m, T& v) const
    {
        T g = grad;
        if (decoupled)
            w *= decoupled_factor;
        else if (decay)
            g = add_scaled(g, weight_decay, w);
        m = lerp(m, g, one_minus_beta1);
        v = std::fma(one_minus_beta2 * g, g, v * beta2);  // addcmul: (value * g) * g + v, fused
        w += neg_step_size * m / (std::sqrt(v) / bias_correction2_sqrt + eps);
    }
};

}  // namespace tinyamp::kernels
