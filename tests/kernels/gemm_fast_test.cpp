// The AVX-512 GEMM (gemm_fast.h) against the reference GEMM on the same inputs: odd shapes around
// the tile sizes, every transposition, padded leading dimensions, alpha/beta (beta == 0 with NaN
// garbage in C), f32/f16/bf16, a randomized sweep, the two-thread path bit for bit against one
// thread, and the dispatcher's choice. The fast kernel is called directly, so these tests run it
// whenever the CPU can; on a CPU without AVX-512 they are skipped with a message.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/gemm_fast.h"
#include "tests/support/gemm_matrices.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using kernels::cpu::Transpose;
namespace cpu = kernels::cpu;

using tinyamp::test::Stored;
using tinyamp::test::value_of;

namespace {

// Leading dimension cols + 5: the gap after each row must be left alone.
template <class T>
Stored<T> random_matrix(std::int64_t rows, std::int64_t cols, Generator& gen)
{
    return test::random_matrix<T>(rows, cols, gen, 5);
}

template <class T>
bool fast_path_available()
{
    return cpu::avx512::gemm_supported<T>(cpu::detect_cpu_features());
}

// Runs the fast kernel and the reference on the same inputs and compares them element by element.
// Both sum the same f32 products, in different orders (and with FMA), so in f32 they agree within
// about k * eps * sum|a||b| (each is within k/2 ulps of that scale from the exact sum); in f16/bf16
// the f32 difference is far below an ulp and the one rounding into T leaves them within 2 ulps.
template <class T>
void check_fast(Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, double beta, std::uint64_t seed,
                int threads = 0)
{
    INFO(std::string(dtype_name(dtype_of<T>()))
         << " m=" << m << " n=" << n << " k=" << k << " trans_a=" << (ta == Transpose::yes) << " trans_b=" << (tb == Transpose::yes)
         << " alpha=" << alpha << " beta=" << beta << " seed=" << seed << " threads=" << threads);
    Generator gen(seed);
    const bool a_t = ta == Transpose::yes, b_t = tb == Transpose::yes;
    const Stored<T> a = random_matrix<T>(a_t ? k : m, a_t ? m : k, gen);
    const Stored<T> b = random_matrix<T>(b_t ? n : k, b_t ? k : n, gen);
    Stored<T> c = random_matrix<T>(m, n, gen);
    if (beta == 0.0)  // C must be written, never read: NaN garbage must not leak into the result
        for (std::int64_t i = 0; i < m; ++i)
            for (std::int64_t j = 0; j < n; ++j) c.data[std::size_t(i * c.ld + j)] = T(std::numeric_limits<float>::quiet_NaN());
    Stored<T> c_ref = c;

    cpu::avx512::gemm<T>(ta, tb, m, n, k, alpha, a.data.data(), a.ld, b.data.data(), b.ld, beta, c.data.data(), c.ld, threads);
    cpu::gemm_reference<T>(ta, tb, m, n, k, alpha, a.data.data(), a.ld, b.data.data(), b.ld, beta, c_ref.data.data(), c_ref.ld);

    const double ulps = std::is_same_v<T, float> ? double(k) + 2.0 : 2.0;
    int failures = 0, gap_changed = 0;
    std::ostringstream details;
    for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
            double magnitude = beta == 0.0 ? 0.0 : std::abs(beta * c_ref.at(i, j));
            for (std::int64_t p = 0; p < k; ++p)
                magnitude += std::abs(alpha * (a_t ? a.at(p, i) : a.at(i, p)) * (b_t ? b.at(j, p) : b.at(p, j)));
            const test::Tolerance tol = test::tolerance_for(dtype_of<T>(), magnitude, ulps);
            const double got = c.at(i, j), want = c_ref.at(i, j);
            if (!std::isnan(got) && std::abs(got - want) <= tol.atol + tol.rtol * std::abs(want)) continue;
            if (failures++ < 5) details << "(" << i << "," << j << "): fast " << got << " vs reference " << want << "; ";
        }
        for (std::int64_t j = n; j < c.ld; ++j) {
            const std::size_t at = std::size_t(i * c.ld + j);
            if (std::memcmp(&c.data[at], &c_ref.data[at], sizeof(T)) != 0) ++gap_changed;
        }
    }
    INFO(details.str());
    CHECK(failures == 0);
    CHECK(gap_changed == 0);
}

// Shapes from {1, 7, 15, 16, 17, 63, 64, 65, 257}^3: a fixed sample of the 729 combinations
// (every 7th, which reaches each size in each position) with all four transpositions.
template <class T>
void check_odd_shapes()
{
    if (!fast_path_available<T>()) {
        MESSAGE("skipped: this CPU lacks the instructions of the fast " << dtype_name(dtype_of<T>()) << " GEMM");
        return;
    }
    const std::array<std::int64_t, 9> sizes = {1, 7, 15, 16, 17, 63, 64, 65, 257};
    const std::array<std::array<double, 2>, 4> alpha_beta = {{{1.0, 0.0}, {0.5, -1.5}, {-2.0, 1.0}, {1.0, 0.0}}};
    std::uint64_t seed = 1000;
    int index = 0;
    for (std::int64_t m : sizes)
        for (std::int64_t n : sizes)
            for (std::int64_t k : sizes) {
                if (index++ % 7 != 0) continue;
                const auto [alpha, beta] = alpha_beta[std::size_t(index % 4)];
                for (Transpose ta : {Transpose::no, Transpose::yes})
                    for (Transpose tb : {Transpose::no, Transpose::yes}) {
                        ++seed;
                        check_fast<T>(ta, tb, m, n, k, alpha, beta, seed, int(seed % 3));  // threads: auto, 1 or 2
                    }
            }
}

template <class T>
void check_random_sweep(int cases)
{
    if (!fast_path_available<T>()) {
        MESSAGE("skipped: this CPU lacks the instructions of the fast " << dtype_name(dtype_of<T>()) << " GEMM");
        return;
    }
    const std::uint64_t seed = std::random_device{}();
    CAPTURE(seed);  // rerun a failure by putting this seed here
    MESSAGE("random gemm sweep seed " << seed);
    std::mt19937_64 rng(seed);
    auto size = [&] { return std::int64_t(1 + rng() % 300); };
    for (int i = 0; i < cases; ++i) {
        const std::int64_t m = size(), n = size(), k = size();
        const Transpose ta = rng() % 2 ? Transpose::yes : Transpose::no, tb = rng() % 2 ? Transpose::yes : Transpose::no;
        const double alpha = double(int(rng() % 7) - 3) / 2.0, beta = double(int(rng() % 5) - 2) / 2.0;
        check_fast<T>(ta, tb, m, n, k, alpha, beta, rng(), 1 + int(rng() % 2));
    }
}

// The two-thread split must give exactly the one-thread bits: each element of C is computed by
// one thread, over the same blocks of k in the same order.
template <class T>
void check_threads_bitwise(std::int64_t m, std::int64_t n, std::int64_t k, Transpose ta, Transpose tb)
{
    if (!fast_path_available<T>()) {
        MESSAGE("skipped: this CPU lacks the instructions of the fast " << dtype_name(dtype_of<T>()) << " GEMM");
        return;
    }
    INFO(std::string(dtype_name(dtype_of<T>())) << " m=" << m << " n=" << n << " k=" << k);
    Generator gen(7);
    const Stored<T> a = random_matrix<T>(ta == Transpose::yes ? k : m, ta == Transpose::yes ? m : k, gen);
    const Stored<T> b = random_matrix<T>(tb == Transpose::yes ? n : k, tb == Transpose::yes ? k : n, gen);
    Stored<T> one = random_matrix<T>(m, n, gen);
    Stored<T> two = one;
    cpu::avx512::gemm<T>(ta, tb, m, n, k, 1.0, a.data.data(), a.ld, b.data.data(), b.ld, 0.5, one.data.data(), one.ld, 1);
    cpu::avx512::gemm<T>(ta, tb, m, n, k, 1.0, a.data.data(), a.ld, b.data.data(), b.ld, 0.5, two.data.data(), two.ld, 2);
    CHECK(std::memcmp(one.data.data(), two.data.data(), one.data.size() * sizeof(T)) == 0);
    check_fast<T>(ta, tb, m, n, k, 1.0, 0.5, 8, 2);  // and the threaded result is right
}

}  // namespace

TEST_CASE("fast gemm matches the reference over odd shapes, transpositions, strides and alpha/beta")
{
    SUBCASE("f32") { check_odd_shapes<float>(); }
    SUBCASE("f16") { check_odd_shapes<Half>(); }
    SUBCASE("bf16") { check_odd_shapes<BFloat16>(); }
}

TEST_CASE("fast gemm matches the reference on a randomized sweep (seed printed)")
{
    SUBCASE("f32") { check_random_sweep<float>(12); }
    SUBCASE("f16") { check_random_sweep<Half>(12); }
    SUBCASE("bf16") { check_random_sweep<BFloat16>(12); }
}

TEST_CASE("fast gemm gives the same bits on one and two threads")
{
    // threads = 2 forces the split: a wide C splits its columns, a narrow one its rows.
    check_threads_bitwise<float>(130, 200, 129, Transpose::no, Transpose::no);
    check_threads_bitwise<float>(300, 40, 300, Transpose::yes, Transpose::yes);
    check_threads_bitwise<Half>(130, 200, 129, Transpose::no, Transpose::yes);
    check_threads_bitwise<BFloat16>(130, 200, 129, Transpose::yes, Transpose::no);
    check_threads_bitwise<BFloat16>(600, 20, 301, Transpose::no, Transpose::no);
}

TEST_CASE("fast gemm accumulates f16 and bf16 in f32 and rounds once")
{
    // k ones times k ones is k: summed in f16 the total would stick at 2048, in bf16 at 256.
    const std::int64_t k = 4096;
    if (fast_path_available<Half>()) {
        const std::vector<Half> ones(std::size_t(k), Half(1.0f));
        Half out(0.0f);
        cpu::avx512::gemm<Half>(Transpose::no, Transpose::no, 1, 1, k, 1.0, ones.data(), k, ones.data(), 1, 0.0, &out, 1);
        CHECK(float(out) == 4096.0f);
    } else {
        MESSAGE("skipped f16: no AVX-512/F16C");
    }
    if (fast_path_available<BFloat16>()) {
        const std::vector<BFloat16> ones(std::size_t(k), BFloat16(1.0f));
        BFloat16 out(0.0f);
        cpu::avx512::gemm<BFloat16>(Transpose::no, Transpose::no, 1, 1, k, 1.0, ones.data(), k, ones.data(), 1, 0.0, &out, 1);
        CHECK(float(out) == 4096.0f);
    } else {
        MESSAGE("skipped bf16: no AVX-512 BF16");
    }
}

TEST_CASE("vdpbf16ps treats subnormal bf16 inputs and subnormal products as zero, as gemm_fast.h documents")
{
    if (!fast_path_available<BFloat16>()) {
        MESSAGE("skipped: no AVX-512 BF16");
        return;
    }
    // f32 output would show the difference best, but C has the inputs' dtype: use bf16 C, where
    // the reference keeps these tiny values as bf16 subnormals and the fast path gives exactly 0.
    auto both = [](BFloat16 a, BFloat16 b) {
        BFloat16 fast(1.0f), reference(1.0f);
        cpu::avx512::gemm<BFloat16>(Transpose::no, Transpose::no, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &fast, 1);
        cpu::gemm_reference<BFloat16>(Transpose::no, Transpose::no, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &reference, 1);
        return std::pair<float, float>(float(fast), float(reference));
    };
    const auto [denormal_fast, denormal_reference] = both(BFloat16::from_bits(0x0001), BFloat16(1.0f));  // 2^-133 * 1
    CHECK(denormal_reference == 0x1p-133f);
    CHECK(denormal_fast == 0.0f);  // DAZ: the subnormal input counts as zero
    // 2^-128: a subnormal product (in f32 and in bf16, whose subnormals reach down to 2^-133).
    const auto [product_fast, product_reference] = both(BFloat16(0x1p-64f), BFloat16(0x1p-64f));
    CHECK(product_reference == 0x1p-128f);
    CHECK(product_fast == 0.0f);  // FTZ: the subnormal result is flushed
    const auto [normal_fast, normal_reference] = both(BFloat16(0x1p-63f), BFloat16(0x1p-63f));  // 2^-126: the smallest normal
    CHECK(normal_fast == normal_reference);
}

TEST_CASE("gemm dispatch: fast path only with the CPU features, never for f64, tiny products or TINYAMP_CPU=portable")
{
    const cpu::CpuFeatures portable{};  // what cpu_features() returns under TINYAMP_CPU=portable
    CHECK_FALSE(cpu::gemm_uses_fast_path<float>(256, 256, 256, portable));
    CHECK_FALSE(cpu::gemm_uses_fast_path<Half>(256, 256, 256, portable));
    CHECK_FALSE(cpu::gemm_uses_fast_path<BFloat16>(256, 256, 256, portable));

    cpu::CpuFeatures all;
    all.f16c = all.avx2 = all.fma = all.avx512f = all.avx512bf16 = true;
    CHECK(cpu::gemm_uses_fast_path<float>(256, 256, 256, all));
    CHECK(cpu::gemm_uses_fast_path<Half>(256, 256, 256, all));
    CHECK(cpu::gemm_uses_fast_path<BFloat16>(256, 256, 256, all));
    CHECK_FALSE(cpu::gemm_uses_fast_path<double>(256, 256, 256, all));
    CHECK_FALSE(cpu::gemm_uses_fast_path<float>(2, 2, 2, all));  // too small to repay the packing
    cpu::CpuFeatures no_bf16 = all;
    no_bf16.avx512bf16 = false;
    CHECK(cpu::gemm_uses_fast_path<float>(256, 256, 256, no_bf16));
    CHECK_FALSE(cpu::gemm_uses_fast_path<BFloat16>(256, 256, 256, no_bf16));

    // The dispatcher itself asks cpu_features(), which reads TINYAMP_CPU once: with it set to
    // portable, gemm must give exactly the reference's bits.
    const std::int64_t m = 70, n = 90, k = 80;
    Generator gen(3);
    const Stored<float> a = random_matrix<float>(m, k, gen), b = random_matrix<float>(k, n, gen);
    Stored<float> c = random_matrix<float>(m, n, gen), c_ref = c;
    cpu::gemm<float>(Transpose::no, Transpose::no, m, n, k, 1.0, a.data.data(), a.ld, b.data.data(), b.ld, 0.0, c.data.data(), c.ld);
    cpu::gemm_reference<float>(Transpose::no, Transpose::no, m, n, k, 1.0, a.data.data(), a.ld, b.data.data(), b.ld, 0.0, c_ref.data.data(),
                               c_ref.ld);
    const bool same_bits = std::memcmp(c.data.data(), c_ref.data.data(), c.data.size() * sizeof(float)) == 0;
    if (cpu::cpu_features().str() == "portable") {
        CHECK(same_bits);
    } else {
        MESSAGE("TINYAMP_CPU is not portable here (features: " << cpu::cpu_features().str() << "); fast path in use: "
                                                                << cpu::gemm_uses_fast_path<float>(m, n, k, cpu::cpu_features()));
        CHECK(cpu::gemm_uses_fast_path<float>(m, n, k, cpu::cpu_features()) == cpu::avx512::gemm_supported<float>(cpu::cpu_features()));
    }
}
