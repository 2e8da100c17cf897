// The portable fast minifloat conversions (branch-free bit arithmetic for encode, a table for
// decode), the decode tables, and the choice of path for this CPU.
#include <array>
#include <cstring>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/minifloat_convert.h"
#include "kernels/cpu/minifloat_encode_steps.h"
#include "tinyamp/support/error.h"
#include "tinyamp/values/bit_cast.h"

namespace tinyamp::kernels::cpu {

namespace {

using minifloat_steps::EncodeConstants;

std::array<float, 256> make_decode_table(const minifloat::Format& f)
{
    std::array<float, 256> table{};
    for (int code = 0; code < 256; ++code) table[std::size_t(code)] = float(minifloat::decode(f, std::uint8_t(code)));
    return table;
}

// One element, with the steps of minifloat_encode_steps.h. `saturated` / `flushed` say what
// quantize_f32 counts.
struct Encoded {
    std::uint8_t code;
    bool saturated;
    bool flushed;
};

Encoded encode_signed(const EncodeConstants& c, float x)
{
    const std::uint32_t bits = tinyamp::bit_cast<std::uint32_t>(x);
    const std::uint32_t a = bits & 0x7FFFFFFF;
    const bool negative = bits >> 31;
    const std::uint32_t magnitude = minifloat_steps::rounded_magnitude(c, a);
    const bool nan = a > 0x7F800000;
    const bool overflow = !nan && magnitude > c.max_code;
    std::uint32_t code = (negative ? std::uint32_t{1} << (31 - c.sign_shift) : 0) | magnitude;
    if (overflow) code = negative ? c.overflow_negative : c.overflow_positive;
    if (nan) code = negative ? c.nan_negative : c.nan_positive;
    return {std::uint8_t(code), overflow, a != 0 && a < 0x7F800000 && magnitude == 0};
}

Encoded encode_e8m0(const EncodeConstants& c, float x)
{
    const std::uint32_t bits = tinyamp::bit_cast<std::uint32_t>(x);
    const std::uint32_t a = bits & 0x7FFFFFFF;
    const std::uint32_t rounded = minifloat_steps::e8m0_rounded_code(a);
    const bool nan = a > 0x7F800000;
    const bool overflow = !nan && (a == 0x7F800000 || rounded > c.max_code);  // of |x|, as counted
    std::uint32_t code = rounded;
    if (overflow) code = c.overflow_positive;
    if (nan || a == 0 || (bits >> 31) != 0) code = 0xFF;  // NaN, zero, negative: no E8M0 value
    return {std::uint8_t(code), overflow, false};         // E8M0 has no zero to flush to
}

template <Encoded (*encode_one)(const EncodeConstants&, float)>
QuantizeCounts encode_loop(const EncodeConstants& c, const float* src, float scale, std::uint8_t* dst, std::int64_t n)
{
    QuantizeCounts counts;
    for (std::int64_t i = 0; i < n; ++i) {
        const Encoded e = encode_one(c, src[i] * scale);
        dst[i] = e.code;
        counts.saturated += e.saturated;
        counts.flushed += e.flushed;
    }
    return counts;
}

QuantizeCounts encode_scaled(const minifloat::Format& f, const float* src, float scale, std::uint8_t* dst, std::int64_t n,
                             minifloat::Overflow overflow)
{
    const EncodeConstants c = minifloat_steps::encode_constants(f, overflow);
    if (f.specials == minifloat::Specials::fnu) return encode_loop<encode_e8m0>(c, src, scale, dst, n);
    return encode_loop<encode_signed>(c, src, scale, dst, n);
}

}  // namespace

const float* decode_table(const minifloat::Format& f)
{
    static const std::array<std::array<float, 256>, 4> tables = {
        make_decode_table(*minifloat::kFormats[0]), make_decode_table(*minifloat::kFormats[1]),
        make_decode_table(*minifloat::kFormats[2]), make_decode_table(*minifloat::kFormats[3])};
    for (std::size_t i = 0; i < minifloat::kFormats.size(); ++i)
        if (&f == minifloat::kFormats[i] || std::strcmp(f.name, minifloat::kFormats[i]->name) == 0) return tables[i].data();
    TINYAMP_FAIL(value, "minifloat format '", f.name, "' is not one of f8e4m3fn, f8e5m2, e8m0, f4e2m1 (minifloat::kFormats)");
}

namespace bits {

void encode_f32(const minifloat::Format& f, const float* src, std::uint8_t* dst, std::int64_t n, minifloat::Overflow overflow)
{
    encode_scaled(f, src, 1.0f, dst, n, overflow);  // x * 1.0f is x (a NaN may be quieted: same code)
}

void decode_f32(const minifloat::Format& f, const std::uint8_t* src, float* dst, std::int64_t n)
{
    const float* table = decode_table(f);
    for (std::int64_t i = 0; i < n; ++i) dst[i] = table[src[i]];
}

QuantizeCounts quantize_f32(const minifloat::Format& f, const float* src, float scale, std::uint8_t* dst, std::int64_t n,
                            minifloat::Overflow overflow)
{
    return encode_scaled(f, src, scale, dst, n, overflow);
}

void dequantize_f32(const minifloat::Format& f, const std::uint8_t* src, float scale_inv, float* dst, std::int64_t n)
{
    const float* table = decode_table(f);
    for (std::int64_t i = 0; i < n; ++i) dst[i] = table[src[i]] * scale_inv;
}

}  // namespace bits

void encode_f32(const minifloat::Format& f, const float* src, std::uint8_t* dst, std::int64_t n, minifloat::Overflow overflow)
{
    if (cpu_features().avx512f) return avx512::encode_f32(f, src, dst, n, overflow);
    bits::encode_f32(f, src, dst, n, overflow);
}

void decode_f32(const minifloat::Format& f, const std::uint8_t* src, float* dst, std::int64_t n)
{
    if (cpu_features().avx512f) return avx512::decode_f32(f, src, dst, n);
    bits::decode_f32(f, src, dst, n);
}

QuantizeCounts quantize_f32(const minifloat::Format& f, const float* src, float scale, std::uint8_t* dst, std::int64_t n,
                            minifloat::Overflow overflow)
{
    if (cpu_features().avx512f) return avx512::quantize_f32(f, src, scale, dst, n, overflow);
    return bits::quantize_f32(f, src, scale, dst, n, overflow);
}

void dequantize_f32(const minifloat::Format& f, const std::uint8_t* src, float scale_inv, float* dst, std::int64_t n)
{
    if (cpu_features().avx512f) return avx512::dequantize_f32(f, src, scale_inv, dst, n);
    bits::dequantize_f32(f, src, scale_inv, dst, n);
}

}  // namespace tinyamp::kernels::cpu
