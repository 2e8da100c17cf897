// Lab 19: block scaling, by hand. Fill in each TODO; check with:  build/lessons/lab_19
#include "lessons/19_block_scaling/lab.h"

#include <algorithm>
#include <cmath>

#include "lessons/support/lab.h"

namespace tinyamp::lab19 {

namespace mf = minifloat;

std::vector<double> per_tensor_round_trip(const std::vector<double>& values, const mf::Format& format)
{
    // TODO(lab 19.1): amax = the largest |value| (as float); when it is 0 return the values as they
    // are. Otherwise scale = float(format.max / amax), and each value becomes
    // mf::decode(format, mf::encode(format, float(v) * scale, mf::Overflow::saturate)) / scale.
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
    // TODO(lab 19.2): for each block of 32 (begin = 0, 32, 64, ...; end = min(size, begin + 32)):
    // the block's amax (as float), code = amp::mx_block_scale(amax, element, mode), scale =
    // std::ldexp(1.0f, int(code) - 127); each value v becomes
    // mf::decode(element, mf::encode(element, float(v) / scale, mf::Overflow::saturate)) * scale.
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
    // TODO(lab 19.3): t = amp::nvfp4_tensor_scale(amax of all values); for each block of 16:
    // b = float(mf::decode(mf::f8e4m3fn, amp::nvfp4_block_scale(block amax, t))), total = t * b
    // (in f32, as torchao); each value becomes
    // mf::decode(mf::f4e2m1, mf::encode(mf::f4e2m1, float(v) / total, mf::Overflow::saturate)) * total.
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
