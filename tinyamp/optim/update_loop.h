#pragma once
/// \file
/// The element loop the optimizers share (namespace tinyamp::optim::detail, not user API).
///
/// update_elements<Rule>(param, grad, s0, s1, scalars) applies one optimizer's rule
/// (kernels/optimizer_rules.h: SgdRule, AdamRule) to every element of a parameter, its gradient
/// and up to two state tensors of the same shape: rule(p[i], g[i], s0[i], s1[i]). One pass over
/// contiguous memory, not a chain of tensor ops: no temporaries.
///
/// It computes in the parameter's "opmath" type: f64 for f64, f32 for everything else. Where the
/// parameter, its gradient and its states all have that dtype, are contiguous and live on one
/// device, they are updated in their own memory: on the CPU by one loop (kernels/cpu/optimizer_step.h,
/// vectorized where the CPU has FMA), on a GPU by one kernel launch (kernels/cuda/optimizer_step_cuda.h)
/// with the same rule. Anything else (an f16/bf16
/// parameter or state, a transposed leaf, a gradient on another device) is copied into contiguous
/// CPU tensors of the opmath type, updated there and copied back with copy_, which rounds once
/// into the tensor's own dtype.
///
/// Master weights should stay f32 all the same (use amp::autocast for low-precision compute): an
/// update below half an ulp of an f16 weight rounds away (p - lr*g == p; for p near 1, below 0.00024).

#include "kernels/cpu/optimizer_step.h"
#include "kernels/cuda/optimizer_step_cuda.h"
#include "kernels/optimizer_rules.h"
#include "tinyamp/tensor/layout.h"

namespace tinyamp::optim::detail {

using kernels::AdamRule;
using kernels::AdamScalars;
using kernels::SgdRule;
using kernels::SgdScalars;

/// `t` itself when it is CPU, contiguous and of `dtype`; else a copy that is.
inline Tensor workable(const Tensor& t, DType dtype)
{
    if (!t.defined() || (t.device().is_cpu() && t.is_contiguous() && t.dtype() == dtype)) return t;
    return layout::clone(layout::convert(layout::to_device(t, Device::cpu()), dtype));
}

/// True when `t` (if defined) can be updated where it is by the GPU kernel: contiguous, of
/// `dtype`, on `device`.
inline bool updatable_on(const Tensor& t, Device device, DType dtype)
{
    return !t.defined() || (t.device() == device && t.is_contiguous() && t.dtype() == dtype);
}

/// Runs Rule<T>(scalars) on every element, as the file describes. A non-float parameter is a
/// dtype Error; a gradient or state of another shape is a shape Error. Undefined states pass a
/// dummy 0 to the rule.
template <template <class> class Rule, class Scalars>
void update_elements(const Tensor& param, const Tensor& grad, const Tensor& s0, const Tensor& s1, const Scalars& scalars)
{
    TINYAMP_CHECK(is_floating_point(param.dtype()), dtype, "optimizer: parameter '", param.name(), "' is ", dtype_name(param.dtype()),
                  "; only floating point tensors can be trained");
    for (const Tensor* t : {&grad, &s0, &s1})
        TINYAMP_CHECK(!t->defined() || t->shape() == param.shape(), shape, "optimizer: parameter '", param.name(), "' has shape ",
                      shape_str(param.shape()), " but its ", t == &grad ? "gradient" : "optimizer state", " has ",
                      shape_str(t->shape()), "; make a new optimizer after changing a parameter's shape");
    const DType opmath = param.dtype() == DType::f64 ? DType::f64 : DType::f32;
    if (param.device().is_cuda() && updatable_on(param, param.device(), opmath) && updatable_on(grad, param.device(), opmath) &&
        updatable_on(s0, param.device(), opmath) && updatable_on(s1, param.device(), opmath)) {
        auto on_gpu = [&]<class T>(T*) {
            const auto state = [](const Tensor& t) { return t.defined() ? t.data_ptr<T>() : nullptr; };
            kernels::cuda::optimizer_step(Rule<T>(scalars), param.data_ptr<T>(), grad.data_ptr<T>(), state(s0), state(s1), param.numel(),
                                          param.device().index());
        };
        if (opmath == DType::f32)
            on_gpu(static_cast<float*>(nullptr));
        else
            on_gpu(static_cast<double*>(nullptr));
        param.storage()->bump_version();  // an in-place write, as on the CPU below
        return;
    }
    const Tensor p = workable(param, opmath), g = workable(grad, opmath);
    const Tensor a = workable(s0, opmath), b = workable(s1, opmath);
    auto run = [&]<class T>(T*) {
        const auto state = [](const Tensor& t) { return t.defined() ? t.data_ptr<T>() : nullptr; };
        kernels::cpu::optimizer_step(Rule<T>(scalars), p.data_ptr<T>(), g.data_ptr<T>(), state(a), state(b), p.numel());
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
