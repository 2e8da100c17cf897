// Lesson 1: why mixed precision at all. Half the bytes per number: half the memory for
// activations, half the memory traffic, and (with hardware for it) twice the multiply-adds per
// instruction. Measured here with tinyamp's allocator counters and a matrix product.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
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
constexpr std::int64_t kSpeedSize = kSanitized ? 256 : 1024;  // unoptimized sanitizer builds are ~50x slower

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

// Median seconds of `runs` calls of mm(a, b).
double median_mm_seconds(const Tensor& a, const Tensor& b, int runs)
{
    std::vector<double> seconds;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        const Tensor c = mm(a, b);
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::nth_element(seconds.begin(), seconds.begin() + runs / 2, seconds.end());
    return seconds[static_cast<std::size_t>(runs / 2)];
}

// GFLOP/s of f32 and bf16 products by size, as a picture.
void plot_speed(lesson::Lesson& L, Generator& gen)
{
    lesson::Series s32{"f32", {}, {}, "#3c78dc", true}, s16{"bf16", {}, {}, "#e8862a", true};
    for (std::int64_t n : {64, 128, 256, 512, 768, 1024}) {
        if (n > kSpeedSize) break;
        const Tensor a = randn({n, n}, f32, gen), b = randn({n, n}, f32, gen);
        const Tensor a16 = a.to(bf16), b16 = b.to(bf16);
        const double gflop = 2.0 * static_cast<double>(n * n * n) / 1e9;
        s32.x.push_back(static_cast<double>(n));
        s32.y.push_back(gflop / median_mm_seconds(a, b, 5));
        s16.x.push_back(static_cast<double>(n));
        s16.y.push_back(gflop / median_mm_seconds(a16, b16, 5));
    }
    L.write_plot("gemm_speed", lesson::LinePlot{"Matrix product speed on this CPU", "n (n x n times n x n)", "GFLOP/s", false, {s32, s16}, {}, {}},
                 "GFLOP/s of tinyamp's matrix product in f32 and bf16, by size (medians of 5).");
}


void run(lesson::Lesson& L)
{
    L.say("Training spends its memory on numbers (weights, activations, gradients) and its time moving\n"
          "and multiplying them. f16 and bf16 take 2 bytes a number instead of f32's 4.");

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
    copy.reset();

    L.step("Activations: what autograd keeps for backward");
    L.say("The forward pass keeps its intermediate results (activations) for backward. With a batch of\n"
          + std::to_string(kBatch) + " they outweigh the weights, and under autocast the matrix products make them in bf16.");
    L.expect("under autocast the activations kept for backward take half the bytes they take in f32. The\n"
             "price: a bf16 copy of the input and of each weight (the cast cache), still smaller for this batch.");
    Generator gen(0);
    const Tensor x = randn({kBatch, kWidth}, f32, gen);
    std::vector<double> label_values(kBatch);
    for (std::int64_t i = 0; i < kBatch; ++i) label_values[static_cast<std::size_t>(i)] = static_cast<double>(i % 10);
    const Tensor labels = tensor(label_values, {kBatch}, i64);
    const ForwardMemory plain = forward_memory(*model, x, labels, false);
    const ForwardMemory mixed = forward_memory(*model, x, labels, true);
    const std::int64_t weight_copies = 2 * params;  // the cast cache's bf16 copies of every weight and bias
    const std::int64_t input_copy = 2 * x.numel();   // x cast to bf16 for the first product
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

    L.step("Speed: a " + std::to_string(kSpeedSize) + " x " + std::to_string(kSpeedSize) + " matrix product");
    L.say("A matrix product reads 2 bytes a number instead of 4, and on CPUs with AVX-512 BF16 one\n"
          "vdpbf16ps instruction does 32 bf16 multiply-adds where an f32 FMA does 16. GPUs go further: their\n"
          "Tensor Cores run f16/bf16 products 8-16x faster than f32 (on an H100, ~990 vs ~67 TFLOP/s).");
    const std::string features = cpu_features_str();
    const bool has_bf16_dot = features.find("avx512bf16") != std::string::npos;
    std::printf("   this CPU: %s\n", features.c_str());
    L.expect(has_bf16_dot ? "this CPU has AVX-512 BF16: bf16 products run clearly faster than f32 (about 2x)."
                          : "this CPU has no bf16 dot-product instruction: bf16 saves memory traffic, but the speed-up is small.");
    const Tensor a = randn({kSpeedSize, kSpeedSize}, f32, gen), b = randn({kSpeedSize, kSpeedSize}, f32, gen);
    const Tensor a16 = a.to(bf16), b16 = b.to(bf16);
    median_mm_seconds(a, b, 2);  // warm up: threads started, caches filled
    const double t32 = median_mm_seconds(a, b, 7), t16 = median_mm_seconds(a16, b16, 7);
    const double gflop = 2.0 * static_cast<double>(kSpeedSize * kSpeedSize * kSpeedSize) / 1e9;
    std::printf("   f32:  %6.2f ms  %6.1f GFLOP/s\n   bf16: %6.2f ms  %6.1f GFLOP/s   (bf16 is %.2fx as fast)\n", t32 * 1e3, gflop / t32,
                t16 * 1e3, gflop / t16, t32 / t16);
    if (has_bf16_dot && !kSanitized)
        L.check(t32 / t16 > 1.2, "bf16's product is faster than f32's (" + lesson::fmt(t32 / t16) + "x; medians of 7)");
    else
        L.say(kSanitized ? "(built with a sanitizer: timings mean little, so nothing is claimed about them)"
                         : "(no speed claim on this CPU)");
    plot_speed(L, gen);
    L.key_result(std::to_string(kSpeedSize) + "^3 product: f32 " + lesson::fmt(gflop / t32) + " GFLOP/s, bf16 " + lesson::fmt(gflop / t16) + " GFLOP/s (" +
                 lesson::fmt(t32 / t16) + "x)");

    L.step("The catch");
    L.say("Half the bytes also means less range and precision (lesson 2). Mixed precision keeps what needs\n"
          "f32 in f32 (master weights, sums, softmax, losses) and runs the rest in 16 bits; the lessons that\n"
          "follow are about doing that safely.");
    L.expect("1 + 1e-4 does not survive bf16, and 1e5 does not survive f16.");
    L.check(scalar_tensor(1.0 + 1e-4, bf16).item() == 1.0, "bf16 rounds 1 + 1e-4 to 1");
    L.check(std::isinf(scalar_tensor(1e5, f16).item()), "1e5 overflows f16");
    L.key_result("a bf16 copy of the " + std::to_string(params) + "-parameter MLP takes " + lesson::fmt(megabytes(bf16_model)) +
                 " MB instead of " + lesson::fmt(megabytes(f32_model)) + " MB");
}

const lesson::Registration registered{{1, "why_mixed_precision", "Why mixed precision",
                                       "memory and speed: 2 bytes a number instead of 4 (and why that needs care)", run}};

}  // namespace
