// Lesson 15: when not to use AMP, and bf16 against f16. Tiny layers where the casts cost more than
// they save; running sums that stall in a 16-bit accumulator (why reductions accumulate in f32 and
// why GPU autocast keeps sum and softmax in f32); f16's overflow against bf16's coarse precision;
// and a table to choose f32, bf16 or f16 + GradScaler.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"
#include "lessons/support/trace_queries.h"

using namespace tinyamp;

namespace {

using Clock = std::chrono::steady_clock;

// Seconds per call of `a` and of `b`: the fastest of `blocks` blocks, measured alternately. On a
// shared machine other programs only ever slow a block down, so the fastest block is the one
// least disturbed, and alternating makes a burst of load hit both alike.
std::pair<double, double> time_pair(const std::function<void()>& a, const std::function<void()>& b, int calls, int blocks)
{
    std::vector<double> ta, tb;
    auto block = [calls](const std::function<void()>& fn) {
        const auto start = Clock::now();
        for (int i = 0; i < calls; ++i) fn();
        return std::chrono::duration<double>(Clock::now() - start).count() / calls;
    };
    a();  // warm up (first allocations, first page touches)
    b();
    for (int k = 0; k < blocks; ++k) {
        ta.push_back(block(a));
        tb.push_back(block(b));
    }
    return {*std::min_element(ta.begin(), ta.end()), *std::min_element(tb.begin(), tb.end())};
}

struct LinearCase {
    std::int64_t batch, in, out;
    Tensor x, w, b;
};

LinearCase make_linear(std::int64_t batch, std::int64_t in, std::int64_t out, Generator& gen)
{
    const double bound = 1.0 / std::sqrt(double(in));
    return {batch, in, out, randn({batch, in}, f32, gen), mul(randn({out, in}, f32, gen), bound).requires_grad_(),
            zeros({out}).requires_grad_()};
}

// One forward of the layer in a fresh region, as each training step opens its own: the weights
// are cast again every step.
void forward(const LinearCase& c, bool autocast_on)
{
    if (autocast_on) {
        amp::autocast region("cpu");
        (void)linear(c.x, c.w, c.b);
    } else {
        (void)linear(c.x, c.w, c.b);
    }
}

// The sum of `values` kept in `dtype` after every addition, as a loop `acc = acc + v` over
// tensors of that dtype does. `trail` gets the sum after each term.
double running_sum(const Tensor& values, DType dtype, std::vector<double>& trail)
{
    Tensor acc = zeros({}, dtype);
    const Tensor v = values.to(dtype);
    for (std::int64_t i = 0; i < v.numel(); ++i) {
        acc = add(acc, v.select(0, i));
        trail.push_back(acc.item());
    }
    return acc.item();
}

double max_relative_error(const Tensor& got, const Tensor& reference)
{
    const std::vector<double> g = got.to_vector(), r = reference.to_vector();
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
        worst = std::max(worst, std::abs(g[i] - r[i]));
        scale = std::max(scale, std::abs(r[i]));
    }
    return worst / scale;
}

bool all_finite(const Tensor& t)
{
    const std::vector<double> v = t.to_vector();
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// The tiny and the big layer's forward, timed in f32 and under bf16 autocast (seconds).
struct LayerTimes {
    double tiny32 = 0, tiny16 = 0, big32 = 0, big16 = 0;
};

LayerTimes step_tiny_layer(lesson::Lesson& L, Generator& gen)
{
    L.step("A tiny layer: the casts cost more than the product saves");
    L.expect("Under autocast a Linear(8, 8) on 8 samples makes 3 casts (x, weight, bias) for 512\n"
             "multiply-adds: about one conversion per 4 multiply-adds, plus three more ops to dispatch.\n"
             "A Linear(512, 512) on 256 samples converts about one element per 170 multiply-adds. So\n"
             "autocast slows the tiny layer down, and only pays off when the products are large.");
    const LinearCase tiny = make_linear(8, 8, 8, gen), big = make_linear(256, 512, 512, gen);
    trace::Trace tiny_trace;
    {
        trace::TraceRecorder recorder(tiny_trace);
        forward(tiny, true);
    }
    const std::size_t casts = lesson::casts(tiny_trace).size(), ops = lesson::forward_ops(tiny_trace).size();
    auto conversions_per_mac = [](const LinearCase& c) {
        const double converted = double(c.x.numel() + c.w.numel() + c.b.numel());
        return converted / double(c.batch * c.in * c.out);
    };
    const double tiny_ratio = conversions_per_mac(tiny), big_ratio = conversions_per_mac(big);
    std::printf("   one autocast forward of the tiny layer: %zu casts + %zu op; %s conversions per multiply-add\n", casts, ops,
                lesson::fmt(tiny_ratio).c_str());
    std::printf("   the big layer: %s conversions per multiply-add\n", lesson::fmt(big_ratio).c_str());
    const auto [tiny32, tiny16] = time_pair([&] { forward(tiny, false); }, [&] { forward(tiny, true); }, 400, 9);
    const auto [big32, big16] = time_pair([&] { forward(big, false); }, [&] { forward(big, true); }, 4, 9);
    std::printf("   Linear(8, 8),     batch 8:   f32 %8.2f us, bf16 autocast %8.2f us  (x%s)\n", tiny32 * 1e6, tiny16 * 1e6,
                lesson::fmt(tiny16 / tiny32).c_str());
    std::printf("   Linear(512, 512), batch 256: f32 %8.2f us, bf16 autocast %8.2f us  (x%s)\n", big32 * 1e6, big16 * 1e6,
                lesson::fmt(big16 / big32).c_str());
    L.check(casts == 3 && ops == 1, "the tiny layer's autocast forward is 3 casts and 1 linear");
    L.check(tiny_ratio > 40.0 * big_ratio, "the tiny layer converts over 40x more elements per multiply-add than the big one");
    // A wide margin: the casts triple the ops, so the tiny layer should take about 2-4x as long.
    L.check(tiny16 > 1.2 * tiny32, "autocast makes the tiny layer slower (by more than 20%; timed, fastest of 9 blocks)");
    // The big layer's ratio is printed, not checked: what it should be depends on the hardware,
    // which lesson 1 states and checks on a large product.
    const backends::cpu::MatmulHardware& hw = backends::cpu::matmul_hardware();
    const bool bf16_gains = hw.bf16_speed != backends::cpu::Bf16Speed::not_faster;
    L.say(lesson::wrap("The big layer's figure depends on the hardware. On this CPU bf16 products are multiplied by " +
                       hw.bf16_instruction + " (GEMM tier " + hw.bf16_tier + "): lesson 1 expects them " +
                       backends::cpu::bf16_speed_name(hw.bf16_speed) + " than f32's, " +
                       (bf16_gains ? "so the big layer can gain once its casts are paid for."
                                   : "so autocast cannot make even the big layer faster here: it only adds the casts.")) +
          "\nOn a GPU the launch of each cast kernel costs microseconds, so small layers lose there too.");
    return {tiny32, tiny16, big32, big16};
}

// The terms of step 2 (bf16), their exact sum, and what each way of adding them gave.
struct RunningSums {
    Tensor values;
    double exact = 0, f16_sum = 0, bf16_sum = 0, kernel_sum = 0;
};

RunningSums step_running_sum(lesson::Lesson& L, Generator& gen)
{
    L.step("Accumulating in 16 bits: the running sum stalls");
    L.expect("10000 numbers drawn between 0 and 0.002 add up to about 10. Kept in f32 after every addition, the\n"
             "sum gets there. Kept in bf16, it stops at 1: from 1 on, bf16's numbers are 2^-7 = 0.0078 apart, and\n"
             "adding less than half a gap (0.0039) rounds back to the same number. (Between 0.5 and 1 the gap is\n"
             "0.0039: only the rare terms above 0.00195 move it, by a whole gap.) f16 has 3 more mantissa bits:\n"
             "the same slow-down starts 8 times later, at 4, and it ends a little above 4. One sum() of the bf16\n"
             "values is right: the kernel accumulates in f32 and rounds once.");
    const Tensor values = mul(rand({10000}, f32, gen), 0.002).to(bf16);  // the same values, exact in every dtype below
    const double exact = sum(values, f64).item();
    std::vector<double> trail32, trail16, trail_bf16;
    const double s32 = running_sum(values, f32, trail32), s16 = running_sum(values, f16, trail16),
                 sbf16 = running_sum(values, bf16, trail_bf16);
    std::int64_t stuck_from = 0;  // after this many terms the bf16 sum never moved again
    for (std::size_t i = trail_bf16.size(); i-- > 1;)
        if (trail_bf16[i] != trail_bf16[i - 1]) {
            stuck_from = std::int64_t(i) + 1;
            break;
        }
    const Tensor kernel_sum = sum(values);
    std::printf("   exact (f64) %.6g | running sum in f32 %.6g, in f16 %.6g, in bf16 %.6g | sum() of the bf16 values %.6g (%s)\n",
                exact, s32, s16, sbf16, kernel_sum.item(), dtype_name(kernel_sum.dtype()));
    std::printf("   the bf16 running sum stopped moving after %lld of the 10000 terms, at %g\n", static_cast<long long>(stuck_from), sbf16);
    L.check(sbf16 <= 1.0 && sbf16 < 0.15 * exact, "the bf16 running sum stalls at or below 1.0, under 15% of the true sum");
    L.check(s16 > 4.0 && s16 < 0.6 * exact, "the f16 running sum gets past 4 but stalls below 60% of the true sum");
    L.check(std::abs(s32 - exact) < 1e-4 * exact, "the f32 running sum is within 0.01% of the true sum");
    L.check(kernel_sum.dtype() == bf16 && kernel_sum.item() == scalar_tensor(exact, bf16).item(),
            "sum() of the bf16 values accumulates in f32: its bf16 result is the true sum rounded once to bf16");
    lesson::LinePlot plot{"A running sum of 10000 numbers in [0, 0.002)", "terms added", "sum", false, {}, {}, {}};
    auto series = [](const char* label, const std::vector<double>& trail, const char* color) {
        lesson::Series s{label, {}, {}, color, false};
        auto add_point = [&](std::size_t i) {
            s.x.push_back(double(i + 1));
            s.y.push_back(trail[i]);
        };
        for (std::size_t i = 0; i < trail.size(); i += 50) add_point(i);
        if ((trail.size() - 1) % 50 != 0) add_point(trail.size() - 1);  // end on the last term
        return s;
    };
    plot.series = {series("f32", trail32, "#3c78dc"), series("f16", trail16, "#2a9d5c"), series("bf16", trail_bf16, "#e8862a")};
    L.write_plot("running_sum", plot, "A running sum kept in f32, f16 and bf16: the 16-bit sums stop where half the gap between "
                                      "their numbers exceeds the terms.");
    return {values, exact, s16, sbf16, kernel_sum.item()};
}

void step_reductions_in_f32(lesson::Lesson& L, const Tensor& values)
{
    L.step("Why autocast keeps reductions in f32");
    L.expect("On a GPU, PyTorch's autocast lists sum, softmax, log_softmax, cumsum and the norms as fp32_set_opt_dtype\n"
             "(the op computes and returns f32) and layer_norm, exp, log and the losses as fp32: their result\n"
             "depends on many terms or on a wide range. On the CPU, PyTorch leaves sum and softmax alone; the\n"
             "kernels accumulate in f32 but return the input's dtype. tinyamp's two tables do the same.");
    Tensor cpu_sum, gpu_sum, gpu_softmax;
    {
        amp::autocast region("cpu");  // PyTorch's CPU lists
        cpu_sum = sum(values);
    }
    {
        // The GPU's lists, emulated on CPU tensors (lesson 5): the dtypes a CUDA run would get.
        amp::autocast region("cpu", {.dtype = f16, .table = std::make_shared<const amp::PolicyTable>(amp::PolicyTable::cuda())});
        gpu_sum = sum(values.to(f16));
        gpu_softmax = softmax(values.to(f16).reshape({100, 100}), 1);
    }
    std::printf("   CPU table: sum(bf16) -> %s | CUDA table: sum(f16) -> %s, softmax(f16) -> %s\n", dtype_name(cpu_sum.dtype()),
                dtype_name(gpu_sum.dtype()), dtype_name(gpu_softmax.dtype()));
    L.check(cpu_sum.dtype() == bf16 && gpu_sum.dtype() == f32 && gpu_softmax.dtype() == f32,
            "CPU table: sum returns bf16; CUDA table: sum and softmax of f16 inputs return f32");
}

// bf16's largest relative error on dot products near 1e5, and f16's and bf16's on randn values.
struct RangeErrors {
    double bf16_near_1e5 = 0, f16_ordinary = 0, bf16_ordinary = 0;
};

RangeErrors step_range_vs_precision(lesson::Lesson& L, Generator& gen)
{
    L.step("Range against precision: f16 overflows, bf16 rounds coarsely");
    L.expect("Features near 20 over 256 dimensions: their dot products are about 256 x 400 = 102400, past\n"
             "f16's 65504, so an f16 matmul returns inf (and the softmax after it NaN). bf16 has f32's range and\n"
             "stays finite, within about 1%. On ordinary values the roles swap: bf16's 8-bit significand\n"
             "rounds about 8x more coarsely than f16's 11 bits.");
    const Tensor a = add(randn({8, 256}, f32, gen), 20.0);
    const Tensor reference = matmul(a.to(f64), a.t().to(f64));
    Tensor dot16, dotbf16, probs16;
    {
        amp::autocast region("cpu", {.dtype = f16});
        dot16 = matmul(a, a.t());
        probs16 = softmax(dot16, 1);
    }
    {
        amp::autocast region("cpu", {.dtype = bf16});
        dotbf16 = matmul(a, a.t());
    }
    const std::vector<double> d16 = dot16.to_vector();
    const auto infs = std::count_if(d16.begin(), d16.end(), [](double x) { return std::isinf(x); });
    std::printf("   largest |a a^T| %.6g | f16: %lld of 64 entries are inf, softmax finite: %s | bf16: max relative error %.3g\n",
                max(reference).item(), static_cast<long long>(infs), all_finite(probs16) ? "yes" : "no",
                max_relative_error(dotbf16, reference));
    L.check(infs > 0 && !all_finite(probs16), "f16 overflows to inf, and the softmax after it is not finite");
    L.check(all_finite(dotbf16) && max_relative_error(dotbf16, reference) < 0.01, "bf16 stays finite, within 1%");

    const Tensor p = randn({64, 256}, f32, gen), q = randn({256, 64}, f32, gen);
    const Tensor exact_pq = matmul(p.to(f64), q.to(f64));
    Tensor pq16, pqbf16;
    {
        amp::autocast region("cpu", {.dtype = f16});
        pq16 = matmul(p, q);
    }
    {
        amp::autocast region("cpu", {.dtype = bf16});
        pqbf16 = matmul(p, q);
    }
    const double e16 = max_relative_error(pq16, exact_pq), ebf16 = max_relative_error(pqbf16, exact_pq);
    std::printf("   ordinary values (randn, 64x256 @ 256x64): max relative error f16 %.3g, bf16 %.3g (x%s)\n", e16, ebf16,
                lesson::fmt(ebf16 / e16).c_str());
    L.check(ebf16 > 3.0 * e16, "on ordinary values bf16's error is over 3x f16's");
    return {max_relative_error(dotbf16, reference), e16, ebf16};
}

void step_choosing(lesson::Lesson& L)
{
    const backends::cpu::MatmulHardware& hw = backends::cpu::matmul_hardware();
    L.step("Choosing: f32, bf16, or f16 + GradScaler");
    std::printf("   %-24s %-26s %-26s %-22s\n", "", "f16 + GradScaler", "bf16", "f32");
    std::printf("   %-24s %-26s %-26s %-22s\n", "largest number", "65504", "3.4e38", "3.4e38");
    std::printf("   %-24s %-26s %-26s %-22s\n", "smallest normal", "6.1e-5 (subnormal 6e-8)", "1.2e-38", "1.2e-38");
    std::printf("   %-24s %-26s %-26s %-22s\n", "eps (precision)", "9.8e-4 (11 bits)", "7.8e-3 (8 bits)", "1.2e-7 (24 bits)");
    std::printf("   %-24s %-26s %-26s %-22s\n", "needs a loss scaler", "yes (gradients underflow)", "no (f32's range)", "no");
    std::printf("   %-24s %-26s %-26s %-22s\n", "GPU hardware", "Volta (V100) and newer", "Ampere (A100) and newer", "all");
    std::printf("   %-24s %-26s %-26s %-22s\n", "CPU (PyTorch autocast)", "accepted; few CPUs fast", "default; AMX/Zen 4: fast", "all");
    std::printf("   %-24s %-26s %-26s %-22s\n", "tinyamp here, vs f32", "not faster (widened)", backends::cpu::bf16_speed_name(hw.bf16_speed),
                ("1x (tier " + hw.f32_tier + ")").c_str());
    std::printf("   %-24s %-26s %-26s %-22s\n", "pick it when", "no bf16 hardware", "the hardware has it", "tiny models, debugging");
    L.say("Rules of thumb: prefer bf16 where the hardware has it (no scaler, no overflow); use f16 with a\n"
          "GradScaler on older GPUs; stay in f32 for tiny models, for code whose values you have not checked,\n"
          "and to debug a NaN (then switch autocast back on region by region, lesson 9). Whatever the format,\n"
          "keep accumulations (sums, norms, softmax, the optimizer's update) in f32: autocast and the kernels\n"
          "do it for their ops; your own loops must do it themselves.");
    L.check(traits(f16).max < 1e5 && traits(bf16).max > 1e38 && traits(bf16).eps == 8.0 * traits(f16).eps,
            "the table's figures: f16 max 65504, bf16 max 3.4e38, bf16's eps 8x f16's");

}

void run(lesson::Lesson& L)
{
    L.say("AMP is not free and not always right. This lesson measures four cases where it costs, or where\n"
          "the choice between f16 and bf16 matters, and ends with a table to choose.");
    Generator gen(0);  // steps 1, 2 and 4 draw from it in turn
    const LayerTimes times = step_tiny_layer(L, gen);
    const RunningSums sums = step_running_sum(L, gen);
    step_reductions_in_f32(L, sums.values);
    const RangeErrors errors = step_range_vs_precision(L, gen);
    step_choosing(L);
    L.key_result("10000 terms in [0, 0.002) (true sum " + lesson::fmt(sums.exact) + "): a running sum in bf16 stalls at " +
                 lesson::fmt(sums.bf16_sum) + ", in f16 at " + lesson::fmt(sums.f16_sum) + "; sum() accumulating in f32 gives " +
                 lesson::fmt(sums.kernel_sum));
    L.key_result("Linear(8,8): bf16 autocast " + lesson::fmt(times.tiny16 / times.tiny32) +
                 "x the f32 time (3 casts per op); Linear(512,512) batch 256: " + lesson::fmt(times.big16 / times.big32) + "x");
    L.key_result("dot products near 1e5: f16 gives inf, bf16 is within " + lesson::fmt(100 * errors.bf16_near_1e5) +
                 "%; on randn values bf16's error is " + lesson::fmt(errors.bf16_ordinary / errors.f16_ordinary) + "x f16's");
}

const lesson::Registration registered{{15, "when_not_to_use_amp", "When not to use AMP; bf16 vs f16",
                                       "when AMP costs (tiny layers, 16-bit accumulation) and how to choose f16 vs bf16", run}};

}  // namespace
