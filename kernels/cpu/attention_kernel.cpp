// attention_kernel.h's loops. The softmax's rows are loops the compiler vectorizes (compiled with
// -fno-trapping-math, kernels/CMakeLists.txt, so that selects need no masking), for the baseline
// CPU; the GEMMs choose their own tier.
#include "kernels/cpu/attention_kernel.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/elementwise_loops.h"  // detail::widen, detail::narrow
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/lane_reduce.h"
#include "kernels/cpu/vector_exp.h"
#include "kernels/cpu/worker_pool.h"
#include "tinyamp/support/parallel.h"

namespace tinyamp::kernels::cpu {
namespace {

// The keys query row i sees: all S, or j <= i under the causal mask (at least key 0).
std::int64_t keys_seen(const AttentionSizes& s, std::int64_t i, bool causal) { return causal ? std::min(s.S, i + 1) : s.S; }

// Causal attention goes in blocks of query rows, each multiplying only the keys its last row sees
// (FlashAttention's skipping of masked tiles): for L = S = 128, blocks of 32 do 62.5 % of the
// products. Without the mask, one block of all rows.
constexpr std::int64_t kCausalBlockRows = 32;
std::int64_t block_rows(const AttentionSizes& s, bool causal) { return causal ? std::min(s.L, kCausalBlockRows) : std::max<std::int64_t>(s.L, 1); }

// The keys a block of query rows ending before row `end` needs: those its last row sees.
std::int64_t keys_of_block(const AttentionSizes& s, std::int64_t end, bool causal) { return causal ? std::min(s.S, end) : s.S; }

// row[0..seen) becomes its softmax (the keys after seen are 0); returns the log-sum-exp.
float softmax_row(float* row, std::int64_t seen, std::int64_t S)
{
    const float max = row_max(row, seen);
    exp_shifted(row, max, row, seen);
    const float total = row_sum(row, seen);
    const float inverse = 1.0f / total;
    for (std::int64_t j = 0; j < seen; ++j) row[j] *= inverse;
    std::fill(row + seen, row + S, 0.0f);
    return max + std::log(total);
}

// row[0..seen) = exp(row - lse): the probabilities again, from the saved log-sum-exp.
void probabilities_row(float* row, std::int64_t seen, std::int64_t S, float lse)
{
    exp_shifted(row, lse, row, seen);
    std::fill(row + seen, row + S, 0.0f);
}

// A problem's matrix as f32 rows, `ld` apart.
struct F32Rows {
    const float* data;
    std::int64_t ld;
};
struct F32Target {
    float* data;
    std::int64_t ld;
};

// Problem b of `a` ([rows, cols]) as f32: in place for f32, else widened into `buffer`.
template <class T>
F32Rows widened(const AttentionRows<const T>& a, std::int64_t b, std::int64_t rows, std::int64_t cols, std::vector<float>& buffer)
{
    if constexpr (std::is_same_v<T, float>) {
        return {a.problem(b), a.row_stride};
    } else {
        buffer.resize(static_cast<std::size_t>(rows * cols));
        for (std::int64_t i = 0; i < rows; ++i) detail::widen(a.problem(b) + i * a.row_stride, buffer.data() + i * cols, cols);
        return {buffer.data(), cols};
    }
}

// Where problem b's f32 results for `a` ([rows, cols]) are written: `a` itself for f32, else
// `buffer`, rounded into `a` afterwards by store_rows. With `zeroed`, the rows start at 0 (the
// blocks add into them).
template <class T>
F32Target target(const AttentionRows<T>& a, std::int64_t b, std::int64_t rows, std::int64_t cols, std::vector<float>& buffer, bool zeroed)
{
    if constexpr (std::is_same_v<T, float>) {
        if (zeroed)
            for (std::int64_t i = 0; i < rows; ++i) std::fill_n(a.problem(b) + i * a.row_stride, cols, 0.0f);
        return {a.problem(b), a.row_stride};
    } else {
        if (zeroed)
            buffer.assign(static_cast<std::size_t>(rows * cols), 0.0f);
        else
            buffer.resize(static_cast<std::size_t>(rows * cols));  // every value is written before it is read
        return {buffer.data(), cols};
    }
}

// Rounds the buffered results into a 16-bit `a` (nothing to do for f32: they are there already).
template <class T>
void store_rows(const F32Target& from, const AttentionRows<T>& a, std::int64_t b, std::int64_t rows, std::int64_t cols)
{
    if constexpr (!std::is_same_v<T, float>)
        for (std::int64_t i = 0; i < rows; ++i) detail::narrow(from.data + i * from.ld, a.problem(b) + i * a.row_stride, cols);
}

// rows x cols = alpha a b^T for two operands that are both T (q k^T, dout v^T): f32 and f16/bf16
// alike go to the GEMM as they lie, and its tier widens 16-bit operands while packing them or,
// with AVX-512 BF16 or AMX, multiplies bf16 pairs exactly and adds the products in f32. So no
// buffer of widened rows is made for them.
template <class T>
void products_transposed(std::int64_t rows, std::int64_t cols, std::int64_t depth, float alpha, const T* a, std::int64_t lda, const T* b,
                         std::int64_t ldb, float* c)
{
    gemm<T, float>(Transpose::no, Transpose::yes, rows, cols, depth, alpha, a, lda, b, ldb, 0.0, c, cols);
}

// Whether the backward multiplies q k^T and dout v^T in T as they lie: f32 always (nothing to
// widen); bf16 where the GEMM multiplies bf16 itself (AVX-512 BF16, AMX). Where it would widen them
// (f16, bf16 elsewhere), the backward's f32 copies of q, k and dout are there already, so it uses
// those and widens v too, rather than having the GEMM widen q, k and dout a second time.
template <class T>
bool in_own_dtype()
{
    if constexpr (std::is_same_v<T, float>) return true;
    if constexpr (std::is_same_v<T, BFloat16>) {
        const GemmTier tier = best_gemm_tier<BFloat16>(cpu_features());
        return tier == GemmTier::avx512_bf16 || tier == GemmTier::amx;
    }
    return false;
}

}  // namespace

template <class T>
void attention_forward(const AttentionSizes& s, AttentionRows<const T> q, AttentionRows<const T> k, AttentionRows<const T> v, float scale,
                       bool causal, AttentionRows<T> out, float* lse)
{
    const std::int64_t rows = block_rows(s, causal);
    run_ranges(s.count, 1, get_num_threads(), [&](std::int64_t first, std::int64_t last) {
        std::vector<float> p(std::size_t(rows * s.S)), v_buffer, out_buffer;
        for (std::int64_t b = first; b < last; ++b) {
            const F32Rows vb = widened(v, b, s.S, s.Ev, v_buffer);
            const F32Target ob = target(out, b, s.L, s.Ev, out_buffer, false);
            for (std::int64_t i0 = 0; i0 < s.L; i0 += rows) {
                const std::int64_t n = std::min(rows, s.L - i0), keys = keys_of_block(s, i0 + n, causal);
                products_transposed(n, keys, s.E, scale, q.problem(b) + i0 * q.row_stride, q.row_stride, k.problem(b), k.row_stride, p.data());
                for (std::int64_t i = 0; i < n; ++i)
                    lse[b * s.L + i0 + i] = softmax_row(p.data() + i * keys, keys_seen(s, i0 + i, causal), keys);
                gemm<float, float>(Transpose::no, Transpose::no, n, s.Ev, keys, 1.0, p.data(), keys, vb.data, vb.ld, 0.0, ob.data + i0 * ob.ld,
                                   ob.ld);
            }
            store_rows(ob, out, b, s.L, s.Ev);
        }
    });
}

namespace {

// One problem's arrays: q, k, dout and v as they lie, q, k and dout as f32 (for the products with
// f32 P or dS), v as f32 unless `raw`, and a block of its query rows [i0, i0 + n) whose rows see
// keys [0, keys): dq for these rows, and their shares of dk and dv added into dk and dv. With
// `raw`, q k^T and dout v^T multiply the arrays as they lie (in_own_dtype says when).
template <class T>
struct BackwardBlock {
    bool raw;
    const T *q_raw, *k_raw, *v_raw, *dout_raw;
    std::int64_t q_ld, k_ld, v_ld, dout_ld;
    F32Rows q, k, v, dout;
    const float* lse;
    F32Target dq, dk, dv;
    std::int64_t i0, n, keys;
};

template <class T>
void backward_block(const AttentionSizes& s, const BackwardBlock<T>& blk, float scale, bool causal, float* p, float* dp)
{
    const std::int64_t i0 = blk.i0, n = blk.n, keys = blk.keys;
    const float* qi = blk.q.data + i0 * blk.q.ld;
    const float* gi = blk.dout.data + i0 * blk.dout.ld;
    if (blk.raw)
        products_transposed(n, keys, s.E, scale, blk.q_raw + i0 * blk.q_ld, blk.q_ld, blk.k_raw, blk.k_ld, p);
    else
        products_transposed(n, keys, s.E, scale, qi, blk.q.ld, blk.k.data, blk.k.ld, p);
    for (std::int64_t i = 0; i < n; ++i) probabilities_row(p + i * keys, keys_seen(s, i0 + i, causal), keys, blk.lse[i0 + i]);
    // dv += P^T dout, dP = dout v^T.
    gemm<float, float>(Transpose::yes, Transpose::no, keys, s.Ev, n, 1.0, p, keys, gi, blk.dout.ld, 1.0, blk.dv.data, blk.dv.ld);
    if (blk.raw)
        products_transposed(n, keys, s.Ev, 1.0f, blk.dout_raw + i0 * blk.dout_ld, blk.dout_ld, blk.v_raw, blk.v_ld, dp);
    else
        products_transposed(n, keys, s.Ev, 1.0f, gi, blk.dout.ld, blk.v.data, blk.v.ld, dp);
    // Through the softmax: dS = P (dP - sum_j P dP) scale, in dp's place.
    for (std::int64_t i = 0; i < n; ++i) {
        const float* pr = p + i * keys;
        float* dr = dp + i * keys;
        const float dot = row_dot(pr, dr, keys);
        for (std::int64_t j = 0; j < keys; ++j) dr[j] = pr[j] * (dr[j] - dot) * scale;
    }
    // dq = dS k, dk += dS^T q.
    gemm<float, float>(Transpose::no, Transpose::no, n, s.E, keys, 1.0, dp, keys, blk.k.data, blk.k.ld, 0.0, blk.dq.data + i0 * blk.dq.ld,
                       blk.dq.ld);
    gemm<float, float>(Transpose::yes, Transpose::no, keys, s.E, n, 1.0, dp, keys, qi, blk.q.ld, 1.0, blk.dk.data, blk.dk.ld);
}

// A thread's buffers: the block's probabilities and their gradient, and the widened inputs and
// buffered outputs of 16-bit problems.
struct BackwardBuffers {
    std::vector<float> p, dp, q, k, v, dout, dq, dk, dv;
};

}  // namespace

template <class T>
void attention_backward(const AttentionSizes& s, AttentionRows<const T> q, AttentionRows<const T> k, AttentionRows<const T> v,
                        AttentionRows<const T> dout, const float* lse, float scale, bool causal, AttentionRows<T> dq, AttentionRows<T> dk,
                        AttentionRows<T> dv)
{
    const std::int64_t rows = block_rows(s, causal);
    const bool raw = in_own_dtype<T>();
    run_ranges(s.count, 1, get_num_threads(), [&](std::int64_t first, std::int64_t last) {
        BackwardBuffers buf;
        buf.p.resize(std::size_t(rows * s.S));
        buf.dp.resize(std::size_t(rows * s.S));
        for (std::int64_t b = first; b < last; ++b) {
            BackwardBlock<T> blk{raw,
                                 q.problem(b),
                                 k.problem(b),
                                 v.problem(b),
                                 dout.problem(b),
                                 q.row_stride,
                                 k.row_stride,
                                 v.row_stride,
                                 dout.row_stride,
                                 widened(q, b, s.L, s.E, buf.q),
                                 widened(k, b, s.S, s.E, buf.k),
                                 raw ? F32Rows{nullptr, 0} : widened(v, b, s.S, s.Ev, buf.v),
                                 widened(dout, b, s.L, s.Ev, buf.dout),
                                 lse + b * s.L,
                                 target(dq, b, s.L, s.E, buf.dq, false),
                                 target(dk, b, s.S, s.E, buf.dk, true),
                                 target(dv, b, s.S, s.Ev, buf.dv, true),
                                 0,
                                 0,
                                 0};
            for (blk.i0 = 0; blk.i0 < s.L; blk.i0 += rows) {
                blk.n = std::min(rows, s.L - blk.i0);
                blk.keys = keys_of_block(s, blk.i0 + blk.n, causal);
                backward_block(s, blk, scale, causal, buf.p.data(), buf.dp.data());
            }
            store_rows(blk.dq, dq, b, s.L, s.E);
            store_rows(blk.dk, dk, b, s.S, s.E);
            store_rows(blk.dv, dv, b, s.S, s.Ev);
        }
    });
}

#define TINYAMP_ATTENTION_KERNELS(T)                                                                                                \
    template void attention_forward<T>(const AttentionSizes&, AttentionRows<const T>, AttentionRows<const T>, AttentionRows<const T>, \
                                       float, bool, AttentionRows<T>, float*);                                                     \
    template void attention_backward<T>(const AttentionSizes&, AttentionRows<const T>, AttentionRows<const T>, AttentionRows<const T>, \
                                        AttentionRows<const T>, const float*, float, bool, AttentionRows<T>, AttentionRows<T>,        \
                                        AttentionRows<T>);
TINYAMP_ATTENTION_KERNELS(float)
TINYAMP_ATTENTION_KERNELS(BFloat16)
TINYAMP_ATTENTION_KERNELS(Half)
#undef TINYAMP_ATTENTION_KERNELS

}  // namespace tinyamp::kernels::cpu
