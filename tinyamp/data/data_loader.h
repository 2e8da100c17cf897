#pragma once
// DataLoader: mini-batches of a Dataset, as torch.utils.data.DataLoader gives them.
//
//     DataLoader loader(train, /*batch_size=*/64, /*shuffle=*/true, /*drop_last=*/false, /*seed=*/0);
//     for (int epoch = 0; epoch < 30; ++epoch)
//         for (const Batch& batch : loader) { ... batch.features [<=64, d], batch.labels [<=64] ... }
//
// Each begin() starts a new epoch; with shuffle on, its order is the next draw of the loader's
// generator, so the same seed gives the same batches, epoch after epoch.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "tinyamp/core/generator.h"
#include "tinyamp/data/datasets.h"

namespace tinyamp::data {

struct Batch {
    Tensor features;
    Tensor labels;
};

class DataLoader {
public:
    /// `batch_size` > 0. With `drop_last`, a last batch smaller than batch_size is left out.
    DataLoader(const Dataset& dataset, std::int64_t batch_size, bool shuffle = true, bool drop_last = false,
               std::uint64_t seed = 0);

    /// An input iterator over one epoch's batches; each dereference copies that batch's samples.
    class Iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = Batch;
        using difference_type = std::ptrdiff_t;

        Iterator(const DataLoader* loader, std::int64_t batch) : loader_(loader), batch_(batch) {}
        Batch operator*() const { return loader_->batch(batch_); }
        Iterator& operator++()
        {
            ++batch_;
            return *this;
        }
        bool operator==(const Iterator& other) const { return batch_ == other.batch_; }

    private:
        const DataLoader* loader_;
        std::int64_t batch_;
    };

    /// Starts a new epoch (draws a new order when shuffling); earlier iterators then see the new order.
    Iterator begin();
    Iterator end() const { return Iterator(this, size()); }

    std::int64_t size() const;  ///< batches per epoch
    std::int64_t batch_size() const { return batch_size_; }
    const Dataset& dataset() const { return dataset_; }
    /// Batch `index` (0-based) of the current epoch's order.
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
