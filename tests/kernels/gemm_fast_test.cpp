// Every fast GEMM tier this CPU has (gemm_fast.h), called by name whatever TINYAMP_CPU says,
// against the reference GEMM on the same inputs: odd shapes around the tile sizes, every
// transposition, padded leading dimensions, alpha/beta (beta == 0 over NaN garbage), the bias
// epilogue both ways, f32/f16/bf16 inputs with their own or an f32 output, a randomized sweep with
// a printed seed, one against two threads bit for bit, and what vdpbf16ps does to subnormals and
// rounding. Tiers the CPU lacks are reported as skipped.
#include <doctest/doctest.h>

#include <array>
#include <cfenv>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/gemm_blocked.h"
#include "kernels/cpu/gemm_fast.h"
#include "tests/support/gemm_matrices.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using kernels::cpu::BiasAlong;
using kernels::cpu::GemmTier;
using kernels::cpu::Transpose;
namespace cpu = kernels::cpu;

namespace {

constexpr std::array<GemmTier, 3> kFastTiers = {GemmTier::avx2, GemmTier::avx512, GemmTier::avx512_bf16};

// Whether this CPU can run `tier` for In inputs (the avx512_bf16 tier only changes bf16).
template <class In>
bool tier_available(GemmTier tier)
{
    const GemmTier best = cpu::best_gemm_tier<In>(cpu::detect_cpu_features());
    if (tier == GemmTier::avx512_bf16 && !std::is_same_v<In, BFloat16>) return false;  // the same as avx512 for f32/f16
    return best >= tier;
}

// The tiers of `kFastTiers` this CPU has for In; the rest are reported once.
template <class In>
std::vector<GemmTier> available_tiers()
{
    std::vector<GemmTier> tiers;
    for (GemmTier tier : kFastTiers) {
        if (tier_available<In>(tier))
            tiers.push_back(tier);
        else if (tier != GemmTier::avx512_bf16 || std::is_same_v<In, BFloat16>)
            MESSAGE("skipped tier " << std::string(cpu::gemm_tier_name(tier)) << " for " << std::string(dtype_name(dtype_of<In>()))
                                    << ": this CPU (" << cpu::detect_cpu_features().str() << ") lacks its instructions");
    }
    return tiers;
}

// One problem on each of `tiers` against the reference (computed once), within what two correct
// GEMMs may differ by.
template <class In, class Out>
void check_tiers(const std::vector<GemmTier>& tiers, int threads, const test::GemmCase<In, Out>& g)
{
    const auto reference = g.run([](auto... args) { cpu::gemm_reference<In, Out>(args...); });
    for (GemmTier tier : tiers) {
        INFO("tier " << std::string(cpu::gemm_tier_name(tier)) << ", threads " << threads);
        const auto fast = g.run([&](auto... args) { cpu::gemm_on_tier<In, Out>(tier, threads, args...); });
        test::check_gemm_result(g, fast, [&](std::int64_t i, std::int64_t j) { return reference.at(i, j); },
                                test::ulps_between_two_gemms(dtype_of<Out>(), g.k), "reference");
    }
}

template <class In, class Out>
void check_tier(GemmTier tier, int threads, const test::GemmCase<In, Out>& g)
{
    check_tiers({tier}, threads, g);
}

// Shapes from {1, 7, 15, 16, 17, 63, 64, 65, 257}^3: a fixed sample of the 729 combinations
// (every 7th, which reaches each size in each position), each with all four transpositions, and
// alpha/beta and the bias varied along the sample.
template <class In, class Out = In>
void check_odd_shapes()
{
    const std::array<std::int64_t, 9> sizes = {1, 7, 15, 16, 17, 63, 64, 65, 257};
    const std::array<std::array<double, 2>, 4> alpha_beta = {{{1.0, 0.0}, {0.5, -1.5}, {-2.0, 1.0}, {1.0, 0.0}}};
    const std::array<std::optional<BiasAlong>, 3> biases = {std::nullopt, BiasAlong::rows, BiasAlong::columns};
    for (GemmTier tier : available_tiers<In>()) {
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
                            const auto g = test::GemmCase<In, Out>::make(ta, tb, m, n, k, alpha, beta, biases[seed % 3], seed, 5);
                            check_tier(tier, int(seed % 3), g);  // threads: as the dispatcher picks, 1 or 2
                        }
                }
        // Empty sums: C = beta C + bias, and empty C (nothing written).
        for (const auto& [m, n, k] : {std::array<std::int64_t, 3>{9, 33, 0}, {0, 5, 5}, {5, 0, 5}}) {
            const auto g = test::GemmCase<In, Out>::make(Transpose::no, Transpose::yes, m, n, k, 1.0, 0.5, BiasAlong::rows, ++seed, 5);
            check_tier(tier, 2, g);
        }
    }
}

// The seed of the randomized sweep: TINYAMP_TEST_SEED to rerun a failure, else a fresh one.
std::uint64_t sweep_seed()
{
    if (const char* env = std::getenv("TINYAMP_TEST_SEED")) return std::strtoull(env, nullptr, 10);
    return std::random_device{}();
}

template <class In, class Out = In>
void check_random_sweep(int cases)
{
    const std::uint64_t seed = sweep_seed();
    MESSAGE("random gemm sweep " << std::string(dtype_name(dtype_of<In>())) << " -> " << std::string(dtype_name(dtype_of<Out>()))
                                 << " seed " << seed << " (rerun with TINYAMP_TEST_SEED=" << seed << ")");
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    auto size = [&] { return std::int64_t(1 + rng() % 300); };
    for (GemmTier tier : available_tiers<In>())
        for (int i = 0; i < cases; ++i) {
            const std::int64_t m = size(), n = size(), k = size();
            const Transpose ta = rng() % 2 ? Transpose::yes : Transpose::no, tb = rng() % 2 ? Transpose::yes : Transpose::no;
            const double alpha = double(int(rng() % 7) - 3) / 2.0, beta = double(int(rng() % 5) - 2) / 2.0;
            const std::array<std::optional<BiasAlong>, 3> biases = {std::nullopt, BiasAlong::rows, BiasAlong::columns};
            const auto bias = biases[rng() % 3];
            const int threads = 1 + int(rng() % 2);
            check_tier(tier, threads, test::GemmCase<In, Out>::make(ta, tb, m, n, k, alpha, beta, bias, rng(), 5));
        }
}

// Splitting C between threads must give exactly the one-thread bits: each element of C is
// computed by one thread, over the same blocks of k in the same order.
template <class In, class Out = In>
void check_threads_bitwise(std::int64_t m, std::int64_t n, std::int64_t k, Transpose ta, Transpose tb)
{
    const auto g = test::GemmCase<In, Out>::make(ta, tb, m, n, k, 1.0, 0.5, BiasAlong::rows, 7, 5);
    for (GemmTier tier : available_tiers<In>()) {
        INFO(g.describe() << " tier " << std::string(cpu::gemm_tier_name(tier)));
        const auto on = [&](int threads) { return g.run([&](auto... args) { cpu::gemm_on_tier<In, Out>(tier, threads, args...); }); };
        const auto one = on(1);
        for (int threads : {2, 3}) {
            const auto many = on(threads);
            CAPTURE(threads);
            CHECK(std::memcmp(one.data.data(), many.data.data(), one.data.size() * sizeof(Out)) == 0);
        }
        check_tier(tier, 2, g);  // and the threaded result is right
    }
}

}  // namespace

TEST_CASE("every fast gemm tier matches the reference over odd shapes, transpositions, strides, alpha/beta and a bias")
{
    SUBCASE("f32") { check_odd_shapes<float>(); }
    SUBCASE("f16") { check_odd_shapes<Half>(); }
    SUBCASE("bf16") { check_odd_shapes<BFloat16>(); }
}

TEST_CASE("every fast gemm tier matches the reference with f16 and bf16 inputs and an f32 output")
{
    SUBCASE("f16 -> f32") { check_odd_shapes<Half, float>(); }
    SUBCASE("bf16 -> f32") { check_odd_shapes<BFloat16, float>(); }
}

TEST_CASE("every fast gemm tier matches the reference on a randomized sweep with a printed seed")
{
    SUBCASE("f32") { check_random_sweep<float>(10); }
    SUBCASE("f16") { check_random_sweep<Half>(10); }
    SUBCASE("bf16") { check_random_sweep<BFloat16>(10); }
    SUBCASE("bf16 -> f32") { check_random_sweep<BFloat16, float>(6); }
}

TEST_CASE("every fast gemm tier matches the reference across several blocks of k, rows and columns")
{
    // The packed buffers hold one k block after another (gemm_blocked.h): k = 515 is three f32
    // blocks of 256 (the last one 3 steps) and two bf16 blocks of 256 pairs (the last one 2 pairs,
    // its second half padded). m = 140 and n = 300 cross the row blocks (128) and the column blocks
    // (256), so op(A) is packed once for both column blocks. One thread, so that one range sees
    // all of it. Neither and both operands transposed: between them, every packing path of op(A)
    // and op(B). (Sizes kept small: the check runs in the sanitizer builds too.)
    for (Transpose t : {Transpose::no, Transpose::yes}) {
        const std::uint64_t seed = 40 + std::uint64_t(t == Transpose::yes);
        check_tiers(available_tiers<float>(), 1, test::GemmCase<float, float>::make(t, t, 140, 300, 515, 1.0, 0.0, std::nullopt, seed, 5));
        check_tiers(available_tiers<BFloat16>(), 1,
                    test::GemmCase<BFloat16, float>::make(t, t, 140, 300, 515, 0.5, 1.0, BiasAlong::rows, seed, 5));
    }
    // Many rows and a short k, op(A) transposed and f16: packing all of op(A) at once widens a
    // whole column of it (4100 values) at a time, which must fit the scratch buffer (ASan checks).
    check_tiers(available_tiers<Half>(), 1, test::GemmCase<Half, Half>::make(Transpose::yes, Transpose::no, 4100, 300, 8, 1.0, 0.0, std::nullopt, 50, 5));
}

TEST_CASE("a thread keeps its gemm workspace between products, but not a huge one")
{
    const std::vector<GemmTier> tiers = available_tiers<float>();
    if (tiers.empty()) return;  // available_tiers said why
    const GemmTier tier = tiers.back();
    auto product = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
        const std::vector<float> a(std::size_t(m * k), 1.0f), b(std::size_t(k * n), 1.0f);
        std::vector<float> c(std::size_t(m * n), -1.0f);
        cpu::gemm_on_tier<float, float>(tier, 1, Transpose::no, Transpose::no, m, n, k, 1.0, a.data(), k, b.data(), n, 0.0, c.data(), n);
        for (float value : c) REQUIRE(value == float(k));  // a sum of k ones, exact in f32
    };
    product(64, 300, 64);
    const std::size_t kept = cpu::blocked::thread_workspace_capacity();
    CHECK(kept > 0);
    CHECK(kept <= cpu::blocked::kWorkspaceKeepBytes);
    product(64, 300, 64);  // the same sizes again: the same workspace, nothing new
    CHECK(cpu::blocked::thread_workspace_capacity() == kept);
    // The packed op(B) alone (one block of 256 columns) is 256 x 80000 f32 = 82 MB, over the
    // 64 MiB kept: freed at the end.
    product(1, 256, 80000);
    CHECK(cpu::blocked::thread_workspace_capacity() == 0);
}

TEST_CASE("every fast gemm tier gives the same bits on one, two and three threads")
{
    // A wide C splits its columns, a narrow one its rows.
    check_threads_bitwise<float>(130, 200, 129, Transpose::no, Transpose::no);
    check_threads_bitwise<float>(300, 20, 300, Transpose::yes, Transpose::yes);
    check_threads_bitwise<Half>(130, 200, 129, Transpose::no, Transpose::yes);
    check_threads_bitwise<BFloat16>(130, 200, 129, Transpose::yes, Transpose::no);
    check_threads_bitwise<BFloat16, float>(600, 10, 301, Transpose::no, Transpose::no);
}

TEST_CASE("every fast gemm tier accumulates f16 and bf16 in f32 and rounds once, bias included")
{
    // k ones times k ones is k: summed in f16 the total would stick at 2048, in bf16 at 256.
    const std::int64_t k = 4096;
    const std::vector<Half> ones_h(std::size_t(k), Half(1.0f));
    for (GemmTier tier : available_tiers<Half>()) {
        Half out(0.0f);
        cpu::gemm_on_tier<Half, Half>(tier, 1, Transpose::no, Transpose::no, 1, 1, k, 1.0, ones_h.data(), k, ones_h.data(), 1, 0.0, &out,
                                      1);
        CHECK_MESSAGE(float(out) == 4096.0f, std::string(cpu::gemm_tier_name(tier)));
    }
    const std::vector<BFloat16> ones_b(std::size_t(k), BFloat16(1.0f));
    // bf16 keeps 8 significant bits. 1 + 2^-8 is halfway between 1 and 1 + 2^-7: rounded to bf16
    // before the bias 2^-8 is added, it would become 1 and stay 1; rounded once, sum + bias is
    // exactly 1 + 2^-7.
    const std::vector<BFloat16> a = {BFloat16(1.0f), BFloat16(0x1p-8f)}, b = {BFloat16(1.0f), BFloat16(1.0f)};
    const BFloat16 bias(0x1p-8f);
    for (GemmTier tier : available_tiers<BFloat16>()) {
        BFloat16 out(0.0f);
        cpu::gemm_on_tier<BFloat16, BFloat16>(tier, 1, Transpose::no, Transpose::no, 1, 1, k, 1.0, ones_b.data(), k, ones_b.data(), 1, 0.0,
                                              &out, 1);
        CHECK_MESSAGE(float(out) == 4096.0f, std::string(cpu::gemm_tier_name(tier)));
        cpu::gemm_on_tier<BFloat16, BFloat16>(tier, 1, Transpose::no, Transpose::no, 1, 1, 2, 1.0, a.data(), 2, b.data(), 1, 0.0, &out, 1,
                                              {&bias, BiasAlong::rows});
        CHECK_MESSAGE(float(out) == 1.0f + 0x1p-7f, std::string(cpu::gemm_tier_name(tier)));
    }
}

TEST_CASE("vdpbf16ps reads subnormal bf16 as zero, flushes subnormal results and rounds to nearest even whatever MXCSR says")
{
    if (!tier_available<BFloat16>(GemmTier::avx512_bf16)) {
        MESSAGE("skipped: no AVX-512 BF16 on this CPU (" << cpu::detect_cpu_features().str() << ")");
        return;
    }
    // An f32 output shows the raw f32 sums: no rounding into bf16 hides anything.
    auto both = [](std::vector<BFloat16> a, std::vector<BFloat16> b) {
        const std::int64_t k = std::int64_t(a.size());
        float fast = 1.0f, reference = 1.0f;
        cpu::gemm_on_tier<BFloat16, float>(GemmTier::avx512_bf16, 1, Transpose::no, Transpose::no, 1, 1, k, 1.0, a.data(), k, b.data(), 1,
                                           0.0, &fast, 1);
        cpu::gemm_reference<BFloat16, float>(Transpose::no, Transpose::no, 1, 1, k, 1.0, a.data(), k, b.data(), 1, 0.0, &reference, 1);
        return std::pair<float, float>(fast, reference);
    };
    const auto [denormal_fast, denormal_reference] = both({BFloat16::from_bits(0x0001)}, {BFloat16(1.0f)});  // 2^-133 * 1
    CHECK(denormal_reference == 0x1p-133f);
    CHECK(denormal_fast == 0.0f);  // DAZ: the subnormal input counts as zero
    const auto [product_fast, product_reference] = both({BFloat16(0x1p-64f)}, {BFloat16(0x1p-64f)});  // 2^-128: a subnormal f32
    CHECK(product_reference == 0x1p-128f);
    CHECK(product_fast == 0.0f);  // FTZ: the subnormal result is flushed
    const auto [normal_fast, normal_reference] = both({BFloat16(0x1p-63f)}, {BFloat16(0x1p-63f)});  // 2^-126: the smallest normal
    CHECK(normal_fast == normal_reference);

    // 1 * 1 + 2^-15 * 2^-15 = 1 + 2^-30: below half an f32 ulp of 1 (2^-24), so to nearest it is 1.
    // Rounding upward (MXCSR.RC, set by fesetround) makes the reference's f32 addition give the
    // next float, 1 + 2^-23; vdpbf16ps ignores MXCSR and still rounds to nearest.
    const std::vector<BFloat16> a = {BFloat16(1.0f), BFloat16(0x1p-15f)};
    const int previous = std::fegetround();
    REQUIRE(std::fesetround(FE_UPWARD) == 0);
    const auto [upward_fast, upward_reference] = both(a, a);
    std::fesetround(previous);
    CHECK(upward_reference == 1.0f + 0x1p-23f);  // the rounding mode was in effect
    CHECK(upward_fast == 1.0f);
}
