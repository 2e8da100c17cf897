#pragma once
// f32 inputs that exercise conversions where they break: special values, every boundary of the
// f16 and bf16 grids (each value, each halfway point between neighbours, and one f32 step either
// side of it), and seeded random bit patterns.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "tinyamp/values/float_format.h"

namespace tinyamp::test {

inline float f32_from_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }

inline std::vector<float> special_floats()
{
    using L = std::numeric_limits<float>;
    std::vector<float> v = {0.0f, 1.0f, 2.0f, 0.5f, L::infinity(), L::min(), L::denorm_min(), L::max(),
                            f32_from_bits(0x007fffff),  // largest f32 subnormal
                            f32_from_bits(0x7fc00000),  // quiet NaN
                            f32_from_bits(0x7f800001),  // signaling NaN, smallest payload
                            f32_from_bits(0x7fa00000),  // signaling NaN, payload in f16/bf16 range
                            f32_from_bits(0x7fffffff),  // NaN, all payload bits
                            f32_from_bits(0x7f800fff),  // signaling NaN whose payload f16 drops
                            65504.0f, 65519.996f, 65520.0f, 65536.0f,  // the f16 overflow edge
                            0x1p-14f, 0x1p-24f, 0x1p-25f, 0x1.000002p-25f, 0x1.8p-25f, 0x1p-26f,  // f16 underflow edge
                            0x1p-126f, 0x1p-133f, 0x1p-134f, 0x1.8p-134f,  // bf16's subnormal edge (f32 subnormals)
                            3.3895314e38f, 3.3961e38f, 3.3961775e38f};     // bf16's overflow edge
    const std::size_t n = v.size();
    for (std::size_t i = 0; i < n; ++i) v.push_back(-v[i]);
    return v;
}

/// Every finite value of a 16-bit format F as float, each halfway point between neighbours, and
/// the f32 values just below and above each halfway point. Both signs.
template <class F>
std::vector<float> grid_boundaries()
{
    std::vector<float> v;
    const std::uint32_t max_bits = std::uint32_t(F::exponent_mask - 1);  // the largest finite value
    for (std::uint32_t bits = 0; bits <= max_bits; ++bits) {
        const double a = F::to_double(bits);
        // The next value up; above the largest finite value, the grid step stays the same.
        const double b = bits < max_bits ? F::to_double(bits + 1) : a + (a - F::to_double(bits - 1));
        const float mid = float((a + b) / 2);  // exact: one more bit than F has
        for (float x : {float(a), mid, std::nextafter(mid, 0.0f), std::nextafter(mid, std::numeric_limits<float>::infinity())}) {
            v.push_back(x);
            v.push_back(-x);
        }
    }
    return v;
}

inline std::vector<std::uint32_t> random_bit_patterns(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<std::uint32_t> v(n);
    for (auto& x : v) x = std::uint32_t(rng());
    return v;
}

inline bool is_f32_subnormal(float x)
{
    const std::uint32_t magnitude = std::bit_cast<std::uint32_t>(x) & 0x7fffffffu;
    return magnitude != 0 && magnitude < 0x00800000u;
}

}  // namespace tinyamp::test
