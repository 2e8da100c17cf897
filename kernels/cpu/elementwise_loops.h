#pragma once
// Elementwise loops over raw buffers. Each element is loaded into its compute type (f32 for
// f16/bf16/f32, f64 for f64, itself for i64/bool), the function runs there, and the result is
// rounded once when stored: "f16/bf16 math accumulates in f32 and rounds once on output".

#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/worker_pool.h"
#include "tinyamp/support/parallel.h"
#include "tinyamp/values/half.h"
#include "tinyamp/values/shape.h"  // Shape, Strides: inline vectors, so no allocation per call

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

/// y[i] = fn(x[i]) for contiguous x and y, shared out between the threads past kElementwiseGrain
/// (worker_pool.h); each element is computed the same way wherever it runs.
template <class In, class Out, class Fn>
void unary_map(const In* x, Out* y, std::int64_t n, Fn fn)
{
    run_ranges(n, kElementwiseGrain, get_num_threads(), [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t i = first; i < last; ++i) y[i] = store<Out>(fn(load(x[i])));
    });
}

namespace detail {

/// One digit of the odometer both binary_maps walk: moves the offsets of a and b one step along a
/// dimension of \p size elements; at its end, back to its start and `true`, a carry into the next.
inline bool odometer_step(std::int64_t& count, std::int64_t size, std::int64_t& pa, std::int64_t sa, std::int64_t& pb,
                          std::int64_t sb)
{
    pa += sa;
    pb += sb;
    if (++count < size) return false;
    pa -= sa * size;
    pb -= sb * size;
    count = 0;
    return true;
}

}  // namespace detail

namespace reference {

/// out[i] = fn(a[.], b[.]) over `shape` in row-major order, where a and b are read through their
/// own strides (0 along a broadcast dimension) and out is contiguous. The plain version: one
/// odometer step per row. The fast binary_map below must give the same bits.
template <class A, class B, class Out, class Fn>
void binary_map(const Shape& shape, const A* a, const Strides& a_strides, const B* b, const Strides& b_strides, Out* out, Fn fn)
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
        for (std::size_t d = ndim - 1; d-- > 0;)  // advance the odometer over the outer dimensions
            if (!detail::odometer_step(counter[d], shape[d], pa, a_strides[d], pb, b_strides[d])) break;
    }
}

}  // namespace reference

namespace detail {

template <class T>
constexpr bool is_16bit_float = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

inline void widen(const Half* src, float* dst, std::int64_t n) { f16_to_f32(src, dst, n); }
inline void widen(const BFloat16* src, float* dst, std::int64_t n) { bf16_to_f32(src, dst, n); }
inline void narrow(const float* src, Half* dst, std::int64_t n) { f32_to_f16(src, dst, n); }
inline void narrow(const float* src, BFloat16* dst, std::int64_t n) { f32_to_bf16(src, dst, n); }

// A row of f16/bf16 with steps 1 or 0: chunks of the operands are widened to f32 by the vector
// converters (convert.h), fn runs on plain floats (a loop the compiler vectorizes), and the chunk
// is rounded back in one vector pass. Widening is exact and the converters round to nearest even
// exactly as store<> does (their tests hold them to the reference), so the bits are the same as
// one element at a time.
template <class T, class Fn>
void binary_row_16bit(const T* a, std::int64_t sa, const T* b, std::int64_t sb, T* out, std::int64_t n, Fn& fn)
{
    constexpr std::int64_t kChunk = 256;
    alignas(64) float xa[kChunk], xb[kChunk], xo[kChunk];
    const float a0 = load(a[0]), b0 = load(b[0]);  // the value of an operand with step 0
    for (std::int64_t start = 0; start < n; start += kChunk) {
        const std::int64_t m = n - start < kChunk ? n - start : kChunk;
        if (sa == 1) widen(a + start, xa, m);
        if (sb == 1) widen(b + start, xb, m);
        if (sa == 1 && sb == 1) {
            for (std::int64_t j = 0; j < m; ++j) xo[j] = fn(xa[j], xb[j]);
        } else if (sa == 1) {
            for (std::int64_t j = 0; j < m; ++j) xo[j] = fn(xa[j], b0);
        } else {
            for (std::int64_t j = 0; j < m; ++j) xo[j] = fn(a0, xb[j]);
        }
        narrow(xo, out + start, m);
    }
}

// One row of n elements, a and b read with steps sa and sb. The three common step pairs get loops
// of their own, with the step a constant, so that the compiler can vectorize them: same-shape
// operands (1, 1), a row against one value (1, 0) and the other way round (0, 1).
template <class A, class B, class Out, class Fn>
inline void binary_row(const A* a, std::int64_t sa, const B* b, std::int64_t sb, Out* out, std::int64_t n, Fn& fn)
{
    if constexpr (is_16bit_float<A> && std::is_same_v<A, B> && std::is_same_v<A, Out> &&
                  std::is_same_v<decltype(fn(0.0f, 0.0f)), float>) {  // (a double result would round twice)
        if ((sa == 1 && (sb == 0 || sb == 1)) || (sa == 0 && sb == 1)) return binary_row_16bit(a, sa, b, sb, out, n, fn);
    }
    if (sa == 1 && sb == 1) {
        for (std::int64_t j = 0; j < n; ++j) out[j] = store<Out>(fn(load(a[j]), load(b[j])));
    } else if (sa == 1 && sb == 0) {
        const auto y = load(b[0]);
        for (std::int64_t j = 0; j < n; ++j) out[j] = store<Out>(fn(load(a[j]), y));
    } else if (sa == 0 && sb == 1) {
        const auto x = load(a[0]);
        for (std::int64_t j = 0; j < n; ++j) out[j] = store<Out>(fn(x, load(b[j])));
    } else {
        for (std::int64_t j = 0; j < n; ++j) out[j] = store<Out>(fn(load(a[j * sa]), load(b[j * sb])));
    }
}

}  // namespace detail

/// The same result as reference::binary_map, faster: dimensions that a and b both walk through
/// as one run of memory are merged first (a contiguous [64, 256] + [64, 256] becomes one row of
/// 16384, x + scalar one row with step 0), then each row runs in binary_row, the rows (or the one
/// row's elements) shared out between the threads past kElementwiseGrain elements. Same
/// elements, same function: the same bits.
template <class A, class B, class Out, class Fn>
void binary_map(const Shape& shape, const A* a, const Strides& a_strides, const B* b, const Strides& b_strides, Out* out, Fn fn)
{
    constexpr std::size_t kMaxDims = 16;
    const std::size_t ndim = shape.size();
    if (ndim == 0) {
        out[0] = store<Out>(fn(load(a[0]), load(b[0])));
        return;
    }
    if (ndim > kMaxDims) return reference::binary_map(shape, a, a_strides, b, b_strides, out, fn);
    for (auto s : shape)
        if (s == 0) return;
    // Merge dimension d into the one after it when, for both operands, one step along d is a
    // whole run of the next one (this includes two broadcast dims: 0 == 0 * size).
    std::int64_t size[kMaxDims], sa[kMaxDims], sb[kMaxDims];
    std::size_t n = 0;  // merged dims, innermost first
    for (std::size_t d = ndim; d-- > 0;) {
        if (shape[d] == 1) continue;  // a dim of size 1 moves nothing
        if (n > 0 && a_strides[d] == sa[n - 1] * size[n - 1] && b_strides[d] == sb[n - 1] * size[n - 1]) {
            size[n - 1] *= shape[d];
            continue;
        }
        size[n] = shape[d];
        sa[n] = a_strides[d];
        sb[n] = b_strides[d];
        ++n;
    }
    if (n == 0) {  // every size is 1: one element
        out[0] = store<Out>(fn(load(a[0]), load(b[0])));
        return;
    }
    const std::int64_t inner = size[0];
    if (n == 1) {  // one run of memory: its elements shared out between the threads
        run_ranges(inner, kElementwiseGrain, get_num_threads(), [&](std::int64_t first, std::int64_t last) {
            detail::binary_row(a + first * sa[0], sa[0], b + first * sb[0], sb[0], out + first, last - first, fn);
        });
        return;
    }
    std::int64_t rows = 1;
    for (std::size_t d = 1; d < n; ++d) rows *= size[d];
    const std::int64_t rows_per_thread = inner >= kElementwiseGrain ? 1 : kElementwiseGrain / inner;
    run_ranges(rows, rows_per_thread, get_num_threads(), [&](std::int64_t first, std::int64_t last) {
        std::int64_t counter[kMaxDims] = {};
        std::int64_t pa = 0, pb = 0;  // offsets of the current row's start in a and b
        for (std::int64_t d = 1, rest = first; d < std::int64_t(n); rest /= size[d], ++d) {  // the odometer at row `first`
            counter[d] = rest % size[d];
            pa += counter[d] * sa[d];
            pb += counter[d] * sb[d];
        }
        for (std::int64_t row = first; row < last; ++row) {
            detail::binary_row(a + pa, sa[0], b + pb, sb[0], out + row * inner, inner, fn);
            for (std::size_t d = 1; d < n; ++d)  // advance the odometer over the outer (merged) dims
                if (!detail::odometer_step(counter[d], size[d], pa, sa[d], pb, sb[d])) break;
        }
    });
}

}  // namespace tinyamp::kernels::cpu
