#pragma once
// Elementwise loops over raw buffers. Each element is loaded into its compute type (f32 for
// f16/bf16/f32, f64 for f64, itself for i64/bool), the function runs there, and the result is
// rounded once when stored: "f16/bf16 math accumulates in f32 and rounds once on output".

#include <cstdint>
#include <type_traits>
#include <vector>

#include "tinyamp/core/half.h"

namespace tinyamp::kernels::cpu {

template <class T>
using compute_t = std::conditional_t<std::is_same_v<T, double>, double,
                                     std::conditional_t<std::is_same_v<T, std::int64_t> || std::is_same_v<T, bool>, T, float>>;

template <class T>
inline compute_t<T> load(T x)
{
    return compute_t<T>(x);
}
template <class T, class V>
inline T store(V v)
{
    return T(v);
}

/// y[i] = fn(x[i]) for contiguous x and y.
template <class In, class Out, class Fn>
void unary_map(const In* x, Out* y, std::int64_t n, Fn fn)
{
    for (std::int64_t i = 0; i < n; ++i) y[i] = store<Out>(fn(load(x[i])));
}

/// out[i] = fn(a[.], b[.]) over `shape` in row-major order, where a and b are read through their
/// own strides (0 along a broadcast dimension) and out is contiguous.
template <class A, class B, class Out, class Fn>
void binary_map(const std::vector<std::int64_t>& shape, const A* a, const std::vector<std::int64_t>& a_strides, const B* b,
                const std::vector<std::int64_t>& b_strides, Out* out, Fn fn)
{
    const std::size_t ndim = shape.size();
    if (ndim == 0) {
        out[0] = store<Out>(fn(load(a[0]), load(b[0])));
        return;
    }
    std::int64_t total = 1;
    for (auto s : shape) total *= s;
    if (total == 0) return;
    const std::int64_t inner = shape[ndim - 1], sa = a_strides[ndim - 1], sb = b_strides[ndim - 1];
    std::vector<std::int64_t> counter(ndim, 0);
    std::int64_t pa = 0, pb = 0;  // offsets of the current row's start in a and b
    for (std::int64_t row = 0; row < total; row += inner) {
        for (std::int64_t j = 0; j < inner; ++j) out[row + j] = store<Out>(fn(load(a[pa + j * sa]), load(b[pb + j * sb])));
        for (std::size_t d = ndim - 1; d-- > 0;) {  // advance the odometer over the outer dimensions
            pa += a_strides[d];
            pb += b_strides[d];
            if (++counter[d] < shape[d]) break;
            pa -= a_strides[d] * shape[d];
            pb -= b_strides[d] * shape[d];
            counter[d] = 0;
        }
    }
}

}  // namespace tinyamp::kernels::cpu
