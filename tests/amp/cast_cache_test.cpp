// The cast cache (reference §1.4 and §4.2): what is cached, once per region, the no_grad fix of
// PyTorch issue 158232, mixed grad contexts, no growth across calls, and one cache for every
// thread and for regions opened inside backward.
#include <doctest/doctest.h>

#include <memory>
#include <thread>
#include <vector>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

namespace {

// A Linear layer's parameters, f32 leaves that require grad (what the cache is for).
struct Layer {
    Tensor weight, bias;
    Layer()
    {
        Generator gen(7);
        weight = randn({4, 3}, f32, gen).requires_grad_().set_name("weight");
        bias = randn({4}, f32, gen).requires_grad_().set_name("bias");
    }
    Tensor operator()(const Tensor& x) const { return linear(x, weight, bias); }
};

// The cast node feeding input `i` of the op that made `y`.
const Node* cast_feeding(const Tensor& y, std::size_t i) { return y.grad_fn()->next_edges.at(i).node.get(); }

}  // namespace

TEST_CASE("inside one region a weight is cast once: every op reuses the same cast node")
{
    const Layer layer;
    const Tensor x = ones({2, 3});
    amp::autocast region("cpu");
    const Tensor a = layer(x), b = layer(x);
    CHECK(amp::autocast_cache_size() == 2);  // weight and bias
    CHECK(cast_feeding(a, 1) == cast_feeding(b, 1));
    CHECK(cast_feeding(a, 1)->name() == "to");
    CHECK(cast_feeding(a, 2) == cast_feeding(b, 2));
}

TEST_CASE("the cache is cleared when the outermost region exits, and not before")
{
    const Layer layer;
    const Tensor x = ones({2, 3});
    {
        amp::autocast outer("cpu");
        {
            amp::autocast inner("cpu");
            layer(x);
            CHECK(amp::autocast_cache_size() == 2);
        }
        CHECK(amp::autocast_cache_size() == 2);
        {
            amp::autocast off("cpu", {.enabled = false});  // a disabled region nests too
        }
        CHECK(amp::autocast_cache_size() == 2);
    }
    CHECK(amp::autocast_cache_size() == 0);
    Tensor first, second;
    {
        amp::autocast region("cpu");
        first = layer(x);
    }
    {
        amp::autocast region("cpu");
        second = layer(x);
    }
    CHECK(cast_feeding(first, 1) != cast_feeding(second, 1));  // each region casts afresh
}

TEST_CASE("only casts of f32 leaves that require grad and are not views are cached")
{
    const Tensor x = ones({2, 3});
    const Tensor weight = ones({4, 3}).requires_grad_();
    amp::autocast region("cpu");
    linear(x, ones({4, 3}));  // no requires_grad: an activation, cast each time
    CHECK(amp::autocast_cache_size() == 0);
    linear(x, mul(weight, 1.0));  // not a leaf
    CHECK(amp::autocast_cache_size() == 0);
    linear(x, weight.t().t());  // a view
    CHECK(amp::autocast_cache_size() == 0);
    linear(x.to(f16), ones({4, 3}, f16).requires_grad_());  // not f32
    CHECK(amp::autocast_cache_size() == 0);
    {
        amp::autocast no_cache("cpu", {.cache_enabled = false});
        linear(x, weight);
        CHECK(amp::autocast_cache_size() == 0);
    }
    linear(x, weight);
    CHECK(amp::autocast_cache_size() == 1);
}

TEST_CASE("fp32 casts are never cached")
{
    const Tensor w = ones({3}, bf16).requires_grad_();
    amp::autocast region("cpu", {.dtype = DType::f16, .table = std::make_shared<const amp::PolicyTable>(amp::PolicyTable::cuda())});
    exp(ones({3}, f32).requires_grad_());
    exp(w);
    CHECK(amp::autocast_cache_size() == 0);
}

TEST_CASE("the cache does not keep a weight alive")
{
    std::weak_ptr<TensorImpl> watch;
    amp::autocast region("cpu");
    {
        const Tensor w = ones({4, 3}).requires_grad_();
        watch = w.impl();
        linear(ones({2, 3}), w);
        CHECK(amp::autocast_cache_size() == 1);
    }
    CHECK(watch.expired());
}

TEST_CASE("a weight made after another died, in the same region, gets its own cast")
{
    // w1's cache entry outlives w1 until the region ends; a hit is only for the tensor it was made
    // from (the entry's weak_ptr shares that tensor's control block), never for w2.
    amp::autocast region("cpu");
    {
        const Tensor w1 = ones({4, 3}).requires_grad_();
        CHECK(linear(ones({2, 3}), w1).to_vector() == std::vector<double>(8, 3.0));  // each output sums three 1 x 1
    }
    const Tensor w2 = full({4, 3}, 2.0).requires_grad_();
    CHECK(linear(ones({2, 3}), w2).to_vector() == std::vector<double>(8, 6.0));
    CHECK(amp::autocast_cache_size() == 2);
}

TEST_CASE("PyTorch issue 158232: a no_grad forward does not poison the cache for a later forward in grad mode")
{
    const Layer layer;
    const Tensor x = ones({2, 3});
    amp::autocast region("cpu");
    {
        NoGradGuard no_grad;
        const Tensor out = layer(x);
        CHECK_FALSE(out.requires_grad());
    }
    const Tensor out = layer(x);  // reuses the casts made under no_grad
    CHECK(out.requires_grad());
    CHECK(out.grad_fn() != nullptr);
    sum(out).backward();
    CHECK(layer.weight.grad().defined());
    CHECK(layer.bias.grad().defined());
}

TEST_CASE("mixed grad contexts in one region: no_grad, grad, no_grad, grad")
{
    const Layer layer;
    const Tensor x = ones({2, 3});
    amp::autocast region("cpu");
    std::vector<Tensor> outs;
    for (bool grad : {false, true, false, true}) {
        GradModeGuard mode(grad);
        outs.push_back(layer(x));
    }
    CHECK_FALSE(outs[0].requires_grad());
    CHECK(outs[1].requires_grad());
    CHECK_FALSE(outs[2].requires_grad());
    CHECK(outs[3].requires_grad());
    sum(outs[1]).backward();
    sum(outs[3]).backward();
    CHECK(layer.weight.grad().defined());
}

TEST_CASE("caching still works with gradients: three forwards, each with its own backward")
{
    const Layer layer;
    const Tensor x = ones({2, 3});
    amp::autocast region("cpu");
    const Tensor a = layer(x), b = layer(x), c = layer(x);
    for (const Tensor& y : {a, b, c}) {
        REQUIRE(y.grad_fn());
        sum(y).backward(Tensor(), /*retain_graph=*/true);
    }
    // d/dbias of sum(linear) is the batch size (2), three times over.
    CHECK(layer.bias.grad().to_vector() == std::vector<double>(4, 6.0));
}

TEST_CASE("repeated calls under no_grad do not grow memory (PyTorch issue 48049)")
{
    const Layer layer;
    const Tensor x = ones({2, 3});
    amp::autocast region("cpu");
    NoGradGuard no_grad;
    layer(x);
    const auto after_first = memory_stats().total.live_bytes;
    for (int i = 0; i < 3; ++i) layer(x);
    CHECK(memory_stats().total.live_bytes == after_first);
}

namespace {

// PyTorch's test_cast_cache_is_global: a linear whose backward opens its own autocast region and
// multiplies by the saved f32 weight. `backward_dx` keeps what that region made, for the check.
Tensor backward_dx;
struct LinearWithAutocastBackward : Function<LinearWithAutocastBackward> {
    static constexpr const char* name = "linear_with_autocast_backward";
    static Tensor forward(Context& ctx, const Tensor& x, const Tensor& w)
    {
        ctx.save_for_backward({x, w});
        return linear(x, w);  // under the caller's region: the weight's cast is made and cached here
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const auto& saved = ctx.saved_tensors();
        amp::autocast region("cpu");  // backward runs with autocast off; this region turns it on again
        backward_dx = mm(grad, saved[1]);
        return {backward_dx, mm(grad.t(), saved[0])};
    }
};

}  // namespace

TEST_CASE("the cache is global: a region opened inside backward reuses the weight's cast made in forward")
{
    const Layer layer;
    const Tensor x = ones({2, 3});
    {
        amp::autocast region("cpu");
        const Tensor y = LinearWithAutocastBackward::apply(x, layer.weight);
        CHECK(amp::autocast_cache_size() == 1);
        const amp::CachedCast forward_cast = amp::cached_cast(layer.weight, bf16, DeviceType::cpu, &detail::cast_with_to_op);
        REQUIRE(forward_cast.cache == amp::CacheOutcome::hit);
        // Inside the outer region, so the cache outlives forward (PyTorch's test mocks the clearing
        // out instead). With create_graph the backward's own ops are recorded, so the matmul's
        // weight input can be followed to the cast node it came from.
        backward({sum(y)}, {}, /*retain_graph=*/false, /*create_graph=*/true);
        REQUIRE(backward_dx.defined());
        CHECK(backward_dx.dtype() == bf16);
        CHECK(cast_feeding(backward_dx, 1) == forward_cast.tensor.grad_fn().get());  // the one cast, not a second
        CHECK(amp::autocast_cache_size() == 1);
    }
    backward_dx = Tensor();
    CHECK(amp::autocast_cache_size() == 0);
}

TEST_CASE("the cache is shared across threads: another thread's region gets this thread's cast, and its exit clears it")
{
    // Reference §1.4: the map is process-wide behind a mutex; nesting, dtype and enabled are per
    // thread. Run one after the other (join), so the check is about the sharing, not a race.
    const Layer layer;
    amp::autocast region("cpu");
    const amp::CachedCast here = amp::cached_cast(layer.weight, bf16, DeviceType::cpu, &detail::cast_with_to_op);
    REQUIRE(here.cache == amp::CacheOutcome::stored);
    amp::CachedCast there;
    bool autocast_there_before = true;
    std::thread other([&] {
        autocast_there_before = amp::is_autocast_enabled(DeviceType::cpu);  // this thread's region is not the other's
        amp::autocast other_region("cpu");
        there = amp::cached_cast(layer.weight, bf16, DeviceType::cpu, &detail::cast_with_to_op);
    });
    other.join();
    CHECK_FALSE(autocast_there_before);
    CHECK(there.cache == amp::CacheOutcome::hit);
    CHECK(there.tensor.is_same(here.tensor));
    // The other thread's outermost region ended, and clearing empties the whole map, as in PyTorch.
    CHECK(amp::autocast_cache_size() == 0);
    CHECK(amp::cached_cast(layer.weight, bf16, DeviceType::cpu, &detail::cast_with_to_op).cache == amp::CacheOutcome::stored);
}
