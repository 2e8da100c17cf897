// attention_kernel.h's loops. The softmax's rows are loops the compiler vectorizes (compiled with
// -fno-trapping-math, kernels/CMakeLists.txt, so that selects need no masking), for the baseline
// CPU; the GEMMs choose their own tier.
#include "kernels/cpu/attention_kernel.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

}  // namespace

void attention_forward(const AttentionSizes& s, const float* q, const float* k, const float* v, float scale, bool causal, float* out,
                       float* lse)
{
    const std::int64_t rows = block_rows(s, causal);
    run_ranges(s.count, 1, get_num_threads(), [&](std::int64_t first, std::int64_t last) {
        std::vector<float> p(std::size_t(rows * s.S));
        for (std::int64_t b = first; b < last; ++b) {
            const float *qb = q + b * s.L * s.E, *kb = k + b * s.S * s.E, *vb = v + b * s.S * s.Ev;
            for (std::int64_t i0 = 0; i0 < s.L; i0 += rows) {
                const std::int64_t n = std::min(rows, s.L - i0), keys = keys_of_block(s, i0 + n, causal);
                gemm<float, float>(Transpose::no, Transpose::yes, n, keys, s.E, scale, qb + i0 * s.E, s.E, kb, s.E, 0.0, p.data(), keys);
                for (std::int64_t i = 0; i < n; ++i)
                    lse[b * s.L + i0 + i] = softmax_row(p.data() + i * keys, keys_seen(s, i0 + i, causal), keys);
                gemm<float, float>(Transpose::no, Transpose::no, n, s.Ev, keys, 1.0, p.data(), keys, vb, s.Ev, 0.0, out + (b * s.L + i0) * s.Ev,
                                   s.Ev);
            }
        }
    });
}

namespace {

// One block of query rows [i0, i0 + n) of problem b, whose rows see keys [0, keys): dq for these
// rows, and their shares of dk and dv added into dk and dv (rows [0, keys)).
struct BackwardBlock {
    const float *q, *k, *v, *dout, *lse;  // problem b's arrays
    float *dq, *dk, *dv;
    std::int64_t i0, n, keys;
};

void backward_block(const AttentionSizes& s, const BackwardBlock& blk, float scale, bool causal, float* p, float* dp)
{
    const std::int64_t i0 = blk.i0, n = blk.n, keys = blk.keys;
    const float* qi = blk.q + i0 * s.E;
    const float* gi = blk.dout + i0 * s.Ev;
    gemm<float, float>(Transpose::no, Transpose::yes, n, keys, s.E, scale, qi, s.E, blk.k, s.E, 0.0, p, keys);
    for (std::int64_t i = 0; i < n; ++i) probabilities_row(p + i * keys, keys_seen(s, i0 + i, causal), keys, blk.lse[i0 + i]);
    // dv += P^T dout, dP = dout v^T.
    gemm<float, float>(Transpose::yes, Transpose::no, keys, s.Ev, n, 1.0, p, keys, gi, s.Ev, 1.0, blk.dv, s.Ev);
    gemm<float, float>(Transpose::no, Transpose::yes, n, keys, s.Ev, 1.0, gi, s.Ev, blk.v, s.Ev, 0.0, dp, keys);
    // Through the softmax: dS = P (dP - sum_j P dP) scale, in dp's place.
    for (std::int64_t i = 0; i < n; ++i) {
        const float* pr = p + i * keys;
        float* dr = dp + i * keys;
        const float dot = row_dot(pr, dr, keys);
        for (std::int64_t j = 0; j < keys; ++j) dr[j] = pr[j] * (dr[j] - dot) * scale;
    }
    // dq = dS k, dk += dS^T q.
    gemm<float, float>(Transpose::no, Transpose::no, n, s.E, keys, 1.0, dp, keys, blk.k, s.E, 0.0, blk.dq + i0 * s.E, s.E);
    gemm<float, float>(Transpose::yes, Transpose::no, keys, s.E, n, 1.0, dp, keys, qi, s.E, 1.0, blk.dk, s.E);
}

}  // namespace

void attention_backward(const AttentionSizes& s, const float* q, const float* k, const float* v, const float* dout, const float* lse,
                        float scale, bool causal, float* dq, float* dk, float* dv)
{
    const std::int64_t rows = block_rows(s, causal);
    run_ranges(s.count, 1, get_num_threads(), [&](std::int64_t first, std::int64_t last) {
        std::vector<float> p(std::size_t(rows * s.S)), dp(std::size_t(rows * s.S));
        for (std::int64_t b = first; b < last; ++b) {
            BackwardBlock blk{q + b * s.L * s.E,  k + b * s.S * s.E,  v + b * s.S * s.Ev, dout + b * s.L * s.Ev, lse + b * s.L,
                              dq + b * s.L * s.E, dk + b * s.S * s.E, dv + b * s.S * s.Ev, 0, 0, 0};
            std::fill(blk.dk, blk.dk + s.S * s.E, 0.0f);  // the blocks add their shares into dk and dv
            std::fill(blk.dv, blk.dv + s.S * s.Ev, 0.0f);
            for (blk.i0 = 0; blk.i0 < s.L; blk.i0 += rows) {
                blk.n = std::min(rows, s.L - blk.i0);
                blk.keys = keys_of_block(s, blk.i0 + blk.n, causal);
                backward_block(s, blk, scale, causal, p.data(), dp.data());
            }
        }
    });
}

}  // namespace tinyamp::kernels::cpu
