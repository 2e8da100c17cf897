#include "bench/scaled_mm_bench.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <random>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "bench/library_switch.h"
#include "bench/result_collector.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/minifloat_convert.h"
#include "kernels/cpu/scaled_mm.h"

namespace tinyamp::bench {

namespace {

using kernels::cpu::ScaledOperand;
using kernels::cpu::Transpose;

constexpr int kMxBlock = 32;

// A case's two names: its key in the benchmark names and its label in the summary.
struct CaseNames {
    const char* key;
    const char* label;
};

CaseNames names_of(ScaledMmCase c)
{
    switch (c) {
    case ScaledMmCase::f32_gemm: return {"f32_gemm", "f32 gemm (A B^T)"};
    case ScaledMmCase::e4m3_tensorwise: return {"e4m3", "scaled_mm E4M3 per-tensor"};
    case ScaledMmCase::mxfp8: return {"mxfp8", "scaled_mm MXFP8 (e8m0/32)"};
    }
    return {"?", "?"};
}

// One operand of N x N values in every form the cases need: f32, and E4M3 codes with a per-tensor
// scale or with one e8m0 scale per block of 32 (what a quantizer would make of the same values).
struct Operand {
    std::vector<float> values;
    std::vector<std::uint8_t> tensorwise_codes, mx_codes, mx_scales;
    float scale_inv = 1.0f;
};

Operand make_operand(std::int64_t n, std::uint64_t seed)
{
    namespace mf = minifloat;
    Operand x;
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    x.values.resize(std::size_t(n * n));
    for (float& v : x.values) v = normal(rng);
    const float scale = 64.0f;  // |x| up to ~5 sigma: 5 * 64 = 320 < 448
    x.scale_inv = 1.0f / scale;
    x.tensorwise_codes.resize(x.values.size());
    kernels::cpu::quantize_f32(mf::f8e4m3fn, x.values.data(), scale, x.tensorwise_codes.data(), std::int64_t(x.values.size()),
                               mf::Overflow::saturate);
    // MX: each block's scale is the power of two that puts its largest magnitude near E4M3's top
    // binade (OCP MX's rule: 2^(floor(log2(amax)) - 8)); the elements are divided by it.
    const std::int64_t blocks = n / kMxBlock;
    x.mx_codes.resize(x.values.size());
    x.mx_scales.resize(std::size_t(n * blocks));
    for (std::int64_t b = 0; b < n * blocks; ++b) {
        const float* block = x.values.data() + b * kMxBlock;
        float amax = 0.0f;
        for (int i = 0; i < kMxBlock; ++i) amax = std::max(amax, std::fabs(block[i]));
        const int exponent = amax > 0.0f ? std::ilogb(amax) - 8 : -127;
        x.mx_scales[std::size_t(b)] = std::uint8_t(exponent + 127);
        kernels::cpu::quantize_f32(mf::f8e4m3fn, block, std::ldexp(1.0f, -exponent), x.mx_codes.data() + b * kMxBlock, kMxBlock,
                                   mf::Overflow::saturate);
    }
    return x;
}

struct Inputs {
    Operand a, b_transposed;
};

const Inputs& inputs_of(std::int64_t n)
{
    static std::map<std::int64_t, Inputs> made;
    auto it = made.find(n);
    if (it == made.end()) it = made.emplace(n, Inputs{make_operand(n, 1), make_operand(n, 2)}).first;
    return it->second;
}

ScaledOperand scaled_operand(const Operand& x, ScaledMmCase c)
{
    ScaledOperand op;
    op.format = &minifloat::f8e4m3fn;
    if (c == ScaledMmCase::mxfp8) {
        op.codes = x.mx_codes.data();
        op.block_scales = x.mx_scales.data();
        op.block_scale_format = &minifloat::e8m0;
        op.block_size = kMxBlock;
    } else {
        op.codes = x.tensorwise_codes.data();
        op.tensor_scale_inv = x.scale_inv;
    }
    return op;
}

void time_case(benchmark::State& state, ScaledMmCase c, std::int64_t n)
{
    const Inputs& in = inputs_of(n);  // made on first use, outside the timed loop
    wait_when_library_changes(Library::tinyamp);
    set_num_threads(2);  // tinyamp's default
    std::vector<float> out(std::size_t(n * n));
    for (auto _ : state) {
        if (c == ScaledMmCase::f32_gemm) {
            kernels::cpu::gemm<float, float>(Transpose::no, Transpose::yes, n, n, n, 1.0, in.a.values.data(), n,
                                             in.b_transposed.values.data(), n, 0.0, out.data(), n);
        } else {
            kernels::cpu::scaled_mm(scaled_operand(in.a, c), scaled_operand(in.b_transposed, c), out.data(), n, n, n);
        }
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
}

// The bytes of both operands: 4 per f32 value, 1 per E4M3 code, plus one e8m0 scale per 32 for MX.
double operand_bytes(ScaledMmCase c, std::int64_t n)
{
    const double values = 2.0 * double(n) * double(n);
    switch (c) {
    case ScaledMmCase::f32_gemm: return 4 * values;
    case ScaledMmCase::e4m3_tensorwise: return values;
    case ScaledMmCase::mxfp8: return values + values / kMxBlock;
    }
    return 0;
}

}  // namespace

std::string scaled_mm_bench_name(ScaledMmCase c, std::int64_t n)
{
    return std::string("scaled_mm/") + names_of(c).key + "/n:" + std::to_string(n);
}

void register_scaled_mm_benchmarks()
{
    for (std::int64_t n : kScaledMmSizes)
        for (ScaledMmCase c : kScaledMmCases)
            benchmark::RegisterBenchmark(scaled_mm_bench_name(c, n).c_str(), [=](benchmark::State& state) { time_case(state, c, n); })
                ->UseRealTime()  // wall-clock: the gemm runs on two threads
                ->MinTime(0.05)
                ->Repetitions(5)
                ->Unit(benchmark::kMillisecond);
}

void print_scaled_mm_table(std::ostream& out, const ResultCollector& results)
{
    bool any = false;  // a --benchmark_filter that left every case out: no table, not an empty one
    for (std::int64_t n : kScaledMmSizes)
        for (ScaledMmCase c : kScaledMmCases) any = any || results.find(scaled_mm_bench_name(c, n)) != nullptr;
    if (!any) return;
    out << "\nScaled FP8 matrix product (kernels/cpu/scaled_mm.h), N x N x N, 2 threads, median of 5:\n";
    char line[160];
    std::snprintf(line, sizeof line, "  %6s  %-27s %10s %10s %12s\n", "N", "case", "median ms", "vs f32", "operand MiB");
    out << line;
    for (std::int64_t n : kScaledMmSizes) {
        const Timing* base = results.find(scaled_mm_bench_name(ScaledMmCase::f32_gemm, n));
        for (ScaledMmCase c : kScaledMmCases) {
            const Timing* t = results.find(scaled_mm_bench_name(c, n));
            if (t == nullptr || !t->error.empty() || t->seconds.empty()) continue;
            const double ms = t->median() * 1e3;
            char ratio[32] = "-";
            if (base != nullptr && !base->seconds.empty()) std::snprintf(ratio, sizeof ratio, "%.2fx", t->median() / base->median());
            std::snprintf(line, sizeof line, "  %6lld  %-27s %10.3f %10s %12.2f\n", static_cast<long long>(n), names_of(c).label, ms, ratio,
                          operand_bytes(c, n) / (1024.0 * 1024.0));
            out << line;
        }
    }
}

}  // namespace tinyamp::bench
