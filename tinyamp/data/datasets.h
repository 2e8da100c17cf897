#pragma once
/// \file
/// Small real data sets for lessons and tests (digits, breast cancer), and a seeded train/test split.
///
/// The data sets are read from the project's data/ folder. Every loader reads the whole file
/// before it returns: a bad file throws Error kind io naming the file, the line and what is
/// wrong, and nothing half-loaded comes back.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tinyamp/support/generator.h"
#include "tinyamp/tensor/tensor.h"

namespace tinyamp::data {

/// A data set in memory: `features` is [n, d] (f32 for the loaders here), `labels` is [n] of
/// i64 class indices. Copying a Dataset copies the tensor handles, not the data.
struct Dataset {
    Tensor features;  ///< [n, d]: one row per sample
    Tensor labels;    ///< [n] i64: the class of each sample

    std::int64_t size() const { return labels.defined() ? labels.size(0) : 0; }  ///< number of samples
};

/// The 8x8 handwritten digits: features [1797, 64] f32 with pixels 0..16, labels 0..9.
/// `path` is a gzip CSV (as data/digits.csv.gz) or the same CSV uncompressed: 1797 rows of 64
/// numbers and a label. Error(io) for a missing, damaged or differently shaped file.
Dataset load_digits(const std::string& path);

/// Wisconsin diagnostic breast cancer: features [569, 30] f32, labels 0 (malignant) or 1
/// (benign). The file's first line is "569,30,malignant,benign": rows, features, class names.
/// Plain or gzip CSV, as load_digits; Error(io) for a bad file.
Dataset load_breast_cancer(const std::string& path);

/// The path of `file` in tinyamp's data/ folder: $TINYAMP_DATA_DIR when that environment
/// variable is set; else the source tree's data/ folder that the build was configured with, when
/// it still exists; else the copy `cmake --install` puts in `<prefix>/share/tinyamp/data`.
std::string data_path(const std::string& file);

/// The samples at `indices`, in that order (copies; the result does not share storage), in the
/// dtypes and on the device of `dataset`. Error(index) for an index outside [0, n); Error(shape)
/// when features and labels differ in their number of samples.
Dataset subset(const Dataset& dataset, const std::vector<std::int64_t>& indices);

/// 0..n-1 in an order drawn from `generator` (Fisher-Yates; the same seed gives the same order).
/// A negative `n` gives an empty list.
std::vector<std::int64_t> shuffled_indices(std::int64_t n, Generator& generator);

/// Shuffles with `seed`, then puts ceil(n * test_fraction) samples in the test set (second)
/// and the rest in the training set (first), as scikit-learn's train_test_split does.
/// Error(value) unless 0 < test_fraction < 1 and some samples are left for training.
std::pair<Dataset, Dataset> train_test_split(const Dataset& dataset, double test_fraction, std::uint64_t seed);

}  // namespace tinyamp::data
