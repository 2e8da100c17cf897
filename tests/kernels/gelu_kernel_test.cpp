// GELU's kernels (kernels/cpu/gelu_kernel.h) and the erf and exp they use (erf_approx.h): the
// accuracy of erf_f32 and exp_nonpositive_f32 over a dense sweep against double-precision libm,
// in ulps of the f32 result; the special values; AVX2 and AVX-512 giving the same bits, the
// portable tier the reference's; the loops against the reference in double; f16 and bf16 as f32 rounded once; and
// the threads' split giving the one-thread bits.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/erf_approx.h"
#include "kernels/cpu/gelu_kernel.h"
#include "tinyamp/support/parallel.h"

namespace cpu = tinyamp::kernels::cpu;
using tinyamp::BFloat16;
using tinyamp::Half;

namespace {

// |got - want| in units of the spacing of f32 numbers at want (the ulp of the correctly rounded result).
double ulps(float got, double want)
{
    const float rounded = float(want);
    const double spacing = double(std::nextafter(std::fabs(rounded), std::numeric_limits<float>::infinity())) - std::fabs(double(rounded));
    return std::fabs(double(got) - want) / spacing;
}

// Every `stride`-th f32 bit pattern from +0 up to `limit`, and its negative.
template <class Fn>
void sweep(float limit, std::uint32_t stride, Fn fn)
{
    for (std::uint32_t bits = 0; bits <= std::bit_cast<std::uint32_t>(limit); bits += stride) {
        const float x = std::bit_cast<float>(bits);
        fn(x);
        fn(-x);
    }
}

std::vector<float> random_inputs(std::int64_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    std::vector<float> x(std::size_t(n), 0.0f);
    for (float& v : x) v = normal(rng);
    return x;
}

std::vector<cpu::GeluTier> tiers_here()
{
    const cpu::CpuFeatures f = cpu::detect_cpu_features();
    std::vector<cpu::GeluTier> tiers{cpu::GeluTier::portable};
    if (f.avx2 && f.fma) tiers.push_back(cpu::GeluTier::avx2_fma);
    if (f.avx512f && f.fma) tiers.push_back(cpu::GeluTier::avx512);
    return tiers;
}

}  // namespace

TEST_CASE("erf_f32: within 1.25 ulp of libm's erf in double, over every 64th f32 up to 5 (and the negatives)")
{
    double worst = 0;
    float worst_at = 0;
    sweep(5.0f, 64, [&](float x) {
        const double e = ulps(cpu::approx::erf_f32(x), std::erf(double(x)));
        if (e > worst) worst = e, worst_at = x;
    });
    MESSAGE("erf_f32: max error " << worst << " ulp, at x = " << worst_at);
    CHECK(worst <= 1.25);
    for (float x : {4.0f, 5.0f, 10.0f, 1e30f}) CHECK(cpu::approx::erf_f32(x) == 1.0f);
}

TEST_CASE("exp_nonpositive_f32: within 1.1 ulp of libm's exp in double on [-87, 0]")
{
    double worst = 0;
    float worst_at = 0;
    for (std::uint32_t bits = 0; bits <= std::bit_cast<std::uint32_t>(87.0f); bits += 64) {
        const float y = -std::bit_cast<float>(bits);
        const double e = ulps(cpu::approx::exp_nonpositive_f32(y), std::exp(double(y)));
        if (e > worst) worst = e, worst_at = y;
    }
    MESSAGE("exp_nonpositive_f32: max error " << worst << " ulp, at y = " << worst_at);
    CHECK(worst <= 1.1);
}

TEST_CASE("erf_f32 and exp_nonpositive_f32: signed zeros, infinities and NaN")
{
    using cpu::approx::erf_f32;
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    CHECK(std::bit_cast<std::uint32_t>(erf_f32(0.0f)) == std::bit_cast<std::uint32_t>(0.0f));
    CHECK(std::bit_cast<std::uint32_t>(erf_f32(-0.0f)) == std::bit_cast<std::uint32_t>(-0.0f));
    CHECK(erf_f32(inf) == 1.0f);
    CHECK(erf_f32(-inf) == -1.0f);
    CHECK(std::isnan(erf_f32(nan)));
    CHECK(cpu::approx::exp_nonpositive_f32(0.0f) == 1.0f);
    CHECK(std::isnan(cpu::approx::exp_nonpositive_f32(nan)));
    CHECK(cpu::approx::exp_nonpositive_f32(-inf) < 1e-37f);
}

TEST_CASE("gelu kernels: AVX2 and AVX-512 give the same bits, and the portable tier is the reference rounded once")
{
    const std::vector<float> x = random_inputs(1000 + 13, 1), dy = random_inputs(1000 + 13, 2);
    const auto n = std::int64_t(x.size());
    std::vector<float> y0(x.size()), dx0(x.size());
    cpu::gelu_forward_on(cpu::GeluTier::portable, x.data(), y0.data(), n);
    cpu::gelu_backward_on(cpu::GeluTier::portable, dy.data(), x.data(), dx0.data(), n);
    for (std::size_t i = 0; i < x.size(); ++i) {
        REQUIRE(y0[i] == float(cpu::reference::gelu(x[i])));
        REQUIRE(dx0[i] == float(cpu::reference::gelu_backward(dy[i], x[i])));
    }
    std::vector<std::vector<float>> forward, backward;
    for (cpu::GeluTier tier : tiers_here()) {
        if (tier == cpu::GeluTier::portable) continue;
        forward.emplace_back(x.size());
        backward.emplace_back(x.size());
        cpu::gelu_forward_on(tier, x.data(), forward.back().data(), n);
        cpu::gelu_backward_on(tier, dy.data(), x.data(), backward.back().data(), n);
    }
    MESSAGE("fast tiers on this CPU: " << forward.size());
    for (std::size_t t = 1; t < forward.size(); ++t)
        for (std::size_t i = 0; i < x.size(); ++i) {
            CAPTURE(x[i]);
            REQUIRE(std::bit_cast<std::uint32_t>(forward[t][i]) == std::bit_cast<std::uint32_t>(forward[0][i]));
            REQUIRE(std::bit_cast<std::uint32_t>(backward[t][i]) == std::bit_cast<std::uint32_t>(backward[0][i]));
        }
}

TEST_CASE("gelu kernels: forward and backward against the definitions in double")
{
    // Beside a few ulps of rounding, erf's own error (1.2 ulp of numbers near 1) reaches the result
    // through 1 + erf: up to about 1.2e-7 |x| for the forward, 1.2e-7 |dy| for the backward. For
    // x far below 0, where 1 + erf cancels, PyTorch's CPU kernel has the same loss.
    std::vector<float> x = random_inputs(20000, 3), dy = random_inputs(20000, 4);
    for (float special : {0.0f, -0.0f, 1e-30f, -1e-30f, 1.0f, -1.0f, 3.9f, -3.9f, 12.0f, -12.0f, 14.0f, -14.0f}) x.push_back(special);
    dy.resize(x.size(), 1.5f);
    std::vector<float> y(x.size()), dx(x.size());
    cpu::gelu_forward(x.data(), y.data(), std::int64_t(x.size()));
    cpu::gelu_backward(dy.data(), x.data(), dx.data(), std::int64_t(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) {
        CAPTURE(x[i]);
        CAPTURE(dy[i]);
        const double want = cpu::reference::gelu(x[i]), want_dx = cpu::reference::gelu_backward(dy[i], x[i]);
        CHECK(std::fabs(y[i] - want) <= 4 * std::fabs(want) * 0x1p-24 + 1.2e-7 * std::fabs(x[i]) + 1e-45);
        CHECK(std::fabs(dx[i] - want_dx) <= 4 * std::fabs(want_dx) * 0x1p-24 + 1.2e-7 * std::fabs(dy[i]) + 1e-45);
    }
    const float inf = std::numeric_limits<float>::infinity();
    float specials[] = {inf, -inf}, out[2], ones[] = {1.0f, 1.0f};
    cpu::gelu_forward(specials, out, 2);
    CHECK(out[0] == inf);
    CHECK(std::isnan(out[1]));  // -inf * 0, as the formula (and PyTorch) gives
    cpu::gelu_backward(ones, specials, out, 2);
    CHECK(std::isnan(out[0]));  // inf * phi(inf) = inf * 0, as PyTorch
    CHECK(std::isnan(out[1]));
    float nan_in = std::numeric_limits<float>::quiet_NaN(), one = 1.0f, nan_out;
    cpu::gelu_forward(&nan_in, &nan_out, 1);
    CHECK(std::isnan(nan_out));
    cpu::gelu_backward(&one, &nan_in, &nan_out, 1);
    CHECK(std::isnan(nan_out));
}

TEST_CASE("gelu kernels: f16 and bf16 are the f32 results rounded once, and two threads give one thread's bits")
{
    const std::vector<float> x32 = random_inputs(100000, 5), dy32 = random_inputs(100000, 6);
    const auto n = std::int64_t(x32.size());
    std::vector<Half> xh, dyh;
    std::vector<BFloat16> xb, dyb;
    for (std::size_t i = 0; i < x32.size(); ++i) {
        xh.emplace_back(x32[i]), dyh.emplace_back(dy32[i]);
        xb.emplace_back(x32[i]), dyb.emplace_back(dy32[i]);
    }
    std::vector<Half> yh(x32.size()), dxh(x32.size());
    std::vector<BFloat16> yb(x32.size()), dxb(x32.size());
    cpu::gelu_forward(xh.data(), yh.data(), n);
    cpu::gelu_backward(dyh.data(), xh.data(), dxh.data(), n);
    cpu::gelu_forward(xb.data(), yb.data(), n);
    cpu::gelu_backward(dyb.data(), xb.data(), dxb.data(), n);
    for (std::size_t i = 0; i < x32.size(); i += 97) {
        float xw = float(xh[i]), dyw = float(dyh[i]), y, dx;
        cpu::gelu_forward(&xw, &y, 1);
        cpu::gelu_backward(&dyw, &xw, &dx, 1);
        REQUIRE(yh[i].bits == Half(y).bits);
        REQUIRE(dxh[i].bits == Half(dx).bits);
        xw = float(xb[i]), dyw = float(dyb[i]);
        cpu::gelu_forward(&xw, &y, 1);
        cpu::gelu_backward(&dyw, &xw, &dx, 1);
        REQUIRE(yb[i].bits == BFloat16(y).bits);
        REQUIRE(dxb[i].bits == BFloat16(dx).bits);
    }
    const int threads = tinyamp::get_num_threads();
    std::vector<float> y2(x32.size()), y1(x32.size());
    tinyamp::set_num_threads(2);
    cpu::gelu_forward(x32.data(), y2.data(), n);
    tinyamp::set_num_threads(1);
    cpu::gelu_forward(x32.data(), y1.data(), n);
    tinyamp::set_num_threads(threads);
    CHECK(y1 == y2);
}
