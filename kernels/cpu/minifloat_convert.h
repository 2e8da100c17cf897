#pragma once
// Bulk conversions between f32 and the FP8 / MX formats of tinyamp/values/minifloat.h (kernels/: raw
// memory, no Tensor). Codes are stored one per byte; an f4e2m1 code sits in the low nibble
// (fp4_packing.h packs two per byte, separately).
//
//   encode_f32:     dst[i] = minifloat::encode(f, src[i], overflow)
//   decode_f32:     dst[i] = float(minifloat::decode(f, src[i]))
//   quantize_f32:   dst[i] = minifloat::encode(f, src[i] * scale, overflow), the product rounded to
//                   f32 first (as Transformer Engine computes it), and counts of what was lost
//   dequantize_f32: dst[i] = float(minifloat::decode(f, src[i])) * scale_inv, one f32 rounding
//
// Each has a plain reference version (one element at a time through minifloat::encode/decode)
// and fast versions; every version gives the reference's bits (tests/kernels/
// minifloat_convert_test.cpp holds them equal over every special value, every rounding boundary
// and 10^7 random inputs, for each format and overflow mode).

#include <cstdint>

#include "tinyamp/values/minifloat.h"

namespace tinyamp::kernels::cpu {

// What quantize_f32 lost, counted over its n inputs (y = src[i] * scale, rounded to f32).
struct QuantizeCounts {
    std::int64_t saturated = 0;  // y is +-inf or rounds past the format's max (whatever the overflow mode)
    std::int64_t flushed = 0;    // y is finite and not zero, but its code is +-0
};

// The four conversions' signatures, written once: every path below declares the same four
// functions by these types (`EncodeF32 encode_f32;` declares
// `void encode_f32(const minifloat::Format& f, ...)`), and each path's .cpp defines them.
using EncodeF32 = void(const minifloat::Format& f, const float* src, std::uint8_t* dst, std::int64_t n, minifloat::Overflow overflow);
using DecodeF32 = void(const minifloat::Format& f, const std::uint8_t* src, float* dst, std::int64_t n);
using QuantizeF32 = QuantizeCounts(const minifloat::Format& f, const float* src, float scale, std::uint8_t* dst, std::int64_t n,
                                   minifloat::Overflow overflow);
using DequantizeF32 = void(const minifloat::Format& f, const std::uint8_t* src, float scale_inv, float* dst, std::int64_t n);

namespace reference {
EncodeF32 encode_f32;
DecodeF32 decode_f32;
QuantizeF32 quantize_f32;
DequantizeF32 dequantize_f32;
}  // namespace reference

// Portable fast paths: encode with branch-free bit arithmetic, one element at a time (the same
// steps as the AVX-512 version, lane by lane, so this is also its readable statement), and
// decode through a 256-entry f32 table per format.
namespace bits {
EncodeF32 encode_f32;
DecodeF32 decode_f32;
QuantizeF32 quantize_f32;
DequantizeF32 dequantize_f32;
}  // namespace bits

// 16 lanes at a time. Call only when cpu_features() (or detect_cpu_features()) reports avx512f.
namespace avx512 {
EncodeF32 encode_f32;
DecodeF32 decode_f32;
QuantizeF32 quantize_f32;
DequantizeF32 dequantize_f32;
}  // namespace avx512

// The best path for this CPU, chosen at run time.
EncodeF32 encode_f32;
DecodeF32 decode_f32;
QuantizeF32 quantize_f32;
DequantizeF32 dequantize_f32;

// The 256 values of format f's codes as f32 (byte b decodes as minifloat::decode(f, b), which for
// f4e2m1 reads the low nibble only). Built once per format; valid for the program's lifetime.
const float* decode_table(const minifloat::Format& f);

}  // namespace tinyamp::kernels::cpu
