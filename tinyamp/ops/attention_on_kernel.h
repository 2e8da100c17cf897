#pragma once
/// \file
/// The fused attention's road to the CPU kernel (kernels/cpu/attention_kernel.h), namespace
/// tinyamp::detail, not user API: which calls it takes, and the tensors around it. The kernel
/// reads query, key and value where they lie (a GPT's heads are strided views of its qkv
/// projection: no copies) in their own dtype, and the results are laid out in the inputs' order of
/// dims: an output for q = qkv.view(B, T, H, D).transpose(1, 2) is a [B, T, H, D] buffer seen as
/// [B, H, T, D], so that transposing it back and merging the heads is a view, as in PyTorch.

#include <utility>
#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp::detail {

/// True when the kernel takes the call: f32, bf16 or f16 tensors on the CPU, no mask, and query,
/// key and value with the same batch dims (no broadcasting between them).
bool attention_kernel_applies(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask);

/// The output (q's dtype) and each query row's log-sum-exp ([..., L], f32, contiguous).
std::pair<Tensor, Tensor> attention_kernel_forward(const Tensor& q, const Tensor& k, const Tensor& v, double scale, bool is_causal);

/// The gradients of q, k and v, each in its input's dtype.
std::vector<Tensor> attention_kernel_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& lse, const Tensor& grad,
                                              double scale, bool is_causal);

}  // namespace tinyamp::detail
