#pragma once
// Lab 07: backward dtypes. Write these in lab.cpp; check them with:  scripts/lab check 07
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab07 {

/// One backward event, read from a trace: the node that ran and the dtype of the first gradient
/// it produced (for AccumulateGrad, the .grad it wrote).
struct GradStep {
    std::string op;
    DType dtype = DType::f32;
};

/// Every backward event of `trace` that produced a gradient, in the order they ran.
std::vector<GradStep> backward_steps(const trace::Trace& trace);

/// The dtypes a weight's gradient has on its way back.
struct WeightGradDtypes {
    DType from_linear = DType::f32;  ///< the gradient linear's backward produced for the weight
    DType in_grad = DType::f32;      ///< w.grad, after the backward of autocast's cast
};

/// Runs loss = sum(linear(x, w).to(f32)) with the forward inside amp::autocast("cpu", {.dtype =
/// autocast_dtype}) and backward() after the region, recording a trace; reports the two dtypes.
/// `w` is a leaf that requires grad (its .grad is overwritten), `x` does not require grad.
WeightGradDtypes weight_grad_dtypes(const Tensor& w, const Tensor& x, DType autocast_dtype);

/// How many backward casts (events named "to") received an f16 or bf16 gradient and passed on an
/// f32 one: the gradients that autocast's casts brought back to f32 leaves.
int gradients_cast_to_f32(const trace::Trace& trace);

}  // namespace tinyamp::lab07
