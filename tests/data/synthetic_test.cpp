// Synthetic data sets: shapes, labels, seeding, and the geometry each promises.
#include <doctest/doctest.h>

#include <cmath>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;

namespace {

// Mean of feature f over the samples of class k.
double class_mean(const data::Dataset& d, std::int64_t k, std::int64_t f)
{
    double total = 0;
    std::int64_t count = 0;
    for (std::int64_t i = 0; i < d.size(); ++i)
        if (std::int64_t(d.labels.at({i})) == k) {
            total += d.features.at({i, f});
            ++count;
        }
    return total / double(count);
}

}  // namespace

TEST_CASE("make_blobs: shapes, labels class by class, tight clusters, and the same seed gives the same data")
{
    const data::Dataset d = data::make_blobs(50, 3, 4, 0.5, 7);
    CHECK(d.features.shape() == Shape{200, 3});
    CHECK(d.features.dtype() == f32);
    CHECK(d.labels.dtype() == i64);
    CHECK(d.labels.at({0}) == 0);
    CHECK(d.labels.at({199}) == 3);
    // Each sample lies within 5 standard deviations of its class mean.
    for (std::int64_t i = 0; i < d.size(); ++i)
        for (std::int64_t f = 0; f < 3; ++f)
            CHECK(std::abs(d.features.at({i, f}) - class_mean(d, std::int64_t(d.labels.at({i})), f)) < 5 * 0.5);
    CHECK(data::make_blobs(50, 3, 4, 0.5, 7).features.to_vector() == d.features.to_vector());
    CHECK(data::make_blobs(50, 3, 4, 0.5, 8).features.to_vector() != d.features.to_vector());
}

TEST_CASE("make_moons: without noise the points lie on the two unit half circles")
{
    const data::Dataset d = data::make_moons(20, 0.0, 0);
    REQUIRE(d.features.shape() == Shape{40, 2});
    for (std::int64_t i = 0; i < 40; ++i) {
        const double x = d.features.at({i, 0}), y = d.features.at({i, 1});
        const bool upper = d.labels.at({i}) == 0;
        const double cx = upper ? 0.0 : 1.0, cy = upper ? 0.0 : 0.5;
        CHECK(std::hypot(x - cx, y - cy) == doctest::Approx(1.0).epsilon(1e-6));
        CHECK((upper ? y >= -1e-6 : y <= 0.5 + 1e-6));
    }
    CHECK(data::make_moons(20, 0.1, 3).features.to_vector() != d.features.to_vector());
}

TEST_CASE("make_spirals: k arms with radius 0 to 1 and balanced classes")
{
    const data::Dataset d = data::make_spirals(100, 3, 0.05, 1);
    REQUIRE(d.features.shape() == Shape{300, 2});
    for (std::int64_t i = 0; i < 300; ++i) {
        const double r = std::hypot(d.features.at({i, 0}), d.features.at({i, 1}));
        CHECK(r == doctest::Approx(double(i % 100) / 99.0).epsilon(1e-5));
        CHECK(d.labels.at({i}) == double(i / 100));
    }
}

TEST_CASE("synthetic data sets refuse sizes and noise that make no sense")
{
    CHECK(test::error_message([] { data::make_blobs(0, 2, 3, 1.0, 0); }, ErrorKind::value).find("one sample per class") != std::string::npos);
    CHECK(test::error_message([] { data::make_moons(10, -1.0, 0); }, ErrorKind::value).find("noise") != std::string::npos);
    CHECK(test::error_message([] { data::make_spirals(10, 0, 0.1, 0); }, ErrorKind::value).find("at least one class") != std::string::npos);
    CHECK(test::error_message([] { data::make_blobs(5, 0, 3, 1.0, 0); }, ErrorKind::value).find("n_features") != std::string::npos);
}
