// Mixed precision on CUDA: the two GradScaler kernels directly, the GradScaler's CUDA path,
// autocast with the CUDA policy table on CUDA tensors, and one training step of a digits-sized
// MLP on the GPU against the same step on the CPU.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "cuda_compare.h"
#include "kernels/cuda/amp_cuda.h"

using namespace tinyamp;
using test::check_gpu_matches_cpu;
using test::random_cpu;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

float* f32_ptr(const Tensor& t) { return static_cast<float*>(t.data_ptr()); }

}  // namespace

TEST_CASE("amp_foreach_non_finite_check_and_unscale_: finite grads are scaled and leave found_inf at 0")
{
    Generator gen(test::cuda_test_seed(111));
    const Tensor a = random_cpu({1000}, f32, gen), b = random_cpu({3, 7}, bf16, gen), c = random_cpu({5}, f64, gen);
    const Tensor ga = a.cuda(), gb = b.cuda(), gc = c.cuda();
    const Tensor found_inf = zeros({}, f32).cuda(), inv_scale = full({}, 0.125, f32).cuda();
    kernels::cuda::amp_foreach_non_finite_check_and_unscale_(
        {{ga.data_ptr(), f32, ga.numel()}, {gb.data_ptr(), bf16, gb.numel()}, {gc.data_ptr(), f64, gc.numel()}}, f32_ptr(found_inf),
        f32_ptr(inv_scale), 0);
    CHECK(found_inf.item() == 0.0);
    check_gpu_matches_cpu(ga, mul(a, 0.125), 0.0);  // times a power of two: exact
    check_gpu_matches_cpu(gb, mul(b, 0.125), 0.0);
    check_gpu_matches_cpu(gc, mul(c, 0.125), 0.0);  // f64 grads are scaled in f64 (as PyTorch's kernel takes double)
}

TEST_CASE("amp_foreach_non_finite_check_and_unscale_: an inf or a NaN in one grad sets found_inf, and all grads are still scaled")
{
    for (double bad : {kInf, -kInf, std::nan("")}) {
        INFO("bad value " << bad);
        const Tensor clean = tensor({1.0, 2.0, 4.0}, {3}, f32), dirty = tensor({8.0, bad, 16.0, 3.0}, {4}, f16);
        const Tensor gc = clean.cuda(), gd = dirty.cuda();
        const Tensor found_inf = zeros({}, f32).cuda(), inv_scale = full({}, 0.5, f32).cuda();
        kernels::cuda::amp_foreach_non_finite_check_and_unscale_({{gc.data_ptr(), f32, 3}, {gd.data_ptr(), f16, 4}}, f32_ptr(found_inf),
                                                                 f32_ptr(inv_scale), 0);
        CHECK(found_inf.item() == 1.0);
        CHECK(gc.cpu().to_vector() == std::vector<double>{0.5, 1.0, 2.0});
        const std::vector<double> d = gd.cpu().to_vector();
        CHECK(d[0] == 4.0);
        CHECK(d[2] == 8.0);
        CHECK(d[3] == 1.5);
        CHECK(!std::isfinite(d[1]));
    }
}

TEST_CASE("amp_foreach_non_finite_check_and_unscale_ refuses gradients on two devices with PyTorch's words, and changes nothing")
{
    // Reference §3.4: mixed devices raise "Expected all tensors to be on the same device".
    const Tensor on_cpu = full({3}, 4.0);
    const Tensor on_gpu = full({3}, 4.0).cuda();
    const Tensor found_inf = zeros({}, f32).cuda(), inv_scale = full({}, 0.25, f32).cuda();
    std::string message;
    try {
        amp::amp_foreach_non_finite_check_and_unscale_({on_gpu, on_cpu}, found_inf, inv_scale);  // the first one fine
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::device);
        message = e.message();
    }
    CHECK(message.find("Expected all tensors to be on the same device") == 0);
    CHECK(message.find("a gradient is on cpu but found_inf is on cuda:0") != std::string::npos);
    CHECK(on_cpu.to_vector() == std::vector<double>(3, 4.0));
    CHECK(found_inf.item() == 0.0);
    CHECK(on_gpu.to_vector() == std::vector<double>(3, 4.0));
}

TEST_CASE("amp_update_scale_ on the device: scale 4, growth 2, backoff 0.25, interval 2 goes 4, 8, then 2 after an overflow")
{
    struct Step {
        bool found_inf;
        float scale;
        std::int32_t tracker;
    };
    // The same sequence as tests/amp/grad_scaler_test.cpp checks on the host.
    const Step steps[] = {{false, 4.0f, 1}, {false, 8.0f, 0}, {true, 2.0f, 0}};
    const Tensor scale = full({}, 4.0, f32).cuda();
    const Tensor tracker_tensor = zeros({}, i64).cuda();
    auto* tracker = static_cast<std::int64_t*>(tracker_tensor.data_ptr());
    for (const Step& s : steps) {
        const Tensor found_inf = full({}, s.found_inf ? 1.0 : 0.0, f32).cuda();
        kernels::cuda::amp_update_scale_(f32_ptr(scale), tracker, f32_ptr(found_inf), 2.0, 0.25, 2, 0);
        CHECK(scale.item() == double(s.scale));
        CHECK(tracker_tensor.item() == double(s.tracker));
    }
    // Growth that would overflow to inf keeps the old scale (and resets the tracker).
    const Tensor big = full({}, 3.0e38, f32).cuda(), no_inf = zeros({}, f32).cuda();
    kernels::cuda::amp_update_scale_(f32_ptr(big), tracker, f32_ptr(no_inf), 2.0, 0.5, 1, 0);
    CHECK(big.item() == double(3.0e38f));
}

TEST_CASE("the dispatched op amp_update_scale_ on CUDA tensors runs the kernel: 4, 8, then 2 after an overflow")
{
    const Tensor scale = full({}, 4.0, f32).cuda(), tracker = zeros({}, i64).cuda();
    for (const auto& [inf, expected] : {std::pair{false, 4.0}, {false, 8.0}, {true, 2.0}}) {
        amp::amp_update_scale_(scale, tracker, full({}, inf ? 1.0 : 0.0, f32).cuda(), 2.0, 0.25, 2);
        CHECK(scale.item() == expected);
    }
    CHECK(tracker.item() == 0.0);
}

TEST_CASE("autocast on CUDA tensors follows the CUDA table: matmul and linear in f16, softmax and the loss in f32")
{
    Generator gen(test::cuda_test_seed(121));
    const Tensor x = random_cpu({8, 16}, f32, gen).cuda(), w = random_cpu({4, 16}, f32, gen).cuda();
    amp::autocast guard("cuda");
    const Tensor h = linear(x, w, Tensor());
    CHECK(h.dtype() == f16);
    CHECK(h.device().is_cuda());
    CHECK(matmul(x, w.t()).dtype() == f16);
    CHECK(softmax(h, -1).dtype() == f32);
    CHECK(cross_entropy(h, tensor({0, 1, 2, 3, 0, 1, 2, 3}, {8}, i64).cuda()).dtype() == f32);
    // The autocast result is the f16 product of the f16-rounded inputs.
    const Tensor expect = linear(x.cpu().to(f16), w.cpu().to(f16), Tensor());
    check_gpu_matches_cpu(h, expect, test::ulps_for(f16, 16), 16);
}

TEST_CASE("a region of one device type leaves the other device's tensors alone (test_autocast_ignored_types)")
{
    // Reference §1.2: eligibility is "on this region's device type". A CPU region does not cast
    // CUDA tensors, a CUDA region does not cast CPU tensors.
    const Tensor x_gpu = ones({4, 4}).cuda(), x_cpu = ones({4, 4});
    {
        amp::autocast cpu_region("cpu");
        CHECK(mm(x_gpu, x_gpu).dtype() == f32);
        CHECK(mm(x_cpu, x_cpu).dtype() == bf16);
    }
    {
        amp::autocast cuda_region("cuda");
        CHECK(mm(x_cpu, x_cpu).dtype() == f32);
        CHECK(mm(x_gpu, x_gpu).dtype() == f16);
    }
}

namespace {

// A digits-sized MLP (64 -> 32 -> 10) as four leaf tensors on one device.
struct Mlp {
    Tensor w1, b1, w2, b2;
    std::vector<Tensor> params() const { return {w1, b1, w2, b2}; }
    Tensor operator()(const Tensor& x) const { return linear(relu(linear(x, w1, b1)), w2, b2); }
};

Mlp make_mlp(Generator& gen)
{
    auto p = [&](const Shape& s) { return mul(random_cpu(s, f32, gen), 0.2); };
    return {p({32, 64}), p({32}), p({10, 32}), p({10})};
}

Mlp on(const Mlp& m, Device d)
{
    // A copy of its own on each device, so that a step on one leaves the other (and `m`) alone.
    auto leaf = [&](const Tensor& t) { return t.detach().clone().to(d).requires_grad_(); };
    return {leaf(m.w1), leaf(m.b1), leaf(m.w2), leaf(m.b2)};
}

}  // namespace

TEST_CASE("one training step of a digits-sized MLP on CUDA matches the same step on the CPU: f32, and f16 autocast with a GradScaler")
{
    Generator gen(test::cuda_test_seed(131));
    const Mlp init = make_mlp(gen);
    const Tensor x = random_cpu({48, 64}, f32, gen);
    std::vector<double> labels;
    for (int i = 0; i < 48; ++i) labels.push_back(double(i % 10));
    const Tensor y = tensor(labels, {48}, i64);

    for (bool mixed : {false, true}) {
        INFO("mode: " << (mixed ? "f16 autocast + GradScaler" : "f32"));
        std::vector<Tensor> losses;
        std::vector<Mlp> trained;
        for (Device d : {Device::cpu(), Device::cuda(0)}) {
            const Mlp m = on(init, d);
            optim::SGD opt(m.params(), {.lr = 0.1});
            amp::GradScaler scaler(device_type_name(d.type()), {.init_scale = 1024.0, .enabled = mixed});
            opt.zero_grad();
            Tensor loss;
            {
                amp::autocast guard(device_type_name(d.type()), {.dtype = f16, .enabled = mixed});
                loss = cross_entropy(m(x.to(d)), y.to(d));
            }
            scaler.scale(loss).backward();
            CHECK(scaler.step(opt));
            scaler.update();
            CHECK(scaler.get_scale() == (mixed ? 1024.0 : 1.0));
            losses.push_back(loss.detach());
            trained.push_back(m);
        }
        // f32: the GPU and CPU differ in summation order only. f16 autocast: the products are
        // rounded to f16 on both, so their differences reach an f16 ulp of each product.
        // The loss and the parameters are f32 tensors either way, so check_gpu_matches_cpu (which
        // takes eps from the tensors' dtype) would hold the f16 run to f32's eps: compare with f16's
        // eps explicitly, and a few ulps, as the f16 differences pass through two layers.
        const DType d = mixed ? f16 : f32;
        const double ulps = mixed ? 4.0 : test::ulps_for(d, 64);
        auto check = [&](const Tensor& gpu, const Tensor& cpu) {
            REQUIRE(gpu.device().is_cuda());
            CHECK(gpu.dtype() == cpu.dtype());
            test::check_close(gpu.cpu().to(f64), cpu.to(f64), d, ulps, 1.0);
        };
        check(losses[1], losses[0]);
        const std::vector<Tensor> cpu = trained[0].params(), gpu = trained[1].params();
        for (std::size_t i = 0; i < cpu.size(); ++i) {
            INFO("parameter " << i);
            check(gpu[i].detach(), cpu[i].detach());
        }
    }
}

TEST_CASE("GradScaler on CUDA: an inf in a CUDA gradient skips the step, backs the scale off, and the next good step grows it")
{
    Generator gen(test::cuda_test_seed(141));
    const Mlp m = on(make_mlp(gen), Device::cuda(0));
    const Tensor x = random_cpu({16, 64}, f32, gen).cuda();
    const Tensor y = tensor(std::vector<double>(16, 3.0), {16}, i64).cuda();
    optim::SGD opt(m.params(), {.lr = 0.1});
    amp::GradScaler scaler("cuda", {.init_scale = 4.0, .growth_factor = 2.0, .backoff_factor = 0.25, .growth_interval = 2});
    std::vector<double> scales;
    for (int i = 0; i < 3; ++i) {
        opt.zero_grad();
        {
            amp::autocast guard("cuda");
            scaler.scale(cross_entropy(m(x), y)).backward();
        }
        const std::vector<double> w_before = m.w1.detach().cpu().to_vector();
        if (i == 2) {
            NoGradGuard no_grad;
            m.w1.grad().copy_(full(m.w1.grad().shape(), kInf, m.w1.grad().dtype()));
        }
        const bool stepped = scaler.step(opt);
        CHECK(stepped == (i != 2));
        CHECK((m.w1.detach().cpu().to_vector() == w_before) == (i == 2));  // good steps move the weight; the skipped one does not
        scaler.update();
        scales.push_back(scaler.get_scale());
    }
    CHECK(scales == std::vector<double>{4.0, 8.0, 2.0});  // the 4 -> 4 -> 8 -> 2 rule, as on the host
}
