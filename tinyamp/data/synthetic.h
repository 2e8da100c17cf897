#pragma once
/// \file
/// Synthetic classification data sets, generated from a seed.
///
/// They are small, instant, and shaped so a lesson can show a decision boundary. Features are
/// f32, labels i64 class indices, and the samples come class by class (shuffle with a
/// DataLoader or train_test_split). Each generator draws from its own Generator(seed), not from
/// default_generator(). A class count or per-class count that is not positive, or a noise
/// (standard deviation) that is negative or not finite, is an Error(value).

#include <cstdint>

#include "tinyamp/data/datasets.h"

namespace tinyamp::data {

/// `centers` Gaussian clusters in `n_features` dimensions, `n_per_class` samples each. Cluster
/// centers are uniform in [-10, 10] per feature; each sample is its center plus N(0, cluster_std).
/// Like scikit-learn's make_blobs, unshuffled; labels 0..centers-1. Error(value) also for an
/// n_features that is not positive.
Dataset make_blobs(std::int64_t n_per_class, std::int64_t n_features, std::int64_t centers, double cluster_std, std::uint64_t seed);

/// Two interleaving half circles in 2-D (scikit-learn's make_moons): n_per_class per moon,
/// plus N(0, noise) on each coordinate; labels 0 and 1. Not linearly separable: a linear model
/// stays near 85 %.
Dataset make_moons(std::int64_t n_per_class, double noise, std::uint64_t seed);

/// `classes` spiral arms in 2-D (the CS231n spiral), n_per_class points per arm, radius 0..1 and
/// N(0, noise) added to the angle. A classic that needs a hidden layer. Labels 0..classes-1.
Dataset make_spirals(std::int64_t n_per_class, std::int64_t classes, double noise, std::uint64_t seed);

}  // namespace tinyamp::data
