// layer_norm and batch_norm: gradients of input, weight and bias by gradcheck in f64 (batch_norm
// in training and eval mode); f16/bf16 results within the dtype tolerance of f64; batch_norm's
// running statistics by PyTorch's formula; errors.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include <tinyamp/tinyamp.h>

#include "kernels/cpu/normalization_loops.h"

#include "tests/support/expect_error.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using tinyamp::test::check_close;
using tinyamp::test::ulps_for;
using tinyamp::test::error_message;

namespace {

Tensor random_input(const Shape& shape, std::uint64_t seed, double scale = 1.0, double shift = 0.0)
{
    Generator gen(seed);
    return add(mul(randn(shape, f64, gen), scale), shift);
}

void check_gradients(const std::string& what, const std::function<Tensor(const std::vector<Tensor>&)>& fn, const std::vector<Tensor>& inputs)
{
    INFO(what);
    const GradcheckResult r = gradcheck(fn, inputs);
    INFO(r.report);
    CHECK(r.ok);
}

}  // namespace

// ---------------------------------------------------------------- layer_norm

TEST_CASE("layer_norm: f64 gradients for input, weight and bias over several shapes")
{
    const std::vector<std::pair<Shape, Shape>> cases = {{{4, 5}, {5}}, {{2, 3, 4}, {3, 4}}, {{2, 3, 4}, {4}}, {{6}, {6}}, {{2, 3}, {2, 3}}};
    for (const auto& [shape, normalized] : cases) {
        const std::string where = "input " + shape_str(shape) + ", normalized_shape " + shape_str(normalized);
        const Tensor x = random_input(shape, 1, 2.0, 0.5).requires_grad_();
        const Tensor w = random_input(normalized, 2).requires_grad_();
        const Tensor b = random_input(normalized, 3).requires_grad_();
        check_gradients(where + " with weight and bias",
                        [&](const std::vector<Tensor>& in) { return layer_norm(in[0], normalized, in[1], in[2]); }, {x, w, b});
        check_gradients(where + " with weight only", [&](const std::vector<Tensor>& in) { return layer_norm(in[0], normalized, in[1]); },
                        {x, w});
        check_gradients(where + " without affine", [&](const std::vector<Tensor>& in) { return layer_norm(in[0], normalized); }, {x});
    }
}

TEST_CASE("layer_norm: f16/bf16 results within 2 ulps of f64 on the same rounded inputs, f32 within its sums' error")
{
    const Tensor x64 = random_input({8, 3, 16}, 4, 3.0, 1.0);
    const Tensor w64 = random_input({16}, 5), b64 = random_input({16}, 6);
    for (DType d : {f16, bf16, f32}) {
        INFO(dtype_name(d));
        const Tensor x = x64.to(d), w = w64.to(d), b = b64.to(d);
        const Tensor y = layer_norm(x, {16}, w, b);
        CHECK(y.dtype() == d);
        check_close(y, layer_norm(x.to(f64), {16}, w.to(f64), b.to(f64)), d, ulps_for(d, 16));
        check_close(layer_norm(x, {3, 16}), layer_norm(x.to(f64), {3, 16}), d, ulps_for(d, 3 * 16));
    }
}

TEST_CASE("layer_norm's f32 backward on the CPU (one pass per row): the ops' gradients within f32 sums, the same bits on 1 and 2 threads")
{
    // 100 rows: several chunks of 32, the last one short. The ops' backward runs under create_graph.
    Generator gen(31);
    const Tensor x = mul(randn({4, 25, 48}, f32, gen), 3.0), w = randn({48}, f32, gen), b = randn({48}, f32, gen), g = randn({4, 25, 48}, f32, gen);
    const auto gradients = [&](bool create_graph) {
        const Tensor xr = x.detach().requires_grad_(), wr = w.detach().requires_grad_(), br = b.detach().requires_grad_();
        layer_norm(xr, {48}, wr, br).backward(g, false, create_graph);
        return std::vector<Tensor>{xr.grad().detach(), wr.grad().detach(), br.grad().detach()};
    };
    const std::vector<Tensor> ops = gradients(true);
    const int threads = get_num_threads();
    set_num_threads(1);
    const std::vector<Tensor> one = gradients(false);
    set_num_threads(2);
    const std::vector<Tensor> two = gradients(false);
    set_num_threads(threads);
    for (std::size_t i = 0; i < 3; ++i) {
        INFO("gradient " << i);
        CHECK(one[i].to_vector() == two[i].to_vector());
        const std::vector<double> a = one[i].to_vector(), e = ops[i].to_vector();
        double worst = 0, scale = 0;
        for (std::size_t j = 0; j < a.size(); ++j) worst = std::max(worst, std::abs(a[j] - e[j])), scale = std::max(scale, std::abs(e[j]));
        CHECK(worst <= 1e-5 * scale);
    }
}

TEST_CASE("layer_norm's f32 forward on the CPU (one pass per row): the plain loops' result within f32 sums, the same bits on 1 and 2 threads")
{
    // 100 rows of 200 (not a multiple of the 16 lanes), a large mean (the variance must not cancel).
    Generator gen(37);
    const Tensor x = add(mul(randn({4, 25, 200}, f32, gen), 3.0), 100.0), w = randn({200}, f32, gen), b = randn({200}, f32, gen);
    const Tensor x64 = x.to(f64), w64 = w.to(f64), b64 = b.to(f64);
    std::vector<float> plain(std::size_t(x.numel())), mean(100), var(100);  // normalization_loops.h, one running sum
    const std::vector<double> xs = x.to_vector(), ws = w.to_vector(), bs = b.to_vector();
    const std::vector<float> xf(xs.begin(), xs.end()), wf(ws.begin(), ws.end()), bf(bs.begin(), bs.end());
    kernels::cpu::group_moments(xf.data(), 1, 100, 200, mean.data(), var.data());
    kernels::cpu::inverse_std(var.data(), 100, 1e-5, var.data());
    kernels::cpu::normalize_groups(xf.data(), 1, 100, 200, mean.data(), var.data(), wf.data(), bf.data(), kernels::cpu::AffineIndex::inner,
                                   plain.data());
    const int threads = get_num_threads();
    set_num_threads(1);
    const std::vector<double> one = layer_norm(x, {200}, w, b).to_vector();
    set_num_threads(2);
    const std::vector<double> two = layer_norm(x, {200}, w, b).to_vector();
    set_num_threads(threads);
    CHECK(one == two);
    const std::vector<double> exact = layer_norm(x64, {200}, w64, b64).to_vector();
    double worst = 0, worst_plain = 0, apart = 0;
    for (std::size_t j = 0; j < one.size(); ++j) {
        worst = std::max(worst, std::abs(one[j] - exact[j]));
        worst_plain = std::max(worst_plain, std::abs(double(plain[j]) - exact[j]));
        apart = std::max(apart, std::abs(one[j] - double(plain[j])));
    }
    INFO("worst error against f64: the kernel's " << worst << ", the plain loops' " << worst_plain << "; the two apart by " << apart);
    CHECK(apart <= 1e-4);
    CHECK(worst <= worst_plain * 1.5 + 1e-6);  // 16 lanes sum no worse than one running sum
}

TEST_CASE("layer_norm of one row by hand")
{
    // mean 2.5, biased variance 1.25
    const Tensor y = layer_norm(tensor({1.0, 2.0, 3.0, 4.0}, f64), {4}, tensor({1.0, 2.0, 1.0, 1.0}, f64), tensor({0.0, 0.0, 0.0, 10.0}, f64));
    const double s = std::sqrt(1.25 + 1e-5);
    check_close(y, tensor({-1.5 / s, 2 * -0.5 / s, 0.5 / s, 1.5 / s + 10}, f64), f64);
}

TEST_CASE("layer_norm of an f16 input with f32 parameters: f16 result, gradients in each input's dtype")
{
    const Tensor x = random_input({3, 8}, 7).to(f16).requires_grad_();
    const Tensor w = ones({8}, f32).requires_grad_();
    const Tensor b = zeros({8}, f32).requires_grad_();
    const Tensor y = layer_norm(x, {8}, w, b);
    CHECK(y.dtype() == f16);
    sum(mul(y, y)).backward();
    CHECK(x.grad().dtype() == f16);
    CHECK(w.grad().dtype() == f32);
    CHECK(b.grad().dtype() == f32);
}

TEST_CASE("layer_norm errors name the shapes involved")
{
    const Tensor x = ones({2, 3});
    CHECK(error_message([&] { layer_norm(x, {4}); }, ErrorKind::shape) ==
          "layer_norm: normalized_shape [4] must equal the last 1 dimension(s) of the input, but the input has shape [2, 3]");
    CHECK(error_message([&] { layer_norm(x, {2, 2, 3}); }, ErrorKind::shape).find("the input has shape [2, 3]") != std::string::npos);
    CHECK(error_message([&] { layer_norm(x, {3}, ones({4})); }, ErrorKind::shape) ==
          "layer_norm: weight has shape [4], but normalized_shape is [3], so it needs shape [3]");
    CHECK(error_message([&] { layer_norm(x, {3}, ones({3}), ones({2, 3})); }, ErrorKind::shape).find("bias has shape [2, 3]") !=
          std::string::npos);
    CHECK(error_message([&] { layer_norm(x, {}); }, ErrorKind::shape).find("normalized_shape is empty") != std::string::npos);
    CHECK(error_message([&] { layer_norm(ones({2, 3}, i64), {3}); }, ErrorKind::dtype).find("floating point input") != std::string::npos);
}

// ---------------------------------------------------------------- batch_norm

TEST_CASE("batch_norm: f64 gradients for input, weight and bias, in training and eval mode")
{
    for (const Shape& shape : {Shape{5, 3}, Shape{3, 2, 4}, Shape{2, 3, 2, 3}}) {
        const std::int64_t channels = shape[1];
        const Tensor x = random_input(shape, 8, 2.0, 1.0).requires_grad_();
        const Tensor w = random_input({channels}, 9).requires_grad_();
        const Tensor b = random_input({channels}, 10).requires_grad_();
        const Tensor running_mean = random_input({channels}, 11);
        const Tensor running_var = add(rand({channels}, f64), 0.5);
        for (bool training : {true, false}) {
            const std::string where = "input " + shape_str(shape) + (training ? " training" : " eval");
            check_gradients(where + " with weight and bias", [&](const std::vector<Tensor>& in) {
                return batch_norm(in[0], running_mean, running_var, in[1], in[2], training);
            }, {x, w, b});
            check_gradients(where + " without affine",
                            [&](const std::vector<Tensor>& in) { return batch_norm(in[0], running_mean, running_var, Tensor(), Tensor(), training); },
                            {x});
            check_gradients(where + " without running stats",
                            [&](const std::vector<Tensor>& in) { return batch_norm(in[0], Tensor(), Tensor(), in[1], in[2], training); }, {x, w, b});
        }
    }
}

TEST_CASE("batch_norm: f16/bf16 results within 2 ulps of f64 on the same rounded inputs, f32 within its sums' error")
{
    const Tensor x64 = random_input({4, 3, 5, 5}, 12, 3.0, -1.0);
    const Tensor w64 = random_input({3}, 13), b64 = random_input({3}, 14);
    const Tensor mean64 = random_input({3}, 15), var64 = add(rand({3}, f64), 0.5);
    for (DType d : {f16, bf16, f32})
        for (bool training : {true, false}) {
            INFO(dtype_name(d) << (training ? " training" : " eval"));
            const Tensor x = x64.to(d), w = w64.to(d), b = b64.to(d);
            // Running stats are usually kept in f32; rounding them to d gives both sides the same values.
            const Tensor mean = mean64.to(d).to(f32), var = var64.to(d).to(f32);
            const Tensor y = batch_norm(x, mean.clone(), var.clone(), w, b, training);
            CHECK(y.dtype() == d);
            check_close(y, batch_norm(x.to(f64), mean.to(f64), var.to(f64), w.to(f64), b.to(f64), training), d, ulps_for(d, 4 * 5 * 5));
        }
}

TEST_CASE("batch_norm training step: running statistics by PyTorch's formula, then used in eval")
{
    // x is [N=3, C=2]. Channel 0: 1, 2, 6 (mean 3, biased variance 14/3, unbiased 7).
    //                  Channel 1: 0, 4, 8 (mean 4, biased variance 32/3, unbiased 16).
    const Tensor x = tensor({1.0, 0.0, 2.0, 4.0, 6.0, 8.0}, {3, 2}, f32);
    const Tensor running_mean = zeros({2}, f32), running_var = ones({2}, f32);
    const Tensor y = batch_norm(x, running_mean, running_var, Tensor(), Tensor(), true, 0.1);

    // running = 0.9 * running + 0.1 * batch_stat, with the unbiased variance for running_var.
    check_close(running_mean, tensor({0.3, 0.4}, f64), f32);
    check_close(running_var, tensor({1.6, 2.5}, f64), f32);
    // The output used the batch's biased variance.
    const double s0 = std::sqrt(14.0 / 3 + 1e-5), s1 = std::sqrt(32.0 / 3 + 1e-5);
    check_close(y, tensor({-2 / s0, -4 / s1, -1 / s0, 0.0, 3 / s0, 4 / s1}, {3, 2}, f64), f32);

    // A second step moves them on from there.
    batch_norm(x, running_mean, running_var, Tensor(), Tensor(), true, 0.5);
    check_close(running_mean, tensor({0.5 * 0.3 + 0.5 * 3, 0.5 * 0.4 + 0.5 * 4}, f64), f32);
    check_close(running_var, tensor({0.5 * 1.6 + 0.5 * 7, 0.5 * 2.5 + 0.5 * 16}, f64), f32);

    // Eval mode normalizes with them and leaves them alone.
    const std::vector<double> mean_before = running_mean.to_vector(), var_before = running_var.to_vector();
    const Tensor w = tensor({2.0, 1.0}, f32), b = tensor({0.0, -1.0}, f32);
    const Tensor y_eval = batch_norm(x, running_mean, running_var, w, b, false);
    CHECK(running_mean.to_vector() == mean_before);
    CHECK(running_var.to_vector() == var_before);
    std::vector<double> expected;
    for (std::int64_t row = 0; row < 3; ++row)
        for (std::int64_t c = 0; c < 2; ++c)
            expected.push_back((x.at({row, c}) - mean_before[std::size_t(c)]) / std::sqrt(var_before[std::size_t(c)] + 1e-5) * w.at({c}) +
                               b.at({c}));
    check_close(y_eval, tensor(expected, {3, 2}, f64), f32);
}

TEST_CASE("batch_norm updates the running statistics in place and outside the graph")
{
    const Tensor x = random_input({4, 3, 2}, 16).to(f32).requires_grad_();
    const Tensor running_mean = zeros({3}, f32), running_var = ones({3}, f32);
    const Tensor mean_handle = running_mean;  // the same tensor: an update must be visible here
    const Tensor y = batch_norm(x, running_mean, running_var, Tensor(), Tensor(), true);
    CHECK(y.grad_fn_name() == "batch_norm");
    CHECK(mean_handle.to_vector() != std::vector<double>{0, 0, 0});
    CHECK_FALSE(running_mean.requires_grad());
    CHECK(running_mean.grad_fn() == nullptr);
    sum(y).backward();
    CHECK(x.grad().defined());
    CHECK_FALSE(running_mean.grad().defined());
}

TEST_CASE("batch_norm without running statistics uses the batch's in eval mode too")
{
    const Tensor x = random_input({6, 2, 3}, 17);
    check_close(batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), false), batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true), f64);
}

TEST_CASE("batch_norm of an f16 input with f32 parameters: f16 result, gradients in each input's dtype")
{
    const Tensor x = random_input({4, 3}, 18).to(f16).requires_grad_();
    const Tensor w = ones({3}, f32).requires_grad_();
    const Tensor b = zeros({3}, f32).requires_grad_();
    const Tensor y = batch_norm(x, zeros({3}), ones({3}), w, b, true);
    CHECK(y.dtype() == f16);
    sum(mul(y, y)).backward();
    CHECK(x.grad().dtype() == f16);
    CHECK(w.grad().dtype() == f32);
    CHECK(b.grad().dtype() == f32);
}

TEST_CASE("batch_norm errors say what is wrong")
{
    const Tensor x = ones({2, 3});
    CHECK(error_message([&] { batch_norm(ones({1, 3}), zeros({3}), ones({3}), Tensor(), Tensor(), true); }, ErrorKind::value) ==
          "Expected more than 1 value per channel when training, got input of shape [1, 3]");
    CHECK(error_message([&] { batch_norm(ones({1, 3, 1, 1}), Tensor(), Tensor(), Tensor(), Tensor(), true); }, ErrorKind::value)
              .find("Expected more than 1 value per channel when training") != std::string::npos);
    batch_norm(ones({1, 3}), zeros({3}), ones({3}), Tensor(), Tensor(), false);  // eval mode needs no batch statistics
    CHECK(error_message([&] { batch_norm(x, zeros({4}), ones({3}), Tensor(), Tensor(), true); }, ErrorKind::shape) ==
          "batch_norm: running_mean has shape [4], but the input has 3 channels (shape [2, 3]), so it needs shape [3]");
    CHECK(error_message([&] { batch_norm(x, zeros({3}), ones({2}), Tensor(), Tensor(), false); }, ErrorKind::shape).find("running_var has shape [2]") !=
          std::string::npos);
    CHECK(error_message([&] { batch_norm(x, Tensor(), Tensor(), ones({2}), Tensor(), true); }, ErrorKind::shape).find("weight has shape [2]") !=
          std::string::npos);
    CHECK(error_message([&] { batch_norm(x, Tensor(), Tensor(), Tensor(), ones({3, 1}), true); }, ErrorKind::shape).find("bias has shape [3, 1]") !=
          std::string::npos);
    CHECK(error_message([&] { batch_norm(ones({3}), Tensor(), Tensor(), Tensor(), Tensor(), true); }, ErrorKind::shape).find("got shape [3]") !=
          std::string::npos);
    CHECK(error_message([&] { batch_norm(x, zeros({3}), Tensor(), Tensor(), Tensor(), true); }, ErrorKind::value).find("both running_mean and running_var") !=
          std::string::npos);
}
