// Every fast GEMM tier this CPU has (gemm_fast.h), called by name whatever TINYAMP_CPU says, and
// the amx tier's code on emulated tiles (gemm_amx_tiles.h), which runs on any CPU, against the
// reference GEMM on the same inputs: odd shapes around the tile sizes, every transposition, padded
// leading dimensions, alpha/beta (beta == 0 over NaN garbage), the bias epilogue both ways,
// f32/f16/bf16 inputs with their own or an f32 output, a randomized sweep with a printed seed, the
// same bits as the reference on inputs whose sums are exact, one against two threads bit for bit,
// and what vdpbf16ps and tdpbf16ps do to subnormals and rounding. Tiers the CPU lacks are reported
// as skipped.
#include <doctest/doctest.h>

#include <array>
#include <chrono>
#include <cfenv>
#include <functional>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/gemm_amx_tiles.h"
#include "kernels/cpu/gemm_avx512_kernel.h"
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

constexpr std::array<GemmTier, 4> kFastTiers = {GemmTier::avx2, GemmTier::avx512, GemmTier::avx512_bf16, GemmTier::amx};

// Whether this CPU can run `tier` for In inputs (the avx512_bf16 and amx tiers only change bf16).
template <class In>
bool tier_available(GemmTier tier)
{
    const GemmTier best = cpu::best_gemm_tier<In>(cpu::detect_cpu_features());
    const bool bf16_only = tier == GemmTier::avx512_bf16 || tier == GemmTier::amx;
    if (bf16_only && !std::is_same_v<In, BFloat16>) return false;  // the same as avx512 for f32/f16
    if (tier == GemmTier::avx512_bf16) return best >= tier && cpu::detect_cpu_features().avx512bf16;  // an AMX CPU may lack it
    return best >= tier;
}

// What a tier needs that the CPU may lack, for the skip message.
std::string missing_feature(GemmTier tier)
{
    switch (tier) {
        case GemmTier::avx2: return "AVX2 and FMA";
        case GemmTier::avx512: return "AVX-512F/BW/VL";
        case GemmTier::avx512_bf16: return "AVX-512 BF16";
        case GemmTier::amx: return "AMX-BF16 (" + cpu::amx_unavailable_reason() + ")";
        case GemmTier::portable: break;
    }
    return "nothing";
}

// A GEMM implementation under test: a tier this CPU runs, or (bf16 only) the amx tier's code with
// each tile instruction emulated in C++, which runs anywhere.
struct Impl {
    GemmTier tier;
    bool emulated_tiles = false;
    std::string name() const { return std::string(cpu::gemm_tier_name(tier)) + (emulated_tiles ? " (emulated tiles)" : ""); }

    // Runs the product with gemm's arguments; `threads` as gemm_on_tier takes it (0: as the dispatcher picks).
    template <class In, class Out>
    void run(int threads, Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const In* a,
             std::int64_t lda, const In* b, std::int64_t ldb, double beta, Out* c, std::int64_t ldc, cpu::GemmBias<Out> bias = {}) const
    {
        if (!emulated_tiles) return cpu::gemm_on_tier<In, Out>(tier, threads, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias);
        if constexpr (std::is_same_v<In, BFloat16>) {
            const cpu::GemmProblem<In, Out> problem{ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias};
            cpu::amx::gemm_amx_emulated<Out>(problem, threads == 0 ? cpu::gemm_thread_count(m, n, k) : threads);
        } else {
            FAIL("the emulated tiles take bf16 only");
        }
    }
};

// The implementations this CPU runs for In; the tiers it lacks are reported once.
template <class In>
std::vector<Impl> available_tiers()
{
    std::vector<Impl> impls;
    for (GemmTier tier : kFastTiers) {
        if (tier_available<In>(tier))
            impls.push_back({tier});
        else if ((tier != GemmTier::avx512_bf16 && tier != GemmTier::amx) || std::is_same_v<In, BFloat16>)
            MESSAGE("skipped tier " << std::string(cpu::gemm_tier_name(tier)) << " for " << std::string(dtype_name(dtype_of<In>()))
                                    << ": this CPU (" << cpu::detect_cpu_features().str() << ") lacks " << missing_feature(tier));
    }
    if (std::is_same_v<In, BFloat16>) impls.push_back({GemmTier::amx, true});
    return impls;
}

// One problem on each of `impls` against the reference (computed once), within what two correct
// GEMMs may differ by.
template <class In, class Out>
void check_tiers(const std::vector<Impl>& impls, int threads, const test::GemmCase<In, Out>& g)
{
    const auto reference = g.run([](auto... args) { cpu::gemm_reference<In, Out>(args...); });
    for (const Impl& impl : impls) {
        INFO("tier " << impl.name() << ", threads " << threads);
        const auto fast = g.run([&](auto... args) { impl.run<In, Out>(threads, args...); });
        test::check_gemm_result(g, fast, [&](std::int64_t i, std::int64_t j) { return reference.at(i, j); },
                                test::ulps_between_two_gemms(dtype_of<Out>(), g.k), "reference");
    }
}

template <class In, class Out>
void check_tier(const Impl& impl, int threads, const test::GemmCase<In, Out>& g)
{
    check_tiers({impl}, threads, g);
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
    for (const Impl& tier : available_tiers<In>()) {
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
    for (const Impl& tier : available_tiers<In>())
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
    for (const Impl& tier : available_tiers<In>()) {
        INFO(g.describe() << " tier " << tier.name());
        const auto on = [&](int threads) { return g.run([&](auto... args) { tier.run<In, Out>(threads, args...); }); };
        const auto one = on(1);
        for (int threads : {2, 3}) {
            const auto many = on(threads);
            CAPTURE(threads);
            CHECK(std::memcmp(one.data.data(), many.data.data(), one.data.size() * sizeof(Out)) == 0);
        }
        check_tier(tier, 2, g);  // and the threaded result is right
    }
}

// Small integers: every product and every partial sum is an integer below 2^24, exact in f32
// whatever the order of the additions, so each implementation must give the reference's bits.
template <class In, class Out>
test::GemmCase<In, Out> exact_case(Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, double beta,
                                   std::optional<BiasAlong> bias, std::uint64_t seed)
{
    auto g = test::GemmCase<In, Out>::make(ta, tb, m, n, k, 1.0, beta, bias, seed, 3);
    std::mt19937_64 rng(seed);
    auto small_integer = [&] { return float(int(rng() % 9) - 4); };  // -4 .. 4
    for (In& x : g.a.data) x = In(small_integer());
    for (In& x : g.b.data) x = In(small_integer());
    if (beta != 0.0)
        for (Out& x : g.c.data) x = Out(small_integer());
    for (Out& x : g.bias) x = Out(small_integer());
    return g;
}

template <class In, class Out = In>
void check_exact_bits()
{
    // Odd sizes around the tiles (8, 32, 16-pair steps), k across several blocks (512 values of
    // bf16 per amx and avx512_bf16 block, 256 per f32 block): 16 * 1040 < 2^24, so still exact.
    const std::array<std::array<std::int64_t, 3>, 6> shapes = {{{1, 1, 1}, {33, 31, 17}, {65, 97, 33}, {40, 70, 1040}, {129, 33, 515}, {7, 300, 64}}};
    std::uint64_t seed = 500;
    for (const Impl& impl : available_tiers<In>())
        for (const auto& [m, n, k] : shapes)
            for (Transpose ta : {Transpose::no, Transpose::yes})
                for (Transpose tb : {Transpose::no, Transpose::yes}) {
                    ++seed;
                    const auto g = exact_case<In, Out>(ta, tb, m, n, k, seed % 2 ? 1.0 : 0.0, seed % 3 ? std::optional(BiasAlong::rows) : std::nullopt,
                                                       seed);
                    INFO(g.describe() << " tier " << impl.name());
                    const auto reference = g.run([](auto... args) { cpu::gemm_reference<In, Out>(args...); });
                    const auto fast = g.run([&](auto... args) { impl.run<In, Out>(int(seed % 3), args...); });
                    CHECK(std::memcmp(fast.data.data(), reference.data.data(), fast.data.size() * sizeof(Out)) == 0);
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

TEST_CASE("the bf16 tiers read a row-major op(A) in place: exact bits and the reference's tolerance over strides, k blocks and threads")
{
    // Where op(A) is row-major bf16, k whole kernel steps, the rows whole micro-panels and at most
    // kInPlaceMaxRowBytes apart, the amx kernel's tiles load op(A) straight from the matrix, and
    // the avx512_bf16 kernel broadcasts its pairs from there, instead of from a packed copy. The
    // row stride is lda * 2 bytes, here odd multiples of 2 bytes (lda = k + 5): the pairs are not
    // 4-byte aligned. amx: k a multiple of 32, 32-row panels; m = 160 crosses a row block (128), n
    // = 300 two column blocks; k = 480 is the widest (970-byte rows). k = 1056 (2122-byte rows,
    // three k blocks) packs op(A) again. avx512_bf16 also reads in place where k is even and the
    // rows whole 8-row panels: k = 2 (one pair), 34, 510 (255 pairs, 1030-byte rows: packed
    // again); m = 24 and 136 are not whole 32-row panels.
    const std::array<std::array<std::int64_t, 3>, 9> shapes = {
        {{32, 33, 32}, {64, 70, 64}, {160, 300, 96}, {96, 40, 480}, {32, 40, 1056}, {8, 33, 2}, {24, 40, 34}, {136, 300, 128}, {16, 20, 510}}};
    std::vector<Impl> in_place_impls;
    for (const Impl& impl : available_tiers<BFloat16>())
        if (impl.tier == GemmTier::amx || impl.tier == GemmTier::avx512_bf16) in_place_impls.push_back(impl);
    std::uint64_t seed = 900;
    for (const Impl& impl : in_place_impls)
        for (const auto& [m, n, k] : shapes)
            for (Transpose tb : {Transpose::no, Transpose::yes})
                for (int threads : {1, 2}) {
                    ++seed;
                    const auto exact = exact_case<BFloat16, float>(Transpose::no, tb, m, n, k, 0.0, BiasAlong::rows, seed);
                    INFO(exact.describe() << " tier " << impl.name() << " threads " << threads);
                    const auto reference = exact.run([](auto... args) { cpu::gemm_reference<BFloat16, float>(args...); });
                    const auto fast = exact.run([&](auto... args) { impl.run<BFloat16, float>(threads, args...); });
                    CHECK(std::memcmp(fast.data.data(), reference.data.data(), fast.data.size() * sizeof(float)) == 0);
                    check_tier(impl, threads, test::GemmCase<BFloat16, BFloat16>::make(Transpose::no, tb, m, n, k, 0.5, 1.0, BiasAlong::columns, seed, 5));
                }
}

TEST_CASE("the avx512 f32 tier reads a row-major op(A) in place: the bits of the packed path, over strides, k blocks and threads")
{
    // The same op(A) given row-major (read in place where the rows are whole 8-row panels at most
    // kInPlaceMaxRowBytes apart: lda = k + 5 up to k = 251) and as the transpose of a column-major
    // copy (always packed): the kernel does the same multiply-adds in the same order either way.
    // k = 300 (1220-byte rows) and m = 20 (not whole panels) pack both; m = 240 crosses a block of
    // rows (128). (The avx2 kernel packs: reading in place gained nothing there, measured on the
    // Zen 5 capped to AVX2.)
    const std::array<std::array<std::int64_t, 3>, 8> shapes = {
        {{48, 33, 32}, {96, 70, 64}, {240, 300, 96}, {96, 40, 251}, {48, 40, 300}, {20, 40, 34}, {120, 300, 128}, {24, 33, 1}}};
    std::vector<Impl> in_place_tiers;
    for (const Impl& impl : available_tiers<float>())
        if (impl.tier == GemmTier::avx512) in_place_tiers.push_back(impl);
    std::mt19937 rng(77);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (const Impl& impl : in_place_tiers)
        for (const auto& [m, n, k] : shapes)
            for (int threads : {1, 2}) {
                const std::int64_t lda = k + 5;
                std::vector<float> a(static_cast<std::size_t>(m * lda)), a_t(static_cast<std::size_t>(k * m)), b(static_cast<std::size_t>(k * n));
                for (float& x : a) x = normal(rng);
                for (std::int64_t i = 0; i < m; ++i)
                    for (std::int64_t p = 0; p < k; ++p) a_t[std::size_t(p * m + i)] = a[std::size_t(i * lda + p)];
                for (float& x : b) x = normal(rng);
                std::vector<float> in_place(static_cast<std::size_t>(m * n), 1.0f), packed(static_cast<std::size_t>(m * n), 1.0f);
                INFO("tier " << impl.name() << " m " << m << " n " << n << " k " << k << " threads " << threads);
                for (double beta : {0.0, 0.5}) {
                    impl.run<float, float>(threads, Transpose::no, Transpose::no, m, n, k, 1.0, a.data(), lda, b.data(), n, beta, in_place.data(), n);
                    impl.run<float, float>(threads, Transpose::yes, Transpose::no, m, n, k, 1.0, a_t.data(), m, b.data(), n, beta, packed.data(), n);
                    CHECK(std::memcmp(in_place.data(), packed.data(), in_place.size() * sizeof(float)) == 0);
                }
            }
}

TEST_CASE("a thread keeps its gemm workspace between products, but not a huge one")
{
    const std::vector<Impl> tiers = available_tiers<float>();
    if (tiers.empty()) return;  // available_tiers said why
    const Impl tier = tiers.back();
    auto product = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
        const std::vector<float> a(std::size_t(m * k), 1.0f), b(std::size_t(k * n), 1.0f);
        std::vector<float> c(std::size_t(m * n), -1.0f);
        tier.run<float, float>(1, Transpose::no, Transpose::no, m, n, k, 1.0, a.data(), k, b.data(), n, 0.0, c.data(), n);
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
    // Threads that split the columns share one packed op(A) (blocked::SharedPackA): here in several
    // blocks of rows and of k, edge blocks included, each packed by whichever thread came first.
    check_threads_bitwise<float>(300, 200, 600, Transpose::no, Transpose::no);
    check_threads_bitwise<BFloat16>(300, 200, 601, Transpose::yes, Transpose::no);
}

#if defined(__x86_64__)
// The avx512 kernel with a limit of 320 KiB on op(A) packed whole (16 MiB in the tiers), so that a
// product of a few hundred rows takes the chunked path: op(A)'s rows in chunks of 256 (whole
// blocks of rows, at least a block of columns), each packed once (and shared by the threads),
// op(B) packed again per chunk.
struct ChunkingKernel : cpu::avx512::Kernel<> {
    static constexpr std::int64_t pack_all_of_a_max_bytes = 320 * 1024;
};
// The same limit, without chunks: op(A) packed again for every block of columns.
struct RepackingKernel : ChunkingKernel {
    static constexpr bool chunk_rows_of_large_a = false;
};
#endif

TEST_CASE("an op(A) too large to pack whole, in chunks of rows or packed per block: the same bits on 1, 2 and 3 threads")
{
#if defined(__x86_64__)
    if (!cpu::detect_cpu_features().avx512f) {
        MESSAGE("skipped: this CPU has no AVX-512F, which the chunked path's test kernel (the avx512 tier's) needs");
        return;
    }
    static_assert(cpu::blocked::rows_per_packed_chunk<ChunkingKernel>(700, 600, 300) == 256, "300 f32 per row: 256 rows fit");
    static_assert(cpu::blocked::rows_per_packed_chunk<RepackingKernel>(700, 600, 300) == 0);
    static_assert(cpu::blocked::rows_per_packed_chunk<cpu::avx512::Kernel<>>(700, 600, 300) == 700);
    for (const Transpose ta : {Transpose::no, Transpose::yes}) {
        const auto g = test::GemmCase<float, float>::make(ta, Transpose::no, 700, 600, 300, 1.0, 0.5, BiasAlong::rows, 11, 5);
        auto with = [&](auto kernel, int threads) {
            using K = decltype(kernel);
            return g.run([&](auto trans_a, auto trans_b, auto m, auto n, auto k, auto alpha, auto a, auto lda, auto b, auto ldb,
                             auto beta, auto c, auto ldc, auto bias) {
                cpu::blocked::gemm_blocked<K>(cpu::GemmProblem<float, float>{trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias},
                                      threads);
            });
        };
        const auto whole = with(cpu::avx512::Kernel<>{}, 1);  // op(A) fits 16 MiB: packed whole
        const auto reference = g.run([](auto... args) { cpu::gemm_reference<float, float>(args...); });
        test::check_gemm_result(g, whole, [&](std::int64_t i, std::int64_t j) { return reference.at(i, j); },
                                test::ulps_between_two_gemms(dtype_of<float>(), g.k), "reference");
        for (int threads : {1, 2, 3}) {
            CAPTURE(threads);
            CHECK(with(ChunkingKernel{}, threads).data == whole.data);
            CHECK(with(RepackingKernel{}, threads).data == whole.data);
        }
    }
#endif
}

TEST_CASE("threads sharing a packed op(A): each block is packed by exactly one thread and read only once packed")
{
    // Two threads walk 64 blocks from opposite ends, as two column parts of a product do. A
    // "packing" writes the block's value; a thread that did not pack a block must see the value
    // the packer wrote (under ThreadSanitizer, a missing acquire or release is a data race).
    constexpr int kBlocks = 64;
    std::vector<std::uint32_t> states(kBlocks, cpu::blocked::kBlockNotPacked);
    std::vector<int> values(kBlocks, -1);
    std::array<std::vector<int>, 2> seen, packed;
    auto walk = [&](int thread) {
        for (int step = 0; step < kBlocks; ++step) {
            const int block = thread == 0 ? step : kBlocks - 1 - step;
            if (cpu::blocked::claim_block(states[block])) {
                values[block] = 1000 + block;
                packed[thread].push_back(block);
                cpu::blocked::publish_block(states[block]);
            }
            seen[thread].push_back(values[block]);
        }
    };
    std::thread other(walk, 1);
    walk(0);
    other.join();
    std::vector<int> packers(kBlocks, 0);
    for (int thread : {0, 1}) {
        for (int block : packed[thread]) ++packers[block];
        for (int step = 0; step < kBlocks; ++step) {
            const int block = thread == 0 ? step : kBlocks - 1 - step;
            CHECK(seen[thread][std::size_t(step)] == 1000 + block);
        }
    }
    for (int block = 0; block < kBlocks; ++block) CHECK(packers[std::size_t(block)] == 1);
    for (std::uint32_t state : states) CHECK(state == cpu::blocked::kBlockPacked);
    // A block already packed is not claimed again.
    CHECK_FALSE(cpu::blocked::claim_block(states[0]));

    // A packer slower than the waiter's spin (as when the system deschedules it): the waiter
    // goes on waiting, yielding its core, and sees the value once the block is published.
    std::uint32_t state = cpu::blocked::kBlockNotPacked;
    int value = -1;
    REQUIRE(cpu::blocked::claim_block(state));
    bool waiter_claimed = true;
    int waiter_saw = -1;
    std::thread waiter([&] {
        waiter_claimed = cpu::blocked::claim_block(state);
        waiter_saw = value;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    value = 42;
    cpu::blocked::publish_block(state);
    waiter.join();
    CHECK_FALSE(waiter_claimed);
    CHECK(waiter_saw == 42);
}

TEST_CASE("every fast gemm tier accumulates f16 and bf16 in f32 and rounds once, bias included")
{
    // k ones times k ones is k: summed in f16 the total would stick at 2048, in bf16 at 256.
    const std::int64_t k = 4096;
    const std::vector<Half> ones_h(std::size_t(k), Half(1.0f));
    for (const Impl& tier : available_tiers<Half>()) {
        Half out(0.0f);
        tier.run<Half, Half>(1, Transpose::no, Transpose::no, 1, 1, k, 1.0, ones_h.data(), k, ones_h.data(), 1, 0.0, &out, 1);
        CHECK_MESSAGE(float(out) == 4096.0f, tier.name());
    }
    const std::vector<BFloat16> ones_b(std::size_t(k), BFloat16(1.0f));
    // bf16 keeps 8 significant bits. 1 + 2^-8 is halfway between 1 and 1 + 2^-7: rounded to bf16
    // before the bias 2^-8 is added, it would become 1 and stay 1; rounded once, sum + bias is
    // exactly 1 + 2^-7.
    const std::vector<BFloat16> a = {BFloat16(1.0f), BFloat16(0x1p-8f)}, b = {BFloat16(1.0f), BFloat16(1.0f)};
    const BFloat16 bias(0x1p-8f);
    for (const Impl& tier : available_tiers<BFloat16>()) {
        BFloat16 out(0.0f);
        tier.run<BFloat16, BFloat16>(1, Transpose::no, Transpose::no, 1, 1, k, 1.0, ones_b.data(), k, ones_b.data(), 1, 0.0, &out, 1);
        CHECK_MESSAGE(float(out) == 4096.0f, tier.name());
        tier.run<BFloat16, BFloat16>(1, Transpose::no, Transpose::no, 1, 1, 2, 1.0, a.data(), 2, b.data(), 1, 0.0, &out, 1,
                                     {&bias, BiasAlong::rows});
        CHECK_MESSAGE(float(out) == 1.0f + 0x1p-7f, tier.name());
    }
}

TEST_CASE("vdpbf16ps and tdpbf16ps read subnormal bf16 as zero, flush subnormal results and round to nearest even whatever MXCSR says")
{
    std::vector<Impl> flushing;  // the implementations whose bf16 instruction flushes: avx512_bf16 and amx, real or emulated
    for (const Impl& impl : available_tiers<BFloat16>())
        if (impl.tier == GemmTier::avx512_bf16 || impl.tier == GemmTier::amx) flushing.push_back(impl);
    for (const Impl& impl : flushing) {
        INFO("tier " << impl.name());
        // An f32 output shows the raw f32 sums: no rounding into bf16 hides anything.
        auto both = [&](std::vector<BFloat16> a, std::vector<BFloat16> b) {
            const std::int64_t k = std::int64_t(a.size());
            float fast = 1.0f, reference = 1.0f;
            impl.run<BFloat16, float>(1, Transpose::no, Transpose::no, 1, 1, k, 1.0, a.data(), k, b.data(), 1, 0.0, &fast, 1);
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

        // 1 * 1 + 2^-15 * 2^-15 = 1 + 2^-30: below half an f32 ulp of 1 (2^-24), so to nearest it is
        // 1. Rounding upward (MXCSR.RC, set by fesetround) makes the reference's f32 addition give
        // the next float, 1 + 2^-23; the bf16 instructions ignore MXCSR and still round to nearest.
        const std::vector<BFloat16> a = {BFloat16(1.0f), BFloat16(0x1p-15f)};
        const int previous = std::fegetround();
        REQUIRE(std::fesetround(FE_UPWARD) == 0);
        const auto [upward_fast, upward_reference] = both(a, a);
        std::fesetround(previous);
        CHECK(upward_reference == 1.0f + 0x1p-23f);  // the rounding mode was in effect
        CHECK(upward_fast == 1.0f);
    }
}

TEST_CASE("every fast gemm tier gives the reference's bits when every product and sum is exact")
{
    SUBCASE("f32") { check_exact_bits<float>(); }
    SUBCASE("f16") { check_exact_bits<Half>(); }
    SUBCASE("bf16") { check_exact_bits<BFloat16>(); }
    SUBCASE("bf16 -> f32") { check_exact_bits<BFloat16, float>(); }
}

TEST_CASE("pack_bf16_tile_rows lays out op(A) as AMX tile rows: 16 pairs of one row, zeros past k and past the rows")
{
    // op(A) is 3 x 5: element (i, s) = 10 i + s + 1, stored as is and transposed.
    std::vector<BFloat16> stored(3 * 5), transposed(5 * 3);
    for (int i = 0; i < 3; ++i)
        for (int s = 0; s < 5; ++s) {
            stored[std::size_t(i * 5 + s)] = BFloat16(float(10 * i + s + 1));
            transposed[std::size_t(s * 3 + i)] = BFloat16(float(10 * i + s + 1));
        }
    auto pair = [](float lo, float hi) { return std::uint32_t(BFloat16(lo).bits) | std::uint32_t(BFloat16(hi).bits) << 16; };
    const std::int64_t width = 4, units = 32;  // 2 groups of 16 pairs, rows padded to 4
    for (bool is_transposed : {false, true}) {
        INFO("transposed " << is_transposed);
        std::vector<std::uint32_t> panel(std::size_t(width * units), 0xDEADBEEFu);
        const cpu::blocked::View<BFloat16> view{is_transposed ? transposed.data() : stored.data(), is_transposed ? 3 : 5, is_transposed};
        cpu::blocked::pack_bf16_tile_rows(view, 0, 3, 5, units, width, panel.data());
        auto at = [&](std::int64_t r, std::int64_t p) { return panel[std::size_t((p / 16) * width * 16 + r * 16 + p % 16)]; };
        for (int r = 0; r < 3; ++r) {
            const float base = float(10 * r + 1);
            CHECK(at(r, 0) == pair(base, base + 1));
            CHECK(at(r, 1) == pair(base + 2, base + 3));
            CHECK(at(r, 2) == pair(base + 4, 0.0f));  // k = 5: the last step pairs with a zero
            for (std::int64_t p = 3; p < units; ++p) CHECK(at(r, p) == 0u);
        }
        for (std::int64_t p = 0; p < units; ++p) CHECK(at(3, p) == 0u);  // the missing fourth row
        // Tile row r of group 0 is 64 contiguous bytes: row 1's pairs follow row 0's 16.
        CHECK(panel[16] == pair(11.0f, 12.0f));
    }
}

TEST_CASE("the emulated tiles do what tdpbf16ps does, and refuse what the CPU would fault on")
{
    using Tiles = cpu::amx::EmulatedTiles;
    CHECK_THROWS_WITH_AS(Tiles::zero<0>(), doctest::Contains("before ldtilecfg"), std::logic_error);
    cpu::amx::TileConfig config;
    for (int t = 0; t < 3; ++t) config.rows[t] = 2;  // C 2 x 2 f32, A 2 rows x 1 pair, B 1 row x 2 pairs
    config.bytes_per_row[0] = 8;
    config.bytes_per_row[1] = 4;
    config.bytes_per_row[2] = 8;
    config.rows[2] = 1;
    Tiles::configure(config);
    // A = [[1, 2], [3, 4]] (each row one pair), B = [[5, 6], [7, 8]] in pairs (B[0][n], B[1][n]).
    const std::array<BFloat16, 4> a = {BFloat16(1.0f), BFloat16(2.0f), BFloat16(3.0f), BFloat16(4.0f)};
    const std::array<BFloat16, 4> b = {BFloat16(5.0f), BFloat16(7.0f), BFloat16(6.0f), BFloat16(8.0f)};
    std::array<float, 4> c = {100.0f, 200.0f, 300.0f, 400.0f};
    Tiles::load<0>(c.data(), 8);
    Tiles::load<1>(a.data(), 4);
    Tiles::load<2>(b.data(), 8);
    Tiles::dpbf16ps<0, 1, 2>();
    Tiles::store<0>(c.data(), 8);
    CHECK(c == std::array<float, 4>{100.0f + 19.0f, 200.0f + 22.0f, 300.0f + 43.0f, 400.0f + 50.0f});  // C + A B
    config.rows[2] = 2;  // B now has 2 rows of pairs where A has 1 pair a row: the shapes do not fit
    Tiles::configure(config);
    CHECK_THROWS_WITH_AS((Tiles::dpbf16ps<0, 1, 2>()), doctest::Contains("shapes do not fit"), std::logic_error);
    Tiles::release();
    CHECK_THROWS_AS(Tiles::load<0>(c.data(), 8), std::logic_error);
}

TEST_CASE("on a CPU with AMX, the hardware tiles and their emulation agree")
{
    if (!cpu::detect_cpu_features().amx_bf16) {
        MESSAGE("skipped: no AMX on this CPU (" << cpu::amx_unavailable_reason() << ")");
        return;
    }
    // Within what two correct GEMMs may differ by; the bits too, if the emulation sums in the
    // hardware's order (the Intel SDM's pseudo-code), which this reports.
    const auto g = test::GemmCase<BFloat16, float>::make(Transpose::no, Transpose::yes, 77, 150, 700, 1.0, 0.0, std::nullopt, 77, 3);
    const auto hardware = g.run([](auto... args) { Impl{GemmTier::amx}.run<BFloat16, float>(1, args...); });
    const auto emulated = g.run([](auto... args) { Impl{GemmTier::amx, true}.run<BFloat16, float>(1, args...); });
    test::check_gemm_result(g, hardware, [&](std::int64_t i, std::int64_t j) { return emulated.at(i, j); },
                            test::ulps_between_two_gemms(DType::f32, g.k), "emulated tiles");
    const bool same_bits = std::memcmp(hardware.data.data(), emulated.data.data(), hardware.data.size() * sizeof(float)) == 0;
    MESSAGE("AMX hardware and emulation give " << (same_bits ? "the same bits" : "different last bits (another summation order)"));
}
