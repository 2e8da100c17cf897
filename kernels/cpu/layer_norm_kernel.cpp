// layer_norm_kernel.h's loops: plain loops over a row that the compiler vectorizes for the
// baseline CPU (compiled with -fno-trapping-math, as attention_kernel.cpp), with the row's two
// means from lane_reduce.h.
#include "kernels/cpu/layer_norm_kernel.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/lane_reduce.h"
#include "kernels/cpu/worker_pool.h"
#include "tinyamp/support/parallel.h"

namespace tinyamp::kernels::cpu {
namespace {

// One chunk of rows: dx for each, and the chunk's own sums of dy xhat and dy into `sums` [2, cols].
void chunk_backward(const float* dy, const float* x, const float* mean, const float* rstd, const float* weight, std::int64_t first,
                    std::int64_t last, std::int64_t cols, float* dx, float* sums, float* xhat, float* dxhat)
{
    float* sum_dy_xhat = sums;
    float* sum_dy = sums + cols;
    std::fill(sums, sums + 2 * cols, 0.0f);
    for (std::int64_t r = first; r < last; ++r) {
        const float *g = dy + r * cols, *in = x + r * cols;
        const float mu = mean[r], s = rstd[r];
        for (std::int64_t j = 0; j < cols; ++j) {
            xhat[j] = (in[j] - mu) * s;
            dxhat[j] = weight ? g[j] * weight[j] : g[j];
            sum_dy_xhat[j] += g[j] * xhat[j];
            sum_dy[j] += g[j];
        }
        if (!dx) continue;
        const float mean_dxhat = row_sum(dxhat, cols) / float(cols);
        const float mean_dxhat_xhat = row_dot(dxhat, xhat, cols) / float(cols);
        float* out = dx + r * cols;
        for (std::int64_t j = 0; j < cols; ++j) out[j] = s * ((dxhat[j] - mean_dxhat) - xhat[j] * mean_dxhat_xhat);
    }
}

// One row: its mean and rstd, and y.
void row_forward(const float* in, const float* weight, const float* bias, std::int64_t cols, float eps, float* out, float& mean,
                 float& rstd)
{
    const float mu = row_sum(in, cols) / float(cols);
    const float var = lane_reduce(cols, 0.0f, [](float a, float b) { return a + b; }, [in, mu](std::int64_t j) {
                          const float d = in[j] - mu;
                          return d * d;
                      }) / float(cols);
    const float s = 1.0f / std::sqrt(var + eps);
    for (std::int64_t j = 0; j < cols; ++j) {
        float v = (in[j] - mu) * s;
        if (weight) v *= weight[j];
        if (bias) v += bias[j];
        out[j] = v;
    }
    mean = mu;
    rstd = s;
}

}  // namespace

void layer_norm_forward(const float* x, const float* weight, const float* bias, std::int64_t rows, std::int64_t cols, float eps, float* y,
                        float* mean, float* rstd)
{
    // At least 16 rows a thread: fewer are not worth waking a helper for.
    run_ranges(rows, 16, get_num_threads(), [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t r = first; r < last; ++r)
            row_forward(x + r * cols, weight, bias, cols, eps, y + r * cols, mean[r], rstd[r]);
    });
}

void layer_norm_backward(const float* dy, const float* x, const float* mean, const float* rstd, const float* weight, std::int64_t rows,
                         std::int64_t cols, float* dx, float* dweight, float* dbias)
{
    const std::int64_t chunks = (rows + kLayerNormRowsPerChunk - 1) / kLayerNormRowsPerChunk;
    std::vector<float> sums(std::size_t(std::max<std::int64_t>(chunks, 1) * 2 * cols), 0.0f);
    run_ranges(chunks, 1, get_num_threads(), [&](std::int64_t first_chunk, std::int64_t last_chunk) {
        std::vector<float> xhat(static_cast<std::size_t>(cols)), dxhat(static_cast<std::size_t>(cols));
        for (std::int64_t c = first_chunk; c < last_chunk; ++c) {
            const std::int64_t first = c * kLayerNormRowsPerChunk, last = std::min(rows, first + kLayerNormRowsPerChunk);
            chunk_backward(dy, x, mean, rstd, weight, first, last, cols, dx, sums.data() + c * 2 * cols, xhat.data(), dxhat.data());
        }
    });
    // The chunks' sums, added in chunk order.
    if (dweight) std::fill(dweight, dweight + cols, 0.0f);
    if (dbias) std::fill(dbias, dbias + cols, 0.0f);
    for (std::int64_t c = 0; c < chunks; ++c) {
        const float* chunk = sums.data() + c * 2 * cols;
        for (std::int64_t j = 0; j < cols; ++j) {
            if (dweight) dweight[j] += chunk[j];
            if (dbias) dbias[j] += chunk[cols + j];
        }
    }
}

}  // namespace tinyamp::kernels::cpu
