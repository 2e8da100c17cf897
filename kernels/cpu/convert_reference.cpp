// The reference conversions: one element at a time through Half / BFloat16, whose rounding is
// written out in tinyamp/core/float_format.h. Slow and obviously right; the fast paths are
// tested against these.
#include "kernels/cpu/convert.h"

namespace tinyamp::kernels::cpu::reference {

void f32_to_f16(const float* src, Half* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = Half(src[i]);
}

void f16_to_f32(const Half* src, float* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = float(src[i]);
}

void f32_to_bf16(const float* src, BFloat16* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = BFloat16(src[i]);
}

void bf16_to_f32(const BFloat16* src, float* dst, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) dst[i] = float(src[i]);
}

}  // namespace tinyamp::kernels::cpu::reference
