// scaled_mm, to_float8 and fp8_linear: products of casts, the straight-through gradients, the
// delayed state, the fp8_autocast region and what the trace notes about each cast.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {

Tensor random_matrix(std::int64_t rows, std::int64_t cols, double scale, std::uint64_t seed)
{
    Generator generator(seed);
    return mul(randn({rows, cols}, f32, generator), scale);
}

double amax_of(const Tensor& x)
{
    double amax = 0;
    for (double v : x.to_vector()) amax = std::max(amax, std::abs(v));
    return amax;
}

// a [m, k] times b [n, k] transposed, in f64, from f32 values.
std::vector<double> product_f64(const Tensor& a, const Tensor& b)
{
    const std::int64_t m = a.size(0), k = a.size(1), n = b.size(0);
    const std::vector<double> av = a.to_vector(), bv = b.to_vector();
    std::vector<double> out(std::size_t(m * n), 0.0);
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j)
            for (std::int64_t p = 0; p < k; ++p) out[std::size_t(i * n + j)] += av[std::size_t(i * k + p)] * bv[std::size_t(j * k + p)];
    return out;
}

// The per-tensor cast of x as fp8_linear makes it, read back: decode(encode(x * scale)) / scale.
Tensor cast_back(const Tensor& x, DType dtype)
{
    const float amax = float(amax_of(x));
    const float scale = amp::current_scale(amax, minifloat_format(dtype));
    return div(to_float8(x, scalar_tensor(scale), dtype).to(f32), double(scale));
}

// |got - want| within f32 summation error: k * eps_f32 * sum |terms| bounds it; 4 * k * eps * the
// largest |want| is a looser, simpler bound that holds for these well-scaled products.
void check_close(const Tensor& got, const std::vector<double>& want, std::int64_t k)
{
    const std::vector<double> g = got.to_vector();
    REQUIRE(g.size() == want.size());
    double largest = 0;
    for (double w : want) largest = std::max(largest, std::abs(w));
    const double tolerance = 4.0 * double(k) * 0x1p-24 * largest + 1e-30;
    double worst = 0;
    for (std::size_t i = 0; i < g.size(); ++i) worst = std::max(worst, std::abs(g[i] - want[i]));
    CHECK(worst <= tolerance);
}

}  // namespace

TEST_CASE("to_float8 and scaled_mm: the product of two per-tensor casts, as torch._scaled_mm")
{
    const Tensor x = random_matrix(5, 48, 3.0, 1), w = random_matrix(7, 48, 0.05, 2);
    const float sx = amp::current_scale(float(amax_of(x)), minifloat::f8e4m3fn);
    const float sw = amp::current_scale(float(amax_of(w)), minifloat::f8e4m3fn);
    const Tensor xq = to_float8(x, scalar_tensor(sx), f8e4m3fn), wq = to_float8(w, scalar_tensor(sw), f8e4m3fn);
    CHECK(xq.dtype() == f8e4m3fn);
    CHECK(float(amax_of(xq.to(f32))) == 448.0f);  // the amax lands on the format's max
    const Tensor out = scaled_mm(xq, wq.t(), scalar_tensor(1.0 / sx), scalar_tensor(1.0 / sw));
    CHECK(out.dtype() == f32);
    CHECK(out.shape() == Shape{5, 7});
    check_close(out, product_f64(div(xq.to(f32), double(sx)), div(wq.to(f32), double(sw))), 48);
    // Close to the f32 product too: E4M3 keeps 3 fraction bits, so within a few percent of the scale of the sums.
    const std::vector<double> exact = product_f64(x, w), got = out.to_vector();
    double err = 0, size = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        err = std::max(err, std::abs(got[i] - exact[i]));
        size = std::max(size, std::abs(exact[i]));
    }
    CHECK(err < 0.1 * size);
    CHECK(scaled_mm(xq, wq.t(), scalar_tensor(1.0 / sx), scalar_tensor(1.0 / sw), bf16).dtype() == bf16);
}

TEST_CASE("ScaledTensor: to_scaled casts with current scaling, dequantize reads it back, scaled_mm multiplies two")
{
    const Tensor x = random_matrix(3, 32, 5.0, 20), w = random_matrix(4, 32, 0.01, 21);
    const ScaledTensor xs = to_scaled(x), ws = to_scaled(w, f8e5m2);
    CHECK(xs.data.dtype() == f8e4m3fn);
    CHECK(ws.data.dtype() == f8e5m2);
    CHECK(xs.scale_inv.item() == doctest::Approx(amax_of(x) / 448.0).epsilon(1e-6));
    // Within E4M3's relative error (2^-4) of each value, and the largest exactly.
    const std::vector<double> back = xs.dequantize().to_vector(), orig = x.to_vector();
    int outside = 0;
    for (std::size_t i = 0; i < orig.size(); ++i) outside += std::abs(back[i] - orig[i]) > 0x1p-4 * std::abs(orig[i]) + 1e-6;
    CHECK(outside == 0);
    const Tensor out = scaled_mm(xs, ws.t());
    check_close(out, product_f64(xs.dequantize(), ws.dequantize()), 32);
    CHECK_THROWS_AS(to_scaled(x, e8m0), Error);
}

TEST_CASE("scaled_mm refuses what does not fit, naming it")
{
    const Tensor q = ones({4, 32}, f8e4m3fn), one = scalar_tensor(1.0);
    CHECK(error_message([&] { scaled_mm(ones({4, 32}), q.t(), one, one); }, ErrorKind::dtype).find("to_float8") != std::string::npos);
    CHECK(error_message([&] { scaled_mm(q, ones({31, 4}, f8e4m3fn), one, one); }, ErrorKind::shape).find("K = 32") != std::string::npos);
    CHECK(error_message([&] { scaled_mm(q, q.t(), ones({4, 2}, e8m0), one); }, ErrorKind::shape).find("[4, 1]") != std::string::npos);
    CHECK_THROWS_AS(scaled_mm(q, q.t(), one, one, i64), Error);
    CHECK_THROWS_AS(to_float8(ones({2}), one, e8m0), Error);
}

TEST_CASE("fp8_linear, current scaling: forward and gradients are the products of the casts (straight through)")
{
    const Tensor x = random_matrix(6, 40, 1.0, 3).requires_grad_();
    const Tensor w = random_matrix(5, 40, 0.2, 4).requires_grad_();
    const Tensor b = random_matrix(1, 5, 0.1, 5).reshape({5}).detach().requires_grad_();
    const Tensor y = fp8_linear(x, w, b, amp::Float8CurrentScaling{});
    CHECK(y.dtype() == f32);
    std::vector<double> want = product_f64(cast_back(x.detach(), f8e4m3fn), cast_back(w.detach(), f8e4m3fn));
    const std::vector<double> bias = b.to_vector();
    for (std::size_t i = 0; i < want.size(); ++i) want[i] += bias[i % 5];
    check_close(y, want, 40);

    const Tensor g = random_matrix(6, 5, 1e-3, 6);  // small gradients, as real ones: E5M2 with its own scale keeps them
    y.backward(g);
    // HYBRID: the gradient cast to E5M2, the weight and input as the forward cast them (E4M3).
    const Tensor gq = cast_back(g, f8e5m2);
    check_close(x.grad(), product_f64(gq, cast_back(w.detach(), f8e4m3fn).t().contiguous()), 5);
    check_close(w.grad(), product_f64(gq.t().contiguous(), cast_back(x.detach(), f8e4m3fn).t().contiguous()), 6);
    CHECK(b.grad().to_vector() == sum(g, {0}).to_vector());
    CHECK(w.grad().dtype() == f32);  // master weights keep f32 gradients
}

TEST_CASE("fp8_linear, delayed scaling: the first step casts with scale 1, then the history decides")
{
    const Tensor x = random_matrix(4, 32, 0.01, 7);  // small values: with scale 1 many flush to zero
    const Tensor w = random_matrix(3, 32, 0.5, 8).requires_grad_();
    amp::DelayedScaling recipe;
    recipe.amax_history_len = 4;
    auto state = std::make_shared<Fp8LinearState>(4);
    const Tensor y1 = fp8_linear(x, w, Tensor(), recipe, state);
    const float amax = float(amax_of(x));
    CHECK(state->input.history.values()[0] == amax);
    CHECK(state->input.scale == doctest::Approx(448.0 / amax).epsilon(1e-6));
    // Step 1 used scale 1: the same as casting x unscaled.
    const Tensor unscaled = to_float8(x, scalar_tensor(1.0), f8e4m3fn).to(f32);
    const float sw1 = 1.0f;
    check_close(y1, product_f64(unscaled, div(to_float8(w.detach(), scalar_tensor(sw1), f8e4m3fn).to(f32), 1.0)), 32);
    // Step 2 uses the scale the history gave: now x's largest value lands on 448.
    const Tensor y2 = fp8_linear(x, w, Tensor(), recipe, state);
    check_close(y2, product_f64(cast_back(x, f8e4m3fn), cast_back(w.detach(), f8e4m3fn)), 32);
    // A spike raises the amax: the scale drops at once and stays down while the spike is in the history.
    const Tensor spike = mul(x, 100.0);
    fp8_linear(spike, w, Tensor(), recipe, state);
    const float after_spike = state->input.scale;
    CHECK(after_spike == doctest::Approx(448.0 / (100.0 * amax)).epsilon(1e-5));
    for (int step = 0; step < 3; ++step) fp8_linear(x, w, Tensor(), recipe, state);
    CHECK(state->input.scale == after_spike);  // 3 more steps: the spike is still one of the last 4
    fp8_linear(x, w, Tensor(), recipe, state);
    CHECK(state->input.scale == doctest::Approx(448.0 / amax).epsilon(1e-6));  // gone from the window
}

TEST_CASE("fp8_linear, MXFP8: blocks of 32 along K, and the gradients cast again along the new reduction dimension")
{
    const Tensor x = random_matrix(8, 64, 1.0, 9).requires_grad_();
    const Tensor w = random_matrix(4, 64, 0.3, 10).requires_grad_();
    const Tensor y = fp8_linear(x, w, Tensor(), amp::MXBlockScaling::mxfp8());
    const std::vector<double> exact = product_f64(x.detach(), w.detach()), got = y.to_vector();
    double err = 0, size = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        err = std::max(err, std::abs(got[i] - exact[i]));
        size = std::max(size, std::abs(exact[i]));
    }
    CHECK(err < 0.1 * size);
    sum(y).backward();
    CHECK(x.grad().shape() == x.shape());
    CHECK(w.grad().shape() == w.shape());
    // dL/dW[j, p] = sum over rows of x[r, p]; each cast value is within E4M3's relative error
    // 2^-4 of x (the ones of the gradient cast exactly), so the sum within 2^-4 * sum |x|.
    const std::vector<double> gw = w.grad().to_vector(), xv = x.detach().to_vector();
    int outside = 0;
    for (std::size_t i = 0; i < gw.size(); ++i) {
        double want = 0, bound = 0;
        for (std::size_t r = 0; r < 8; ++r) {
            want += xv[r * 64 + i % 64];
            bound += 0x1p-4 * std::abs(xv[r * 64 + i % 64]);
        }
        outside += std::abs(gw[i] - want) > bound;
    }
    CHECK(outside == 0);
}

TEST_CASE("fp8_linear, NVFP4 and MXFP4: FP4 elements in blocks, close to the f32 product, odd sizes refused")
{
    const Tensor x = random_matrix(8, 64, 1.0, 16).requires_grad_();
    const Tensor w = random_matrix(6, 64, 0.3, 17).requires_grad_();
    const std::vector<double> exact = product_f64(x.detach(), w.detach());
    double size = 0;
    for (double v : exact) size = std::max(size, std::abs(v));
    for (const amp::ScalingRecipe& recipe : {amp::ScalingRecipe(amp::NVFP4BlockScaling{}), amp::ScalingRecipe(amp::MXBlockScaling::mxfp4())}) {
        CAPTURE(amp::recipe_name(recipe));
        const Tensor y = fp8_linear(x, w, Tensor(), recipe);
        const std::vector<double> got = y.to_vector();
        double err = 0;
        for (std::size_t i = 0; i < got.size(); ++i) err = std::max(err, std::abs(got[i] - exact[i]));
        CHECK(err < 0.35 * size);  // E2M1 keeps one fraction bit: errors of up to a quarter per value
        CHECK(err > 0.0);
        sum(y).backward();
        CHECK(w.grad().shape() == w.shape());
        w.set_grad(Tensor());
        x.set_grad(Tensor());
    }
    // Odd sizes along a reduction dimension (K = 15 forward, 3 rows for dW) are padded with a zero:
    // ones cast exactly, so the products are exact.
    const Tensor ox = ones({3, 15}).requires_grad_(), ow = ones({5, 15}).requires_grad_();
    const Tensor oy = fp8_linear(ox, ow, Tensor(), amp::NVFP4BlockScaling{});
    CHECK(oy.to_vector() == std::vector<double>(15, 15.0));
    sum(oy).backward();
    CHECK(ow.grad().to_vector() == std::vector<double>(5 * 15, 3.0));
    CHECK(ox.grad().to_vector() == std::vector<double>(3 * 15, 5.0));
}

TEST_CASE("fp8_linear refuses delayed scaling without a state, and shapes that do not fit")
{
    const Tensor x = ones({2, 16}), w = ones({3, 16});
    CHECK(error_message([&] { fp8_linear(x, w, Tensor(), amp::DelayedScaling{}); }, ErrorKind::value).find("Fp8LinearState") != std::string::npos);
    CHECK_THROWS_AS(fp8_linear(ones({2, 15}), w, Tensor(), amp::Float8CurrentScaling{}), Error);
    CHECK_THROWS_AS(fp8_linear(x, w.to(bf16), Tensor(), amp::Float8CurrentScaling{}), Error);
}

TEST_CASE("fp8_autocast: Linear layers inside run fp8_linear, with a delayed state per layer, enabled=false turns it off")
{
    auto fc = std::make_shared<nn::Linear>(32, 4);
    const Tensor x = random_matrix(3, 32, 1.0, 11);
    trace::Trace outside, inside, off;
    {
        trace::TraceRecorder recorder(outside);
        (*fc)(x);
    }
    CHECK(outside.events().back().op == "linear");
    CHECK_FALSE(amp::is_fp8_autocast_enabled());
    {
        amp::DelayedScaling recipe;
        recipe.amax_history_len = 16;
        amp::fp8_autocast fp8(true, recipe);
        CHECK(amp::is_fp8_autocast_enabled());
        {
            trace::TraceRecorder recorder(inside);
            (*fc)(x);
        }
        REQUIRE(fc->fp8_state != nullptr);
        CHECK(fc->fp8_state->input.history.length() == 16);
        {
            amp::fp8_autocast not_here(false);
            trace::TraceRecorder recorder(off);
            (*fc)(x);
        }
        CHECK(amp::is_fp8_autocast_enabled());
    }
    CHECK_FALSE(amp::is_fp8_autocast_enabled());
    CHECK(inside.events().back().op == "fp8_linear");
    CHECK(off.events().back().op == "linear");
}

TEST_CASE("the trace notes each cast: role, format, recipe, amax, scale, shares, history, histogram, block scales")
{
    const Tensor x = random_matrix(4, 64, 2.0, 12).requires_grad_();
    const Tensor w = random_matrix(8, 64, 0.1, 13).requires_grad_();
    trace::Trace t;
    {
        trace::TraceRecorder recorder(t);
        auto state = std::make_shared<Fp8LinearState>(8);
        amp::DelayedScaling recipe;
        recipe.amax_history_len = 8;
        sum(fp8_linear(x, w, Tensor(), recipe, state)).backward();
    }
    const trace::Event* forward = nullptr;
    const trace::Event* backward = nullptr;
    for (const trace::Event& e : t.events()) {
        if (e.op == "fp8_linear" && e.phase == trace::Phase::forward) forward = &e;
        if (!e.scaled_casts.empty() && e.phase == trace::Phase::backward) backward = &e;
    }
    REQUIRE(forward != nullptr);
    REQUIRE(forward->scaled_casts.size() == 2);
    const trace::ScaledCast& in = forward->scaled_casts[0];
    CHECK(in.role == "input");
    CHECK(in.dtype == f8e4m3fn);
    CHECK(in.recipe == "delayed");
    CHECK(in.amax == doctest::Approx(amax_of(x)));
    CHECK(in.scale == 1.0);  // the first step of delayed scaling
    CHECK(in.amax_history.size() == 8);
    CHECK(in.amax_history[0] == float(in.amax));
    std::int64_t counted = in.zeros;
    for (std::int64_t c : in.log2_histogram) counted += c;
    CHECK(counted == 4 * 64);
    CHECK(in.saturated_share == 0.0);  // scale 1 and |x| < 448
    CHECK(forward->scaled_casts[1].role == "weight");
    CHECK(forward->scaled_casts[1].flushed_share > 0.0);  // weights ~0.1 at scale 1: the smallest fall under 2^-10
    REQUIRE(backward != nullptr);
    CHECK(backward->scaled_casts[0].role == "grad_output");
    CHECK(backward->scaled_casts[0].dtype == f8e5m2);

    trace::Trace mx;
    {
        trace::TraceRecorder recorder(mx);
        fp8_linear(x.detach(), w.detach(), Tensor(), amp::MXBlockScaling::mxfp8());
    }
    const trace::ScaledCast& block = mx.events().back().scaled_casts.at(0);
    CHECK(block.recipe == "mxfp8");
    CHECK(block.blocks_per_row == 2);
    CHECK(block.block_scale_exponents.size() == 8);  // 4 rows x 2 blocks
    CHECK(block.scale == 1.0);
}

TEST_CASE("the casts of fp8_linear are FP8 tensors: the allocator counts one byte an element")
{
    const Tensor x = random_matrix(16, 64, 1.0, 14), w = random_matrix(32, 64, 0.1, 15);
    reset_peak_memory_stats();
    const MemoryStats before = memory_stats();
    fp8_linear(x, w, Tensor(), amp::Float8CurrentScaling{});
    const MemoryStats after = memory_stats();
    CHECK(after[f8e4m3fn].peak_bytes - before[f8e4m3fn].live_bytes == 16 * 64 + 32 * 64);
    CHECK(after[f8e4m3fn].live_bytes == before[f8e4m3fn].live_bytes);  // no graph kept them

    reset_peak_memory_stats();
    const MemoryStats mx_before = memory_stats();
    fp8_linear(x, w, Tensor(), amp::MXBlockScaling::mxfp4());
    const MemoryStats mx_after = memory_stats();
    CHECK(mx_after[f4e2m1x2].peak_bytes - mx_before[f4e2m1x2].live_bytes == (16 * 64 + 32 * 64) / 2);  // two values a byte
    CHECK(mx_after[e8m0].peak_bytes - mx_before[e8m0].live_bytes == (16 + 32) * 2);                 // one scale per 32
}

TEST_CASE("fp8_autocast inside autocast: Linear layers run in FP8, every other op by the autocast policy")
{
    auto fc = std::make_shared<nn::Linear>(32, 8);
    const Tensor x = random_matrix(4, 32, 1.0, 30), w = random_matrix(32, 8, 0.1, 31);
    trace::Trace t;
    Tensor y, other;
    {
        trace::TraceRecorder recorder(t);
        amp::autocast bf16_region("cpu");
        amp::fp8_autocast fp8(true, amp::Float8CurrentScaling{});
        y = (*fc)(x);
        other = matmul(x, w);  // functional ops are not changed by the FP8 region (as TE's)
    }
    CHECK(y.dtype() == f32);        // fp8_linear's output
    CHECK(other.dtype() == bf16);   // matmul: lower_precision_fp under CPU autocast
    bool saw_fp8 = false;
    for (const trace::Event& e : t.events()) saw_fp8 |= e.op == "fp8_linear";
    CHECK(saw_fp8);
}
