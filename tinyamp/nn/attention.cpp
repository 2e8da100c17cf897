#include "tinyamp/nn/attention.h"

#include "tinyamp/ops/attention.h"

namespace tinyamp::nn {

CausalSelfAttention::CausalSelfAttention(std::int64_t dim, std::int64_t heads, bool bias)
    : embed_dim(dim), num_heads(heads), head_dim(heads > 0 ? dim / heads : 0)
{
    TINYAMP_CHECK(dim > 0 && heads > 0 && dim % heads == 0, value, "CausalSelfAttention(", dim, ", ", heads,
                  "): embed_dim and num_heads must be positive, and num_heads must divide embed_dim");
    c_attn = register_module("c_attn", std::make_shared<Linear>(dim, 3 * dim, bias));
    c_proj = register_module("c_proj", std::make_shared<Linear>(dim, dim, bias));
}

Tensor CausalSelfAttention::forward(const Tensor& input)
{
    TINYAMP_CHECK(input.dim() == 3 && input.size(2) == embed_dim, shape, "CausalSelfAttention: input must be [B, T, embed_dim] = [B, T, ",
                  embed_dim, "], but got shape ", shape_str(input.shape()));
    const std::int64_t B = input.size(0), T = input.size(1);
    const Tensor qkv = (*c_attn)(input);  // [B, T, 3C]
    // Part `i` of qkv (0 queries, 1 keys, 2 values) as [B, heads, T, head_dim]: views, no copies.
    const auto heads = [&](std::int64_t i) { return qkv.narrow(2, i * embed_dim, embed_dim).view({B, T, num_heads, head_dim}).transpose(1, 2); };
    const Tensor q = heads(0), k = heads(1), v = heads(2);
    const Tensor y = fused_attention ? scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true)
                                     : scaled_dot_product_attention_reference(q, k, v, Tensor(), 0.0, true);
    return (*c_proj)(y.transpose(1, 2).reshape({B, T, embed_dim}));  // the heads side by side again
}

}  // namespace tinyamp::nn
