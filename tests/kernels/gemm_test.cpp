// The reference GEMM against the definition: a naive triple loop in f64 over the same (already
// rounded) inputs, for all four transposition combinations, with padded leading dimensions, odd
// sizes and sizes of 0, alpha/beta (beta == 0 over NaN garbage), the bias epilogue both ways,
// in every float dtype and with an f32 output for f16/bf16 inputs; and that linear and conv2d,
// which add their bias in the GEMM's epilogue, round once.
#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <optional>
#include <tuple>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "kernels/cpu/elementwise_loops.h"
#include "kernels/cpu/gemm.h"
#include "tests/support/gemm_matrices.h"

using namespace tinyamp;
using kernels::cpu::BiasAlong;
using kernels::cpu::gemm;
using kernels::cpu::Transpose;

namespace {

// The reference against the exact f64 result: within the rounding of k products and the
// epilogue's three operations in the accumulator (ulps_for), relative to each element's scale.
template <class In, class Out = In>
void check_reference(Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, double beta,
                     std::optional<BiasAlong> bias, std::uint64_t seed)
{
    const auto g = test::GemmCase<In, Out>::make(ta, tb, m, n, k, alpha, beta, bias, seed, 3);
    const auto got = g.run([](auto... args) { kernels::cpu::gemm_reference<In, Out>(args...); });
    test::check_gemm_result(g, got, [&](std::int64_t i, std::int64_t j) { return g.exact(i, j).first; },
                            test::ulps_for(dtype_of<Out>(), k + 2), "f64");
}

template <class In, class Out = In>
void check_all_shapes()
{
    const std::vector<std::array<std::int64_t, 3>> sizes = {{0, 3, 2}, {3, 0, 2},    {3, 2, 0},  {1, 1, 1},
                                                            {5, 7, 3}, {17, 13, 19}, {2, 33, 65}};
    std::uint64_t seed = 100;
    for (Transpose ta : {Transpose::no, Transpose::yes})
        for (Transpose tb : {Transpose::no, Transpose::yes})
            for (const auto& [m, n, k] : sizes) {
                check_reference<In, Out>(ta, tb, m, n, k, 1.0, 0.0, std::nullopt, ++seed);
                check_reference<In, Out>(ta, tb, m, n, k, 0.5, -1.5, std::nullopt, ++seed);
                check_reference<In, Out>(ta, tb, m, n, k, 1.0, 0.0, BiasAlong::rows, ++seed);
                check_reference<In, Out>(ta, tb, m, n, k, -2.0, 1.0, BiasAlong::columns, ++seed);
            }
}

// gemm_small against the reference, bit for bit: the same operations in the same order.
template <class In, class Out = In>
void check_small_matches_reference()
{
    const std::vector<std::array<std::int64_t, 3>> sizes = {{0, 3, 2}, {3, 0, 2}, {3, 2, 0},   {1, 1, 1},
                                                            {4, 8, 8}, {5, 7, 3}, {17, 13, 19}, {1, 4096, 1},
                                                            {3, 64, 64}, {2, 70, 70}};  // the last: op(B) too big, the reference runs
    std::uint64_t seed = 500;
    for (Transpose ta : {Transpose::no, Transpose::yes})
        for (Transpose tb : {Transpose::no, Transpose::yes})
            for (const auto& size : sizes)
                for (const auto& epilogue : {std::tuple{1.0, 0.0, std::optional<BiasAlong>{}}, std::tuple{0.5, -1.5, std::optional<BiasAlong>{}},
                                             std::tuple{1.0, 0.0, std::optional{BiasAlong::rows}},
                                             std::tuple{-2.0, 1.0, std::optional{BiasAlong::columns}}}) {
                    const std::int64_t m = size[0], n = size[1], k = size[2];
                    const auto [alpha, beta, bias] = epilogue;
                    ++seed;
                    CAPTURE(m);
                    CAPTURE(n);
                    CAPTURE(k);
                    CAPTURE(seed);
                    const auto g = test::GemmCase<In, Out>::make(ta, tb, m, n, k, alpha, beta, bias, seed, 3);
                    const auto small = g.run([](auto... args) { kernels::cpu::gemm_small<In, Out>(args...); });
                    const auto reference = g.run([](auto... args) { kernels::cpu::gemm_reference<In, Out>(args...); });
                    REQUIRE(small.data.size() == reference.data.size());
                    CHECK((small.data.empty() || std::memcmp(small.data.data(), reference.data.data(), small.data.size() * sizeof(Out)) == 0));
                }
}

}  // namespace

TEST_CASE("gemm_small gives the reference's bits in every dtype, transposition, alpha/beta and bias")
{
    CHECK(kernels::cpu::fits_gemm_small(64, 64));
    CHECK_FALSE(kernels::cpu::fits_gemm_small(70, 70));
    check_small_matches_reference<double>();
    check_small_matches_reference<float>();
    check_small_matches_reference<Half>();
    check_small_matches_reference<BFloat16>();
    check_small_matches_reference<Half, float>();
    check_small_matches_reference<BFloat16, float>();
}

TEST_CASE("gemm reference matches a triple loop in f64 for every transposition, odd sizes, 0, alpha/beta and a bias")
{
    check_all_shapes<double>();
    check_all_shapes<float>();
    check_all_shapes<Half>();
    check_all_shapes<BFloat16>();
}

TEST_CASE("gemm reference with f16 and bf16 inputs and an f32 output")
{
    check_all_shapes<Half, float>();
    check_all_shapes<BFloat16, float>();
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

TEST_CASE("linear and conv2d add their bias before the one rounding, as PyTorch's addmm")
{
    // bf16 keeps 8 significant bits. x · w = 1 + 2^-8 is halfway between 1 and 1 + 2^-7: rounded to
    // bf16 before the bias 2^-8 is added it would become 1, and 1 + 2^-8 would round to 1 again.
    // Rounded once, x · w + bias = 1 + 2^-7 exactly. Both ops add the bias in the GEMM's epilogue.
    const double tiny = 0x1p-8;
    const Tensor x = tensor({1.0, tiny}, {1, 2}, bf16), w = tensor({1.0, 1.0}, {1, 2}, bf16), b = tensor({tiny}, {1}, bf16);
    CHECK(linear(x, w, b).to_vector() == std::vector<double>{1.0 + 0x1p-7});
    const Tensor image = tensor({1.0, tiny}, {1, 2, 1, 1}, bf16), kernel = tensor({1.0, 1.0}, {1, 2, 1, 1}, bf16);
    CHECK(conv2d(image, kernel, b).to_vector() == std::vector<double>{1.0 + 0x1p-7});
}
