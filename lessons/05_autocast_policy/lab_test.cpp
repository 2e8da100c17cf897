// Lab 5's checks. Run them with:  build/lessons/labs -ts=lab05
#include <doctest/doctest.h>

#include "lessons/05_autocast_policy/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab05;

TEST_SUITE("lab05")
{
    TEST_CASE("lab 05.1: output_dtypes_under_autocast reports what autocast made")
    {
        const Tensor x = ones({2, 3}), w = ones({4, 3});
        const auto model = [&] {
            const Tensor y = linear(x, w);                       // lower_precision_fp
            const Tensor r = relu(y);                            // not listed: follows y
            const Tensor l = mse_loss(r, zeros({2, 4}));         // fp32 on the CPU
            return std::vector<Tensor>{y, r, l, add(x, x)};      // add of two f32: not listed, f32
        };
        CHECK(output_dtypes_under_autocast(model, bf16) == std::vector<DType>{bf16, bf16, f32, f32});
        CHECK(output_dtypes_under_autocast(model, f16) == std::vector<DType>{f16, f16, f32, f32});
        CHECK(linear(x, w).dtype() == f32);  // the region is closed again afterwards
    }

    TEST_CASE("lab 05.2: policy_of reads the built-in tables")
    {
        CHECK(policy_of("linear", "cpu") == "lower_precision_fp");
        CHECK(policy_of("cross_entropy", "cpu") == "fp32");
        CHECK(policy_of("softmax", "cpu") == "not listed");
        CHECK(policy_of("softmax", "cuda") == "fp32_set_opt_dtype");
        CHECK(policy_of("layer_norm", "cuda") == "fp32");
        CHECK(policy_of("relu", "cuda") == "not listed");
        CHECK(policy_of("binary_cross_entropy", "cuda") == "banned");
        CHECK(policy_of("cat", "cpu") == "promote");
        CHECK_THROWS_AS(policy_of("linear", "tpu"), tinyamp::Error);
    }

    TEST_CASE("lab 05.3: ops_that_ran_in finds the bf16 ops of a trace")
    {
        const Tensor x = ones({2, 3}), w = ones({4, 3}).requires_grad_();
        const Tensor labels = tensor({0, 1}, {2}, i64);
        trace::Trace recorded;
        {
            trace::TraceRecorder recorder(recorded);
            amp::autocast region("cpu");
            cross_entropy(relu(linear(x, w)), labels).backward();
        }
        CHECK(ops_that_ran_in(recorded, bf16) == std::vector<std::string>{"linear", "relu"});
        CHECK(ops_that_ran_in(recorded, f32) == std::vector<std::string>{"cross_entropy"});  // casts and backward left out
        CHECK(ops_that_ran_in(recorded, f16).empty());
    }
}
