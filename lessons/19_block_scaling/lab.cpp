// Lab 19: block scaling, by hand. Fill in each TODO; check with:  scripts/lab check 19
// Stuck? scripts/lab hint 19.1 gives a hint, a stronger one each time you ask.
#include "lessons/19_block_scaling/lab.h"

#include <algorithm>
#include <cmath>

#include "lessons/support/lab.h"

namespace tinyamp::lab19 {

namespace mf = minifloat;

std::vector<double> per_tensor_round_trip(const std::vector<double>& values, const mf::Format& format)
{
    // TODO(lab 19.1): return the values as one per-tensor scaled cast to `format` keeps them: one
    // f32 scale that puts the largest |value| on the format's max, each value cast with it
    // (saturating) and the scale divided out again (lab.h); all zeros come back as they are.
    // Example: {200, 1, 0.5, -3} in E2M1 gives {200, 0, 0, 0}: scaled by 0.03, the rest flush.
    // BEGIN SOLUTION
    float amax = 0;
    for (double v : values) amax = std::max(amax, std::abs(float(v)));
    if (amax == 0) return values;
    const float scale = float(format.max / amax);
    std::vector<double> out;
    for (double v : values) out.push_back(mf::decode(format, mf::encode(format, float(v) * scale, mf::Overflow::saturate)) / scale);
    return out;
    // END SOLUTION
}

std::vector<double> mx_round_trip(const std::vector<double>& values, const mf::Format& element, amp::ScaleCalculationMode mode)
{
    // TODO(lab 19.2): return the values as an MX cast keeps them: each block of 32 consecutive
    // values (the last may be shorter) has its own power-of-two E8M0 scale from its amax, by
    // `mode`; its values are divided by it, cast to `element` (saturating) and multiplied back
    // (lab.h). Example: in E2M1 with FLOOR, a block {6, 0.2, 1.3, 0.5, ...} (scale 1) gives
    // {6, 0, 1.5, 0.5, ...}, and a block whose amax is 7 (scale 1 too) saturates 7 to 6.
    // BEGIN SOLUTION
    std::vector<double> out(values.size());
    for (std::size_t begin = 0; begin < values.size(); begin += 32) {
        const std::size_t end = std::min(values.size(), begin + 32);
        float amax = 0;
        for (std::size_t i = begin; i < end; ++i) amax = std::max(amax, std::abs(float(values[i])));
        const float scale = std::ldexp(1.0f, int(amp::mx_block_scale(amax, element, mode)) - 127);
        for (std::size_t i = begin; i < end; ++i)
            out[i] = mf::decode(element, mf::encode(element, float(values[i]) / scale, mf::Overflow::saturate)) * double(scale);
    }
    return out;
    // END SOLUTION
}

std::vector<double> nvfp4_round_trip(const std::vector<double>& values)
{
    // TODO(lab 19.3): return the values as an NVFP4 cast keeps them: one f32 scale for the tensor
    // times one E4M3 scale per block of 16, the values divided by the product, cast to E2M1
    // (saturating at 6) and multiplied back (lab.h). Example: 16 ones after a block whose amax is
    // 6 come back as 27/28 each: the ones' E4M3 block scale 74.67 rounds to 72.
    // BEGIN SOLUTION
    float tensor_amax = 0;
    for (double v : values) tensor_amax = std::max(tensor_amax, std::abs(float(v)));
    const float t = amp::nvfp4_tensor_scale(tensor_amax);
    std::vector<double> out(values.size());
    for (std::size_t begin = 0; begin < values.size(); begin += 16) {
        const std::size_t end = std::min(values.size(), begin + 16);
        float amax = 0;
        for (std::size_t i = begin; i < end; ++i) amax = std::max(amax, std::abs(float(values[i])));
        const float total = t * float(mf::decode(mf::f8e4m3fn, amp::nvfp4_block_scale(amax, t)));
        for (std::size_t i = begin; i < end; ++i)
            out[i] = mf::decode(mf::f4e2m1, mf::encode(mf::f4e2m1, float(values[i]) / total, mf::Overflow::saturate)) * double(total);
    }
    return out;
    // END SOLUTION
}

}  // namespace tinyamp::lab19
