// The fast binary_map (merged dims, vectorizable rows) against reference::binary_map (one odometer
// step per row): the same bits for every layout, broadcast and transposed ones included.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "kernels/cpu/elementwise_loops.h"
#include "kernels/cpu/reduce_loops.h"

using namespace tinyamp;
using namespace tinyamp::kernels::cpu;

namespace {

struct Layout {
    std::vector<std::int64_t> shape, a_strides, b_strides;
};

// A random shape of up to 4 dims, with each operand laid out contiguously, broadcast along some
// dims (stride 0) or transposed (dims walked in another order), as ops hand them to the kernel.
Layout random_layout(std::mt19937_64& rng)
{
    Layout l;
    const int ndim = int(rng() % 5);
    for (int d = 0; d < ndim; ++d) l.shape.push_back(std::int64_t(rng() % 5));  // 0 and 1 sizes too
    auto strides_for = [&](bool transposed) {
        std::vector<std::int64_t> order(l.shape.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = std::int64_t(i);
        if (transposed && order.size() >= 2) std::swap(order[0], order[order.size() - 1]);
        std::vector<std::int64_t> strides(l.shape.size());
        std::int64_t step = 1;
        for (std::size_t k = order.size(); k-- > 0;) {
            const auto d = std::size_t(order[k]);
            const bool broadcast = rng() % 4 == 0;
            strides[d] = broadcast ? 0 : step;
            if (!broadcast) step *= std::max<std::int64_t>(l.shape[d], 1);
        }
        return strides;
    };
    l.a_strides = strides_for(rng() % 3 == 0);
    l.b_strides = strides_for(rng() % 3 == 0);
    return l;
}

template <class T>
std::vector<T> random_values(std::mt19937_64& rng, std::size_t n)
{
    std::normal_distribution<double> normal(0.0, 3.0);
    std::vector<T> v(n);
    for (auto& x : v) x = T(normal(rng));
    return v;
}

template <class T, class Out, class Fn>
void check_layouts(std::uint64_t seed, Fn fn)
{
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const std::vector<T> a = random_values<T>(rng, 1024), b = random_values<T>(rng, 1024);
    for (int trial = 0; trial < 400; ++trial) {
        const Layout l = random_layout(rng);
        std::int64_t total = 1;
        for (auto s : l.shape) total *= s;
        const auto n = std::size_t(total) + 1;  // one guard element, never written
        const std::unique_ptr<Out[]> fast(new Out[n]()), slow(new Out[n]());  // not vector<bool>: it has no data()
        binary_map(l.shape, a.data(), l.a_strides, b.data(), l.b_strides, fast.get(), fn);
        reference::binary_map(l.shape, a.data(), l.a_strides, b.data(), l.b_strides, slow.get(), fn);
        CAPTURE(trial);
        REQUIRE(std::memcmp(fast.get(), slow.get(), n * sizeof(Out)) == 0);
    }
}

}  // namespace

TEST_CASE("fast binary_map gives the reference's bits for every layout and dtype")
{
    auto add = [](auto x, auto y) { return x + y; };
    auto mul = [](auto x, auto y) { return x * y; };
    check_layouts<float, float>(1, add);
    check_layouts<double, double>(2, mul);
    check_layouts<BFloat16, BFloat16>(3, add);
    check_layouts<Half, Half>(4, mul);
    check_layouts<std::int64_t, std::int64_t>(5, add);
    check_layouts<float, bool>(6, [](auto x, auto y) { return bool(x > y); });
}

TEST_CASE("fast binary_map on the layouts training uses: same shape, a row, a scalar")
{
    std::mt19937_64 rng(7);
    const std::vector<float> a = random_values<float>(rng, 64 * 256), b = random_values<float>(rng, 64 * 256);
    auto sub = [](auto x, auto y) { return x - y; };
    const std::vector<std::vector<std::int64_t>> b_layouts = {{256, 1}, {0, 1}, {0, 0}, {1, 64}};
    for (const auto& b_strides : b_layouts) {
        std::vector<float> fast(64 * 256), slow(64 * 256);
        binary_map({64, 256}, a.data(), {256, 1}, b.data(), b_strides, fast.data(), sub);
        reference::binary_map({64, 256}, a.data(), {256, 1}, b.data(), b_strides, slow.data(), sub);
        CHECK(std::memcmp(fast.data(), slow.data(), fast.size() * sizeof(float)) == 0);
        // and with the operands swapped (scalar or row first)
        binary_map({64, 256}, b.data(), b_strides, a.data(), {256, 1}, fast.data(), sub);
        reference::binary_map({64, 256}, b.data(), b_strides, a.data(), {256, 1}, slow.data(), sub);
        CHECK(std::memcmp(fast.data(), slow.data(), fast.size() * sizeof(float)) == 0);
    }
}

TEST_CASE("fast binary_map on bf16 and f16 rows (the chunked f32 path) gives the reference's bits")
{
    auto run = [](auto tag, std::uint64_t seed) {
        using T = decltype(tag);
        INFO("seed " << seed);
        std::mt19937_64 rng(seed);
        const std::vector<T> a = random_values<T>(rng, 64 * 300), b = random_values<T>(rng, 64 * 300);
        auto relu_mul = [](auto x, auto y) { return x > decltype(x)(0) ? x * y : y; };
        const std::vector<std::vector<std::int64_t>> b_layouts = {{300, 1}, {0, 1}, {0, 0}};
        for (const auto& b_strides : b_layouts) {
            std::vector<T> fast(64 * 300), slow(64 * 300);
            binary_map({64, 300}, a.data(), {300, 1}, b.data(), b_strides, fast.data(), relu_mul);
            reference::binary_map({64, 300}, a.data(), {300, 1}, b.data(), b_strides, slow.data(), relu_mul);
            CHECK(std::memcmp(fast.data(), slow.data(), fast.size() * sizeof(T)) == 0);
            binary_map({64, 300}, b.data(), b_strides, a.data(), {300, 1}, fast.data(), relu_mul);
            reference::binary_map({64, 300}, b.data(), b_strides, a.data(), {300, 1}, slow.data(), relu_mul);
            CHECK(std::memcmp(fast.data(), slow.data(), fast.size() * sizeof(T)) == 0);
        }
    };
    run(BFloat16{}, 9);
    run(Half{}, 10);
}

template <class T>
void check_sum_columns(std::uint64_t seed)
{
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    // The last two are past the grain size: their columns are split between threads.
    for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{64, 256}, {1, 7}, {13, 1}, {0, 5}, {37, 10}, {2048, 384}, {70000, 3}}) {
        const std::vector<T> x = random_values<T>(rng, std::size_t(rows * cols));
        std::vector<T> transposed(x.size());
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t c = 0; c < cols; ++c) transposed[std::size_t(c * rows + r)] = x[std::size_t(r * cols + c)];
        for (double scale : {1.0, 1.0 / 3.0}) {
            std::vector<T> by_rows(static_cast<std::size_t>(cols));
            sum_rows(transposed.data(), cols, rows, by_rows.data(), scale);
            const int threads = get_num_threads();
            for (int t : {1, 2}) {
                set_num_threads(t);
                std::vector<T> by_columns(static_cast<std::size_t>(cols));
                sum_columns(x.data(), rows, cols, by_columns.data(), scale);
                CAPTURE(rows);
                CAPTURE(cols);
                CAPTURE(t);
                CHECK(std::memcmp(by_columns.data(), by_rows.data(), by_rows.size() * sizeof(T)) == 0);
            }
            set_num_threads(threads);
        }
    }
}

TEST_CASE("sum_columns gives the bits of sum_rows over the transposed buffer, on 1 and 2 threads")
{
    check_sum_columns<BFloat16>(8);
    check_sum_columns<float>(9);
}

TEST_CASE("binary_map and unary_map past the grain size (split between threads): the reference's bits on 1 and 2 threads")
{
    // [3, 70, 600] (126000 elements, several parts): one run of memory, rows with a broadcast row,
    // rows of a transposed operand, and rows shorter than the grain (many rows a part).
    std::mt19937_64 rng(11);
    const std::int64_t total = 3 * 70 * 600;
    const auto count = std::size_t(total);
    const std::vector<float> a = random_values<float>(rng, count), b = random_values<float>(rng, count);
    const std::vector<BFloat16> ah = random_values<BFloat16>(rng, count), bh = random_values<BFloat16>(rng, count);
    auto mul_add = [](auto x, auto y) { return x * y + x; };
    const std::vector<Layout> layouts = {{{3, 70, 600}, {42000, 600, 1}, {42000, 600, 1}},  // merges into one row
                                         {{3, 70, 600}, {42000, 600, 1}, {0, 0, 1}},        // + a row
                                         {{3, 70, 600}, {42000, 600, 1}, {1, 3, 210}},      // + a transposed operand
                                         {{3, 7000, 6}, {42000, 6, 1}, {0, 1, 0}}};         // short rows
    const int threads = get_num_threads();
    for (std::size_t i = 0; i < layouts.size(); ++i) {
        CAPTURE(i);
        const Layout& l = layouts[i];
        std::vector<float> slow(count), fast(count);
        std::vector<BFloat16> slow_h(count), fast_h(count);
        reference::binary_map(l.shape, a.data(), l.a_strides, b.data(), l.b_strides, slow.data(), mul_add);
        reference::binary_map(l.shape, ah.data(), l.a_strides, bh.data(), l.b_strides, slow_h.data(), mul_add);
        for (int t : {1, 2}) {
            CAPTURE(t);
            set_num_threads(t);
            binary_map(l.shape, a.data(), l.a_strides, b.data(), l.b_strides, fast.data(), mul_add);
            binary_map(l.shape, ah.data(), l.a_strides, bh.data(), l.b_strides, fast_h.data(), mul_add);
            CHECK(std::memcmp(fast.data(), slow.data(), fast.size() * sizeof(float)) == 0);
            CHECK(std::memcmp(fast_h.data(), slow_h.data(), fast_h.size() * sizeof(BFloat16)) == 0);
            std::vector<float> y(count);
            unary_map(a.data(), y.data(), total, [](float x) { return x * x - 1.0f; });
            bool same = true;
            for (std::size_t j = 0; j < y.size(); ++j) same = same && y[j] == a[j] * a[j] - 1.0f;
            CHECK(same);
        }
    }
    set_num_threads(threads);
}
