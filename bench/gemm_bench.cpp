#include "bench/gemm_bench.h"

#include <benchmark/benchmark.h>

#include <vector>

#include "bench/gemm_inputs.h"
#include "bench/gemm_peers.h"
#include "bench/library_switch.h"
#include "kernels/cpu/gemm.h"

namespace tinyamp::bench {

namespace {

using kernels::cpu::Transpose;

Library library_of(GemmImpl impl)
{
    switch (impl) {
    case GemmImpl::openblas_f32: return Library::openblas;
    case GemmImpl::onednn_f32:
    case GemmImpl::onednn_bf16: return Library::onednn;
    default: return Library::tinyamp;
    }
}

const char* impl_key(GemmImpl impl)
{
    switch (impl) {
    case GemmImpl::tinyamp_f32: return "tinyamp_f32";
    case GemmImpl::openblas_f32: return "openblas_f32";
    case GemmImpl::onednn_f32: return "onednn_f32";
    case GemmImpl::tinyamp_f16: return "tinyamp_f16";
    case GemmImpl::tinyamp_bf16: return "tinyamp_bf16";
    case GemmImpl::onednn_bf16: return "onednn_bf16";
    }
    return "?";
}

template <class T>
void time_tinyamp(benchmark::State& state, std::int64_t n, const std::vector<T>& a, const std::vector<T>& b)
{
    std::vector<T> c(static_cast<std::size_t>(n * n));
    for (auto _ : state) {
        kernels::cpu::gemm(Transpose::no, Transpose::no, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0, c.data(), n);
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
}

template <class T>
void time_onednn(benchmark::State& state, DType dtype, std::int64_t n, int threads, const std::vector<T>& a, const std::vector<T>& b)
{
    onednn_set_threads(threads);  // before the primitive is made: it plans for this many threads
    OnednnMatmul matmul(dtype, n, n, n);
    std::vector<T> c(static_cast<std::size_t>(n * n));
    for (auto _ : state) {
        matmul.run(a.data(), b.data(), c.data());
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    state.SetLabel(matmul.implementation());
}

void time_gemm(benchmark::State& state, GemmImpl impl, std::int64_t n, int threads)
{
    const GemmInputs& in = square_gemm_inputs(n);  // made on first use, outside the timed loop
    wait_when_library_changes(library_of(impl));  // see library_switch.h
    switch (impl) {
    case GemmImpl::tinyamp_f32:
        set_num_threads(threads);
        time_tinyamp(state, n, in.a, in.b);
        break;
    case GemmImpl::tinyamp_f16:
        set_num_threads(threads);
        time_tinyamp(state, n, in.a_f16, in.b_f16);
        break;
    case GemmImpl::tinyamp_bf16:
        set_num_threads(threads);
        time_tinyamp(state, n, in.a_bf16, in.b_bf16);
        break;
    case GemmImpl::openblas_f32: {
        openblas_set_threads(threads);
        std::vector<float> c(static_cast<std::size_t>(n * n));
        for (auto _ : state) {
            openblas_sgemm(n, n, n, in.a.data(), in.b.data(), c.data());
            benchmark::DoNotOptimize(c.data());
            benchmark::ClobberMemory();
        }
        break;
    }
    case GemmImpl::onednn_f32:
        time_onednn(state, f32, n, threads, in.a, in.b);
        break;
    case GemmImpl::onednn_bf16:
        time_onednn(state, bf16, n, threads, in.a_bf16, in.b_bf16);
        break;
    }
}

}  // namespace

std::string gemm_bench_name(GemmImpl impl, std::int64_t n, int threads)
{
    return std::string("gemm/") + impl_key(impl) + "/n:" + std::to_string(n) + "/threads:" + std::to_string(threads);
}

void register_gemm_benchmarks()
{
    for (std::int64_t n : kGemmSizes)
        for (int threads : kGemmThreads)
            for (GemmImpl impl : kGemmImpls) {
                if (impl == GemmImpl::onednn_f32 && !onednn_unavailable_reason(f32).empty()) continue;
                if (impl == GemmImpl::onednn_bf16 && !onednn_unavailable_reason(bf16).empty()) continue;
                benchmark::RegisterBenchmark(gemm_bench_name(impl, n, threads).c_str(),
                                             [=](benchmark::State& state) { time_gemm(state, impl, n, threads); })
                    // Wall-clock time: the work runs on several threads. Each repetition runs at
                    // least 0.15 s; the summary takes the median of the repetitions.
                    ->UseRealTime()
                    ->MinTime(0.15)
                    ->Repetitions(5)
                    ->Unit(benchmark::kMillisecond);
            }
}

}  // namespace tinyamp::bench
