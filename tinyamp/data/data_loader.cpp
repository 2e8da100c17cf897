#include "tinyamp/data/data_loader.h"

#include <algorithm>

namespace tinyamp::data {

DataLoader::DataLoader(const Dataset& dataset, std::int64_t batch_size, bool shuffle, bool drop_last, std::uint64_t seed)
    : dataset_(dataset), batch_size_(batch_size), shuffle_(shuffle), drop_last_(drop_last), generator_(seed)
{
    TINYAMP_CHECK(batch_size > 0, value, "DataLoader: batch_size must be positive, got ", batch_size);
    TINYAMP_CHECK(dataset.features.defined() && dataset.labels.defined() && dataset.features.dim() >= 1 &&
                      dataset.features.size(0) == dataset.labels.size(0),
                  shape, "DataLoader: the Dataset needs features and labels with the same number of samples (first dimension)");
    order_.resize(std::size_t(dataset_.size()));
    for (std::size_t i = 0; i < order_.size(); ++i)
        order_[i] = std::int64_t(i);
}

DataLoader::Iterator DataLoader::begin()
{
    if (shuffle_)
        order_ = shuffled_indices(dataset_.size(), generator_);
    return Iterator(this, 0);
}

std::int64_t DataLoader::size() const
{
    const std::int64_t n = dataset_.size();
    return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

Batch DataLoader::batch(std::int64_t index) const
{
    TINYAMP_CHECK(index >= 0 && index < size(), index, "DataLoader: batch ", index, " is out of range (", size(),
                  " batches per epoch)");
    const std::int64_t first = index * batch_size_;
    const std::int64_t last = std::min(first + batch_size_, dataset_.size());
    const std::vector<std::int64_t> indices(order_.begin() + first, order_.begin() + last);
    Dataset samples = subset(dataset_, indices);
    return Batch{samples.features, samples.labels};
}

}  // namespace tinyamp::data
