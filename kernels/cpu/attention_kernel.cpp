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
    run_ranges(s.count, 1, get_num_threads(), [&](std::int64_t first, std::int64_t last) {
        std::vector<float> p(std::size_t(s.L * s.S));
        for (std::int64_t b = first; b < last; ++b) {
            const float *qb = q + b * s.L * s.E, *kb = k + b * s.S * s.E, *vb = v + b * s.S * s.Ev;
            gemm<float, float>(Transpose::no, Transpose::yes, s.L, s.S, s.E, scale, qb, s.E, kb, s.E, 0.0, p.data(), s.S);
            for (std::int64_t i = 0; i < s.L; ++i) lse[b * s.L + i] = softmax_row(p.data() + i * s.S, keys_seen(s, i, causal), s.S);
            gemm<float, float>(Transpose::no, Transpose::no, s.L, s.Ev, s.S, 1.0, p.data(), s.S, vb, s.Ev, 0.0, out + b * s.L * s.Ev, s.Ev);
        }
    });
}

void attention_backward(const AttentionSizes& s, const float* q, const float* k, const float* v, const float* dout, const float* lse,
                        float scale, bool causal, float* dq, float* dk, float* dv)
{
    run_ranges(s.count, 1, get_num_threads(), [&](std::int64_t first, std::int64_t last) {
        std::vector<float> p(std::size_t(s.L * s.S)), dp(std::size_t(s.L * s.S));
        for (std::int64_t b = first; b < last; ++b) {
            const float *qb = q + b * s.L * s.E, *kb = k + b * s.S * s.E, *vb = v + b * s.S * s.Ev, *gb = dout + b * s.L * s.Ev;
            gemm<float, float>(Transpose::no, Transpose::yes, s.L, s.S, s.E, scale, qb, s.E, kb, s.E, 0.0, p.data(), s.S);
            for (std::int64_t i = 0; i < s.L; ++i) probabilities_row(p.data() + i * s.S, keys_seen(s, i, causal), s.S, lse[b * s.L + i]);
            // dv = P^T dout, dP = dout v^T.
            gemm<float, float>(Transpose::yes, Transpose::no, s.S, s.Ev, s.L, 1.0, p.data(), s.S, gb, s.Ev, 0.0, dv + b * s.S * s.Ev, s.Ev);
            gemm<float, float>(Transpose::no, Transpose::yes, s.L, s.S, s.Ev, 1.0, gb, s.Ev, vb, s.Ev, 0.0, dp.data(), s.S);
            // Through the softmax: dS = P (dP - sum_j P dP) scale, in dp's place.
            for (std::int64_t i = 0; i < s.L; ++i) {
                const float* pr = p.data() + i * s.S;
                float* dr = dp.data() + i * s.S;
                const float dot = row_dot(pr, dr, s.S);
                for (std::int64_t j = 0; j < s.S; ++j) dr[j] = pr[j] * (dr[j] - dot) * scale;
            }
            // dq = dS k, dk = dS^T q.
            gemm<float, float>(Transpose::no, Transpose::no, s.L, s.E, s.S, 1.0, dp.data(), s.S, kb, s.E, 0.0, dq + b * s.L * s.E, s.E);
            gemm<float, float>(Transpose::yes, Transpose::no, s.S, s.E, s.L, 1.0, dp.data(), s.S, qb, s.E, 0.0, dk + b * s.S * s.E, s.E);
        }
    });
}

}  // namespace tinyamp::kernels::cpu
