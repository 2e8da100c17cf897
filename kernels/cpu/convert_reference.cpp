// The reference conversions: one element at a time through the general rounding written out in
// tinyamp/values/float_format.h (via double, which is exact for f32). Slow and obviously right; the
// fast paths, and the bit-level scalar conversions Half and BFloat16 use (half_bits.h), are
// tested against these.
#include "kernels/cpu/convert.h"

namespace tinyamp::kernels::cpu::reference {

void f32_to_f16(const float* src, Half* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = Half::from_bits(std::uint16_t(Binary16::from_double(src[i])));
}

void f16_to_f32(const Half* src, float* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = float(Binary16::to_double(src[i].bits));
}

void f32_to_bf16(const float* src, BFloat16* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = BFloat16::from_bits(std::uint16_t(BFloat16Format::from_double(src[i])));
}

void bf16_to_f32(const BFloat16* src, float* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = float(BFloat16Format::to_double(src[i].bits));
}

}  // namespace tinyamp::kernels::cpu::reference
