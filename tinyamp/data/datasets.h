#pragma once
// Small real data sets for lessons and tests (digits, breast cancer), read from the project's
// data/ folder, and a seeded train/test split. Every loader reads the whole file before it
// returns: a bad file throws Error kind io naming the file, the line and what is wrong, and
// nothing half-loaded comes back.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tinyamp/core/generator.h"
#include "tinyamp/core/tensor.h"

namespace tinyamp::data {

/// `features` is [n, d] (f32 for the loaders here), `labels` is [n] of i64 class indices.
struct Dataset {
    Tensor features;
    Tensor labels;

    std::int64_t size() const { return labels.defined() ? labels.size(0) : 0; }  ///< number of samples
};

/// The 8x8 handwritten digits: features [1797, 64] f32 with pixels 0..16, labels 0..9.
/// `path` is a gzip CSV (as data/digits.csv.gz) or the same CSV uncompressed.
Dataset load_digits(const std::string& path);

/// Wisconsin diagnostic breast cancer: features [569, 30] f32, labels 0 (malignant) or 1
/// (benign). The file's first line is "569,30,malignant,benign": rows, features, class names.
Dataset load_breast_cancer(const std::string& path);

/// The path of `file` in the project's data/ folder: $TINYAMP_DATA_DIR when that environment
/// variable is set, else the source tree's data/ folder that the build was configured with.
std::string data_path(const std::string& file);

/// The samples at `indices`, in that order (copies; the result does not share storage).
Dataset subset(const Dataset& dataset, const std::vector<std::int64_t>& indices);

/// 0..n-1 in an order drawn from `generator` (Fisher-Yates; the same seed gives the same order).
std::vector<std::int64_t> shuffled_indices(std::int64_t n, Generator& generator);

/// Shuffles with `seed`, then puts ceil(n * test_fraction) samples in the test set (second)
/// and the rest in the training set (first), as scikit-learn's train_test_split does.
std::pair<Dataset, Dataset> train_test_split(const Dataset& dataset, double test_fraction, std::uint64_t seed);

}  // namespace tinyamp::data
