#pragma once
// Row reductions over a contiguous [rows, cols] buffer, accumulating in the compute type
// (f32 for f16/bf16/f32, f64 for f64, i64 for integers): the answer is rounded once, at the end.

#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/cpu/elementwise_loops.h"

namespace tinyamp::kernels::cpu {

template <class T>
using accumulate_t = std::conditional_t<std::is_same_v<T, bool>, std::int64_t, compute_t<T>>;

/// out[r] = sum of row r (times `scale`, e.g. 1/cols for a mean).
template <class In, class Out>
void sum_rows(const In* x, std::int64_t rows, std::int64_t cols, Out* out, double scale = 1.0)
{
    for (std::int64_t r = 0; r < rows; ++r) {
        accumulate_t<In> total = 0;
        const In* row = x + r * cols;
        for (std::int64_t c = 0; c < cols; ++c) total += accumulate_t<In>(load(row[c]));
        out[r] = scale == 1.0 ? store<Out>(total) : store<Out>(compute_t<Out>(double(total) * scale));
    }
}

/// out[c] = sum of column c of a contiguous [rows, cols] buffer (times `scale`): the same sums as
/// sum_rows over the transposed buffer, added in the same order (row 0 first), so the same bits,
/// without making the transposed copy. The running sums of all columns advance together, one row
/// at a time, which reads memory in order. This is how a bias gradient (a sum over the batch) is
/// made. The columns are shared out between the threads past kElementwiseGrain elements (each
/// column still sums in its order), and f16/bf16 rows are widened by the vector converter first.
template <class In, class Out>
void sum_columns(const In* x, std::int64_t rows, std::int64_t cols, Out* out, double scale = 1.0)
{
    using Acc = accumulate_t<In>;
    const std::int64_t columns_per_part = rows >= kElementwiseGrain ? 1 : kElementwiseGrain / (rows > 0 ? rows : 1);
    run_ranges(cols, columns_per_part, get_num_threads(), [&](std::int64_t first, std::int64_t last) {
        const std::int64_t n = last - first;
        std::vector<Acc> totals(std::size_t(n), Acc(0));
        Acc* t = totals.data();
        if constexpr (detail::is_16bit_float<In>) {
            std::vector<float> wide(static_cast<std::size_t>(n));
            for (std::int64_t r = 0; r < rows; ++r) {
                detail::widen(x + r * cols + first, wide.data(), n);
                for (std::int64_t c = 0; c < n; ++c) t[c] += wide[std::size_t(c)];
            }
        } else {
            for (std::int64_t r = 0; r < rows; ++r) {
                const In* row = x + r * cols + first;
                for (std::int64_t c = 0; c < n; ++c) t[c] += Acc(load(row[c]));
            }
        }
        for (std::int64_t c = 0; c < n; ++c)
            out[first + c] = scale == 1.0 ? store<Out>(t[c]) : store<Out>(compute_t<Out>(double(t[c]) * scale));
    });
}

/// The largest value of each row and its first position. NaN counts as the largest (as in
/// PyTorch), so a NaN anywhere in a row is reported.
template <class T>
void max_rows(const T* x, std::int64_t rows, std::int64_t cols, T* values, std::int64_t* indices)
{
    for (std::int64_t r = 0; r < rows; ++r) {
        const T* row = x + r * cols;
        std::int64_t best = 0;
        auto best_value = load(row[0]);
        for (std::int64_t c = 1; c < cols; ++c) {
            const auto v = load(row[c]);
            if (best_value != best_value) break;  // NaN found: it stays the max
            if (v > best_value || v != v) {
                best_value = v;
                best = c;
            }
        }
        if (values) values[r] = row[best];
        if (indices) indices[r] = best;
    }
}

}  // namespace tinyamp::kernels::cpu
