// Lab 16's checks. Run them with:  scripts/lab check 16
// They all run on the CPU; where a GPU is present, a few more check CUDA tensors too.
#include <string>
#include <vector>

#include "lessons/16_on_a_gpu/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab16;

TEST_SUITE("lab16")
{
    TEST_CASE("lab 16.1: autocast_device_type reads the device type off a tensor")
    {
        const Tensor x = zeros({2, 3});
        LAB_CHECK("a CPU tensor's device type is \"cpu\"",
                  autocast_device_type(x) == "cpu");
        LAB_CHECK("the dtype does not matter: an f16 tensor on the CPU is \"cpu\" too",
                  autocast_device_type(x.to(f16)) == "cpu");
        LAB_CHECK("nor being a view: the transpose of a CPU tensor is \"cpu\"",
                  autocast_device_type(x.t()) == "cpu");
        if (cuda_device_count() > 0)
            LAB_CHECK("a tensor on GPU 0 gives the device type \"cuda\", not the device \"cuda:0\"",
                      autocast_device_type(x.cuda()) == "cuda");
    }

    TEST_CASE("lab 16.2: default_low_dtype is f16 on CUDA and bf16 on the CPU")
    {
        LAB_CHECK("autocast's default on CUDA is f16 (Tensor Cores; GradScaler guards its range)",
                  default_low_dtype("cuda") == f16);
        LAB_CHECK("autocast's default on the CPU is bf16",
                  default_low_dtype("cpu") == bf16);
        {
            amp::autocast region("cpu");  // a region given no dtype uses the default
            LAB_CHECK("an autocast(\"cpu\") region given no dtype uses the same default",
                      region.dtype() == default_low_dtype("cpu"));
        }
        {
            INFO("\"tpu\" is no device type autocast knows: it throws (mistake: treating every device type but cuda as the CPU)");
            CHECK_THROWS_AS(default_low_dtype("tpu"), tinyamp::Error);
        }
        {
            INFO("\"cuda:0\" is a device, not a device type: it throws (mistake: treating every device type but cuda as the CPU)");
            CHECK_THROWS_AS(default_low_dtype("cuda:0"), tinyamp::Error);
        }
    }

    TEST_CASE("lab 16.3: to_device makes new f32 leaves with the same values")
    {
        const Tensor w = tensor({1, 2, 3, 4}, {2, 2}, f32).requires_grad_().set_name("w");
        const Tensor b = mul(ones({2}), 0.5);  // not a leaf, no grad: to_device makes it one
        const std::vector<Tensor> moved = to_device({w, b}, Device::cpu());
        LAB_REQUIRE("one copy per parameter",
                    moved.size() == 2);
        const Tensor& moved_w = moved[0];
        const Tensor& moved_b = moved[1];
        LAB_CHECK("the copy is on the device asked for",
                  moved_w.device() == Device::cpu());
        LAB_CHECK("the copy is f32, as the master weights are",
                  moved_w.dtype() == f32);
        LAB_CHECK("the copy has the original's values",
                  moved_w.to_vector() == std::vector<double>{1, 2, 3, 4});
        LAB_CHECK("the copy keeps the parameter's name",
                  moved_w.name() == "w");
        CAPTURE(moved_w);
        CAPTURE(moved_b);
        const std::string moved_w_computed_by = moved_w.grad_fn_name();  // "" for a leaf
        CAPTURE(moved_w_computed_by);
        LAB_CHECK("a copy of w, which requires grad, is a new leaf, cut from w's graph: an optimizer steps only leaves "
                  "(mistake: forgetting detach())",
                  moved_w.is_leaf() == true);
        LAB_CHECK("a copy of b, computed by mul, is a new leaf",
                  moved_b.is_leaf() == true);
        LAB_CHECK("b did not require grad, but its copy must: it is a parameter now (mistake: forgetting requires_grad_())",
                  moved_b.requires_grad() == true);
        LAB_CHECK("the copy has storage of its own even on the same device, so a step on it leaves the original alone "
                  "(mistake: forgetting clone())",
                  moved_w.shares_storage_with(w) == false);
        if (cuda_device_count() > 0)
            LAB_CHECK("to_device(..., Device::cuda(0)) puts the copies on GPU 0",
                      to_device({w}, Device::cuda(0))[0].device() == Device::cuda(0));
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
        LAB_CHECK("on the CPU, linear runs in the CPU's default low dtype, bf16 (mistake: hard-coding f16 as the low dtype)",
                  linear_out == "bf16");
        LAB_CHECK("cross_entropy is on autocast's fp32 list: its output is f32",
                  loss_out == "f32");
        LAB_CHECK("the gradient reaches the f32 master weight in f32",
                  params[0].grad().dtype() == f32);
        LAB_CHECK("a disabled scaler keeps a scale of 1",
                  scaler.get_scale() == 1.0);
        double loss = first;
        for (int i = 0; i < 20; ++i) loss = train_step_on_device(params, optimizer, scaler, x, y);
        CAPTURE(first);
        LAB_CHECK("it trains: 20 more steps at least halve the first step's loss",
                  loss < 0.5 * first);
    }
}
