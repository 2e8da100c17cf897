// CUDA elementwise kernels: one thread per output element (grid-stride loop, 64-bit indices).
// Broadcasting reads each operand through its own strides, so expanded views cost no copy.
#include "kernels/cuda/elementwise_cuda.h"

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_math.cuh"

namespace tinyamp::kernels::cuda {
namespace {

using detail::compute_t;
using detail::global_index;
using detail::grid_stride;
using detail::load;
using detail::store;

constexpr int kThreads = 256;

// Element offsets of output position `flat` in each of the first N operands.
template <int N>
__device__ __forceinline__ void offsets(const BroadcastLayout& l, std::int64_t flat, std::int64_t (&at)[N])
{
    for (int k = 0; k < N; ++k) at[k] = 0;
    for (int d = l.ndim - 1; d >= 0; --d) {
        const std::int64_t size = l.shape[d];
        const std::int64_t c = flat % size;
        flat /= size;
        for (int k = 0; k < N; ++k) at[k] += c * l.strides[k][d];
    }
}

template <BinaryOp Op, class C>
__device__ __forceinline__ auto apply(C x, C y)
{
    if constexpr (Op == BinaryOp::add) return x + y;
    else if constexpr (Op == BinaryOp::sub) return x - y;
    else if constexpr (Op == BinaryOp::mul) return x * y;
    else if constexpr (Op == BinaryOp::div) return x / y;
    else if constexpr (Op == BinaryOp::pow) return C(pow(x, y));
    else if constexpr (Op == BinaryOp::neg) return C(-x);
    else if constexpr (Op == BinaryOp::relu) return x > y ? x : y;
    else if constexpr (Op == BinaryOp::relu_backward) return y > C(0) ? x : C(0);
    else if constexpr (Op == BinaryOp::eq) return x == y;
    else if constexpr (Op == BinaryOp::ne) return x != y;
    else if constexpr (Op == BinaryOp::lt) return x < y;
    else if constexpr (Op == BinaryOp::le) return x <= y;
    else if constexpr (Op == BinaryOp::gt) return x > y;
    else return x >= y;
}

template <BinaryOp Op, class T, class Out>
__global__ void binary_kernel(const T* a, const T* b, BroadcastLayout l, Out* out, std::int64_t n)
{
    for (std::int64_t i = global_index(); i < n; i += grid_stride()) {
        std::int64_t at[2];
        offsets<2>(l, i, at);
        out[i] = store<Out>(apply<Op>(load(a[at[0]]), load(b[at[1]])));
    }
}

template <BinaryOp Op, class T>
void launch_binary(const void* a, const void* b, const BroadcastLayout& l, void* out, std::int64_t n)
{
    using Out = std::conditional_t<(Op >= BinaryOp::eq), bool, T>;
    binary_kernel<Op, T, Out><<<detail::blocks_for(n, kThreads), kThreads>>>(static_cast<const T*>(a), static_cast<const T*>(b), l,
                                                                              static_cast<Out*>(out), n);
}

template <class T>
void binary_for(BinaryOp op, const void* a, const void* b, const BroadcastLayout& l, void* out, std::int64_t n)
{
    constexpr bool arithmetic = !std::is_same_v<T, bool>;
    constexpr bool is_float = !std::is_same_v<T, bool> && !std::is_same_v<T, std::int64_t>;
    switch (op) {
    case BinaryOp::eq: return launch_binary<BinaryOp::eq, T>(a, b, l, out, n);
    case BinaryOp::ne: return launch_binary<BinaryOp::ne, T>(a, b, l, out, n);
    case BinaryOp::lt: return launch_binary<BinaryOp::lt, T>(a, b, l, out, n);
    case BinaryOp::le: return launch_binary<BinaryOp::le, T>(a, b, l, out, n);
    case BinaryOp::gt: return launch_binary<BinaryOp::gt, T>(a, b, l, out, n);
    case BinaryOp::ge: return launch_binary<BinaryOp::ge, T>(a, b, l, out, n);
    default: break;
    }
    if constexpr (arithmetic) {
        switch (op) {
        case BinaryOp::add: return launch_binary<BinaryOp::add, T>(a, b, l, out, n);
        case BinaryOp::sub: return launch_binary<BinaryOp::sub, T>(a, b, l, out, n);
        case BinaryOp::mul: return launch_binary<BinaryOp::mul, T>(a, b, l, out, n);
        case BinaryOp::neg: return launch_binary<BinaryOp::neg, T>(a, b, l, out, n);
        case BinaryOp::relu: return launch_binary<BinaryOp::relu, T>(a, b, l, out, n);
        case BinaryOp::relu_backward: return launch_binary<BinaryOp::relu_backward, T>(a, b, l, out, n);
        default: break;
        }
    }
    if constexpr (is_float) {
        switch (op) {
        case BinaryOp::div: return launch_binary<BinaryOp::div, T>(a, b, l, out, n);
        case BinaryOp::pow: return launch_binary<BinaryOp::pow, T>(a, b, l, out, n);
        default: break;
        }
    }
    TINYAMP_FAIL(dtype, "CUDA binary op ", int(op), " is not defined for this dtype (integer division and pow compute in a float dtype; "
                        "bool has only comparisons)");
}

template <UnaryOp Op, class C>
__device__ __forceinline__ C apply_unary(C v, C p)
{
    if constexpr (Op == UnaryOp::exp) return exp(v);
    else if constexpr (Op == UnaryOp::log) return log(v);
    else if constexpr (Op == UnaryOp::sqrt) return sqrt(v);
    else if constexpr (Op == UnaryOp::tanh) return tanh(v);
    else if constexpr (Op == UnaryOp::sigmoid) {
        if (v >= C(0)) return C(1) / (C(1) + exp(-v));  // as on the CPU: exp never overflows
        const C e = exp(v);
        return e / (C(1) + e);
    } else if constexpr (Op == UnaryOp::erf) return erf(v);
    else if constexpr (Op == UnaryOp::gelu) return v * C(0.5) * (C(1) + erf(v * C(0.70710678118654752440)));
    else return C(pow(v, p));
}

template <UnaryOp Op, class T>
__global__ void unary_kernel(const T* x, T* y, std::int64_t n, compute_t<T> p)
{
    for (std::int64_t i = global_index(); i < n; i += grid_stride()) y[i] = store<T>(apply_unary<Op>(load(x[i]), p));
}

template <UnaryOp Op, class T>
void launch_unary(const void* x, void* y, std::int64_t n, double p)
{
    unary_kernel<Op, T><<<detail::blocks_for(n, kThreads), kThreads>>>(static_cast<const T*>(x), static_cast<T*>(y), n, compute_t<T>(p));
}

template <class T>
__global__ void where_kernel(const bool* cond, const T* a, const T* b, BroadcastLayout l, T* out, std::int64_t n)
{
    for (std::int64_t i = global_index(); i < n; i += grid_stride()) {
        std::int64_t at[3];
        offsets<3>(l, i, at);
        out[i] = cond[at[0]] ? a[at[1]] : b[at[2]];
    }
}

template <class T>
__global__ void fill_kernel(T* dst, std::int64_t n, T value)
{
    for (std::int64_t i = global_index(); i < n; i += grid_stride()) dst[i] = value;
}

std::int64_t count(const BroadcastLayout& l)
{
    std::int64_t n = 1;
    for (int d = 0; d < l.ndim; ++d) n *= l.shape[d];
    return n;
}

}  // namespace


void binary(BinaryOp op, DType dtype, const void* a, const void* b, const BroadcastLayout& layout, void* out, int device)
{
    const std::int64_t n = count(layout);
    if (n == 0) return;
    detail::use_device(device);
    detail::visit_device_dtype(dtype, [&](auto tag) { binary_for<decltype(tag)>(op, a, b, layout, out, n); });
    detail::check_launch("binary kernel");
}

void unary(UnaryOp op, DType dtype, const void* x, void* y, std::int64_t n, double param, int device)
{
    if (n == 0) return;
    detail::use_device(device);
    detail::visit_device_float(dtype, "unary op", [&](auto tag) {
        using T = decltype(tag);
        switch (op) {
        case UnaryOp::exp: return launch_unary<UnaryOp::exp, T>(x, y, n, param);
        case UnaryOp::log: return launch_unary<UnaryOp::log, T>(x, y, n, param);
        case UnaryOp::sqrt: return launch_unary<UnaryOp::sqrt, T>(x, y, n, param);
        case UnaryOp::tanh: return launch_unary<UnaryOp::tanh, T>(x, y, n, param);
        case UnaryOp::sigmoid: return launch_unary<UnaryOp::sigmoid, T>(x, y, n, param);
        case UnaryOp::erf: return launch_unary<UnaryOp::erf, T>(x, y, n, param);
        case UnaryOp::gelu: return launch_unary<UnaryOp::gelu, T>(x, y, n, param);
        case UnaryOp::pow_scalar: return launch_unary<UnaryOp::pow_scalar, T>(x, y, n, param);
        }
    });
    detail::check_launch("unary kernel");
}

void where(const bool* cond, const void* a, const void* b, DType dtype, const BroadcastLayout& layout, void* out, int device)
{
    const std::int64_t n = count(layout);
    if (n == 0) return;
    detail::use_device(device);
    detail::visit_device_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        where_kernel<T><<<detail::blocks_for(n, kThreads), kThreads>>>(cond, static_cast<const T*>(a), static_cast<const T*>(b), layout,
                                                                        static_cast<T*>(out), n);
    });
    detail::check_launch("where kernel");
}

void fill(void* dst, DType dtype, std::int64_t n, double value, int device)
{
    if (n == 0) return;
    detail::use_device(device);
    detail::visit_device_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        // Rounded on the host through the same intrinsics (they are __host__ __device__).
        T v;
        if constexpr (std::is_same_v<T, __half>) v = __double2half(value);
        else if constexpr (std::is_same_v<T, __nv_bfloat16>) v = __double2bfloat16(value);
        else if constexpr (std::is_same_v<T, bool>) v = value != 0.0;
        else v = T(value);
        fill_kernel<T><<<detail::blocks_for(n, kThreads), kThreads>>>(static_cast<T*>(dst), n, v);
    });
    detail::check_launch("fill kernel");
}

}  // namespace tinyamp::kernels::cuda
