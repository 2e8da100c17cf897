#pragma once
/// \file
/// FP8 and MX matrix products as ops: `scaled_mm` (PyTorch's torch._scaled_mm), `to_float8`
/// (a per-tensor scaled cast), and `fp8_linear`, a linear layer whose product runs in FP8 or MX
/// with a scaling recipe (values/scaling_recipe.h), gradient included: what Transformer
/// Engine's te.Linear and torchao's Float8Linear do, on the CPU and bit-exact.
///
/// \code
///     amp::Float8CurrentScaling recipe;                     // E4M3 forward, E5M2 gradients
///     Tensor y = fp8_linear(x, w, b, recipe);               // x [.., K] f32, w [N, K] f32 -> y [.., N] f32
///     y.sum().backward();                                   // w.grad is f32: master weights stay f32
/// \endcode

#include <memory>

#include "tinyamp/values/scaling_recipe.h"
#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// A layer's delayed-scaling state: one amax history and scale per operand, as Transformer
/// Engine's fp8_meta (nn::Linear keeps one under amp::fp8_autocast).
struct Fp8LinearState {
    /// Histories of \p history_length steps (the recipe's amax_history_len), scales 1.
    explicit Fp8LinearState(int history_length = 1024)
        : input(history_length), weight(history_length), grad_output(history_length)
    {
    }
    amp::DelayedScalingState input;        ///< the layer's input x (E4M3)
    amp::DelayedScalingState weight;       ///< its weight (E4M3)
    amp::DelayedScalingState grad_output;  ///< the gradient of its output (E5M2 under HYBRID)
};

/// An FP8 tensor with its scale, as torchao's Float8Tensor: the codes and the f32 factor that
/// dequantizes them (values = codes * scale_inv). Make one with to_scaled(); scaled_mm()
/// multiplies two. It carries no gradient (fp8_linear is the differentiable road).
struct ScaledTensor {
    Tensor data;       ///< the codes: f8e4m3fn or f8e5m2, any shape
    Tensor scale_inv;  ///< 0-d f32: 1 / the scale the values were multiplied by before the cast
    /// The values in f32: data.to(f32) * scale_inv.
    Tensor dequantize() const;
    /// The transpose of a 2-D scaled tensor (a view of the codes, the same scale), for
    /// scaled_mm's column-major second operand: `scaled_mm(x, w.t())`.
    ScaledTensor t() const { return {data.t(), scale_inv}; }
};

/// Casts \p x to \p dtype (f8e4m3fn or f8e5m2) with current scaling, as torchao's
/// hp_tensor_to_float8_dynamic: scale = fmt_max / max(amax, 1e-12) (amp::current_scale), then
/// to_float8(x, scale, dtype). Error(dtype) for another dtype.
ScaledTensor to_scaled(const Tensor& x, DType dtype = DType::f8e4m3fn);

/// scaled_mm of two scaled tensors: a [M, K] times b [K, N] (b's codes column-major: pass
/// `w.t()` for a scaled w [N, K]), each dequantized by its scale_inv, f32 accumulation.
Tensor scaled_mm(const ScaledTensor& a, const ScaledTensor& b, DType out_dtype = DType::f32);

/// The scaled matrix product of FP8/FP4 codes, as torch._scaled_mm: out = (a * scale_a) @
/// (b * scale_b), products accumulated in f32, rounded once to \p out_dtype (f32, bf16 or f16).
///   - \p a: [M, K] codes, row-major (f8e4m3fn or f8e5m2; f4e2m1x2 [M, K/2] holds K FP4 values);
///   - \p b: [K, N] codes whose transpose is contiguous ("column-major", as torch asks): pass
///     `w_codes.t()` for codes w_codes [N, K];
///   - \p scale_a, \p scale_b: either 0-d f32 (per-tensor: the factor that dequantizes, 1/scale,
///     as torch), or e8m0 block scales [M, ceil(K/32)] and [N, ceil(K/32)] (MX: one per 32
///     values along K, as kernels/cpu/block_quantize.h writes them).
/// Not differentiable (codes have no gradient: fp8_linear is). CPU only. Error(dtype/shape)
/// naming what does not fit.
Tensor scaled_mm(const Tensor& a, const Tensor& b, const Tensor& scale_a, const Tensor& scale_b, DType out_dtype = DType::f32);

/// The per-tensor scaled cast, as torchao's hp_tensor_and_scale_to_float8: the codes of
/// x * scale in \p dtype (f8e4m3fn or f8e5m2), saturating at +-max (Transformer Engine's
/// satfinite). \p scale is a 0-d f32 tensor; x any float dtype. Not differentiable.
Tensor to_float8(const Tensor& x, const Tensor& scale, DType dtype);

/// y = x W^T + b with the product in FP8 or MX by \p recipe, as te.Linear under fp8_autocast:
///   - forward: x and W are cast (E4M3, or the MX element) with the recipe's scales, multiplied
///     by scaled_mm's kernel into f32, and the f32 bias added;
///   - backward: the output gradient is cast (E5M2 under HYBRID) and multiplied with the cast
///     weight and input for x's and W's gradients (MX and NVFP4 cast again along the new
///     reduction dimension); the bias gradient is an f32 sum.
/// x may be any float dtype and shape [..., K]; weight [N, K] and bias [N] (or undefined) are
/// f32 and get f32 gradients, so master weights and optimizer state stay f32. The output is f32.
/// Per-tensor recipes cast with these scales: current, scale = fmt_max / amax of the tensor now;
/// delayed, the scale \p state holds (from earlier steps' amaxes), after which the state records
/// this step's amax (so \p state is required, Error(value) otherwise). MX (E8M0 per 32 values)
/// and NVFP4 (E4M3 per 16 values times an f32 tensor scale) cast in blocks along each product's
/// reduction dimension; FP4 packs two values a byte along it, so an odd one is padded with a
/// zero (which adds nothing to the product). While a trace
/// records, every cast is noted in the op's events (trace::ScaledCast: amax, scale, saturated
/// and flushed shares, history, block scales, log2 histogram).
Tensor fp8_linear(const Tensor& x, const Tensor& weight, const Tensor& bias, const amp::ScalingRecipe& recipe,
                  const std::shared_ptr<Fp8LinearState>& state = nullptr);

}  // namespace tinyamp
