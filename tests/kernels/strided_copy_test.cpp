// strided_copy against the definition: element i of the output is the input element whose
// coordinates are i's row-major coordinates, at offset sum(coord * stride).
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/strided_copy.h"
#include "tinyamp/support/parallel.h"

using tinyamp::kernels::cpu::strided_copy;
using tinyamp::kernels::cpu::strided_scatter;

namespace {

template <class T>
std::vector<T> by_definition(const std::vector<T>& base, const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides,
                             std::int64_t offset)
{
    std::int64_t total = 1;
    for (auto s : shape) total *= s;
    std::vector<T> out;
    for (std::int64_t i = 0; i < total; ++i) {
        std::int64_t rest = i, at = offset;
        for (std::size_t d = shape.size(); d-- > 0;) {
            at += (rest % shape[d]) * strides[d];
            rest /= shape[d];
        }
        out.push_back(base[std::size_t(at)]);
    }
    return out;
}

template <class T>
void check_random_views(std::uint64_t seed)
{
    INFO("seed " << seed << ", element size " << sizeof(T));
    std::mt19937_64 rng(seed);
    std::vector<T> base(4096);
    for (std::size_t i = 0; i < base.size(); ++i) base[i] = T(i % 251);
    for (int trial = 0; trial < 300; ++trial) {
        const int ndim = int(rng() % 5);  // 0-D included
        std::vector<std::int64_t> shape(static_cast<std::size_t>(ndim)), strides(static_cast<std::size_t>(ndim));
        std::int64_t span = 1;
        for (int d = 0; d < ndim; ++d) {
            shape[std::size_t(d)] = std::int64_t(rng() % 5);        // sizes 0..4: empty views too
            strides[std::size_t(d)] = std::int64_t(rng() % 7);      // 0 (broadcast), 1, or gaps
            span += (shape[std::size_t(d)] > 0 ? shape[std::size_t(d)] - 1 : 0) * strides[std::size_t(d)];
        }
        const std::int64_t offset = std::int64_t(rng() % 64);
        REQUIRE(offset + span <= std::int64_t(base.size()));
        const std::vector<T> expected = by_definition(base, shape, strides, offset);
        std::vector<T> got(expected.size() + 1, T(99));  // one guard element
        strided_copy(base.data() + offset, shape.data(), strides.data(), ndim, sizeof(T), got.data());
        CAPTURE(trial);
        const bool same = expected.empty() || std::memcmp(got.data(), expected.data(), expected.size() * sizeof(T)) == 0;
        REQUIRE(same);
        CHECK(got.back() == T(99));
    }
}

}  // namespace

TEST_CASE("strided_copy gathers any view, for every element size")
{
    check_random_views<std::uint8_t>(11);
    check_random_views<std::uint16_t>(12);
    check_random_views<std::uint32_t>(13);
    check_random_views<std::uint64_t>(14);
}

TEST_CASE("strided_copy of a transposed 2x3 matrix")
{
    const int base[] = {1, 2, 3, 4, 5, 6};  // [[1,2,3],[4,5,6]]
    const std::int64_t shape[] = {3, 2}, strides[] = {1, 3};
    int out[6] = {};
    strided_copy(base, shape, strides, 2, sizeof(int), out);
    const int expected[] = {1, 4, 2, 5, 3, 6};
    CHECK(std::memcmp(out, expected, sizeof out) == 0);
}

TEST_CASE("strided_copy and strided_scatter of views past the grain size (rows split between threads) on 1 and 2 threads")
{
    // A [16, 4, 128, 32] head view of a [16, 128, 384] qkv tensor (long runs of 32), its transpose
    // (steps of 384, one element a row) and a 3-d view whose rows are long.
    std::vector<float> base(16 * 128 * 384);
    for (std::size_t i = 0; i < base.size(); ++i) base[i] = float(i);
    struct View {
        std::vector<std::int64_t> shape, strides;
    };
    const std::vector<View> views = {{{16, 4, 128, 32}, {49152, 32, 384, 1}}, {{16, 4, 32, 128}, {49152, 32, 1, 384}}, {{2, 128, 3000}, {1, 2, 256}}};
    const int threads = tinyamp::get_num_threads();
    for (std::size_t v = 0; v < views.size(); ++v) {
        CAPTURE(v);
        const View& view = views[v];
        const std::vector<float> expected = by_definition(base, view.shape, view.strides, 0);
        for (int t : {1, 2}) {
            CAPTURE(t);
            tinyamp::set_num_threads(t);
            std::vector<float> got(expected.size());
            strided_copy(base.data(), view.shape.data(), view.strides.data(), int(view.shape.size()), sizeof(float), got.data());
            CHECK(got == expected);
            // Scatter it back into a buffer of -1: every element of the view lands where it came from.
            std::vector<float> scattered(base.size(), -1.0f);
            strided_scatter(got.data(), view.shape.data(), view.strides.data(), int(view.shape.size()), sizeof(float), scattered.data());
            CHECK(by_definition(scattered, view.shape, view.strides, 0) == expected);
        }
    }
    tinyamp::set_num_threads(threads);
}
