// The two ops of GradScaler's work (PyTorch's _amp_foreach_non_finite_check_and_unscale_ and
// _amp_update_scale_) on CPU tensors: values, the found_inf flag, the update rule on tensors, the
// errors for tensors that are not as described, and their events in a trace. They have no
// gradient (GradScaler runs them under no_grad), so there is no gradcheck. The CUDA kernels they
// call on a GPU are tested in tests/cuda/cuda_amp_test.cpp.
#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

TEST_CASE("_amp_foreach_non_finite_check_and_unscale_ multiplies each gradient in place and flags only non-finite ones")
{
    const Tensor a = tensor({2.0, -4.0, 6.0}, {3});
    const Tensor b = tensor({8.0, 1.0}, {2}, bf16);
    const Tensor c = tensor({1.0 / 3.0}, {1}, f64);
    const Tensor found_inf = zeros({});
    const Tensor returned = amp::amp_foreach_non_finite_check_and_unscale_({a, b, c}, found_inf, full({}, 0.5));
    CHECK(returned.is_same(found_inf));
    CHECK(found_inf.item() == 0.0);
    CHECK(a.to_vector() == std::vector<double>{1.0, -2.0, 3.0});
    CHECK(b.to_vector() == std::vector<double>{4.0, 0.5});
    CHECK(b.dtype() == bf16);
    CHECK(c.to_vector() == std::vector<double>{1.0 / 6.0});  // f64 math for an f64 gradient: not rounded to f32

    const Tensor bad = tensor({1.0, std::numeric_limits<double>::infinity()}, {2});
    const Tensor nan = tensor({std::numeric_limits<double>::quiet_NaN()}, {1});
    amp::amp_foreach_non_finite_check_and_unscale_({bad}, found_inf, full({}, 1.0));
    CHECK(found_inf.item() == 1.0);
    CHECK(bad.to_vector()[0] == 1.0);  // an inv_scale of 1 leaves the values alone
    const Tensor flag = zeros({});
    amp::amp_foreach_non_finite_check_and_unscale_({nan, tensor({2.0}, {1})}, flag, full({}, 0.5));
    CHECK(flag.item() == 1.0);  // NaN counts, and a finite gradient after it does not reset the flag
}

TEST_CASE("_amp_update_scale_ on tensors: scale 4, growth 2, backoff 0.25, interval 2 goes 4, 8, then 2 after an overflow")
{
    const Tensor scale = full({}, 4.0), tracker = zeros({}, i64);
    struct Step {
        bool found_inf;
        double scale;
        double tracker;
    };
    for (const Step& s : {Step{false, 4.0, 1.0}, Step{false, 8.0, 0.0}, Step{true, 2.0, 0.0}}) {
        const Tensor returned = amp::amp_update_scale_(scale, tracker, full({}, s.found_inf ? 1.0 : 0.0), 2.0, 0.25, 2);
        CHECK(returned.is_same(scale));
        CHECK(scale.item() == s.scale);
        CHECK(tracker.item() == s.tracker);
    }
}

TEST_CASE("GradScaler's ops refuse tensors that are not one f32 (or i64) element, naming which")
{
    const Tensor g = ones({2});
    CHECK(error_message([&] { amp::amp_foreach_non_finite_check_and_unscale_({g}, zeros({}, f64), full({}, 0.5)); }, ErrorKind::dtype) ==
          "_amp_foreach_non_finite_check_and_unscale_: found_inf must be f32, got f64");
    CHECK(error_message([&] { amp::amp_foreach_non_finite_check_and_unscale_({g}, zeros({}), full({2}, 0.5)); }, ErrorKind::shape) ==
          "_amp_foreach_non_finite_check_and_unscale_: inv_scale must hold one element, got shape [2]");
    CHECK(error_message([&] { amp::amp_update_scale_(full({}, 4.0), zeros({}), zeros({}), 2.0, 0.5, 2); }, ErrorKind::dtype) ==
          "_amp_update_scale_: growth_tracker must be i64, got f32");
}

TEST_CASE("a trace of a GradScaler step shows its two ops, each as one event")
{
    const Tensor w = ones({3}).requires_grad_();
    optim::SGD opt({w}, {.lr = 0.1});
    amp::GradScaler scaler("cpu");
    scaler.scale(sum(w)).backward();
    trace::Trace trace;
    {
        trace::TraceRecorder recorder(trace);
        scaler.step(opt);
        scaler.update();
    }
    std::vector<std::string> ops;
    for (const trace::Event& e : trace.events())
        if (e.op.rfind("_amp_", 0) == 0) ops.push_back(e.op);
    CHECK(ops == std::vector<std::string>{"_amp_foreach_non_finite_check_and_unscale_", "_amp_update_scale_"});
    CHECK(w.grad().to_vector() == std::vector<double>(3, 1.0));  // unscaled: 65536 / 65536
}
