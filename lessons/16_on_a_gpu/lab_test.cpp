// Lab 16's checks, all on the CPU. Run them with:  build/lessons/lab_16  (or build/lessons/labs -ts=lab16)
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lessons/16_on_a_gpu/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab16;

TEST_SUITE("lab16")
{
    TEST_CASE("lab 16.1: autocast_device_type reads the device type off a tensor")
    {
        const Tensor x = zeros({2, 3});
        CHECK(autocast_device_type(x) == "cpu");
        CHECK(autocast_device_type(x.to(f16)) == "cpu");   // the dtype does not matter
        CHECK(autocast_device_type(x.t()) == "cpu");       // nor being a view
        if (cuda_device_count() > 0) CHECK(autocast_device_type(x.cuda()) == "cuda");  // "cuda", not "cuda:0"
    }

    TEST_CASE("lab 16.2: default_low_dtype is f16 on CUDA and bf16 on the CPU")
    {
        CHECK(default_low_dtype("cuda") == f16);
        CHECK(default_low_dtype("cpu") == bf16);
        {
            amp::autocast region("cpu");  // a region given no dtype uses the default
            CHECK(region.dtype() == default_low_dtype("cpu"));
        }
        CHECK_THROWS_AS(default_low_dtype("tpu"), tinyamp::Error);
        CHECK_THROWS_AS(default_low_dtype("cuda:0"), tinyamp::Error);  // a device, not a device type
    }

    TEST_CASE("lab 16.3: to_device makes new f32 leaves with the same values")
    {
        const Tensor w = tensor({1, 2, 3, 4}, {2, 2}, f32).requires_grad_().set_name("w");
        const Tensor b = mul(ones({2}), 0.5);  // not a leaf, no grad: to_device makes it one
        const std::vector<Tensor> moved = to_device({w, b}, Device::cpu());
        REQUIRE(moved.size() == 2);
        CHECK(moved[0].device() == Device::cpu());
        CHECK(moved[0].dtype() == f32);
        CHECK(moved[0].to_vector() == std::vector<double>{1, 2, 3, 4});
        CHECK(moved[0].name() == "w");
        CHECK(moved[0].is_leaf() == true);
        CHECK(moved[1].is_leaf() == true);
        CHECK(moved[1].requires_grad() == true);
        CHECK(moved[0].shares_storage_with(w) == false);  // a step on the copy leaves the original alone
        if (cuda_device_count() > 0) CHECK(to_device({w}, Device::cuda(0))[0].device() == Device::cuda(0));
    }

    TEST_CASE("lab 16.4: train_step_on_device takes the autocast device and dtype from the data")
    {
        Generator gen(0);
        const std::vector<Tensor> params{mul(randn({3, 4}, f32, gen), 0.5).requires_grad_(), zeros({3}).requires_grad_()};
        optim::SGD optimizer(params, {.lr = 0.5});
        amp::GradScaler scaler("cpu", {.enabled = false});  // bf16 needs no loss scaling
        const Tensor x = randn({12, 4}, f32, gen);
        const Tensor y = argmax(x.slice(1, 0, 3), 1);  // the largest of the first 3 features: a linear rule

        trace::Trace recorded;
        double first = 0;
        {
            trace::TraceRecorder recorder(recorded);
            first = train_step_on_device(params, optimizer, scaler, x, y);
        }
        std::string linear_out, loss_out;
        for (const trace::Event& e : recorded.events()) {
            if (e.phase != trace::Phase::forward || e.outputs.empty()) continue;
            if (e.op == "linear") linear_out = dtype_name(e.outputs[0].dtype);
            if (e.op == "cross_entropy") loss_out = dtype_name(e.outputs[0].dtype);
        }
        CHECK(linear_out == "bf16");  // the CPU's default low dtype
        CHECK(loss_out == "f32");     // cross_entropy is on the fp32 list
        CHECK(params[0].grad().dtype() == f32);
        CHECK(scaler.get_scale() == 1.0);  // a disabled scaler
        double loss = first;
        for (int i = 0; i < 20; ++i) loss = train_step_on_device(params, optimizer, scaler, x, y);
        CHECK(loss < 0.5 * first);    // it trains
    }
}
