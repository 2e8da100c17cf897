// tinyamp-amx-tuning: times the amx tier's micro-kernel (kernels/cpu/gemm_amx_kernel.h) under other
// cache blockings and loop orders than the tier's, against the tier itself and oneDNN's bf16
// matmul, in one run: the evidence behind the tier's MC, NC, KC and rows_outer
// (docs/kernels.md, "Tuning on a Xeon"). Square bf16 products C = A B, row-major.
//
// Each variant first computes one product and must give the tier's bits (the blocking changes
// which thread and which block computes an element, never the order of its sums). Then the
// candidates are timed in turn, `--reps` times over (default 5): a VM's neighbours change speed
// within seconds, so each repetition times every candidate once, and the table shows medians.
// --rounds R times one product of each candidate per round instead, and takes each ratio within
// a round (tuning_harness.h): the way to compare candidates on a VM whose speed changes.
//
//   tinyamp-amx-tuning [--sizes 256,512,1024] [--threads 1,2] [--reps 5 | --rounds 100]
//   tinyamp-amx-tuning --check   every variant on emulated tiles, against the tier's emulation
//                                (any CPU; exit 1 on a difference)
//   tinyamp-amx-tuning --phases  where the tier's time goes, per thread: its tile loop against
//                                the rest (packing, epilogue); --reps rounds (gemm_phases.h)
// Without AMX and without --check it says so and exits 77.
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
#include "kernels/cpu/gemm_amx_kernel.h"
#include "kernels/cpu/gemm_fast.h"

namespace {

using namespace tinyamp;
using namespace tinyamp::kernels::cpu;
using Problem = GemmProblem<BFloat16, BFloat16>;
using GemmFn = void (*)(const Problem&, int threads);

template <class Tiles, std::int64_t MC, std::int64_t NC, std::int64_t KC, bool RowsOuter>
void blocked_gemm(const Problem& problem, int threads)
{
    blocked::gemm_blocked<amx::Kernel<Tiles, MC, NC, KC, RowsOuter>>(problem, threads);
}

struct Variant {
    std::string name;
    GemmFn hardware, emulated;
};

template <std::int64_t MC, std::int64_t NC, std::int64_t KC, bool RowsOuter>
Variant variant()
{
    const std::string order = RowsOuter ? "A outer" : "B outer";
    return {std::to_string(MC) + "/" + std::to_string(NC) + "/" + std::to_string(KC) + " " + order,
            blocked_gemm<amx::HardwareTiles, MC, NC, KC, RowsOuter>, blocked_gemm<amx::EmulatedTiles, MC, NC, KC, RowsOuter>};
}

/// MC / NC / KC (pairs), and which micro-panel the inner loop keeps in L1 ("A outer": rows_outer).
std::vector<Variant> variants()
{
    return {variant<128, 256, 256, false>(), variant<256, 128, 256, true>(), variant<256, 128, 256, false>(),
            variant<64, 256, 256, true>(),   variant<128, 256, 128, true>(), variant<128, 128, 256, true>(),
            variant<256, 256, 256, true>()};
}

/// The benchmark's own square inputs (gemm_inputs.h), in bf16, and the product C = A B over them.
struct Inputs {
    bench::GemmInputs values;
    explicit Inputs(std::int64_t n) : values(bench::make_gemm_inputs(n, n, n)) {}
    std::int64_t n() const { return values.n; }
    Problem problem(BFloat16* c) const
    {
        const std::int64_t n = values.n;
        return {Transpose::no, Transpose::no, n, n, n, 1.0, values.a_bf16.data(), n, values.b_bf16.data(), n, 0.0, c, n, {}};
    }
};

/// Every variant's bits against the tier's (`tier`), on hardware or emulated tiles; prints each difference.
int count_differences(const Inputs& in, int threads, GemmFn tier, bool emulated)
{
    std::vector<BFloat16> expected(in.n() * in.n()), got(in.n() * in.n());
    tier(in.problem(expected.data()), threads);
    int differences = 0;
    for (const Variant& v : variants()) {
        std::fill(got.begin(), got.end(), BFloat16(0.0f));
        (emulated ? v.emulated : v.hardware)(in.problem(got.data()), threads);
        if (std::memcmp(got.data(), expected.data(), got.size() * sizeof(BFloat16)) != 0) {
            std::printf("DIFFERENT: %s at N = %lld, %d threads\n", v.name.c_str(), (long long)in.n(), threads);
            ++differences;
        }
    }
    return differences;
}

int check_on_emulated_tiles()
{
    int differences = 0;
    // 96: one k block, op(A) read in place; 200: packed op(A), padded k; 576: two k blocks, packed op(A).
    for (const std::int64_t n : {96, 200, 576})
        for (int threads : {1, 2}) differences += count_differences(Inputs(n), threads, amx::gemm_amx_emulated<BFloat16>, true);
    std::printf("%d variants x 6 products on emulated tiles: %d differences from the tier\n", int(variants().size()), differences);
    return differences == 0 ? 0 : 1;
}

void time_one_size(std::int64_t n, int threads, const bench::tuning::Options& options)
{
    const Inputs in(n);
    if (count_differences(in, threads, amx::gemm_amx<BFloat16>, false) != 0) std::exit(1);
    std::vector<BFloat16> c(n * n);
    bench::onednn_set_threads(threads);
    bench::OnednnMatmul matmul(DType::bf16, n, n, n);
    std::vector<bench::tuning::Candidate> candidates{
        {"oneDNN bf16", [&] { matmul.run<BFloat16>(in.values.a_bf16.data(), in.values.b_bf16.data(), c.data()); }},
        {"the tier (128/256/256 A outer)", [&] { amx::gemm_amx<BFloat16>(in.problem(c.data()), threads); }}};
    for (const Variant& v : variants())
        candidates.push_back({v.name, [&, gemm = v.hardware] { gemm(in.problem(c.data()), threads); }});
    bench::tuning::time_candidates(n, threads, options, candidates, [threads] {
        if (threads > 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));  // OpenMP's threads stop spinning
    });
}

using Timed = bench::phases::Timed<amx::Kernel<amx::HardwareTiles>>;
static_assert(blocked::reads_a_in_place<Timed>, "the timed twin must read op(A) in place where the tier does");

void print_phases(std::int64_t n, int threads, const bench::tuning::Options& options)
{
    const int rounds = options.reps;
    const Inputs in(n);
    std::vector<BFloat16> c(n * n);
    bench::onednn_set_threads(threads);
    bench::OnednnMatmul matmul(DType::bf16, n, n, n);
    bench::phases::print_phases(
        "oneDNN", n, threads, rounds, [&] { matmul.run<BFloat16>(in.values.a_bf16.data(), in.values.b_bf16.data(), c.data()); },
        [&] { blocked::gemm_blocked<Timed>(in.problem(c.data()), threads); });
}

}  // namespace

int main(int argc, char** argv)
{
    bench::tuning::Options options;
    if (!bench::tuning::parse_options(argc, argv, "tinyamp-amx-tuning", options)) return 2;
    if (options.check) return check_on_emulated_tiles();
    if (!cpu_features().amx_bf16) {
        std::printf("tinyamp-amx-tuning: this CPU has no usable AMX (%s); nothing to time. --check runs the variants on emulated tiles.\n",
                    amx_unavailable_reason().c_str());
        return 77;
    }
    return bench::tuning::run_cases(
        options, print_phases, time_one_size,
        "MC / NC / KC (pairs of k), and which micro-panel stays in L1: 'A outer' keeps one A micro-panel while B's stream");
}
