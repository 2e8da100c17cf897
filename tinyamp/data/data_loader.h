#pragma once
/// \file
/// DataLoader: mini-batches of a Dataset, as torch.utils.data.DataLoader gives them.
///
/// \code
///     DataLoader loader(train, /*batch_size=*/64, /*shuffle=*/true, /*drop_last=*/false, /*seed=*/0);
///     for (int epoch = 0; epoch < 30; ++epoch)
///         for (const Batch& batch : loader) { ... batch.features [<=64, d], batch.labels [<=64] ... }
/// \endcode
///
/// Each begin() starts a new epoch; with shuffle on, its order is the next draw of the loader's
/// generator, so the same seed gives the same batches, epoch after epoch.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "tinyamp/support/generator.h"
#include "tinyamp/data/datasets.h"

namespace tinyamp::data {

/// One mini-batch: copies of some samples of a Dataset, in the dtypes and on the device of the
/// Dataset's tensors.
struct Batch {
    Tensor features;  ///< [B, ...]: the samples' rows of Dataset::features, B <= batch_size
    Tensor labels;    ///< [B]: their labels
};

/// Mini-batches of a Dataset, epoch after epoch, as torch.utils.data.DataLoader: iterate it with
/// a range-for. The loader keeps the Dataset's tensor handles (not a copy of the data); with
/// `shuffle`, each epoch's order is drawn from the loader's own Generator(seed), not from
/// default_generator(), so the order depends on the seed alone.
class DataLoader {
public:
    /// `batch_size` > 0. With `drop_last`, a last batch smaller than batch_size is left out.
    /// Error(value) for a batch_size that is not positive, Error(shape) when the Dataset's
    /// features or labels are undefined or differ in their number of samples.
    DataLoader(const Dataset& dataset, std::int64_t batch_size, bool shuffle = true, bool drop_last = false,
               std::uint64_t seed = 0);

    /// An input iterator over one epoch's batches; each dereference copies that batch's samples.
    class Iterator {
    public:
        using iterator_category = std::input_iterator_tag;  ///< one pass, as the standard input iterators
        using value_type = Batch;                           ///< what dereferencing gives
        using difference_type = std::ptrdiff_t;             ///< for the iterator traits

        /// The iterator at batch number `batch` of `loader`; begin() and end() make them.
        Iterator(const DataLoader* loader, std::int64_t batch) : loader_(loader), batch_(batch) {}
        /// The current batch, copied out of the Dataset: loader->batch(index).
        Batch operator*() const { return loader_->batch(batch_); }
        /// Moves to the next batch.
        Iterator& operator++()
        {
            ++batch_;
            return *this;
        }
        /// True at the same batch number (iterators of one loader).
        bool operator==(const Iterator& other) const { return batch_ == other.batch_; }

    private:
        const DataLoader* loader_;
        std::int64_t batch_;
    };

    /// Starts a new epoch (draws a new order when shuffling); earlier iterators then see the new order.
    Iterator begin();
    /// The iterator past the epoch's last batch.
    Iterator end() const { return Iterator(this, size()); }

    std::int64_t size() const;  ///< batches per epoch
    /// The samples per batch (the last batch may have fewer, unless drop_last).
    std::int64_t batch_size() const { return batch_size_; }
    /// The data set the batches come from.
    const Dataset& dataset() const { return dataset_; }
    /// Batch `index` (0-based) of the current epoch's order (0, 1, 2, ... without shuffle).
    /// Error(index) unless 0 <= index < size().
    Batch batch(std::int64_t index) const;

private:
    Dataset dataset_;
    std::int64_t batch_size_;
    bool shuffle_;
    bool drop_last_;
    Generator generator_;
    std::vector<std::int64_t> order_;
};

}  // namespace tinyamp::data
