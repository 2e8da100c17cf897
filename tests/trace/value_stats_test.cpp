// compute_stats and describe: how a tensor's values sit against f16 and bf16, checked on values
// at the exact rounding boundaries of each format.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>
#include <tinyamp/trace/trace.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using trace::compute_stats;
using trace::ValueStats;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ValueStats stats_of(std::initializer_list<double> values, DType dtype = f64) { return compute_stats(tensor(values, dtype)); }

}  // namespace

TEST_CASE("compute_stats of an empty or undefined tensor is all zeros")
{
    for (const Tensor& t : {zeros({0}), Tensor()}) {
        const ValueStats s = compute_stats(t);
        CHECK(s.min_abs == 0);
        CHECK(s.max_abs == 0);
        CHECK(s.zeros == 0);
        CHECK(s.nans == 0);
        CHECK(s.f16_underflow == 0);
        CHECK(s.bf16_overflow == 0);
    }
}

TEST_CASE("compute_stats: shares of zeros, infs and NaNs over all elements, range over finite values")
{
    const ValueStats s = stats_of({0.0, 1e-8, 70000.0, kInf, kNaN, -2.0});
    CHECK(s.zeros == 1.0 / 6);
    CHECK(s.infs == 1.0 / 6);
    CHECK(s.nans == 1.0 / 6);
    CHECK(s.min_abs == 1e-8);     // zeros do not count
    CHECK(s.max_abs == 70000.0);  // inf does not count
    // Underflow is a share of the 3 finite non-zero values, overflow of the 4 finite ones.
    CHECK(s.f16_underflow == 1.0 / 3);  // 1e-8
    CHECK(s.f16_overflow == 1.0 / 4);   // 70000
    CHECK(s.bf16_underflow == 0);
    CHECK(s.bf16_overflow == 0);
}

TEST_CASE("compute_stats: f16 overflow starts exactly where rounding reaches inf")
{
    // 65504 is f16's largest value; 65520 is halfway to the next step (65536, out of range), and a
    // tie rounds to the even neighbour, which is inf. Just below the tie rounds down to 65504.
    CHECK(stats_of({65504.0}).f16_overflow == 0);
    CHECK(stats_of({65519.99}).f16_overflow == 0);
    CHECK(stats_of({65520.0}).f16_overflow == 1);
    CHECK(stats_of({-65520.0}).f16_overflow == 1);
    CHECK(stats_of({70000.0}).f16_overflow == 1);
    CHECK(stats_of({70000.0}).bf16_overflow == 0);  // bf16 has f32's range
}

TEST_CASE("compute_stats: f16 underflow below half the smallest subnormal, bf16's far lower")
{
    const double half_min_subnormal = std::ldexp(1.0, -25);  // f16's smallest subnormal is 2^-24
    CHECK(stats_of({1e-8}).f16_underflow == 1);
    CHECK(stats_of({1e-8}).bf16_underflow == 0);
    CHECK(stats_of({half_min_subnormal}).f16_underflow == 1);  // a tie: rounds to even, which is 0
    CHECK(stats_of({std::nextafter(half_min_subnormal, 1.0)}).f16_underflow == 0);
    CHECK(stats_of({std::ldexp(1.0, -24)}).f16_underflow == 0);
    CHECK(stats_of({1e-41}).bf16_underflow == 1);  // below bf16's smallest subnormal 2^-133 / 2
}

TEST_CASE("compute_stats: bf16 overflow near the top of f32's range")
{
    // bf16 keeps 8 significant bits, so f32's largest value rounds up to inf in bf16.
    CHECK(stats_of({3.4e38}, f32).bf16_overflow == 1);
    CHECK(stats_of({3.38e38}, f32).bf16_overflow == 0);
}

TEST_CASE("compute_stats reads every dtype's values exactly")
{
    const ValueStats ints = stats_of({70000.0, 0.0, 3.0}, i64);
    CHECK(ints.max_abs == 70000);
    CHECK(ints.min_abs == 3);
    CHECK(ints.f16_overflow == 1.0 / 3);
    const ValueStats halves = stats_of({65504.0, -0.5}, f16);
    CHECK(halves.max_abs == 65504);
    CHECK(halves.min_abs == 0.5);
    CHECK(halves.f16_overflow == 0);
    const ValueStats flags = stats_of({1.0, 0.0, 0.0, 1.0}, boolean);
    CHECK(flags.zeros == 0.5);
}

TEST_CASE("compute_stats: the log2|x| histogram counts finite non-zero values by binade, from the lowest to the highest")
{
    // floor(log2|x|): 1 and 1.5 -> 0, 3 and -2 -> 1, 0.25 -> -2; 0, inf and NaN are left out.
    const trace::Log2Histogram h = stats_of({1.0, 1.5, 3.0, 0.25, 0.0, kInf, -2.0, kNaN}).log2_abs;
    CHECK(h.lowest_exponent == -2);
    CHECK(h.counts == std::vector<std::int64_t>{1, 0, 2, 2});  // binades -2, -1 (empty), 0, 1

    // Just below a power of two stays in the binade under it.
    const trace::Log2Histogram edge = stats_of({std::nextafter(4.0, 0.0), 4.0}).log2_abs;
    CHECK(edge.lowest_exponent == 1);
    CHECK(edge.counts == std::vector<std::int64_t>{1, 1});
}

TEST_CASE("compute_stats: the histogram is empty when no value is finite and non-zero")
{
    for (const Tensor& t : {tensor({0.0, kInf, -kInf, kNaN}), zeros({0}), Tensor()}) {
        const trace::Log2Histogram h = compute_stats(t).log2_abs;
        CHECK(h.counts.empty());
        CHECK(h.lowest_exponent == 0);
    }
}

TEST_CASE("compute_stats: subnormals land in their own binades, exactly, in f32 and f64")
{
    // f32: 2^-149 is the smallest subnormal, 2^-127 a subnormal, 2^-126 the smallest normal.
    const trace::Log2Histogram f = stats_of({std::ldexp(1.0, -149), std::ldexp(1.0, -127), std::ldexp(1.0, -126)}, f32).log2_abs;
    CHECK(f.lowest_exponent == -149);
    REQUIRE(f.counts.size() == 24);
    CHECK(f.counts.front() == 1);
    CHECK(f.counts[22] == 1);
    CHECK(f.counts[23] == 1);
    // f64: the smallest subnormal and 3 times it (binade -1073), and the largest double.
    const double tiny = std::numeric_limits<double>::denorm_min();
    const trace::Log2Histogram d = stats_of({tiny, 3 * tiny, -tiny}).log2_abs;
    CHECK(d.lowest_exponent == trace::Log2Histogram::kSmallestExponent);
    CHECK(d.counts == std::vector<std::int64_t>{2, 1});
    const trace::Log2Histogram top = stats_of({std::numeric_limits<double>::max()}).log2_abs;
    CHECK(top.lowest_exponent == trace::Log2Histogram::kLargestExponent);
    CHECK(top.counts == std::vector<std::int64_t>{1});
    // f16's smallest subnormal, read from an f16 tensor.
    CHECK(stats_of({std::ldexp(1.0, -24)}, f16).log2_abs.lowest_exponent == -24);
}

TEST_CASE("compute_stats: the histogram holds every finite non-zero value of a large tensor")
{
    Generator gen(5);
    const Tensor t = randn({1000}, f32, gen);
    const trace::Log2Histogram h = compute_stats(t).log2_abs;
    std::int64_t total = 0;
    for (const std::int64_t n : h.counts) total += n;
    CHECK(total == 1000);  // randn gives no exact zeros
    REQUIRE_FALSE(h.counts.empty());
    CHECK(h.counts.front() > 0);
    CHECK(h.counts.back() > 0);
    CHECK(h.lowest_exponent + int(h.counts.size()) - 1 == std::ilogb(compute_stats(t).max_abs));
}

TEST_CASE("describe copies what the trace needs from a tensor, with stats only when asked")
{
    const Tensor w = ones({2, 3});
    w.requires_grad_().set_name("w1");
    const trace::TensorInfo leaf = trace::describe(w, false);
    CHECK(leaf.id == w.id());
    CHECK(leaf.dtype == f32);
    CHECK(leaf.shape == Shape{2, 3});
    CHECK(leaf.name == "w1");
    CHECK(leaf.is_leaf);
    CHECK(leaf.requires_grad);
    CHECK_FALSE(leaf.has_stats);
    CHECK(leaf.stats.max_abs == 0);

    const Tensor y = mul(w, 2.0);
    const trace::TensorInfo made = trace::describe(y, true);
    CHECK(made.id == y.id());
    CHECK(made.id != leaf.id);
    CHECK(made.name.empty());
    CHECK_FALSE(made.is_leaf);
    CHECK(made.requires_grad);
    CHECK(made.has_stats);
    CHECK(made.stats.max_abs == 2);
    CHECK(made.stats.min_abs == 2);
}

TEST_CASE("describe refuses an undefined tensor")
{
    const std::string message = test::error_message([] { trace::describe(Tensor(), false); }, ErrorKind::state);
    CHECK(message.find("undefined") != std::string::npos);
}
