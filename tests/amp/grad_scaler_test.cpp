// GradScaler against PyTorch's own tests (reference §3 and §4.1).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// PyTorch's _create_scaling_case: Sequential(Linear(8,8), Linear(8,8)) with a control copy, SGD
// lr 1, four batches of (randn(8,8), randn(8,8)), MSE loss, an inf injected on iteration 2.
struct Model {
    Tensor w0, b0, w1, b1;
    std::vector<Tensor> params() const { return {w0, b0, w1, b1}; }
    Tensor operator()(const Tensor& x) const { return linear(linear(x, w0, b0), w1, b1); }
};

Model make_model(std::uint64_t seed)
{
    Generator gen(seed);
    auto p = [&](const Shape& s) { return mul(randn(s, f32, gen), 0.3).requires_grad_(); };
    return {p({8, 8}), p({8}), p({8, 8}), p({8})};
}

struct Batch {
    Tensor x, target;
};

std::vector<Batch> make_data()
{
    Generator gen(99);
    std::vector<Batch> data;
    for (int i = 0; i < 4; ++i) data.push_back({randn({8, 8}, f32, gen), randn({8, 8}, f32, gen)});
    return data;
}

constexpr int kSkipIter = 2;

// The optimizer PyTorch's scaling case uses: SGD, lr 1.
using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(const Model&)>;
std::unique_ptr<optim::Optimizer> sgd_lr_1(const Model& m) { return std::make_unique<optim::SGD>(m.params(), optim::SGDOptions{.lr = 1.0}); }

// The control: plain f32 training that skips its step on the skip iteration (every step runs when
// `skip` is false: the control of a disabled scaler).
Model run_control(const std::vector<Batch>& data, bool skip = true, const MakeOptimizer& make_optimizer = sgd_lr_1)
{
    const Model m = make_model(1);
    const std::unique_ptr<optim::Optimizer> opt = make_optimizer(m);
    for (int i = 0; i < int(data.size()); ++i) {
        opt->zero_grad();
        mse_loss(m(data[std::size_t(i)].x), data[std::size_t(i)].target).backward();
        if (!skip || i != kSkipIter) opt->step();
    }
    return m;
}

void check_same_params(const Model& a, const Model& b)
{
    const auto pa = a.params(), pb = b.params();
    for (std::size_t i = 0; i < pa.size(); ++i) {
        const auto va = pa[i].to_vector(), vb = pb[i].to_vector();
        for (std::size_t k = 0; k < va.size(); ++k) CHECK(va[k] == doctest::Approx(vb[k]).epsilon(1e-5).scale(1e-7));
    }
}

void inject_inf(const Tensor& grad)
{
    NoGradGuard no_grad;
    grad.copy_(full(grad.shape(), kInf, grad.dtype()));
}

// One whole iteration on a fixed input: scale, backward, (an inf in w0's gradient when
// `overflow`), step, update. Returns whether the optimizer stepped.
bool iteration(amp::GradScaler& scaler, const Model& m, optim::Optimizer& opt, bool overflow = false)
{
    opt.zero_grad();
    scaler.scale(sum(m(ones({1, 8})))).backward();
    if (overflow) inject_inf(m.w0.grad());
    const bool stepped = scaler.step(opt);
    scaler.update();
    return stepped;
}

}  // namespace

TEST_CASE("_amp_update_scale_: scale 4, growth 2, backoff 0.25, interval 2 goes 4, 8, then 2 after an overflow")
{
    float scale = 4.0f;
    std::int32_t tracker = 0;
    amp::amp_update_scale_(scale, tracker, false, 2.0, 0.25, 2);
    CHECK(tracker == 1);
    CHECK(scale == 4.0f);
    amp::amp_update_scale_(scale, tracker, false, 2.0, 0.25, 2);
    CHECK(tracker == 0);
    CHECK(scale == 8.0f);
    amp::amp_update_scale_(scale, tracker, true, 2.0, 0.25, 2);
    CHECK(tracker == 0);
    CHECK(scale == 2.0f);
}

TEST_CASE("the scaling case: an inf on iteration 2 skips that step only, final scale 128 * 2^3 * 0.5 = 512")
{
    const auto data = make_data();
    const Model control = run_control(data);
    for (bool enabled : {true, false}) {
        INFO("enabled " << enabled);
        const Model m = make_model(1);
        optim::SGD opt(m.params(), {.lr = 1.0});
        amp::GradScaler scaler("cpu", {.init_scale = 128.0, .growth_factor = 2.0, .growth_interval = 1, .enabled = enabled});
        std::vector<bool> stepped;
        for (int i = 0; i < int(data.size()); ++i) {
            opt.zero_grad();
            scaler.scale(mse_loss(m(data[std::size_t(i)].x), data[std::size_t(i)].target)).backward();
            if (i == kSkipIter && enabled) inject_inf(m.w1.grad());
            stepped.push_back(scaler.step(opt));
            scaler.update();
        }
        if (enabled) {
            CHECK(scaler.get_scale() == 128.0 * 8 * 0.5);
            CHECK(stepped == std::vector<bool>{true, true, false, true});
            REQUIRE(scaler.history().size() == 4);
            CHECK(scaler.history()[2].skipped);
            CHECK(scaler.history()[2].scale == 512.0 * 0.5);  // 128 -> 256 -> 512, then halved
            check_same_params(m, control);
        } else {
            // PyTorch's disabled case: no scaling, no skipping, the f32 control that steps every time.
            CHECK(scaler.get_scale() == 1.0);
            CHECK(stepped == std::vector<bool>{true, true, true, true});
            CHECK(scaler.history().empty());
            check_same_params(m, run_control(data, /*skip=*/false));
        }
    }
}

TEST_CASE("update(new_scale) after an overflow sets the scale and still records the skipped step")
{
    const auto data = make_data();
    const Model m = make_model(1);
    optim::SGD opt(m.params(), {.lr = 1.0});
    amp::GradScaler scaler("cpu", {.init_scale = 128.0});
    scaler.scale(mse_loss(m(data[0].x), data[0].target)).backward();
    inject_inf(m.w1.grad());
    CHECK_FALSE(scaler.step(opt));
    scaler.update(32.0);
    CHECK(scaler.get_scale() == 32.0);
    CHECK(scaler.get_growth_tracker() == 0);  // left alone
    REQUIRE(scaler.history().size() == 1);
    CHECK(scaler.history()[0].skipped);
    CHECK(scaler.history()[0].scale == 32.0);

    opt.zero_grad();
    scaler.scale(mse_loss(m(data[1].x), data[1].target)).backward();
    CHECK(scaler.step(opt));
    scaler.update(64.0);
    REQUIRE(scaler.history().size() == 2);
    CHECK_FALSE(scaler.history()[1].skipped);
}

TEST_CASE("state_dict has PyTorch's five keys and load_state_dict restores them, before and after lazy init")
{
    for (bool lazy_init_done : {false, true}) {
        amp::GradScaler s0("cpu", {.init_scale = 3.0, .growth_factor = 4.0, .backoff_factor = 0.5, .growth_interval = 2});
        amp::GradScaler s1("cpu", {.init_scale = 6.0, .growth_factor = 7.0, .backoff_factor = 0.8, .growth_interval = 1});
        if (lazy_init_done) {
            s0.scale(ones({}));
            s1.scale(ones({}));
        }
        // PyTorch sets s1's tracker to 7 first, so that the load visibly resets it: here two
        // clean steps leave s1's tracker at 2 (its interval is 1 until then: set it to 10).
        if (lazy_init_done) {
            s1.set_growth_interval(10);
            const Model m = make_model(1);
            optim::SGD opt(m.params(), {.lr = 0.0});
            for (int i = 0; i < 2; ++i) iteration(s1, m, opt);
            REQUIRE(s1.get_growth_tracker() == 2);
        }
        const auto sd = s0.state_dict();
        CHECK(sd.size() == 5);
        CHECK(sd.at("scale") == 3.0);
        CHECK(sd.at("_growth_tracker") == 0.0);
        s1.load_state_dict(sd);
        CHECK(s1.get_scale() == 3.0);
        CHECK(s1.get_growth_factor() == 4.0);
        CHECK(s1.get_backoff_factor() == 0.5);
        CHECK(s1.get_growth_interval() == 2);
        CHECK(s1.get_growth_tracker() == 0);
    }
    amp::GradScaler disabled("cpu", {.enabled = false});
    CHECK(disabled.state_dict().empty());
    amp::GradScaler enabled("cpu");
    CHECK(error_message([&] { enabled.load_state_dict({}); }, ErrorKind::state) ==
          "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler.");
    CHECK(error_message([&] { enabled.load_state_dict({{"scale", 2.0}}); }, ErrorKind::value).find("no 'growth_factor'") != std::string::npos);
}

TEST_CASE("clipping scaled gradients with max_norm * scale, and clipping after a separate unscale_")
{
    const auto data = make_data();
    const double max_norm = 0.2;
    for (bool separate_unscale : {false, true}) {
        INFO("separate unscale_ " << separate_unscale);
        const Model m = make_model(1), control = make_model(1);
        optim::SGD opt(m.params(), {.lr = 1.0}), control_opt(control.params(), {.lr = 1.0});
        amp::GradScaler scaler("cpu", {.init_scale = 128.0, .growth_interval = 1});
        for (int i = 0; i < int(data.size()); ++i) {
            const Batch& b = data[std::size_t(i)];
            control_opt.zero_grad();
            mse_loss(control(b.x), b.target).backward();
            optim::clip_grad_norm_(control.params(), max_norm);
            if (i != kSkipIter) control_opt.step();
            opt.zero_grad();
            scaler.scale(mse_loss(m(b.x), b.target)).backward();
            if (i == kSkipIter) inject_inf(m.w1.grad());
            if (separate_unscale) {
                scaler.unscale_(opt);
                optim::clip_grad_norm_(m.params(), max_norm, /*error_if_nonfinite=*/false);
            } else {
                optim::clip_grad_norm_(m.params(), max_norm * scaler.get_scale());
            }
            scaler.step(opt);
            scaler.update();
        }
        CHECK(scaler.get_scale() == 512.0);
        check_same_params(m, control);
    }
}

TEST_CASE("gradient accumulation: step and update every 2 iterations, scale 128 * 2^2")
{
    const auto data = make_data();
    const Model m = make_model(1);
    optim::SGD opt(m.params(), {.lr = 1.0});
    amp::GradScaler scaler("cpu", {.init_scale = 128.0, .growth_interval = 1});
    for (int i = 0; i < int(data.size()); ++i) {
        scaler.scale(div(mse_loss(m(data[std::size_t(i)].x), data[std::size_t(i)].target), 2.0)).backward();
        if ((i + 1) % 2 == 0) {
            scaler.step(opt);
            scaler.update();
            opt.zero_grad();
        }
    }
    CHECK(scaler.get_scale() == 512.0);
    // The control: the same accumulation in f32 without a scaler.
    const Model control = make_model(1);
    optim::SGD control_opt(control.params(), {.lr = 1.0});
    for (int i = 0; i < int(data.size()); ++i) {
        div(mse_loss(control(data[std::size_t(i)].x), data[std::size_t(i)].target), 2.0).backward();
        if ((i + 1) % 2 == 0) {
            control_opt.step();
            control_opt.zero_grad();
        }
    }
    check_same_params(m, control);
}

TEST_CASE("two models, two optimizers, two losses: only the optimizer whose gradients overflowed skips")
{
    const auto data = make_data();
    const Model m0 = make_model(1), m1 = make_model(2);
    optim::SGD opt0(m0.params(), {.lr = 1.0}), opt1(m1.params(), {.lr = 1.0});
    amp::GradScaler scaler("cpu", {.init_scale = 128.0, .growth_interval = 1});
    std::vector<std::pair<bool, bool>> steps;
    for (int i = 0; i < int(data.size()); ++i) {
        opt0.zero_grad();
        opt1.zero_grad();
        const Tensor o0 = m0(data[std::size_t(i)].x), o1 = m1(data[std::size_t(i)].x);
        const Tensor loss0 = mse_loss(add(mul(o0, 0.3), mul(o1, 0.7)), data[std::size_t(i)].target);
        const Tensor loss1 = mse_loss(sub(mul(o0, 0.6), mul(o1, 0.4)), data[std::size_t(i)].target);
        scaler.scale(loss0).backward(Tensor(), /*retain_graph=*/true);
        scaler.scale(loss1).backward();
        if (i == kSkipIter) inject_inf(m1.w1.grad());
        scaler.unscale_(opt0);
        steps.emplace_back(scaler.step(opt0), scaler.step(opt1));
        scaler.update();
    }
    CHECK(steps[kSkipIter] == std::pair{true, false});  // per-optimizer skipping
    CHECK(steps[0] == std::pair{true, true});
    CHECK(scaler.get_scale() == 128.0 * 8 * 0.5);  // one update per iteration, one overflow
    // The controls: the same two models in f32; model 1's optimizer skips the overflow iteration.
    const Model c0 = make_model(1), c1 = make_model(2);
    optim::SGD copt0(c0.params(), {.lr = 1.0}), copt1(c1.params(), {.lr = 1.0});
    for (int i = 0; i < int(data.size()); ++i) {
        copt0.zero_grad();
        copt1.zero_grad();
        const Tensor o0 = c0(data[std::size_t(i)].x), o1 = c1(data[std::size_t(i)].x);
        mse_loss(add(mul(o0, 0.3), mul(o1, 0.7)), data[std::size_t(i)].target).backward(Tensor(), /*retain_graph=*/true);
        mse_loss(sub(mul(o0, 0.6), mul(o1, 0.4)), data[std::size_t(i)].target).backward();
        copt0.step();
        if (i != kSkipIter) copt1.step();
    }
    check_same_params(m0, c0);
    check_same_params(m1, c1);
}

TEST_CASE("scale() of a list scales every tensor by the same scale, made once on the first tensor's device")
{
    amp::GradScaler scaler("cpu", {.init_scale = 2.0});
    const std::vector<Tensor> outputs = {full({2, 2}, 4.0), full({3}, 4.0, f64)};
    const std::vector<Tensor> scaled = scaler.scale(outputs);
    REQUIRE(scaled.size() == 2);
    CHECK(scaled[0].to_vector() == std::vector<double>(4, 8.0));
    CHECK(scaled[1].to_vector() == std::vector<double>(3, 8.0));
    CHECK(scaled[1].dtype() == f64);  // each output keeps its dtype
    CHECK(outputs[0].to_vector() == std::vector<double>(4, 4.0));  // out of place
    CHECK(scaler.get_scale() == 2.0);
    CHECK(scaler.state_dict().at("scale") == 2.0);  // the lazy scale now exists
}

TEST_CASE("gradient penalty: grads of the scaled loss with create_graph, unscaled by hand, match the f32 control")
{
    // PyTorch's test_grad_scaling_penalty. tinyamp has no autograd.grad: backward with
    // create_graph into .grad, then zero_grad before the step's own backward, does the same.
    const auto data = make_data();
    auto run = [&](bool use_scaler) {
        const Model m = make_model(1);
        optim::SGD opt(m.params(), {.lr = 1.0});
        amp::GradScaler scaler("cpu", {.init_scale = 128.0, .growth_factor = 2.0, .growth_interval = 1});
        std::vector<bool> stepped;
        for (int i = 0; i < int(data.size()); ++i) {
            opt.zero_grad();
            Tensor loss = mse_loss(m(data[std::size_t(i)].x), data[std::size_t(i)].target);
            backward({use_scaler ? scaler.scale(loss) : loss}, {}, /*retain_graph=*/true, /*create_graph=*/true);
            Tensor penalty = zeros({});
            for (const Tensor& p : m.params()) {
                const Tensor g = use_scaler ? mul(p.grad(), 1.0 / scaler.get_scale()) : p.grad();
                penalty = add(penalty, sum(pow(g, 2.0)));
            }
            opt.zero_grad();
            loss = add(loss, sqrt(penalty));
            if (use_scaler) {
                scaler.scale(loss).backward();
                if (i == kSkipIter) inject_inf(m.w1.grad());
                stepped.push_back(scaler.step(opt));
                scaler.update();
            } else {
                loss.backward();
                if (i != kSkipIter) opt.step();
            }
        }
        if (use_scaler) {
            CHECK(stepped == std::vector<bool>{true, true, false, true});
            CHECK(scaler.get_scale() == 128.0 * 8 * 0.5);
        }
        return m;
    };
    const Model scaled = run(true);
    const Model control = run(false);
    check_same_params(scaled, control);
}

TEST_CASE("the growth rule compares with ==: a tracker already past the interval never grows the scale")
{
    // Reference §3.7: successful = tracker + 1; grow only when successful == growth_interval.
    float scale = 8.0f;
    std::int32_t tracker = 5;
    amp::amp_update_scale_(scale, tracker, false, 2.0, 0.5, 3);
    CHECK(tracker == 6);
    CHECK(scale == 8.0f);
    // The same through the scaler: two clean steps (tracker 2, interval 3), then the interval cut
    // to 2: the tracker goes 3, 4, ... and the scale stays until an overflow resets the tracker.
    const Model m = make_model(1);
    optim::SGD opt(m.params(), {.lr = 0.0});
    amp::GradScaler scaler("cpu", {.init_scale = 8.0, .growth_interval = 3});
    for (int i = 0; i < 2; ++i) CHECK(iteration(scaler, m, opt));
    CHECK(scaler.get_growth_tracker() == 2);
    scaler.set_growth_interval(2);
    for (int i = 0; i < 4; ++i) CHECK(iteration(scaler, m, opt));
    CHECK(scaler.get_growth_tracker() == 6);
    CHECK(scaler.get_scale() == 8.0);
    CHECK_FALSE(iteration(scaler, m, opt, /*overflow=*/true));
    CHECK(scaler.get_growth_tracker() == 0);
    CHECK(scaler.get_scale() == 4.0);
    for (int i = 0; i < 2; ++i) CHECK(iteration(scaler, m, opt));
    CHECK(scaler.get_scale() == 8.0);  // counting from 0 again, it grows at the new interval
}

TEST_CASE("the scale has no floor: repeated overflows take it below 1")
{
    // Reference §3.6: not clamped (PyTorch's docs: a scale far below 1 points at a bug, such as a
    // model pretrained in bf16 trained in f16). 20 backoffs from 1: 2^-20.
    float scale = 1.0f;
    std::int32_t tracker = 0;
    for (int i = 0; i < 20; ++i) amp::amp_update_scale_(scale, tracker, true, 2.0, 0.5, 2000);
    CHECK(scale == std::ldexp(1.0f, -20));
    const Model m = make_model(1);
    optim::SGD opt(m.params(), {.lr = 0.0});
    amp::GradScaler scaler("cpu", {.init_scale = 1.0});
    for (int i = 0; i < 3; ++i) CHECK_FALSE(iteration(scaler, m, opt, /*overflow=*/true));
    CHECK(scaler.get_scale() == 0.125);
}

TEST_CASE("gradients invalidated after unscale_ still step: the check happened at unscale time")
{
    const Model m = make_model(1);
    optim::SGD opt(m.params(), {.lr = 1.0});
    amp::GradScaler scaler("cpu");
    scaler.scale(mse_loss(m(ones({8, 8})), zeros({8, 8}))).backward();
    scaler.unscale_(opt);
    for (const Tensor& p : m.params()) inject_inf(p.grad());
    CHECK(scaler.step(opt));
    CHECK(std::isinf(m.w0.at({0, 0})));
}

TEST_CASE("the scale never grows to inf")
{
    const Model m = make_model(1);
    optim::SGD opt(m.params(), {.lr = 0.0});
    amp::GradScaler scaler("cpu", {.init_scale = 1e38, .growth_factor = 16.0, .growth_interval = 1});
    iteration(scaler, m, opt);
    CHECK(std::isfinite(scaler.get_scale()));
    CHECK(scaler.get_scale() == double(float(1e38)));
}

TEST_CASE("every misuse of the call order is an error with PyTorch's message")
{
    const Model m = make_model(1);
    optim::SGD opt(m.params(), {.lr = 0.1});
    amp::GradScaler scaler("cpu");
    CHECK(error_message([&] { scaler.step(opt); }, ErrorKind::state) ==
          "Attempted step but _scale is None.  This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration.");
    CHECK(error_message([&] { scaler.unscale_(opt); }, ErrorKind::state).find("Attempted unscale_ but _scale is None") == 0);
    CHECK(error_message([&] { scaler.update(); }, ErrorKind::state).find("Attempted update but _scale is None") == 0);
    const Tensor loss = scaler.scale(sum(m(ones({2, 8}))));
    CHECK(error_message([&] { scaler.step(opt); }, ErrorKind::state) == "No inf checks were recorded for this optimizer.");  // no grads yet
    scaler.update(65536.0);  // an explicit new scale needs no checks
    loss.backward();
    scaler.unscale_(opt);
    CHECK(error_message([&] { scaler.unscale_(opt); }, ErrorKind::state) ==
          "unscale_() has already been called on this optimizer since the last update().");
    scaler.step(opt);
    CHECK(error_message([&] { scaler.step(opt); }, ErrorKind::state) == "step() has already been called since the last update().");
    CHECK(error_message([&] { scaler.unscale_(opt); }, ErrorKind::state) == "unscale_() is being called after step().");
    scaler.update();
    CHECK(error_message([&] { scaler.update(); }, ErrorKind::state) == "No inf checks were recorded prior to update.");
    CHECK(error_message([] { amp::GradScaler("cpu", {.growth_factor = 1.0}); }, ErrorKind::value) == "The growth factor must be > 1.0.");
    CHECK(error_message([] { amp::GradScaler("cpu", {.backoff_factor = 1.0}); }, ErrorKind::value) == "The backoff factor must be < 1.0.");
}

TEST_CASE("f16 gradients are refused by unscale_, and a disabled scaler changes nothing")
{
    const Tensor w = ones({2}, f16).requires_grad_();
    optim::SGD opt({w}, {.lr = 0.1});
    amp::GradScaler scaler("cpu");
    scaler.scale(sum(w)).backward();
    CHECK(error_message([&] { scaler.unscale_(opt); }, ErrorKind::value) == "Attempting to unscale FP16 gradients.");
    amp::GradScaler off("cpu", {.enabled = false});
    const Tensor loss = sum(ones({2}));
    CHECK(off.scale(loss).is_same(loss));
    CHECK(off.get_scale() == 1.0);
    // Reference §3.3: disabled, unscale_ and update do nothing (in any order, even twice),
    // load_state_dict does nothing, and step just steps.
    const Tensor v = ones({2}, f16).requires_grad_();
    optim::SGD v_opt({v}, {.lr = 0.25});
    off.scale(sum(mul(v, 2.0))).backward();
    off.unscale_(v_opt);
    off.unscale_(v_opt);
    CHECK(v.grad().to_vector() == std::vector<double>(2, 2.0));  // not unscaled, and f16 is not refused
    off.update();
    off.update();
    off.load_state_dict({{"scale", 1024.0}});
    CHECK(off.get_scale() == 1.0);
    CHECK(off.state_dict().empty());
    CHECK(off.step(v_opt));
    CHECK(v.to_vector() == std::vector<double>(2, 0.5));  // 1 - 0.25 * 2, exact in f16
}

TEST_CASE("a CUDA scaler on a machine without a GPU warns and disables itself")
{
    if (cuda_device_count() > 0) return;  // only meaningful without a GPU
    std::string warning;
    const WarningHandler previous = set_warning_handler([&](const std::string& m) { warning = m; });
    amp::GradScaler scaler("cuda");
    set_warning_handler(previous);
    CHECK(warning == "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.");
    CHECK_FALSE(scaler.is_enabled());
}

TEST_CASE("f16 autocast with a GradScaler tracks the f32 control with SGD, Adam and AdamW, and a state_dict round trip changes nothing")
{
    // PyTorch's test_grad_scaling_autocast on CPU tensors: the scaling case (init 128, growth
    // every step, an inf injected on iteration 2) with the forward under f16 autocast, against
    // plain f32 that skips iteration 2. Then again with the scaler rebuilt from its state_dict
    // after every update (PyTorch pickles it): the same parameters and scale, bit for bit.
    const auto data = make_data();
    const std::vector<std::pair<const char*, MakeOptimizer>> optimizers = {
        {"SGD", sgd_lr_1},
        {"Adam",
         [](const Model& m) -> std::unique_ptr<optim::Optimizer> {
             return std::make_unique<optim::Adam>(m.params(), optim::AdamOptions{.lr = 1e-2});
         }},
        {"AdamW",
         [](const Model& m) -> std::unique_ptr<optim::Optimizer> {
             return std::make_unique<optim::AdamW>(m.params(), optim::AdamWOptions{.lr = 1e-2});
         }},
    };
    const amp::GradScalerOptions options{.init_scale = 128.0, .growth_factor = 2.0, .growth_interval = 1};
    for (const auto& [optimizer_name, make_optimizer] : optimizers) {
        INFO("optimizer " << optimizer_name);
        const Model control = run_control(data, /*skip=*/true, make_optimizer);
        std::vector<std::vector<double>> first_run;
        for (bool round_trip : {false, true}) {
            INFO("state_dict round trip " << round_trip);
            const Model m = make_model(1);
            const std::unique_ptr<optim::Optimizer> opt = make_optimizer(m);
            auto scaler = std::make_unique<amp::GradScaler>("cpu", options);
            for (int i = 0; i < int(data.size()); ++i) {
                opt->zero_grad();
                Tensor loss;
                {
                    amp::autocast region("cpu", {.dtype = f16});
                    const Tensor out = m(data[std::size_t(i)].x);
                    CHECK(out.dtype() == f16);  // the Linear layers ran in f16
                    loss = mse_loss(out, data[std::size_t(i)].target);
                }
                scaler->scale(loss).backward();
                if (i == kSkipIter) inject_inf(m.w1.grad());
                CHECK(scaler->step(*opt) == (i != kSkipIter));
                scaler->update();
                if (round_trip) {
                    auto rebuilt = std::make_unique<amp::GradScaler>("cpu");
                    rebuilt->load_state_dict(scaler->state_dict());
                    scaler = std::move(rebuilt);
                }
            }
            CHECK(scaler->get_scale() == 512.0);
            const auto pm = m.params(), pc = control.params();
            for (std::size_t p = 0; p < pm.size(); ++p) {
                const auto got = pm[p].to_vector(), want = pc[p].to_vector();
                for (std::size_t k = 0; k < got.size(); ++k)  // PyTorch's tolerance: atol 1e-3, f32's rtol
                    CHECK(std::abs(got[k] - want[k]) <= 1e-3 + 1.3e-6 * std::abs(want[k]));
                if (round_trip)
                    CHECK(got == first_run[p]);
                else
                    first_run.push_back(got);
            }
        }
    }
}
