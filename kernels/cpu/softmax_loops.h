#pragma once
// Softmax and log-softmax along one dimension of a contiguous buffer seen as [outer, n, inner]:
// the n values of one lane (o, i) lie `inner` elements apart. Each lane is computed in the
// compute type (f32 for f16/bf16) and every result is rounded once, when stored.
//
// Numerically stable: with m the lane's maximum,
//   softmax(x)_j     = e^(x_j - m) / sum_k e^(x_k - m)
//   log_softmax(x)_j = (x_j - m) - log(sum_k e^(x_k - m))
// No exponent is above 0, so nothing overflows, and the largest term is exactly 1, so the sum is
// at least 1: no division by 0 and no log of 0. A NaN in a lane makes the whole lane NaN.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/cpu/elementwise_loops.h"

namespace tinyamp::kernels::cpu {

enum class SoftmaxKind { probabilities, log_probabilities };

template <class T>
void softmax_lanes(const T* x, T* y, std::int64_t outer, std::int64_t n, std::int64_t inner, SoftmaxKind kind)
{
    using C = compute_t<T>;
    for (std::int64_t o = 0; o < outer; ++o) {
        for (std::int64_t i = 0; i < inner; ++i) {
            const T* in = x + o * n * inner + i;
            T* out = y + o * n * inner + i;
            C m = -std::numeric_limits<C>::infinity();
            for (std::int64_t j = 0; j < n; ++j) m = std::max(m, load(in[j * inner]));
            // e^(x - m) is computed again in the last loop rather than kept in y, where it would
            // be rounded to T before the division.
            C total = 0;
            for (std::int64_t j = 0; j < n; ++j) total += std::exp(load(in[j * inner]) - m);
            if (kind == SoftmaxKind::log_probabilities) {
                const C log_total = std::log(total);
                for (std::int64_t j = 0; j < n; ++j) out[j * inner] = store<T>((load(in[j * inner]) - m) - log_total);
            } else {
                for (std::int64_t j = 0; j < n; ++j) out[j * inner] = store<T>(std::exp(load(in[j * inner]) - m) / total);
            }
        }
    }
}

}  // namespace tinyamp::kernels::cpu
