// DataLoader: batch counts with and without drop_last, every sample once per epoch, and seeded
// shuffling (the same seed gives the same batches; each epoch draws a new order).
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {

// Sample i has features [i, 10 i] and label i, so a batch can be traced back to its samples.
data::Dataset indexed_dataset(std::int64_t n)
{
    std::vector<double> features;
    std::vector<double> labels;
    for (std::int64_t i = 0; i < n; ++i) {
        features.insert(features.end(), {double(i), 10.0 * double(i)});
        labels.push_back(double(i));
    }
    return data::Dataset{tensor(features, Shape{n, 2}, f32), tensor(labels, Shape{n}, i64)};
}

// One epoch: the sample indices of each batch, in order.
std::vector<std::vector<double>> epoch(data::DataLoader& loader)
{
    std::vector<std::vector<double>> batches;
    for (const data::Batch& batch : loader) {
        const std::int64_t rows = batch.labels.size(0);
        CHECK(batch.features.shape() == Shape{rows, 2});
        CHECK(batch.labels.dtype() == i64);
        for (std::int64_t r = 0; r < rows; ++r) {
            CHECK(batch.features.at({r, 0}) == batch.labels.at({r}));  // features and labels stay paired
            CHECK(batch.features.at({r, 1}) == 10.0 * batch.labels.at({r}));
        }
        batches.push_back(batch.labels.to_vector());
    }
    return batches;
}

std::vector<double> sorted_samples(const std::vector<std::vector<double>>& batches)
{
    std::vector<double> all;
    for (const auto& batch : batches)
        all.insert(all.end(), batch.begin(), batch.end());
    std::sort(all.begin(), all.end());
    return all;
}

}  // namespace

TEST_CASE("DataLoader: batch count and sizes with and without drop_last")
{
    const data::Dataset samples = indexed_dataset(10);

    data::DataLoader keep_last(samples, 3, /*shuffle=*/false, /*drop_last=*/false, 0);
    CHECK(keep_last.size() == 4);
    const auto batches = epoch(keep_last);
    REQUIRE(batches.size() == 4);
    CHECK(batches[0] == std::vector<double>{0, 1, 2});
    CHECK(batches[3] == std::vector<double>{9});

    data::DataLoader drop_last(samples, 3, /*shuffle=*/false, /*drop_last=*/true, 0);
    CHECK(drop_last.size() == 3);
    const auto kept = epoch(drop_last);
    REQUIRE(kept.size() == 3);
    CHECK(kept[2] == std::vector<double>{6, 7, 8});

    data::DataLoader exact(samples, 5, /*shuffle=*/true, /*drop_last=*/true, 0);
    CHECK(exact.size() == 2);
    data::DataLoader one_batch(samples, 64, /*shuffle=*/true, /*drop_last=*/false, 0);
    CHECK(one_batch.size() == 1);
    data::DataLoader none(samples, 64, /*shuffle=*/true, /*drop_last=*/true, 0);
    CHECK(none.size() == 0);
    CHECK(epoch(none).empty());

    CHECK(error_message([&] { data::DataLoader(samples, 0, true, false, 0); }, ErrorKind::value).find("batch_size") != std::string::npos);
}

TEST_CASE("DataLoader: every sample once per shuffled epoch, and a new order each epoch")
{
    const data::Dataset samples = indexed_dataset(50);
    std::vector<double> all(50);
    for (std::size_t i = 0; i < all.size(); ++i)
        all[i] = double(i);

    data::DataLoader loader(samples, 8, /*shuffle=*/true, /*drop_last=*/false, 7);
    const auto first = epoch(loader);
    const auto second = epoch(loader);
    CHECK(first.size() == 7);
    CHECK(sorted_samples(first) == all);
    CHECK(sorted_samples(second) == all);
    CHECK(first != second);
    CHECK(first[0] != std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7});  // shuffled, not in file order
}

TEST_CASE("DataLoader: the same seed gives the same batches, another seed other batches")
{
    const data::Dataset samples = indexed_dataset(40);
    data::DataLoader a(samples, 16, true, false, 123);
    data::DataLoader b(samples, 16, true, false, 123);
    data::DataLoader c(samples, 16, true, false, 124);
    for (int e = 0; e < 3; ++e) {
        const auto from_a = epoch(a);
        CHECK(from_a == epoch(b));
        CHECK(from_a != epoch(c));
    }
}

TEST_CASE("DataLoader: digits in batches of 64")
{
    const data::Dataset digits = data::load_digits(data::data_path("digits.csv.gz"));
    data::DataLoader loader(digits, 64, true, false, 0);
    CHECK(loader.size() == 29);  // 28 full batches and one of 5
    std::int64_t seen = 0;
    for (const data::Batch& batch : loader) {
        CHECK(batch.features.size(1) == 64);
        CHECK(batch.features.dtype() == f32);
        seen += batch.labels.size(0);
    }
    CHECK(seen == 1797);
}
