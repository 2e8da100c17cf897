#pragma once
// Reductions over a row of f32 in 16 running lanes, added up in a fixed order at the end: a loop
// the compiler vectorizes (one running sum would be a chain of dependent additions) whose bits
// are the same on every CPU and tier. Used by the attention and LayerNorm kernels.

#include <cstdint>
#include <limits>

namespace tinyamp::kernels::cpu {

inline constexpr int kReduceLanes = 16;

/// combine(...combine(combine(fill, lane 0), lane 1)..., lane 15), where lane l combines
/// element(j) for j = l, l + 16, ... (and the tail from lane 0 on).
template <class Combine, class Element>
float lane_reduce(std::int64_t n, float fill, Combine combine, Element element)
{
    float lane[kReduceLanes];
    for (float& v : lane) v = fill;
    std::int64_t j = 0;
    for (; j + kReduceLanes <= n; j += kReduceLanes)
        for (int l = 0; l < kReduceLanes; ++l) lane[l] = combine(lane[l], element(j + l));
    for (int l = 0; j < n; ++j, ++l) lane[l] = combine(lane[l], element(j));
    float result = fill;
    for (float v : lane) result = combine(result, v);
    return result;
}

/// The largest of row[0..n) (-inf for none).
inline float row_max(const float* row, std::int64_t n)
{
    return lane_reduce(n, -std::numeric_limits<float>::infinity(), [](float a, float b) { return a > b ? a : b; },
                       [row](std::int64_t j) { return row[j]; });
}
/// row[0] + ... + row[n - 1].
inline float row_sum(const float* row, std::int64_t n)
{
    return lane_reduce(n, 0.0f, [](float a, float b) { return a + b; }, [row](std::int64_t j) { return row[j]; });
}
/// a[0] b[0] + ... + a[n - 1] b[n - 1].
inline float row_dot(const float* a, const float* b, std::int64_t n)
{
    return lane_reduce(n, 0.0f, [](float x, float y) { return x + y; }, [a, b](std::int64_t j) { return a[j] * b[j]; });
}

}  // namespace tinyamp::kernels::cpu
