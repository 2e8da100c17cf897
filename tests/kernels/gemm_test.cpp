// The reference GEMM against the definition: a naive triple loop in f64 over the same (already
// rounded) inputs, for all four transposition combinations, with padded leading dimensions, odd
// sizes and sizes of 0, in every float dtype.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/gemm.h"
#include "tests/support/gemm_matrices.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using kernels::cpu::gemm;
using kernels::cpu::Transpose;
using tinyamp::test::check_close;

using tinyamp::test::Stored;
using tinyamp::test::value_of;

namespace {

// Leading dimension cols + 3: the gap after each row must be left alone.
template <class T>
Stored<T> random_matrix(std::int64_t rows, std::int64_t cols, Generator& gen)
{
    return test::random_matrix<T>(rows, cols, gen, 3);
}

// How far the kernel may be from the exact product, in ulps of the result dtype relative to
// scale = |alpha| sum|a||b| + |beta| |c|. A sum of k products accumulated in a type with unit
// roundoff u = eps/2 is off by at most about (k + 1) u * scale, and alpha/beta add two roundings:
// (k + 3) / 2 ulps, so k + 2 is safe. f16/bf16 accumulate in f32, whose error is far below one of
// their ulps for these k: what remains is the final rounding, within the default 2 ulps.
template <class T>
double allowed_ulps(std::int64_t k)
{
    return std::is_same_v<T, float> || std::is_same_v<T, double> ? double(k) + 2.0 : 2.0;
}

template <class T>
void check_gemm(Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, double beta, std::uint64_t seed)
{
    INFO(std::string(dtype_name(dtype_of<T>()))
         << " m=" << m << " n=" << n << " k=" << k << " trans_a=" << (ta == Transpose::yes) << " trans_b=" << (tb == Transpose::yes)
         << " alpha=" << alpha << " beta=" << beta << " seed=" << seed);
    Generator gen(seed);
    const bool a_transposed = ta == Transpose::yes, b_transposed = tb == Transpose::yes;
    const Stored<T> a = random_matrix<T>(a_transposed ? k : m, a_transposed ? m : k, gen);  // holds op(A) [m, k] or its transpose
    const Stored<T> b = random_matrix<T>(b_transposed ? n : k, b_transposed ? k : n, gen);
    Stored<T> c = random_matrix<T>(m, n, gen);
    if (beta == 0.0)  // then C must not be read at all: NaNs in it must not leak into the result
        for (std::int64_t i = 0; i < m; ++i)
            for (std::int64_t j = 0; j < n; ++j) c.data[std::size_t(i * c.ld + j)] = T(std::numeric_limits<float>::quiet_NaN());
    const std::vector<T> c_before = c.data;

    std::vector<double> expected, magnitude;
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            double sum = 0, abs_sum = 0;
            for (std::int64_t p = 0; p < k; ++p) {
                const double product = (a_transposed ? a.at(p, i) : a.at(i, p)) * (b_transposed ? b.at(j, p) : b.at(p, j));
                sum += product;
                abs_sum += std::abs(product);
            }
            const double c_ij = beta == 0.0 ? 0.0 : c.at(i, j);
            expected.push_back(alpha * sum + beta * c_ij);
            magnitude.push_back(std::abs(alpha) * abs_sum + std::abs(beta * c_ij));
        }

    gemm<T>(ta, tb, m, n, k, alpha, a.data.data(), a.ld, b.data.data(), b.ld, beta, c.data.data(), c.ld);

    std::vector<double> actual;
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) actual.push_back(c.at(i, j));
    double scale = 0;
    for (double v : magnitude) scale = std::max(scale, v);
    check_close(tensor(actual, {m, n}, f64), tensor(expected, {m, n}, f64), dtype_of<T>(), allowed_ulps<T>(k), scale);
    int gap_changed = 0;  // the elements between rows of C are not part of the matrix
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = n; j < c.ld; ++j) {
            const std::size_t at = std::size_t(i * c.ld + j);
            if (std::memcmp(&c.data[at], &c_before[at], sizeof(T)) != 0) ++gap_changed;
        }
    CHECK(gap_changed == 0);
}

template <class T>
void check_all_shapes()
{
    const std::vector<std::array<std::int64_t, 3>> sizes = {{0, 3, 2}, {3, 0, 2},    {3, 2, 0},  {1, 1, 1},
                                                            {5, 7, 3}, {17, 13, 19}, {2, 33, 65}};
    std::uint64_t seed = 100;
    for (Transpose ta : {Transpose::no, Transpose::yes})
        for (Transpose tb : {Transpose::no, Transpose::yes})
            for (const auto& [m, n, k] : sizes) {
                check_gemm<T>(ta, tb, m, n, k, 1.0, 0.0, ++seed);
                check_gemm<T>(ta, tb, m, n, k, 0.5, -1.5, ++seed);
            }
}

}  // namespace

TEST_CASE("gemm matches a triple loop in f64 for every transposition, odd sizes and 0")
{
    check_all_shapes<double>();
    check_all_shapes<float>();
    check_all_shapes<Half>();
    check_all_shapes<BFloat16>();
}

TEST_CASE("gemm of a small known product")
{
    // [[1, 2, 3], [4, 5, 6]] * [[1, 0], [0, 1], [1, 1]] = [[4, 5], [10, 11]]
    const std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {1, 0, 0, 1, 1, 1};
    std::vector<float> c(4);
    gemm<float>(Transpose::no, Transpose::no, 2, 2, 3, 1.0, a.data(), 3, b.data(), 2, 0.0, c.data(), 2);
    CHECK(c == std::vector<float>{4, 5, 10, 11});
    // The same A read as the transpose of its [3, 2] storage: A^T [[1, 3, 5], [2, 4, 6]] * b.
    gemm<float>(Transpose::yes, Transpose::no, 2, 2, 3, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2);
    CHECK(c == std::vector<float>{6, 8, 8, 10});
}

TEST_CASE("gemm accumulates f16 and bf16 in f32 and rounds once")
{
    // A row of k ones times a column of k ones is k. Summed in f16, the running total would stop
    // at 2048 (2048 + 1 rounds back to 2048); in bf16 it would stop at 256.
    const std::int64_t k = 4096;
    const std::vector<Half> ones_h(std::size_t(k), Half(1.0f));
    Half out_h(0.0f);
    gemm<Half>(Transpose::no, Transpose::no, 1, 1, k, 1.0, ones_h.data(), k, ones_h.data(), 1, 0.0, &out_h, 1);
    CHECK(float(out_h) == 4096.0f);
    const std::vector<BFloat16> ones_b(std::size_t(k), BFloat16(1.0f));
    BFloat16 out_b(0.0f);
    gemm<BFloat16>(Transpose::no, Transpose::no, 1, 1, k, 1.0, ones_b.data(), k, ones_b.data(), 1, 0.0, &out_b, 1);
    CHECK(float(out_b) == 4096.0f);
}
