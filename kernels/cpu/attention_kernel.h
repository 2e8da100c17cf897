#pragma once
// Scaled dot-product attention on the CPU, forward and backward, for a stack of independent
// problems (batch x heads): each problem's logits live only in a per-thread buffer of L x S f32,
// and the problems are split between the threads (worker_pool.h), which a loop of small GEMMs
// one after another, each too small to split, did not do. Inside a problem: the GEMMs of gemm.h,
// the causal mask, and the softmax with vector_exp.h's exp (1.03 ulp), all in f32. Under the
// causal mask the query rows go in blocks of 32, each multiplying only the keys its rows can see,
// so the masked half of the logits is never computed (dk and dv add up the blocks' shares).
//
//   forward:  P = softmax(scale q k^T, causal), out = P v, lse = the log-sum-exp of each row
//   backward: P again from lse, dv = P^T dout, dP = dout v^T, dS = P (dP - rowsum(P dP)) scale,
//             dq = dS k, dk = dS^T q   (FlashAttention's backward, without tiling the rows)
//
// Arrays are contiguous f32: q [count, L, E], k [count, S, E], v [count, S, Ev], out and dout
// [count, L, Ev], lse [count, L]. `causal` keeps key j for query i when j <= i (PyTorch's
// is_causal: the top-left triangle). S must be at least 1.

#include <cstdint>

namespace tinyamp::kernels::cpu {

struct AttentionSizes {
    std::int64_t count = 0;  ///< independent problems (the product of the batch dims)
    std::int64_t L = 0, S = 0, E = 0, Ev = 0;
};

void attention_forward(const AttentionSizes& sizes, const float* q, const float* k, const float* v, float scale, bool causal, float* out,
                       float* lse);

void attention_backward(const AttentionSizes& sizes, const float* q, const float* k, const float* v, const float* dout, const float* lse,
                        float scale, bool causal, float* dq, float* dk, float* dv);

}  // namespace tinyamp::kernels::cpu
