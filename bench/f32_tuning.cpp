// tinyamp-f32-tuning: times the avx512 tier's micro-kernel (kernels/cpu/gemm_avx512_kernel.h)
// under other register tiles, cache blockings, loop orders and prefetches than the tier's (and as
// it was before its threads shared the packed op(A), and before an op(A) too large to pack whole
// went in chunks of rows), against
// the tier itself and OpenBLAS sgemm, in one run: the evidence behind the tier's choice
// (docs/kernels.md, "The f32 tier on a Xeon"). Square f32 products C = A B, row-major.
//
// Each variant first computes one product and must give the tier's bits (a blocking or a tile
// changes which block computes an element, never the order of its sums). Then the candidates are
// timed in turn, `--reps` times over (default 5), each repetition timing every candidate once
// (tuning_harness.h); the table shows medians and every repetition. --rounds R times one product
// of each candidate per round instead, and takes each ratio within a round: the way to compare
// candidates on a VM whose speed changes.
//
//   tinyamp-f32-tuning [--sizes 256,512,1024] [--threads 1,2] [--reps 5 | --rounds 100]
//   tinyamp-f32-tuning --check   only the bit check, over odd and multi-block sizes (exit 1 on a difference)
//   tinyamp-f32-tuning --phases  where the tier's time goes, per thread: its kernel calls against
//                                the rest (packing, epilogue); --reps rounds (gemm_phases.h)
// Without AVX-512F it says so and exits 77.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench/gemm_inputs.h"
#include "bench/gemm_peers.h"
#include "bench/gemm_phases.h"
#include "bench/tuning_harness.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/gemm_avx512_kernel.h"
#include "kernels/cpu/gemm_blocked.h"
#include "kernels/cpu/gemm_fast.h"

namespace {

using namespace tinyamp;
using namespace tinyamp::kernels::cpu;
using Problem = GemmProblem<float, float>;
using GemmFn = void (*)(const Problem&, int threads);
using avx512::Prefetch;

struct Variant {
    std::string name;
    GemmFn gemm;
};

template <std::int64_t MR, std::int64_t MC, std::int64_t NC, std::int64_t KC, bool RowsOuter, Prefetch Ahead>
Variant variant()
{
    char name[64];
    const char* prefetch = Ahead == Prefetch::none              ? ", no prefetch"
                           : Ahead == Prefetch::next_b          ? ", next B"
                           : Ahead == Prefetch::next_a_per_line ? ", A per line"
                           : Ahead == Prefetch::next_a_b_to_l2  ? ", A per line, B to L2"
                                                                : "";
    std::snprintf(name, sizeof name, "%lldx32 %lld/%lld/%lld %s%s", (long long)MR, (long long)MC, (long long)NC, (long long)KC,
                  RowsOuter ? "A outer" : "B outer", prefetch);
    return {name, [](const Problem& problem, int threads) {
                blocked::gemm_blocked<avx512::Kernel<MR, MC, NC, KC, RowsOuter, Ahead>>(problem, threads);
            }};
}

/// The tier as it was before its threads shared the packed op(A) (SharedPackA, gemm_blocked.h).
struct TierPackingItsOwnA : avx512::Kernel<> {
    static constexpr bool share_packed_a = false;
};

/// The tier as it was before an op(A) too large to pack whole went in chunks of rows.
struct TierRepackingLargeA : avx512::Kernel<> {
    static constexpr bool chunk_rows_of_large_a = false;
};

/// MR x 32 register tile; MC / NC / KC; which micro-panel stays in L1 ("B outer": one B
/// micro-panel while A's stream, the tier's order); the prefetch (the tier's: the next A micro-panel).
std::vector<Variant> variants()
{
    constexpr bool a_outer = true, b_outer = false;
    return {variant<8, 128, 256, 256, b_outer, Prefetch::none>(),
            variant<8, 128, 256, 256, b_outer, Prefetch::next_a_per_line>(),
            variant<8, 128, 256, 256, b_outer, Prefetch::next_a_b_to_l2>(),
            variant<8, 256, 256, 256, b_outer, Prefetch::next_a>(),
            variant<8, 128, 512, 256, b_outer, Prefetch::next_a>(),
            variant<8, 128, 256, 512, b_outer, Prefetch::next_a>(),
            variant<8, 128, 256, 192, b_outer, Prefetch::next_a_per_line>(),
            variant<8, 128, 256, 256, a_outer, Prefetch::next_b>(),
            variant<12, 120, 256, 256, b_outer, Prefetch::next_a>(),
            variant<14, 224, 512, 384, b_outer, Prefetch::next_a>(),
            variant<8, 256, 256, 192, b_outer, Prefetch::next_a>(),
            {"the tier, each thread packs all of op(A)",
             [](const Problem& problem, int threads) { blocked::gemm_blocked<TierPackingItsOwnA>(problem, threads); }},
            {"the tier, a large op(A) packed per block of columns",
             [](const Problem& problem, int threads) { blocked::gemm_blocked<TierRepackingLargeA>(problem, threads); }}};
}

Problem square_product(const bench::GemmInputs& in, float* c)
{
    const std::int64_t n = in.n;
    return {Transpose::no, Transpose::no, n, n, n, 1.0, in.a.data(), n, in.b.data(), n, 0.0, c, n, {}};
}

/// Every variant's bits against the tier's; prints each difference.
int count_differences(const bench::GemmInputs& in, int threads)
{
    std::vector<float> expected(in.n * in.n), got(in.n * in.n);
    avx512::gemm_avx512<float, float>(square_product(in, expected.data()), threads);
    int differences = 0;
    for (const Variant& v : variants()) {
        std::fill(got.begin(), got.end(), 0.0f);
        v.gemm(square_product(in, got.data()), threads);
        if (std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) != 0) {
            std::printf("DIFFERENT: %s at N = %lld, %d threads\n", v.name.c_str(), (long long)in.n, threads);
            ++differences;
        }
    }
    return differences;
}

int check_bits()
{
    int differences = 0;
    // 100: edge tiles in every direction; 600: two or three k blocks, edge blocks of MC and NC.
    for (const std::int64_t n : {100, 600})
        for (int threads : {1, 2}) differences += count_differences(bench::make_gemm_inputs(n, n, n), threads);
    std::printf("%d variants x 4 products: %d differences from the tier\n", int(variants().size()), differences);
    return differences == 0 ? 0 : 1;
}

void time_one_size(std::int64_t n, int threads, const bench::tuning::Options& options)
{
    const bench::GemmInputs in = bench::make_gemm_inputs(n, n, n);
    if (count_differences(in, threads) != 0) std::exit(1);
    std::vector<float> c(n * n);
    bench::openblas_set_threads(threads);
    std::vector<bench::tuning::Candidate> candidates{
        {"OpenBLAS sgemm", [&] { bench::openblas_sgemm(n, n, n, in.a.data(), in.b.data(), c.data()); }},
        {"the tier (8x32 128/256/256)", [&] { avx512::gemm_avx512<float, float>(square_product(in, c.data()), threads); }}};
    for (const Variant& v : variants()) candidates.push_back({v.name, [&, gemm = v.gemm] { gemm(square_product(in, c.data()), threads); }});
    bench::tuning::time_candidates(n, threads, options, candidates, [threads] {
        if (threads > 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));  // OpenBLAS's threads stop spinning
    });
}

using Timed = bench::phases::Timed<avx512::Kernel<>>;
static_assert(blocked::reads_a_in_place<Timed>, "the f32 kernel reads a row-major op(A) in place: so must its timed twin");

void print_phases(std::int64_t n, int threads, const bench::tuning::Options& options)
{
    const int rounds = options.reps;
    const bench::GemmInputs in = bench::make_gemm_inputs(n, n, n);
    std::vector<float> c(n * n);
    bench::openblas_set_threads(threads);
    bench::phases::print_phases(
        "OpenBLAS", n, threads, rounds, [&] { bench::openblas_sgemm(n, n, n, in.a.data(), in.b.data(), c.data()); },
        [&] { blocked::gemm_blocked<Timed>(square_product(in, c.data()), threads); });
}

}  // namespace

int main(int argc, char** argv)
{
    bench::tuning::Options options;
    if (!bench::tuning::parse_options(argc, argv, "tinyamp-f32-tuning", options)) return 2;
    if (!detect_cpu_features().avx512f) {
        std::printf("tinyamp-f32-tuning: this CPU has no AVX-512F, so no avx512 tier to tune; nothing to do.\n");
        return 77;
    }
    if (options.check) return check_bits();
    bench::give_openblas_its_avx512_kernels(argv);
    std::printf("OpenBLAS: %s\n", bench::openblas_description().c_str());
    return bench::tuning::run_cases(
        options, print_phases, time_one_size,
        "MR x 32 register tile, MC / NC / KC, and which micro-panel stays in L1 ('B outer': one B micro-panel while A's stream)");
}
