// Lab 05's checks. Run them with:  scripts/lab check 05
#include <string>
#include <vector>

#include "lessons/05_autocast_policy/lab.h"
#include "lessons/support/lab_checks.h"

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
        LAB_CHECK("inside a bf16 region linear runs in bf16, relu follows its bf16 input, mse_loss runs in f32 and an "
                  "add of two f32 tensors stays f32; outside it all would be f32 "
                  "(mistake: calling fn before opening the region)",
                  output_dtypes_under_autocast(model, bf16) == std::vector<DType>{bf16, bf16, f32, f32});
        LAB_CHECK("the region runs in the dtype asked for: with f16, linear and relu give f16 "
                  "(mistake: hard-coding bf16 instead of dtype)",
                  output_dtypes_under_autocast(model, f16) == std::vector<DType>{f16, f16, f32, f32});
        LAB_CHECK("the region is closed again when the function returns: linear gives f32",
                  linear(x, w).dtype() == f32);
    }

    TEST_CASE("lab 05.2: policy_of reads the built-in tables")
    {
        LAB_CHECK("linear is lower_precision_fp on the CPU",
                  policy_of("linear", "cpu") == "lower_precision_fp");
        LAB_CHECK("the losses are fp32 on the CPU: cross_entropy is fp32",
                  policy_of("cross_entropy", "cpu") == "fp32");
        LAB_CHECK("softmax is not in the CPU table: it runs in its inputs' dtype, which is not the same as fp32 "
                  "(mistake: calling an unlisted op fp32)",
                  policy_of("softmax", "cpu") == "not listed");
        LAB_CHECK("each device type has its own table: on cuda softmax is fp32_set_opt_dtype",
                  policy_of("softmax", "cuda") == "fp32_set_opt_dtype");
        LAB_CHECK("layer_norm is fp32 on cuda",
                  policy_of("layer_norm", "cuda") == "fp32");
        LAB_CHECK("relu is not in the cuda table either (mistake: calling an unlisted op fp32)",
                  policy_of("relu", "cuda") == "not listed");
        LAB_CHECK("binary_cross_entropy is banned under cuda autocast",
                  policy_of("binary_cross_entropy", "cuda") == "banned");
        LAB_CHECK("cat is promote on the CPU: it runs in the widest dtype of its inputs",
                  policy_of("cat", "cpu") == "promote");
        {
            INFO("only \"cpu\" and \"cuda\" have tables: \"tpu\" throws tinyamp::Error");
            CHECK_THROWS_AS(policy_of("linear", "tpu"), tinyamp::Error);
        }
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
        LAB_CHECK("under bf16 autocast linear and relu ran in bf16; autocast's casts and the backward events are not "
                  "forward ops of the model",
                  ops_that_ran_in(recorded, bf16) == std::vector<std::string>{"linear", "relu"});
        LAB_CHECK("cross_entropy is the one forward op that ran in f32; autocast's cast of its input and the backward "
                  "events are not forward ops of the model",
                  ops_that_ran_in(recorded, f32) == std::vector<std::string>{"cross_entropy"});
        LAB_CHECK("no op ran in f16",
                  ops_that_ran_in(recorded, f16) == std::vector<std::string>{});

        // A forward pass alone: its events are linear and the casts of x and w to bf16.
        trace::Trace forward_only;
        {
            trace::TraceRecorder recorder(forward_only);
            amp::autocast region("cpu");
            (void)linear(x, w);
        }
        LAB_CHECK("a forward pass alone under bf16 autocast: linear ran in bf16; the casts of x and w to bf16 are "
                  "autocast's, not ops of the model (mistake: counting autocast's casts as ops)",
                  ops_that_ran_in(forward_only, bf16) == std::vector<std::string>{"linear"});

        // A step without autocast: no casts, and every event is f32.
        trace::Trace no_autocast;
        {
            trace::TraceRecorder recorder(no_autocast);
            sum(mul(w, w)).backward();
        }
        LAB_CHECK("without autocast the forward ops are mul and sum; the backward events (the graph's nodes and "
                  "AccumulateGrad) are left out (mistake: keeping the backward events)",
                  ops_that_ran_in(no_autocast, f32) == std::vector<std::string>{"mul", "sum"});
    }
}
