// Compiled (not linked) by the test unnamed_scope_guards_warn, which expects the compiler to warn
// about each guard below: an unnamed guard ends at its semicolon, so the region it was meant to
// open never holds the next line (the linear runs in f32, the graph is recorded). Each guard's
// constructor is [[nodiscard]], so the compiler says so.
#include <tinyamp/tinyamp.h>

tinyamp::Tensor forward_in_autocast(const tinyamp::Tensor& x, const tinyamp::Tensor& w)
{
    tinyamp::amp::autocast("cpu");
    return tinyamp::linear(x, w);
}

tinyamp::Tensor evaluate_without_grad(const tinyamp::Tensor& x, const tinyamp::Tensor& w)
{
    tinyamp::NoGradGuard();
    return tinyamp::linear(x, w);
}

tinyamp::Tensor evaluate_with_grad_mode_off(const tinyamp::Tensor& x, const tinyamp::Tensor& w)
{
    tinyamp::GradModeGuard(false);
    return tinyamp::linear(x, w);
}

tinyamp::Tensor forward_in_fp8(const tinyamp::Tensor& x, const tinyamp::Tensor& w)
{
    tinyamp::amp::fp8_autocast();
    return tinyamp::linear(x, w);
}
