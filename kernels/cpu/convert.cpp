// Picks the fastest exact conversion path for this CPU, and converts between any two dtypes.
#include <type_traits>

#include "kernels/cpu/convert.h"

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/worker_pool.h"
#include "tinyamp/support/parallel.h"
#include "tinyamp/values/half_bits.h"

namespace tinyamp::kernels::cpu {

namespace bits {
void f32_to_f16(const float* src, Half* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = Half::from_bits(half_bits::f16_from_f32(src[i]));
}
void f16_to_f32(const Half* src, float* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = half_bits::f32_from_f16(src[i].bits);
}
void f32_to_bf16(const float* src, BFloat16* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = BFloat16::from_bits(half_bits::bf16_from_f32(src[i]));
}
void bf16_to_f32(const BFloat16* src, float* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = half_bits::f32_from_bf16(src[i].bits);
}
}  // namespace bits

// Each of the four takes its SIMD path when the CPU has the instructions (for bf16: AVX-512 BF16,
// else AVX-512, else AVX2), else the portable one (the same bits either way).
namespace {
template <class Fn, class Src, class Dst>
void fastest(bool has_simd, Fn* simd, Fn* portable, const Src* src, Dst* dst, std::int64_t n)
{
    (has_simd ? simd : portable)(src, dst, n);
}
}  // namespace

void f32_to_f16(const float* src, Half* dst, std::int64_t n)
{
    fastest<F32ToF16>(cpu_features().f16c, f16c::f32_to_f16, bits::f32_to_f16, src, dst, n);
}
void f16_to_f32(const Half* src, float* dst, std::int64_t n)
{
    fastest<F16ToF32>(cpu_features().f16c, f16c::f16_to_f32, bits::f16_to_f32, src, dst, n);
}
void f32_to_bf16(const float* src, BFloat16* dst, std::int64_t n)
{
    const CpuFeatures& f = cpu_features();
    F32ToBF16* simd = f.avx512bf16 ? avx512bf16::f32_to_bf16 : f.avx512f ? avx512::f32_to_bf16 : avx2::f32_to_bf16;
    fastest<F32ToBF16>(f.avx512bf16 || f.avx512f || f.avx2, simd, bits::f32_to_bf16, src, dst, n);
}
void bf16_to_f32(const BFloat16* src, float* dst, std::int64_t n)
{
    const CpuFeatures& f = cpu_features();
    fastest<BF16ToF32>(f.avx512f || f.avx2, f.avx512f ? avx512::bf16_to_f32 : avx2::bf16_to_f32, bits::bf16_to_f32, src, dst, n);
}

namespace {

template <class T>
constexpr bool is_float_like = std::is_same_v<T, double> || std::is_same_v<T, float> || std::is_same_v<T, Half> ||
                               std::is_same_v<T, BFloat16>;

// One element. Returns false when `x` has no value in To (only possible going to i64).
template <class To, class From>
bool convert_one(From x, To& out)
{
    if constexpr (std::is_same_v<To, From>) {
        out = x;
    } else if constexpr (std::is_same_v<From, bool>) {
        // 0 or 1, exact in every dtype, made without a branch: masks (relu's backward) are random,
        // and a branch per element would be mispredicted half the time.
        const auto one = static_cast<std::uint16_t>(x);
        if constexpr (std::is_same_v<To, Half>) out = Half::from_bits(std::uint16_t(one * 0x3c00u));
        else if constexpr (std::is_same_v<To, BFloat16>) out = BFloat16::from_bits(std::uint16_t(one * 0x3f80u));
        else out = static_cast<To>(one);
    } else if constexpr (std::is_same_v<From, std::int64_t>) {
        if constexpr (std::is_same_v<To, bool>) out = x != 0;
        else if constexpr (std::is_same_v<To, Half>) out = Half::from_bits(std::uint16_t(Binary16::from_int64(x)));
        else if constexpr (std::is_same_v<To, BFloat16>) out = BFloat16::from_bits(std::uint16_t(BFloat16Format::from_int64(x)));
        else out = static_cast<To>(x);  // double, float: the hardware rounds once
    } else {
        static_assert(is_float_like<From>);
        const double d = double(x);  // exact for every float dtype
        if constexpr (std::is_same_v<To, bool>) {
            out = d != 0.0;  // NaN is true, as in C++ and PyTorch
        } else if constexpr (std::is_same_v<To, std::int64_t>) {
            constexpr double two_pow_63 = 9223372036854775808.0;
            if (!(d >= -two_pow_63 && d < two_pow_63)) return false;  // NaN, inf, out of range
            out = static_cast<std::int64_t>(d);  // truncates toward zero
        } else {
            out = static_cast<To>(d);  // Half/BFloat16/float from an exact double: one rounding
        }
    }
    return true;
}

template <class From, class To>
std::int64_t convert_loop(const From* src, To* dst, std::int64_t n)
{
    if constexpr (std::is_same_v<To, std::int64_t> && is_float_like<From>) {
        for (std::int64_t i = 0; i < n; ++i)
            if (!convert_one(src[i], dst[i])) return i;
    } else {
        // Nothing can fail here (only floats going to i64 can), so a loop without the early exit,
        // which the compiler can vectorize (bool -> f32 masks in relu's backward, say).
        for (std::int64_t i = 0; i < n; ++i) convert_one(src[i], dst[i]);
    }
    return -1;
}

}  // namespace

namespace {

// convert_fn(src + first, dst + first, count) over [0, n), shared out between the threads past
// kElementwiseGrain elements (each element converts the same way wherever it runs).
template <class From, class To>
std::int64_t convert_in_parts(void (*convert_fn)(const From*, To*, std::int64_t), const void* src, void* dst, std::int64_t n)
{
    run_ranges(n, kElementwiseGrain, get_num_threads(), [&](std::int64_t first, std::int64_t last) {
        convert_fn(static_cast<const From*>(src) + first, static_cast<To*>(dst) + first, last - first);
    });
    return -1;
}

}  // namespace

std::int64_t convert(const void* src, DType src_dtype, void* dst, DType dst_dtype, std::int64_t n)
{
    // The four conversions autocast does all the time take the vector paths.
    if (src_dtype == DType::f32 && dst_dtype == DType::f16) return convert_in_parts<float, Half>(f32_to_f16, src, dst, n);
    if (src_dtype == DType::f16 && dst_dtype == DType::f32) return convert_in_parts<Half, float>(f16_to_f32, src, dst, n);
    if (src_dtype == DType::f32 && dst_dtype == DType::bf16) return convert_in_parts<float, BFloat16>(f32_to_bf16, src, dst, n);
    if (src_dtype == DType::bf16 && dst_dtype == DType::f32) return convert_in_parts<BFloat16, float>(bf16_to_f32, src, dst, n);
    if (is_minifloat(src_dtype) || is_minifloat(dst_dtype)) return convert_minifloat(src, src_dtype, dst, dst_dtype, n);
    return visit_dtype(src_dtype, [&](auto src_tag) {
        using From = decltype(src_tag);
        return visit_dtype(dst_dtype, [&](auto dst_tag) {
            using To = decltype(dst_tag);
            return convert_loop(static_cast<const From*>(src), static_cast<To*>(dst), n);
        });
    });
}

}  // namespace tinyamp::kernels::cpu
