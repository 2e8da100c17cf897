// Conversions into and out of the FP8/FP4 storage dtypes (f8e4m3fn, f8e5m2, e8m0), the part of
// convert() that tensor.to(), item() and the factories reach for them. Every minifloat value is
// an f32 exactly, so the road is always "through f32, rounded once":
//   minifloat -> anything: decode to f32 (exact), then the f32 conversion to the target;
//   anything -> minifloat: to f32 rounded to odd (exact for f32/f16/bf16/bool), then encode.
// The bulk f32 <-> code loops are minifloat_convert.h's (a reference and fast paths).
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/minifloat_convert.h"
#include "tinyamp/support/error.h"
#include "tinyamp/values/bit_cast.h"

namespace tinyamp::kernels::cpu {
namespace {

constexpr std::int64_t kChunk = 1024;  // f32 values staged on the stack at a time

// \p x as an f32 rounded to odd (see minifloat::round_to_odd_f32), for an i64: exact below 2^24,
// else its top 24 bits with the lowest set when any bit below them is (a double would round
// numbers past 2^53 once already).
float round_to_odd_f32(std::int64_t x)
{
    const bool negative = x < 0;
    std::uint64_t magnitude = negative ? 0 - std::uint64_t(x) : std::uint64_t(x);
    if (magnitude < (std::uint64_t{1} << 24)) return negative ? -float(magnitude) : float(magnitude);
    const int top = 63 - __builtin_clzll(magnitude);
    const int drop = top - 23;
    const bool sticky = (magnitude & ((std::uint64_t{1} << drop) - 1)) != 0;
    const float kept = float(magnitude >> drop) * float(std::uint64_t{1} << drop);  // exact: 24 bits times a power of two
    const float odd = tinyamp::bit_cast<float>(tinyamp::bit_cast<std::uint32_t>(kept) | (sticky ? 1u : 0u));
    return negative ? -odd : odd;
}

// Up to kChunk source elements as f32, each exact or rounded to odd.
void stage_as_f32(const void* src, DType src_dtype, std::int64_t offset, std::int64_t count, float* out)
{
    switch (src_dtype) {
    case DType::f32: std::memcpy(out, static_cast<const float*>(src) + offset, std::size_t(count) * sizeof(float)); return;
    case DType::f64:
        for (std::int64_t i = 0; i < count; ++i) out[i] = minifloat::round_to_odd_f32(static_cast<const double*>(src)[offset + i]);
        return;
    case DType::i64:
        for (std::int64_t i = 0; i < count; ++i) out[i] = round_to_odd_f32(static_cast<const std::int64_t*>(src)[offset + i]);
        return;
    default:  // f16, bf16, bool: exact in f32
        convert(static_cast<const unsigned char*>(src) + offset * dtype_size(src_dtype), src_dtype, out, DType::f32, count);
        return;
    }
}

// E8M0 has no zero, no sign and no inf: a value that is not NaN but became the NaN code had no
// E8M0 value (0, a negative value, or past 2^127 and inf without saturation).
std::int64_t first_without_e8m0_value(const float* in, const std::uint8_t* codes, std::int64_t count)
{
    for (std::int64_t i = 0; i < count; ++i)
        if (codes[i] == 0xFF && in[i] == in[i]) return i;
    return -1;
}

}  // namespace

std::int64_t convert_minifloat(const void* src, DType src_dtype, void* dst, DType dst_dtype, std::int64_t n)
{
    TINYAMP_CHECK(src_dtype != DType::f4e2m1x2 && dst_dtype != DType::f4e2m1x2, dtype, "to(", dtype_name(dst_dtype), ") from ",
                  dtype_name(src_dtype), ": an f4e2m1x2 element is a byte holding two FP4 values, so it has no one value to convert; "
                  "pack and unpack FP4 with pack_fp4() / unpack_fp4(), or quantize with a scaling recipe");
    if (src_dtype == dst_dtype) {
        std::memcpy(dst, src, std::size_t(n) * std::size_t(dtype_size(src_dtype)));
        return -1;
    }
    std::array<float, kChunk> staged;
    if (is_minifloat(src_dtype)) {
        // Decode (exact), then the f32 road to the target: one rounding at most.
        const minifloat::Format& from = minifloat_format(src_dtype);
        const auto* codes = static_cast<const std::uint8_t*>(src);
        for (std::int64_t at = 0; at < n; at += kChunk) {
            const std::int64_t count = std::min(kChunk, n - at);
            decode_f32(from, codes + at, staged.data(), count);
            void* out = static_cast<unsigned char*>(dst) + at * dtype_size(dst_dtype);
            const std::int64_t bad = is_minifloat(dst_dtype)
                                         ? convert_minifloat(staged.data(), DType::f32, out, dst_dtype, count)
                                         : convert(staged.data(), DType::f32, out, dst_dtype, count);
            if (bad >= 0) return at + bad;
        }
        return -1;
    }
    const minifloat::Format& to = minifloat_format(dst_dtype);
    auto* codes = static_cast<std::uint8_t*>(dst);
    for (std::int64_t at = 0; at < n; at += kChunk) {
        const std::int64_t count = std::min(kChunk, n - at);
        stage_as_f32(src, src_dtype, at, count, staged.data());
        encode_f32(to, staged.data(), codes + at, count, cast_overflow(dst_dtype));
        if (dst_dtype == DType::e8m0) {
            const std::int64_t bad = first_without_e8m0_value(staged.data(), codes + at, count);
            if (bad >= 0) return at + bad;
        }
    }
    return -1;
}

}  // namespace tinyamp::kernels::cpu
