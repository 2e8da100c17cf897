// Lesson 1: why mixed precision at all. Half the bytes per number: half the memory for
// activations, half the memory traffic, and (with hardware for it) more multiply-adds per
// instruction. Measured here with tinyamp's allocator counters and a matrix product, whose speed
// claim is the one this CPU's hardware supports (backends::cpu::matmul_hardware()), stated first.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

#include "lessons/support/lesson.h"

using namespace tinyamp;

namespace {

constexpr std::int64_t kWidth = 512;
constexpr std::int64_t kBatch = 1024;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;  // sanitizers slow memory access far more than arithmetic: no speed claims
#else
constexpr bool kSanitized = false;
#endif

// The size of the timed product: 1024, or 512 on the portable tier (its plain loops take about
// 0.1 s for a 1024^3 f32 product and 0.3 s in bf16), or 256 in an unoptimized sanitizer build
// (~50x slower).
std::int64_t speed_size(const backends::cpu::MatmulHardware& hw)
{
    if (kSanitized) return 256;
    return hw.f32_tier == "portable" ? 512 : 1024;
}

std::shared_ptr<nn::Sequential> make_mlp()
{
    manual_seed(0);
    return std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
        std::make_shared<nn::Linear>(kWidth, kWidth), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(kWidth, kWidth),
        std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(kWidth, kWidth), std::make_shared<nn::ReLU>(),
        std::make_shared<nn::Linear>(kWidth, 10)});
}

double megabytes(std::int64_t bytes) { return static_cast<double>(bytes) / 1e6; }

// Bytes of `dtype` allocated by a forward pass with autograd on (what backward will need), above
// what was live before it: the activations the graph keeps.
struct ForwardMemory {
    std::int64_t f32_bytes = 0;
    std::int64_t low_bytes = 0;   // bf16
};

ForwardMemory forward_memory(nn::Module& model, const Tensor& x, const Tensor& labels, bool use_autocast)
{
    const MemoryStats before = memory_stats();
    Tensor loss;
    {
        amp::autocast region("cpu", {.dtype = bf16, .enabled = use_autocast});
        loss = cross_entropy(model(x), labels);
        const MemoryStats during = memory_stats();
        return {during[f32].live_bytes - before[f32].live_bytes, during[bf16].live_bytes - before[bf16].live_bytes};
    }
}

double seconds_of_mm(const Tensor& a, const Tensor& b)
{
    const auto start = std::chrono::steady_clock::now();
    const Tensor c = mm(a, b);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values)
{
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
    return values[values.size() / 2];
}

// Median seconds of mm(a, b) (f32) and mm(a16, b16) (bf16), `runs` each, timed in turns: when
// another program takes the cores for a while, both dtypes are slowed, not one.
std::pair<double, double> median_mm_seconds(const Tensor& a, const Tensor& b, const Tensor& a16, const Tensor& b16, int runs)
{
    std::vector<double> s32, s16;
    for (int i = 0; i < runs; ++i) {
        s32.push_back(seconds_of_mm(a, b));
        s16.push_back(seconds_of_mm(a16, b16));
    }
    return {median(s32), median(s16)};
}

// GFLOP/s of f32 and bf16 products by size, up to `largest`, as a picture.
void plot_speed(lesson::Lesson& L, Generator& gen, const backends::cpu::MatmulHardware& hw, std::int64_t largest)
{
    lesson::Series s32{"f32", {}, {}, "#3c78dc", true}, s16{"bf16", {}, {}, "#e8862a", true};
    for (std::int64_t n : {64, 128, 256, 512, 768, 1024}) {
        if (n > largest) break;
        const Tensor a = randn({n, n}, f32, gen), b = randn({n, n}, f32, gen);
        const auto [t32, t16] = median_mm_seconds(a, b, a.to(bf16), b.to(bf16), 5);
        const double gflop = 2.0 * static_cast<double>(n * n * n) / 1e9;
        s32.x.push_back(static_cast<double>(n));
        s32.y.push_back(gflop / t32);
        s16.x.push_back(static_cast<double>(n));
        s16.y.push_back(gflop / t16);
    }
    L.write_plot("gemm_speed", lesson::LinePlot{"Matrix product speed on this CPU", "n (n x n times n x n)", "GFLOP/s", false, {s32, s16}, {}, {}},
                 "GFLOP/s of tinyamp's matrix product in f32 and bf16, by size (medians of 5), on " + hw.cpu_name +
                     " (GEMM tiers: f32 " + hw.f32_tier + ", bf16 " + hw.bf16_tier + ").");
}

// What the lesson prints about this CPU before timing anything.
void print_hardware(const backends::cpu::MatmulHardware& hw)
{
    const char* cap = std::getenv("TINYAMP_CPU");
    const std::string capped = cap && *cap ? std::string(" (capped by TINYAMP_CPU=") + cap + ")" : "";
    std::printf("   CPU:                    %s\n", hw.cpu_name.c_str());
    std::printf("   features in use:        %s%s\n", hw.features.c_str(), capped.c_str());
    std::printf("   GEMM tier:              f32 %s, bf16 %s\n", hw.f32_tier.c_str(), hw.bf16_tier.c_str());
    std::printf("   bf16 is multiplied by:  %s\n", hw.bf16_instruction.c_str());
    if (hw.f32_peak_gflops > 0 && hw.bf16_peak_gflops > 0)
        std::printf("   one core, in registers: f32 %.0f GFLOP/s, bf16 %.0f GFLOP/s (%.1fx)\n", hw.f32_peak_gflops, hw.bf16_peak_gflops,
                    hw.peak_ratio());
    else
        std::printf("   one core, in registers: not measured (the portable tier has no one instruction to time)\n");
}

// The model of step 1 and what it and its bf16 copy take.
struct Weights {
    std::shared_ptr<nn::Sequential> model;
    std::int64_t params = 0, f32_bytes = 0, bf16_bytes = 0;
};

Weights step_weights(lesson::Lesson& L)
{
    L.step("Weights: half the bytes");
    auto model = make_mlp();
    const std::int64_t params = model->num_parameters();
    L.expect("an MLP of " + std::to_string(params) + " parameters holds 4 bytes each in f32, and exactly half that\n"
             "in a bf16 copy.");
    const std::int64_t f32_before = memory_stats()[f32].live_bytes;
    auto copy = make_mlp();
    const std::int64_t f32_model = memory_stats()[f32].live_bytes - f32_before;
    const std::int64_t bf16_before = memory_stats()[bf16].live_bytes;
    copy->to(bf16);
    const std::int64_t bf16_model = memory_stats()[bf16].live_bytes - bf16_before;
    std::printf("   f32 model: %.2f MB, bf16 copy: %.2f MB\n", megabytes(f32_model), megabytes(bf16_model));
    L.check(f32_model == 4 * params, "the f32 model takes 4 bytes a parameter");
    L.check(bf16_model * 2 == f32_model, "the bf16 model takes exactly half");
    return {model, params, f32_model, bf16_model};
}

void step_activations(lesson::Lesson& L, const Weights& weights, Generator& gen)
{
    L.step("Activations: what autograd keeps for backward");
    L.say("The forward pass keeps its intermediate results (activations) for backward. With a batch of\n"
          + std::to_string(kBatch) + " they outweigh the weights, and under autocast the matrix products make them in bf16.");
    L.expect("under autocast the activations kept for backward take half the bytes they take in f32. The\n"
             "price: a bf16 copy of the input and of each weight (the cast cache), still smaller for this batch.");
    const Tensor x = randn({kBatch, kWidth}, f32, gen);
    std::vector<double> label_values(kBatch);
    for (std::int64_t i = 0; i < kBatch; ++i) label_values[static_cast<std::size_t>(i)] = static_cast<double>(i % 10);
    const Tensor labels = tensor(label_values, {kBatch}, i64);
    const ForwardMemory plain = forward_memory(*weights.model, x, labels, false);
    const ForwardMemory mixed = forward_memory(*weights.model, x, labels, true);
    const std::int64_t weight_copies = 2 * weights.params;  // the cast cache's bf16 copies of every weight and bias
    const std::int64_t input_copy = 2 * x.numel();           // x cast to bf16 for the first product
    const std::int64_t mixed_activations = mixed.low_bytes - weight_copies - input_copy + mixed.f32_bytes;
    std::printf("   f32 forward keeps:      %7.2f MB of f32\n", megabytes(plain.f32_bytes));
    std::printf("   autocast forward keeps: %7.2f MB of bf16 (of it %.2f MB weight copies, %.2f MB the input's copy)\n"
                "                           %7.2f MB of f32\n",
                megabytes(mixed.low_bytes), megabytes(weight_copies), megabytes(input_copy), megabytes(mixed.f32_bytes));
    const double ratio = static_cast<double>(mixed_activations) / static_cast<double>(plain.f32_bytes);
    std::printf("   activations under autocast / in f32: %.2f\n", ratio);
    L.check(plain.low_bytes == 0, "the f32 forward allocates no bf16");
    L.check(ratio > 0.45 && ratio < 0.55, "autocast's activations are about half of f32's (" + lesson::fmt(ratio) + ")");
    L.check(mixed.low_bytes + mixed.f32_bytes < plain.f32_bytes, "autocast's forward keeps fewer bytes in all, weight copies included");
    L.key_result("activations kept for backward: " + lesson::fmt(megabytes(plain.f32_bytes)) + " MB in f32, " +
                 lesson::fmt(megabytes(mixed_activations)) + " MB under bf16 autocast (" + lesson::fmt(ratio) + "x)");

}

void step_speed(lesson::Lesson& L, Generator& gen)
{
    const backends::cpu::MatmulHardware& hw = backends::cpu::matmul_hardware();
    const std::int64_t n = speed_size(hw);
    L.step("Speed: a " + std::to_string(n) + " x " + std::to_string(n) + " matrix product");
    L.say("What bf16 gains in speed depends on the hardware that multiplies it. A matrix engine (a GPU's\n"
          "Tensor Cores; AMX tiles on Intel Xeons since Sapphire Rapids) multiplies 16-bit matrices many\n"
          "times faster than f32: on an H100, ~990 against ~67 TFLOP/s. A bf16 dot-product instruction\n"
          "(AVX-512 BF16's vdpbf16ps) helps only where it does more multiply-adds per second than the core's\n"
          "f32 FMAs: on an AMD Zen 4, not on a Xeon. Without either, bf16 is widened to f32 and multiplied\n"
          "as f32: no faster, and the casts AMP adds can make it slower. So first: what does this CPU have?");
    print_hardware(hw);
    L.expect(lesson::wrap(hw.expectation));
    const Tensor a = randn({n, n}, f32, gen), b = randn({n, n}, f32, gen);
    const Tensor a16 = a.to(bf16), b16 = b.to(bf16);
    median_mm_seconds(a, b, a16, b16, 2);  // warm up: threads started, caches filled, workspaces allocated
    const auto [t32, t16] = median_mm_seconds(a, b, a16, b16, 7);
    const double gflop = 2.0 * static_cast<double>(n * n * n) / 1e9, speedup = t32 / t16;
    std::printf("   f32:  %7.2f ms  %6.1f GFLOP/s\n   bf16: %7.2f ms  %6.1f GFLOP/s   (bf16 is %.2fx as fast)\n", t32 * 1e3, gflop / t32,
                t16 * 1e3, gflop / t16, speedup);
    const std::string measured = lesson::fmt(speedup) + "x; medians of 7, timed in turns";
    if (kSanitized) {
        L.say("(built with a sanitizer: timings mean little, so nothing is claimed about them)");
    } else {
        switch (hw.bf16_speed) {
            case backends::cpu::Bf16Speed::not_faster:
                L.check(speedup < 1.25, "bf16's product is not clearly faster than f32's (" + measured + "; the claim: under 1.25x)");
                break;
            case backends::cpu::Bf16Speed::faster:
                L.check(speedup > 1.2, "bf16's product is faster than f32's (" + measured + "; the claim: over 1.2x)");
                break;
            case backends::cpu::Bf16Speed::several_times_faster:
                L.check(speedup > 2.0, "bf16's product is several times faster than f32's (" + measured + "; the claim: over 2x)");
                break;
        }
    }
    plot_speed(L, gen, hw, n);
    L.key_result(std::to_string(n) + "^3 product on the GEMM tier f32 " + hw.f32_tier + " / bf16 " + hw.bf16_tier + " (" + hw.cpu_name +
                 "; expected bf16 " + backends::cpu::bf16_speed_name(hw.bf16_speed) + "): f32 " + lesson::fmt(gflop / t32) +
                 " GFLOP/s, bf16 " + lesson::fmt(gflop / t16) + " GFLOP/s (" + lesson::fmt(speedup) + "x)");

}

void step_catch(lesson::Lesson& L, const Weights& weights)
{
    L.step("The catch");
    L.say("Half the bytes also means less range and precision (lesson 2). Mixed precision keeps what needs\n"
          "f32 in f32 (master weights, sums, softmax, losses) and runs the rest in 16 bits; the lessons that\n"
          "follow are about doing that safely.");
    L.expect("1 + 1e-4 does not survive bf16, and 1e5 does not survive f16.");
    L.check(scalar_tensor(1.0 + 1e-4, bf16).item() == 1.0, "bf16 rounds 1 + 1e-4 to 1");
    L.check(std::isinf(scalar_tensor(1e5, f16).item()), "1e5 overflows f16");
    L.key_result("a bf16 copy of the " + std::to_string(weights.params) + "-parameter MLP takes " + lesson::fmt(megabytes(weights.bf16_bytes)) +
                 " MB instead of " + lesson::fmt(megabytes(weights.f32_bytes)) + " MB");
}

void run(lesson::Lesson& L)
{
    L.say("Training spends its memory on numbers (weights, activations, gradients) and its time moving\n"
          "and multiplying them. f16 and bf16 take 2 bytes a number instead of f32's 4.");
    const Weights weights = step_weights(L);
    Generator gen(0);  // steps 2 and 3 draw from it in turn
    step_activations(L, weights, gen);
    step_speed(L, gen);
    step_catch(L, weights);
}

const lesson::Registration registered{{1, "why_mixed_precision", "Why mixed precision",
                                       "memory and speed: 2 bytes a number instead of 4 (and why that needs care)", run}};

}  // namespace
