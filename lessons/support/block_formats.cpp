#include "lessons/support/block_formats.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lesson {

std::vector<double> nvfp4_round_trip(const std::vector<double>& values)
{
    namespace mf = minifloat;
    constexpr std::size_t kBlock = 16;
    float tensor_amax = 0;
    for (double v : values) tensor_amax = std::max(tensor_amax, std::abs(float(v)));
    const float tensor_scale = amp::nvfp4_tensor_scale(tensor_amax);
    std::vector<double> out(values.size());
    for (std::size_t begin = 0; begin < values.size(); begin += kBlock) {
        const std::size_t end = std::min(values.size(), begin + kBlock);
        float block_amax = 0;
        for (std::size_t i = begin; i < end; ++i) block_amax = std::max(block_amax, std::abs(float(values[i])));
        const float total = tensor_scale * float(mf::decode(mf::f8e4m3fn, amp::nvfp4_block_scale(block_amax, tensor_scale)));
        for (std::size_t i = begin; i < end; ++i)
            out[i] = mf::decode(mf::f4e2m1, mf::encode(mf::f4e2m1, float(values[i]) / total, mf::Overflow::saturate)) * double(total);
    }
    return out;
}

}  // namespace tinyamp::lesson
