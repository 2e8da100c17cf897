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

TEST_CASE("_amp_foreach_non_finite_check_and_unscale_ on transposed and sliced gradients, and mixed dtypes in one list")
{
    // PyTorch's test_grad_scaling_unscale: 20 x 20 grads of 4, inv_scale 0.25; contiguous,
    // transposed and sliced ([:, :5]) views, each with and without an inf or NaN at [2, 2].
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    enum class Layout { contiguous, transposed, sliced };
    for (Layout layout : {Layout::contiguous, Layout::transposed, Layout::sliced})
        for (double bad : {0.0, inf, nan}) {
            INFO("layout " << int(layout) << " bad value " << bad);
            const Tensor base = full({20, 20}, 4.0);
            const Tensor grad = layout == Layout::transposed ? base.t() : layout == Layout::sliced ? base.slice(1, 0, 5) : base;
            if (bad != 0.0) grad.select(0, 2).select(0, 2).copy_(full({}, bad));
            const Tensor found_inf = zeros({});
            amp::amp_foreach_non_finite_check_and_unscale_({grad}, found_inf, full({}, 0.25));
            CHECK(found_inf.item() == (bad != 0.0 ? 1.0 : 0.0));
            if (bad == 0.0) {
                CHECK(grad.to_vector() == std::vector<double>(std::size_t(grad.numel()), 1.0));
                if (layout == Layout::sliced) CHECK(base.select(1, 5).to_vector() == std::vector<double>(20, 4.0));  // outside the view: untouched
            }
        }
    // A mixed f32 / f16 / sliced list through the raw op (PyTorch's "perfect storm", one device):
    // no bad value, found_inf 0 and every value 1; an inf in any one of them, exactly 1.
    for (int poisoned = -1; poisoned < 3; ++poisoned) {
        INFO("inf in grad " << poisoned);
        const Tensor wide = full({4, 8}, 4.0);
        const std::vector<Tensor> grads = {full({3, 3}, 4.0), wide.slice(1, 2, 6), full({5}, 4.0, f16)};
        if (poisoned >= 0) {
            Tensor element = grads[std::size_t(poisoned)].select(0, 1);  // a view into the gradient, whatever its layout
            if (element.dim() == 1) element = element.select(0, 1);
            element.copy_(full({}, inf));
        }
        const Tensor found_inf = zeros({});
        amp::amp_foreach_non_finite_check_and_unscale_(grads, found_inf, full({}, 0.25));
        CHECK(found_inf.item() == (poisoned >= 0 ? 1.0 : 0.0));
        if (poisoned < 0)
            for (const Tensor& g : grads) CHECK(g.to_vector() == std::vector<double>(std::size_t(g.numel()), 1.0));
        CHECK(grads[2].dtype() == f16);
    }
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
