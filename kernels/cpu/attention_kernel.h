#pragma once
// Scaled dot-product attention on the CPU, forward and backward, for a stack of independent
// problems (batch x heads): each problem's logits live only in a per-thread buffer of rows x S
// f32, and the problems are split between the threads (worker_pool.h), which a loop of small
// GEMMs one after another, each too small to split, did not do. Inside a problem: the GEMMs of
// gemm.h, the causal mask, and the softmax with vector_exp.h's exp (1.03 ulp), all in f32. Under
// the causal mask the query rows go in blocks of 32, each multiplying only the keys its rows can
// see, so the masked half of the logits is never computed (dk and dv add up the blocks' shares).
//
//   forward:  P = softmax(scale q k^T, causal), out = P v, lse = the log-sum-exp of each row
//   backward: P again from lse, dv = P^T dout, dP = dout v^T, dS = P (dP - rowsum(P dP)) scale,
//             dq = dS k, dk = dS^T q   (FlashAttention's backward, without tiling the rows)
//
// The arrays are read and written where they lie, in their own dtype (f32, bf16 or f16): a
// problem's rows may be rows of a larger tensor (the heads of a GPT's qkv projection, row stride
// 3C), so no copy gathers them first. The two products of two inputs, q k^T and dout v^T, take
// f16/bf16 rows as they are: the GEMM widens them while packing or, with AVX-512 BF16 or AMX,
// multiplies bf16 pairs exactly and adds in f32 (another order of the same f32 sums). For the
// products with P or dS, 16-bit rows are widened into the thread's buffers (exact); the results
// are rounded once into the output's dtype; f32 arrays are used in place.
// `causal` keeps key j for query i when j <= i (PyTorch's is_causal: the top-left triangle).
// S must be at least 1.

#include <cstdint>

#include "tinyamp/values/half.h"

namespace tinyamp::kernels::cpu {

struct AttentionSizes {
    std::int64_t count = 0;  ///< independent problems (the product of the batch dims)
    std::int64_t L = 0, S = 0, E = 0, Ev = 0;
};

/// Where a stack of matrices lies: problem b's row i starts at data + offsets[b] + i * row_stride,
/// and its elements follow one another (stride 1).
template <class T>
struct AttentionRows {
    T* data = nullptr;
    const std::int64_t* offsets = nullptr;  ///< one per problem, in elements
    std::int64_t row_stride = 0;
    T* problem(std::int64_t b) const { return data + offsets[b]; }
};

/// q [count][L, E], k [count][S, E], v [count][S, Ev] -> out [count][L, Ev] (all in T), and lse
/// [count, L] (f32, contiguous). T is float, BFloat16 or Half.
template <class T>
void attention_forward(const AttentionSizes& sizes, AttentionRows<const T> q, AttentionRows<const T> k, AttentionRows<const T> v, float scale,
                       bool causal, AttentionRows<T> out, float* lse);

/// The gradients dq, dk, dv (shaped as q, k, v; in T) from dout [count][L, Ev] and the forward's lse.
template <class T>
void attention_backward(const AttentionSizes& sizes, AttentionRows<const T> q, AttentionRows<const T> k, AttentionRows<const T> v,
                        AttentionRows<const T> dout, const float* lse, float scale, bool causal, AttentionRows<T> dq, AttentionRows<T> dk,
                        AttentionRows<T> dv);

}  // namespace tinyamp::kernels::cpu
