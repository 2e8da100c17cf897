#pragma once
/// \file
/// The element loop the optimizers share (namespace tinyamp::optim::detail, not user API).
///
/// update_elements calls fn(p[i], g[i], s0[i], s1[i]) over a parameter, its gradient and up to
/// two state tensors of the same shape. A plain loop over contiguous memory, not a chain of tensor
/// ops: one pass, no temporaries.
///
/// It computes in the parameter's "opmath" type: f64 for f64, f32 for everything else. f32/f64
/// parameters are updated in their own memory. Anything else (an f16/bf16 parameter or state, a
/// CUDA tensor, a transposed leaf) is copied into a contiguous CPU tensor of the opmath type,
/// updated there and copied back with copy_, which rounds once into the tensor's own dtype.
///
/// Master weights should stay f32 all the same (use amp::autocast for low-precision compute): an
/// update below half an ulp of an f16 weight rounds away (p - lr*g == p; for p near 1, below 0.00024).

#include <cmath>

#include "tinyamp/core/layout.h"

namespace tinyamp::optim::detail {

/// PyTorch's `a.add_(b, alpha=alpha)`: a + alpha * b with one rounding. PyTorch's AVX2 and
/// AVX-512 CPU kernels (what any x86-64 CPU of the last decade runs) compute it as a fused
/// multiply-add, so tinyamp does too, on every CPU; std::fma is exact by definition.
template <class T>
T add_scaled(T a, T alpha, T b)
{
    return std::fma(alpha, b, a);
}

/// PyTorch's lerp (ATen/native/Lerp.h), which Adam uses for its first moment: a + w (b - a),
/// written from the other end when w is large so that w == 1 gives exactly b; fused as
/// PyTorch's vectorized kernel fuses it (fmadd(w or w - 1, b - a, a or b)).
template <class T>
T lerp(T a, T b, T w)
{
    return std::abs(w) < T(0.5) ? std::fma(w, b - a, a) : std::fma(w - T(1), b - a, b);
}

/// `t` itself when it is CPU, contiguous and of `dtype`; else a copy that is.
inline Tensor workable(const Tensor& t, DType dtype)
{
    if (!t.defined() || (t.device().is_cpu() && t.is_contiguous() && t.dtype() == dtype)) return t;
    return layout::clone(layout::convert(layout::to_device(t, Device::cpu()), dtype));
}

/// Runs fn(p, g, s0, s1) on every element, as the file describes. A non-float parameter is a
/// dtype Error; a gradient or state of another shape is a shape Error. Undefined states pass a
/// dummy 0 to fn.
template <class Fn>
void update_elements(const Tensor& param, const Tensor& grad, const Tensor& s0, const Tensor& s1, Fn&& fn)
{
    TINYAMP_CHECK(is_floating_point(param.dtype()), dtype, "optimizer: parameter '", param.name(), "' is ", dtype_name(param.dtype()),
                  "; only floating point tensors can be trained");
    for (const Tensor* t : {&grad, &s0, &s1})
        TINYAMP_CHECK(!t->defined() || t->shape() == param.shape(), shape, "optimizer: parameter '", param.name(), "' has shape ",
                      shape_str(param.shape()), " but its ", t == &grad ? "gradient" : "optimizer state", " has ",
                      shape_str(t->shape()), "; make a new optimizer after changing a parameter's shape");
    const DType opmath = param.dtype() == DType::f64 ? DType::f64 : DType::f32;
    const Tensor p = workable(param, opmath), g = workable(grad, opmath);
    const Tensor a = workable(s0, opmath), b = workable(s1, opmath);
    auto run = [&]<class T>(T*) {
        T* pp = p.data_ptr<T>();
        const T* gp = g.data_ptr<T>();
        T* ap = a.defined() ? a.data_ptr<T>() : nullptr;
        T* bp = b.defined() ? b.data_ptr<T>() : nullptr;
        T unused = 0;
        // One loop per set of state tensors, with the element count read once: plain loops (the
        // compiler vectorizes them where its target CPU has FMA; elsewhere std::fma is a call).
        const std::int64_t n = p.numel();
        if (ap && bp)
            for (std::int64_t i = 0; i < n; ++i) fn(pp[i], gp[i], ap[i], bp[i]);
        else if (ap)
            for (std::int64_t i = 0; i < n; ++i) fn(pp[i], gp[i], ap[i], unused);
        else if (bp)
            for (std::int64_t i = 0; i < n; ++i) fn(pp[i], gp[i], unused, bp[i]);
        else
            for (std::int64_t i = 0; i < n; ++i) fn(pp[i], gp[i], unused, unused);
    };
    if (opmath == DType::f32)
        run(static_cast<float*>(nullptr));
    else
        run(static_cast<double*>(nullptr));
    // Copies go back with copy_, which bumps the version; in place, bump it as copy_ would, so
    // that backward notices a graph that saved the old weights.
    if (p.is_same(param))
        param.storage()->bump_version();
    else
        param.copy_(p);
    if (!a.is_same(s0)) s0.copy_(a);
    if (!b.is_same(s1)) s1.copy_(b);
}

}  // namespace tinyamp::optim::detail
