#include "tinyamp/nn/attention_layer.h"

#include <cmath>

#include "tinyamp/support/grad_mode.h"
#include "tinyamp/ops/attention.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/ops/matmul.h"

namespace tinyamp::nn {

CausalSelfAttention::CausalSelfAttention(std::int64_t dim, std::int64_t heads, bool bias)
    : embed_dim(dim), num_heads(heads), head_dim(heads > 0 ? dim / heads : 0)
{
    TINYAMP_CHECK(dim > 0 && heads > 0 && dim % heads == 0, value, "CausalSelfAttention(", dim, ", ", heads,
                  "): embed_dim and num_heads must be positive, and num_heads must divide embed_dim");
    c_attn = register_module("c_attn", std::make_shared<Linear>(dim, 3 * dim, bias));
    c_proj = register_module("c_proj", std::make_shared<Linear>(dim, dim, bias));
}

void CausalSelfAttention::check_input(const Tensor& input) const
{
    TINYAMP_CHECK(input.dim() == 3 && input.size(2) == embed_dim, shape, "CausalSelfAttention: input must be [B, T, embed_dim] = [B, T, ",
                  embed_dim, "], but got shape ", shape_str(input.shape()));
}

Tensor CausalSelfAttention::head_view(const Tensor& qkv, std::int64_t i) const
{
    const std::int64_t B = qkv.size(0), T = qkv.size(1);
    return qkv.narrow(2, i * embed_dim, embed_dim).view({B, T, num_heads, head_dim}).transpose(1, 2);
}

Tensor CausalSelfAttention::attention_logits(const Tensor& input)
{
    check_input(input);
    NoGradGuard no_grad;
    const Tensor qkv = (*c_attn)(input);
    const Tensor q = head_view(qkv, 0).to(DType::f64), k = head_view(qkv, 1).to(DType::f64);
    return mul(matmul(q, k.transpose(2, 3)), 1.0 / std::sqrt(double(head_dim)));
}

Tensor CausalSelfAttention::forward(const Tensor& input)
{
    check_input(input);
    const std::int64_t B = input.size(0), T = input.size(1);
    const Tensor qkv = (*c_attn)(input);  // [B, T, 3C]
    const Tensor q = head_view(qkv, 0), k = head_view(qkv, 1), v = head_view(qkv, 2);  // views, no copies
    const Tensor y = fused_attention ? scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true)
                                     : scaled_dot_product_attention_reference(q, k, v, Tensor(), 0.0, true);
    return (*c_proj)(y.transpose(1, 2).reshape({B, T, embed_dim}));  // the heads side by side again
}

}  // namespace tinyamp::nn
