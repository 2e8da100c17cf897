// custom_fwd / custom_bwd (reference §2.4 and §4.2 test_autocast_custom_enabled / _cast_inputs).
#include <doctest/doctest.h>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

namespace {

// What forward and backward saw, for the checks.
struct Seen {
    DType forward_input = DType::f64;
    bool forward_autocast = false;
    bool backward_autocast = false;
    DType backward_autocast_dtype = DType::f64;
    DType vector_input = DType::f64;
    DType backward_a_grad = DType::f64, backward_b_grad = DType::f64;  // what backward's own mm made
};
Seen seen;

// No cast_inputs: forward runs in the current autocast state; backward replays it.
struct MyMm : Function<MyMm> {
    static constexpr const char* name = "my_mm";
    static constexpr amp::CustomFwd custom_fwd{.device_type = DeviceType::cpu};
    static constexpr amp::CustomBwd custom_bwd{.device_type = DeviceType::cpu};
    static Tensor forward(Context& ctx, const Tensor& a, const Tensor& b)
    {
        seen.forward_input = a.dtype();
        seen.forward_autocast = amp::is_autocast_enabled(DeviceType::cpu);
        ctx.save_for_backward({a, b});
        return mm(a, b);  // autocast applies here
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        seen.backward_autocast = amp::is_autocast_enabled(DeviceType::cpu);
        seen.backward_autocast_dtype = amp::get_autocast_dtype(DeviceType::cpu);
        const auto& s = ctx.saved_tensors();
        const Tensor a_grad = mm(grad, s[1].t()), b_grad = mm(s[0].t(), grad);
        seen.backward_a_grad = a_grad.dtype();
        seen.backward_b_grad = b_grad.dtype();
        return {a_grad, b_grad};
    }
};

// cast_inputs = f32: inputs arrive f32 (also inside a vector) and forward runs with autocast off.
struct MyF32Sum : Function<MyF32Sum> {
    static constexpr const char* name = "my_f32_sum";
    static constexpr amp::CustomFwd custom_fwd{.device_type = DeviceType::cpu, .cast_inputs = DType::f32};
    static constexpr amp::CustomBwd custom_bwd{.device_type = DeviceType::cpu};
    static Tensor forward(Context&, const Tensor& a, const std::vector<Tensor>& more)
    {
        seen.forward_input = a.dtype();
        seen.vector_input = more.at(0).dtype();
        seen.forward_autocast = amp::is_autocast_enabled(DeviceType::cpu);
        return add(mm(a, a), more.at(0));
    }
    static std::vector<Tensor> backward(Context&, const Tensor& grad)
    {
        seen.backward_autocast = amp::is_autocast_enabled(DeviceType::cpu);
        return {Tensor(), grad};  // d/d(more[0]) is grad; a's gradient is not needed by these tests
    }
};

}  // namespace

TEST_CASE("custom_fwd without cast_inputs: forward sees the region, backward runs in the same autocast state")
{
    seen = {};
    const Tensor a = ones({2, 2}).requires_grad_(), b = ones({2, 2}).requires_grad_();
    Tensor y;
    {
        // f16, not the CPU default bf16: a replay that fell back to the default dtype (PyTorch issue
        // 125186, reference §5) would show here.
        amp::autocast region("cpu", {.dtype = f16});
        y = MyMm::apply(a, b);
    }
    CHECK(seen.forward_input == f32);
    CHECK(seen.forward_autocast);
    CHECK(y.dtype() == f16);
    sum(y).backward();  // outside any region, yet backward replays the forward's state
    CHECK(seen.backward_autocast);
    CHECK(seen.backward_autocast_dtype == f16);
    CHECK(seen.backward_a_grad == f16);  // PyTorch's test: backward's matmuls ran under the replayed region
    CHECK(seen.backward_b_grad == f16);
    CHECK(a.grad().dtype() == f32);
}

TEST_CASE("custom_fwd with cast_inputs: inputs arrive f32 with autocast off, and backward too")
{
    seen = {};
    const Tensor a = ones({2, 2}, bf16).requires_grad_();
    const Tensor extra = ones({2, 2}, bf16);
    Tensor y;
    {
        amp::autocast region("cpu");
        y = MyF32Sum::apply(a, std::vector<Tensor>{extra});
    }
    CHECK(seen.forward_input == f32);
    CHECK(seen.vector_input == f32);
    CHECK_FALSE(seen.forward_autocast);
    CHECK(y.dtype() == f32);
    sum(y).backward();
    CHECK_FALSE(seen.backward_autocast);
}

TEST_CASE("custom_fwd's casts are autocast's own: a table that bans `to` does not refuse them")
{
    seen = {};
    amp::PolicyTable table = amp::PolicyTable::cpu();
    table.set("to", amp::CastPolicy::banned);
    amp::autocast region("cpu", {.table = std::make_shared<const amp::PolicyTable>(table)});
    const Tensor y = MyF32Sum::apply(ones({2, 2}, bf16), std::vector<Tensor>{ones({2, 2}, bf16)});
    CHECK(seen.forward_input == f32);
    CHECK(y.dtype() == f32);
}

TEST_CASE("custom_fwd with cast_inputs outside autocast changes nothing")
{
    seen = {};
    const Tensor a = ones({2, 2}, bf16);
    const Tensor y = MyF32Sum::apply(a, std::vector<Tensor>{ones({2, 2}, bf16)});
    CHECK(seen.forward_input == bf16);
    CHECK(y.dtype() == bf16);
}
