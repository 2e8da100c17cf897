// The backward engine: accumulation, graph reuse and freeing, seeds, deep graphs, errors.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

TEST_CASE("gradients accumulate into leaves across uses and across backward calls")
{
    const Tensor x = tensor({2.0, 3.0}, f64).requires_grad_();
    const Tensor y = add(mul(x, x), x);  // x used three times: dy/dx = 2x + 1
    sum(y).backward();
    CHECK(x.grad().to_vector() == std::vector<double>{5, 7});
    sum(mul(x, 10.0)).backward();  // a second graph adds into the same .grad
    CHECK(x.grad().to_vector() == std::vector<double>{15, 17});
    x.set_grad(Tensor());  // what optimizer.zero_grad(set_to_none=True) does
    sum(x).backward();
    CHECK(x.grad().to_vector() == std::vector<double>{1, 1});
}

TEST_CASE("a diamond graph sums both branches before going on")
{
    const Tensor x = tensor({1.5}, f64).requires_grad_();
    const Tensor a = exp(x);
    const Tensor y = add(mul(a, 2.0), mul(a, a));  // y = 2e^x + e^2x, dy/dx = 2e^x + 2e^2x
    y.backward(ones_like(y));
    CHECK(x.grad().item() == doctest::Approx(2 * std::exp(1.5) + 2 * std::exp(3.0)).epsilon(1e-14));
}

TEST_CASE("backward without retain_graph frees saved tensors: a second one is a clear error")
{
    const Tensor x = tensor({1.0, 2.0}).requires_grad_();
    const Tensor y = sum(exp(x));
    y.backward();
    const std::string message = error_message([&] { y.backward(); }, ErrorKind::state);
    CHECK(message.find("trying to backward through the graph a second time") != std::string::npos);
    CHECK(message.find("retain_graph") != std::string::npos);
}

TEST_CASE("retain_graph keeps the graph for a second backward")
{
    const Tensor x = tensor({1.0, 2.0}, f64).requires_grad_();
    const Tensor y = sum(exp(x));
    y.backward(Tensor(), /*retain_graph=*/true);
    y.backward();
    CHECK(x.grad().at({0}) == doctest::Approx(2 * std::exp(1.0)));
}

TEST_CASE("backward on a non-scalar needs an explicit gradient")
{
    const Tensor x = ones({2, 2}).requires_grad_();
    const Tensor y = mul(x, 3.0);
    const std::string message = error_message([&] { y.backward(); }, ErrorKind::shape);
    CHECK(message.find("needs an explicit gradient") != std::string::npos);
    CHECK(message.find("[2, 2]") != std::string::npos);
    y.backward(full({2, 2}, 2.0));
    CHECK(x.grad().to_vector() == std::vector<double>{6, 6, 6, 6});
    CHECK(error_message([&] { mul(x, 3.0).backward(ones({3})); }, ErrorKind::shape).find("has shape [3] but output 0 has shape [2, 2]") !=
          std::string::npos);
}

TEST_CASE("backward of something that needs no gradient says so")
{
    const Tensor x = ones({2});
    CHECK(error_message([&] { sum(x).backward(); }, ErrorKind::state).find("does not require grad") != std::string::npos);
}

TEST_CASE("an integer tensor cannot ask for a gradient")
{
    CHECK(error_message([&] { arange(3).requires_grad_(); }, ErrorKind::dtype).find("only floating point tensors can require gradients") !=
          std::string::npos);
}

TEST_CASE("a chain of 200000 ops backpropagates and is freed without recursion")
{
    const Tensor x = tensor({1.0}, f64).requires_grad_();
    Tensor y = x;
    for (int i = 0; i < 200000; ++i) y = mul(y, 1.0);  // mul saves its inputs: the graph holds them too
    y.backward();
    CHECK(x.grad().item() == 1.0);
    y = Tensor();  // frees the whole chain; a recursive free would overflow the stack here
    CHECK(x.grad().item() == 1.0);
}

TEST_CASE("the backward of an op runs in the dtypes its forward ran in")
{
    const Tensor w = tensor({0.5, -1.0, 2.0}, bf16).requires_grad_();
    const Tensor x = tensor({1.0, 2.0, 3.0}, bf16);
    const Tensor y = mul(exp(w), x);
    CHECK(y.dtype() == bf16);
    REQUIRE(y.grad_fn() != nullptr);
    CHECK(y.grad_fn()->name() == "mul");
    CHECK(y.grad_fn()->inputs[0].dtype == bf16);
    CHECK(y.grad_fn()->output.dtype == bf16);
    sum(y).backward();
    CHECK(w.grad().dtype() == bf16);
}

TEST_CASE("to(dtype) is differentiable and sends the gradient back in the source dtype")
{
    const Tensor w = tensor({1.0, 2.0}, f32).requires_grad_();
    const Tensor h = w.to(f16);
    CHECK(h.grad_fn_name() == "to");
    sum(mul(h, 3.0)).backward();
    CHECK(w.grad().dtype() == f32);
    CHECK(w.grad().to_vector() == std::vector<double>{3, 3});
    CHECK(w.to(f32).is_same(w));  // same dtype: the tensor itself, no node
}

TEST_CASE("detach cuts the graph but shares storage, and requires_grad_ works on leaves only")
{
    const Tensor x = tensor({1.0, 2.0}).requires_grad_();
    const Tensor y = mul(x, 2.0);
    const Tensor d = y.detach();
    CHECK_FALSE(d.requires_grad());
    CHECK(d.is_leaf());
    CHECK(d.shares_storage_with(y));
    CHECK_FALSE(y.is_leaf());
    CHECK(y.requires_grad());
    CHECK(error_message([&] { y.requires_grad_(false); }, ErrorKind::state).find("only leaf tensors") != std::string::npos);
    x.requires_grad_(false);
    CHECK_FALSE(mul(x, 2.0).requires_grad());
}

TEST_CASE("views are differentiable: each sends its gradient back to the right elements")
{
    const Tensor x = arange(0.0, 12.0, 1.0, f64).reshape({3, 4}).requires_grad_();
    const Tensor picked = x.t().slice(0, 1, 3).select(1, 2).unsqueeze(0).expand({2, 2});  // x[2, 1:3], used twice
    sum(mul(picked, picked)).backward();
    std::vector<double> expected(12, 0.0);
    expected[9] = 2 * 2 * 9;    // d/dx of 2 * x^2 at x = 9
    expected[10] = 2 * 2 * 10;
    CHECK(x.grad().to_vector() == expected);
}

TEST_CASE("the graph does not keep leaves alive, and dropping a graph frees its saved tensors")
{
    const auto before = memory_stats().total.live_bytes;
    {
        const Tensor x = ones({1000}, f64).requires_grad_();
        const Tensor y = sum(exp(x));
        CHECK(memory_stats().total.live_bytes > before);
    }
    CHECK(memory_stats().total.live_bytes == before);
}

TEST_CASE("copy_ updates in place under NoGradGuard, and is refused on a tensor that requires grad otherwise")
{
    const Tensor w = tensor({1.0, 2.0}).requires_grad_();
    CHECK(error_message([&] { w.copy_(zeros({2})); }, ErrorKind::state).find("inside a NoGradGuard scope") != std::string::npos);
    {
        NoGradGuard no_grad;
        w.copy_(tensor({5.0}, f64));  // broadcast and converted
    }
    CHECK(w.to_vector() == std::vector<double>{5, 5});
    CHECK(w.dtype() == f32);
}

TEST_CASE("backward refuses a saved tensor that was overwritten in place (no silently wrong gradient)")
{
    const Tensor w = tensor({1.0, 2.0}).requires_grad_();
    const Tensor x = tensor({3.0, 4.0});
    const Tensor y = sum(mul(w, x));  // mul saves x: the gradient for w is x
    x.copy_(zeros({2}));
    const std::string message = error_message([&] { y.backward(); }, ErrorKind::state);
    CHECK(message.find("op 'mul' saved for backward (saved tensor 1, shape [2]) was modified in place") != std::string::npos);
    CHECK(message.find("version 0, now 1") != std::string::npos);
}

TEST_CASE("an op on tensors of two devices is refused by the dispatcher, naming both")
{
    // A zero-element CUDA tensor needs no allocation, so this runs on machines without a GPU.
    const Tensor on_gpu = empty({0}, f32, Device::cuda(0));
    const Tensor on_cpu = empty({0}, f32);
    CHECK(error_message([&] { add(on_cpu, on_gpu); }, ErrorKind::device) ==
          "add: expected all tensors on one device, but input 0 is on cpu and input 1 is on cuda:0; move them with .to(device) first");
    CHECK(error_message([&] { matmul(on_cpu.reshape({0, 1}), on_gpu.reshape({1, 0})); }, ErrorKind::device).find("matmul: expected all "
                                                                                                                  "tensors on one device") !=
          std::string::npos);
}

TEST_CASE("two threads backpropagating into one weight at once add both gradients")
{
    // Run by the ThreadSanitizer stage of scripts/test.sh (its name contains "thread").
    const Tensor w = ones({4}, f64).requires_grad_();
    auto work = [&](double scale) {
        for (int i = 0; i < 50; ++i) sum(mul(w, scale)).backward();
    };
    std::thread a(work, 1.0), b(work, 2.0);
    a.join();
    b.join();
    CHECK(w.grad().to_vector() == std::vector<double>(4, 50 * 1.0 + 50 * 2.0));
}

TEST_CASE("post-accumulate-grad hooks run after .grad is stored, once per backward, until removed")
{
    const Tensor w = tensor({1.0, 2.0}).requires_grad_();
    std::vector<std::vector<double>> seen;
    const int handle = w.register_post_accumulate_grad_hook([&](const Tensor& leaf) { seen.push_back(leaf.grad().to_vector()); });
    sum(w * w).backward();
    REQUIRE(seen.size() == 1);
    CHECK(seen[0] == std::vector<double>{2.0, 4.0});  // d(w^2)/dw, already in .grad when the hook ran
    sum(w * 3.0).backward();
    REQUIRE(seen.size() == 2);
    CHECK(seen[1] == std::vector<double>{5.0, 7.0});  // the accumulated sum
    // A hook may replace the gradient (what data-parallel averaging does).
    const int halve = w.register_post_accumulate_grad_hook([](const Tensor& leaf) { leaf.set_grad(leaf.grad() / 2.0); });
    w.set_grad(Tensor());
    sum(w).backward();
    CHECK(w.grad().to_vector() == std::vector<double>{0.5, 0.5});
    w.remove_post_accumulate_grad_hook(handle);
    w.remove_post_accumulate_grad_hook(halve);
    w.remove_post_accumulate_grad_hook(99);  // unknown: ignored
    sum(w).backward();
    CHECK(seen.size() == 3);
    CHECK(w.grad().to_vector() == std::vector<double>{1.5, 1.5});
    const auto nothing = [](const Tensor&) {};
    CHECK(test::error_message([&] { (w * 2.0).register_post_accumulate_grad_hook(nothing); }, ErrorKind::state).find("the output of an op") !=
          std::string::npos);
    CHECK(test::error_message([&] { tensor({1.0}).register_post_accumulate_grad_hook(nothing); }, ErrorKind::state)
              .find("not marked with requires_grad_") != std::string::npos);
}

TEST_CASE("while a trace records, a hook runs after AccumulateGrad's event and in the backward phase")
{
    const Tensor w = tensor({1.0, 2.0}).requires_grad_();
    trace::Trace recorded;
    std::size_t events_before_hook = 0;
    trace::Phase phase_in_hook = trace::Phase::forward;
    const int handle = w.register_post_accumulate_grad_hook([&](const Tensor&) {
        events_before_hook = recorded.events().size();
        phase_in_hook = trace::current_phase();
    });
    {
        trace::TraceRecorder recorder(recorded);
        sum(w * w).backward();
    }
    w.remove_post_accumulate_grad_hook(handle);
    REQUIRE(events_before_hook >= 1);
    CHECK(recorded.events()[events_before_hook - 1].op == "AccumulateGrad");  // its event is in when the hook runs
    CHECK(events_before_hook == recorded.events().size());
    CHECK(phase_in_hook == trace::Phase::backward);
    CHECK(trace::current_phase() == trace::Phase::forward);  // outside backward() again
}
