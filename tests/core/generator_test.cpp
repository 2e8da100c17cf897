#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

namespace {

std::vector<std::uint64_t> draw_u64(Generator& g, int n)
{
    std::vector<std::uint64_t> out;
    for (int i = 0; i < n; ++i) out.push_back(g.next_u64());
    return out;
}

}  // namespace

TEST_CASE("Generator is mt19937_64, whose output the C++ standard fixes")
{
    // [rand.predef]: the 10000th output of a default-constructed mt19937_64 (seed 5489).
    Generator g(5489);
    CHECK(g.seed() == 5489);
    std::uint64_t last = 0;
    for (int i = 0; i < 10000; ++i) last = g.next_u64();
    CHECK(last == 9981545732273789042ull);
    CHECK(Generator().seed() == 0);
}

TEST_CASE("Generator: the same seed gives the same numbers, another seed other numbers")
{
    Generator a(42), b(42), c(43);
    const auto from_a = draw_u64(a, 8);
    CHECK(from_a == draw_u64(b, 8));
    CHECK(from_a != draw_u64(c, 8));
}

TEST_CASE("Generator::manual_seed restarts the sequence, including a pending normal")
{
    Generator g(7);
    const auto first = draw_u64(g, 5);
    g.manual_seed(7);
    CHECK(draw_u64(g, 5) == first);

    g.manual_seed(123);
    CHECK(g.seed() == 123);
    Generator fresh(123);
    CHECK(g.next_u64() == fresh.next_u64());

    // normal() makes two values per pair of uniforms and keeps the second: reseeding must drop it.
    Generator h(99);
    const double n0 = h.normal();
    const double n1 = h.normal();
    h.manual_seed(99);
    CHECK(h.normal() == n0);  // one call leaves the second value pending...
    h.manual_seed(99);
    CHECK(h.normal() == n0);  // ...and the reseed forgets it
    CHECK(h.normal() == n1);
}

TEST_CASE("Generator::uniform: 53 random bits, 0 <= u < 1")
{
    Generator g(3), raw(3);
    for (int i = 0; i < 1000; ++i) {
        const double u = g.uniform();
        CHECK(u == double(raw.next_u64() >> 11) * 0x1.0p-53);
        CHECK(u >= 0.0);
        CHECK(u < 1.0);
    }
}

TEST_CASE("Generator::normal: mean 0 and variance 1 over many draws, always finite")
{
    Generator g(2024);
    const int n = 20000;
    double sum = 0, sum_sq = 0;
    for (int i = 0; i < n; ++i) {
        const double x = g.normal();
        REQUIRE(std::isfinite(x));
        sum += x;
        sum_sq += x * x;
    }
    const double mean = sum / n;
    const double variance = sum_sq / n - mean * mean;
    CAPTURE(mean);
    CAPTURE(variance);
    CHECK(std::abs(mean) < 0.03);  // the standard error is 1/sqrt(20000) = 0.007
    CHECK(std::abs(variance - 1.0) < 0.05);
}

TEST_CASE("default_generator and tinyamp::manual_seed make default draws reproducible")
{
    manual_seed(1234);
    CHECK(default_generator().seed() == 1234);
    const std::vector<double> first = rand({6}).to_vector();
    const std::vector<double> first_normal = randn({5}, f64).to_vector();
    manual_seed(1234);
    CHECK(rand({6}).to_vector() == first);
    CHECK(randn({5}, f64).to_vector() == first_normal);

    // Without a reseed the default generator moves on.
    CHECK(rand({6}).to_vector() != first);

    // The default generator is one object, and draws from it equal draws from a generator with the same seed.
    CHECK(&default_generator() == &default_generator());
    manual_seed(5);
    Generator mine(5);
    CHECK(rand({4}, f64).to_vector() == rand({4}, f64, mine).to_vector());
}
