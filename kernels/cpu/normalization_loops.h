#pragma once
// The two loops of layer norm and batch norm, over a contiguous buffer seen as [outer, groups, inner]:
// group g holds x[o][g][i] for every o and i, and gets its own mean and variance.
//   layer norm:  [1, rows, row length]   one group per row (the normalized dims)
//   batch norm:  [N, C, H*W]             one group per channel
// Statistics are accumulated in Acc (f32 for f16/bf16 inputs); each output is rounded once.

#include <cmath>
#include <cstdint>

#include "kernels/cpu/elementwise_loops.h"

namespace tinyamp::kernels::cpu {

/// mean[g] and the biased variance var[g] (divided by the count, as normalization uses it).
/// Two passes, the mean first and then squared deviations from it: E[x^2] - E[x]^2 in one pass
/// would lose the variance to cancellation when the mean is large.
template <class T, class Acc>
void group_moments(const T* x, std::int64_t outer, std::int64_t groups, std::int64_t inner, Acc* mean, Acc* var)
{
    const Acc count = Acc(outer * inner);
    for (std::int64_t g = 0; g < groups; ++g) {
        Acc total = 0;
        for (std::int64_t o = 0; o < outer; ++o)
            for (std::int64_t i = 0; i < inner; ++i) total += Acc(load(x[(o * groups + g) * inner + i]));
        const Acc m = total / count;
        Acc squares = 0;
        for (std::int64_t o = 0; o < outer; ++o)
            for (std::int64_t i = 0; i < inner; ++i) {
                const Acc d = Acc(load(x[(o * groups + g) * inner + i])) - m;
                squares += d * d;
            }
        mean[g] = m;
        var[g] = squares / count;
    }
}

/// rstd[g] = 1 / sqrt(var[g] + eps): what normalization multiplies by (var and rstd may alias).
template <class Acc>
void inverse_std(const Acc* var, std::int64_t groups, double eps, Acc* rstd)
{
    for (std::int64_t g = 0; g < groups; ++g) rstd[g] = Acc(1) / std::sqrt(var[g] + Acc(eps));
}

/// Which index the affine weight and bias go by: one value per position in a group (layer norm's
/// weight has the normalized shape) or one per group (batch norm's weight has one per channel).
enum class AffineIndex { inner, group };

/// y[o][g][i] = (x[o][g][i] - mean[g]) * rstd[g] * weight + bias, rounded once into T.
/// weight and bias may be null (then 1 and 0).
template <class T, class Acc>
void normalize_groups(const T* x, std::int64_t outer, std::int64_t groups, std::int64_t inner, const Acc* mean, const Acc* rstd,
                      const Acc* weight, const Acc* bias, AffineIndex affine, T* y)
{
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t g = 0; g < groups; ++g)
            for (std::int64_t i = 0; i < inner; ++i) {
                const std::int64_t at = (o * groups + g) * inner + i;
                const std::int64_t p = affine == AffineIndex::inner ? i : g;
                Acc v = (Acc(load(x[at])) - mean[g]) * rstd[g];
                if (weight) v *= weight[p];
                if (bias) v += bias[p];
                y[at] = store<T>(v);
            }
}

}  // namespace tinyamp::kernels::cpu
