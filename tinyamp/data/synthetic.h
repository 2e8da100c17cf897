#pragma once
// Synthetic classification data sets, generated from a seed: small, instant, and shaped so a
// lesson can show a decision boundary. Features are f32, labels i64 class indices, and the
// samples come class by class (shuffle with a DataLoader or train_test_split).

#include <cstdint>

#include "tinyamp/data/datasets.h"

namespace tinyamp::data {

/// `centers` Gaussian clusters in `n_features` dimensions, `n_per_class` samples each. Cluster
/// centers are uniform in [-10, 10] per feature; each sample is its center plus N(0, cluster_std).
Dataset make_blobs(std::int64_t n_per_class, std::int64_t n_features, std::int64_t centers, double cluster_std, std::uint64_t seed);

/// Two interleaving half circles in 2-D (scikit-learn's make_moons): n_per_class per moon,
/// plus N(0, noise) on each coordinate. Not linearly separable: a linear model stays near 85 %.
Dataset make_moons(std::int64_t n_per_class, double noise, std::uint64_t seed);

/// `classes` spiral arms in 2-D (the CS231n spiral), n_per_class points per arm, radius 0..1 and
/// N(0, noise) added to the angle. A classic that needs a hidden layer.
Dataset make_spirals(std::int64_t n_per_class, std::int64_t classes, double noise, std::uint64_t seed);

}  // namespace tinyamp::data
