#include "tinyamp/data/synthetic.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "tinyamp/tensor/factories.h"

namespace tinyamp::data {
namespace {

void check_sizes(const char* what, std::int64_t n_per_class, std::int64_t classes, double noise)
{
    TINYAMP_CHECK(n_per_class > 0 && classes > 0, value, what, ": needs at least one class and one sample per class, got ",
                  classes, " classes of ", n_per_class);
    TINYAMP_CHECK(noise >= 0 && std::isfinite(noise), value, what, ": the noise (a standard deviation) must be >= 0, got ", noise);
}

// Features [n, d] and labels [n] from flat row-major values.
Dataset make_dataset(const std::vector<double>& features, std::int64_t d, const std::vector<double>& labels)
{
    const auto n = std::int64_t(labels.size());
    return {tensor(features, {n, d}, f32), tensor(labels, {n}, i64)};
}

}  // namespace

Dataset make_blobs(std::int64_t n_per_class, std::int64_t n_features, std::int64_t centers, double cluster_std, std::uint64_t seed)
{
    check_sizes("make_blobs", n_per_class, centers, cluster_std);
    TINYAMP_CHECK(n_features > 0, value, "make_blobs: n_features must be positive, got ", n_features);
    Generator gen(seed);
    std::vector<double> center(std::size_t(centers * n_features));
    for (double& c : center) c = -10.0 + 20.0 * gen.uniform();
    std::vector<double> x, y;
    for (std::int64_t k = 0; k < centers; ++k)
        for (std::int64_t i = 0; i < n_per_class; ++i) {
            for (std::int64_t f = 0; f < n_features; ++f) x.push_back(center[std::size_t(k * n_features + f)] + cluster_std * gen.normal());
            y.push_back(double(k));
        }
    return make_dataset(x, n_features, y);
}

Dataset make_moons(std::int64_t n_per_class, double noise, std::uint64_t seed)
{
    check_sizes("make_moons", n_per_class, 2, noise);
    Generator gen(seed);
    std::vector<double> x, y;
    for (int moon = 0; moon < 2; ++moon)
        for (std::int64_t i = 0; i < n_per_class; ++i) {
            // Evenly spaced angles over a half circle; the second moon is flipped and shifted.
            const double t = n_per_class == 1 ? 0.0 : std::numbers::pi * double(i) / double(n_per_class - 1);
            const double px = moon == 0 ? std::cos(t) : 1.0 - std::cos(t);
            const double py = moon == 0 ? std::sin(t) : 0.5 - std::sin(t);
            x.push_back(px + noise * gen.normal());
            x.push_back(py + noise * gen.normal());
            y.push_back(moon);
        }
    return make_dataset(x, 2, y);
}

Dataset make_spirals(std::int64_t n_per_class, std::int64_t classes, double noise, std::uint64_t seed)
{
    check_sizes("make_spirals", n_per_class, classes, noise);
    Generator gen(seed);
    std::vector<double> x, y;
    for (std::int64_t k = 0; k < classes; ++k)
        for (std::int64_t i = 0; i < n_per_class; ++i) {
            const double r = n_per_class == 1 ? 0.0 : double(i) / double(n_per_class - 1);
            // Each arm turns once around the origin over its length, offset by 2 pi / classes.
            const double angle = 2.0 * std::numbers::pi * (double(k) / double(classes) + r) + noise * gen.normal();
            x.push_back(r * std::sin(angle));
            x.push_back(r * std::cos(angle));
            y.push_back(double(k));
        }
    return make_dataset(x, 2, y);
}

}  // namespace tinyamp::data
