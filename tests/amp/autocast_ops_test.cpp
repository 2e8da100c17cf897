// Conformance of the autocast layer with PyTorch (reference §1.2-1.6, §4.2): for every op in
// both built-in tables, the dtype of its result under autocast, and that the result is bit for
// bit the op run without autocast on inputs cast beforehand (PyTorch's _run_autocast_outofplace).
// The CUDA table runs on CPU tensors here: the emulation a CPU-only machine uses.
#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {

using Run = std::function<Tensor(const std::vector<Tensor>&)>;
struct OpCase {
    Run run;
    std::vector<Tensor> inputs;  // f32 floats (integer labels stay i64)
};

// One call of each op tinyamp has in a built-in table, on small f32 inputs.
std::map<std::string, OpCase> op_cases()
{
    Generator gen(3);
    auto r = [&](const Shape& s) { return randn(s, f32, gen); };
    auto p = [&](const Shape& s) { return add(rand(s, f32, gen), 0.5); };  // positive
    const Tensor labels = tensor({0, 2, 1}, {3}, i64);
    return {
        {"conv2d", {[](const auto& in) { return conv2d(in[0], in[1], in[2]); }, {r({1, 2, 5, 5}), r({3, 2, 3, 3}), r({3})}}},
        {"addmm", {[](const auto& in) { return addmm(in[0], in[1], in[2]); }, {r({2, 4}), r({2, 3}), r({3, 4})}}},
        {"matmul", {[](const auto& in) { return matmul(in[0], in[1]); }, {r({2, 3}), r({3, 4})}}},
        {"mm", {[](const auto& in) { return mm(in[0], in[1]); }, {r({2, 3}), r({3, 4})}}},
        {"linear", {[](const auto& in) { return linear(in[0], in[1], in[2]); }, {r({2, 3}), r({4, 3}), r({4})}}},
        {"bmm", {[](const auto& in) { return bmm(in[0], in[1]); }, {r({2, 2, 3}), r({2, 3, 4})}}},
        // query, key, value and a float mask, which is cast with them
        {"scaled_dot_product_attention",
         {[](const auto& in) { return scaled_dot_product_attention(in[0], in[1], in[2], in[3]); },
          {r({2, 3, 4}), r({2, 5, 4}), r({2, 5, 3}), r({3, 5})}}},
        {"exp", {[](const auto& in) { return exp(in[0]); }, {r({5})}}},
        {"log", {[](const auto& in) { return log(in[0]); }, {p({5})}}},
        {"pow", {[](const auto& in) { return pow(in[0], 2.5); }, {p({5})}}},
        {"layer_norm", {[](const auto& in) { return layer_norm(in[0], {4}, in[1], in[2]); }, {r({3, 4}), r({4}), r({4})}}},
        {"nll_loss", {[](const auto& in) { return nll_loss(in[0], in[1]); }, {r({3, 4}), labels}}},
        {"mse_loss", {[](const auto& in) { return mse_loss(in[0], in[1]); }, {r({6}), r({6})}}},
        {"binary_cross_entropy_with_logits", {[](const auto& in) { return binary_cross_entropy_with_logits(in[0], in[1]); }, {r({6}), rand({6}, f32, gen)}}},
        {"cross_entropy", {[](const auto& in) { return cross_entropy(in[0], in[1]); }, {r({3, 4}), labels}}},
        {"binary_cross_entropy", {[](const auto& in) { return binary_cross_entropy(in[0], in[1]); }, {rand({6}, f32, gen), rand({6}, f32, gen)}}},
        {"softmax", {[](const auto& in) { return softmax(in[0], -1); }, {r({3, 4})}}},
        {"log_softmax", {[](const auto& in) { return log_softmax(in[0], -1); }, {r({3, 4})}}},
        {"sum", {[](const auto& in) { return sum(in[0]); }, {r({3, 4})}}},
        {"cat", {[](const auto& in) { return cat({in[0], in[1]}, 0); }, {r({2, 3}), r({1, 3})}}},
        {"stack", {[](const auto& in) { return stack({in[0], in[1]}, 0); }, {r({2, 3}), r({2, 3})}}},
    };
}

std::vector<Tensor> cast_floats(const std::vector<Tensor>& inputs, DType dtype)
{
    std::vector<Tensor> out;
    for (const Tensor& t : inputs) out.push_back(is_floating_point(t.dtype()) ? t.to(dtype) : t);
    return out;
}

bool bit_equal(const Tensor& a, const Tensor& b)
{
    if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
    const Tensor ca = a.contiguous(), cb = b.contiguous();
    return std::memcmp(ca.data_ptr(), cb.data_ptr(), std::size_t(ca.nbytes())) == 0;
}

std::shared_ptr<const amp::PolicyTable> cuda_table() { return std::make_shared<const amp::PolicyTable>(amp::PolicyTable::cuda()); }

// Runs every op of `table` inside `region_options` on the CPU and checks it against the table.
void check_table(const amp::PolicyTable& table, amp::AutocastOptions region_options, DType low)
{
    const auto cases = op_cases();
    for (const auto& [op, policy] : table.entries()) {
        INFO("op " << op << " (" << std::string(amp::policy_name(policy)) << ") in the " << table.name() << " table");
        const auto found = cases.find(op);
        REQUIRE_MESSAGE(found != cases.end(), "every op of a built-in table needs a case here");
        const OpCase& c = found->second;
        if (policy == amp::CastPolicy::banned) {
            amp::autocast region("cpu", region_options);
            CHECK(error_message([&] { c.run(c.inputs); }, ErrorKind::state).find("are unsafe to autocast") != std::string::npos);
            continue;
        }
        // f32 inputs, then inputs already in the low dtype (which the fp32 lists must bring back to f32).
        for (DType input_dtype : {DType::f32, low}) {
            INFO("inputs in " << std::string(dtype_name(input_dtype)));
            const std::vector<Tensor> inputs = cast_floats(c.inputs, input_dtype);
            Tensor under;
            {
                amp::autocast region("cpu", region_options);
                under = c.run(inputs);
            }
            DType expected = input_dtype;  // promote with all inputs alike: that dtype
            if (policy == amp::CastPolicy::lower_precision_fp) expected = low;
            if (policy == amp::CastPolicy::fp32 || policy == amp::CastPolicy::fp32_set_opt_dtype) expected = DType::f32;
            CHECK(under.dtype() == expected);
            // Bit for bit the op without autocast on inputs cast to the run-as type.
            const Tensor plain = c.run(cast_floats(inputs, expected));
            CHECK(bit_equal(under, plain));
        }
    }
}

}  // namespace

TEST_CASE("every op of the CPU table gives the table's dtype under bf16 and f16 autocast, bit-equal to pre-cast inputs")
{
    check_table(amp::PolicyTable::cpu(), {}, DType::bf16);
    check_table(amp::PolicyTable::cpu(), {.dtype = DType::f16}, DType::f16);
}

TEST_CASE("every op of the CUDA table, emulated on CPU tensors with f16, gives the table's dtype")
{
    check_table(amp::PolicyTable::cuda(), {.dtype = DType::f16, .table = cuda_table()}, DType::f16);
}

TEST_CASE("promote runs in the widest input dtype, in both orders, and refuses f16 with bf16")
{
    const Tensor a = ones({2, 3}, f32), b = ones({2, 3}, bf16), h = ones({2, 3}, f16);
    amp::autocast region("cpu");
    CHECK(cat({a, b}).dtype() == f32);
    CHECK(cat({b, a}).dtype() == f32);
    CHECK(stack({b, a}).dtype() == f32);
    CHECK(cat({b, b}).dtype() == bf16);
    const std::string message = error_message([&] { cat({b, h}); }, ErrorKind::dtype);
    CHECK(message.find("f16 and bf16 cannot be promoted to each other") != std::string::npos);
}

TEST_CASE("ineligible inputs are never cast: f64 and integers (other device types: tests/cuda/cuda_amp_test.cpp)")
{
    amp::autocast region("cpu");
    const Tensor d = ones({2, 2}, f64);
    CHECK(mm(d, d).dtype() == f64);
    CHECK(linear(d, d).dtype() == f64);
    // mm(f64, f32): only the f32 one is eligible, so the op sees f64 with bf16 and refuses, as PyTorch's mm(double, half).
    CHECK(error_message([&] { mm(d, ones({2, 2})); }, ErrorKind::dtype).find("same dtype") != std::string::npos);
    CHECK(sum(arange(4)).dtype() == i64);
    CHECK(cross_entropy(ones({2, 3}), tensor({0, 1}, {2}, i64)).dtype() == f32);  // labels stay i64
    amp::autocast gpu_rules("cpu", {.dtype = DType::f16, .table = cuda_table()});
    CHECK(pow(ones({2}, f64), 2.0).dtype() == f64);
    CHECK(sum(ones({2}, f64)).dtype() == f64);
}

TEST_CASE("ops not in the table keep PyTorch's own type promotion")
{
    amp::autocast region("cpu");
    const Tensor a = ones({2}, f32), b = ones({2}, bf16);
    CHECK(add(a, b).dtype() == f32);
    CHECK(mul(b, b).dtype() == bf16);
    CHECK(div(a, b).dtype() == f32);
    CHECK(gt(a, b).dtype() == boolean);
    CHECK(exp(b).dtype() == bf16);  // exp is not intercepted on CPU
    CHECK(softmax(b, 0).dtype() == bf16);  // nor is softmax
    amp::autocast gpu_rules("cpu", {.dtype = DType::f16, .table = cuda_table()});
    CHECK(cat({ones({1}, f32), ones({1}, f16)}).dtype() == f32);  // cat is not intercepted on CUDA: builtin promotion
}

TEST_CASE("binary_cross_entropy is banned under the CUDA table with PyTorch's message, and fp32 on the CPU table")
{
    const Tensor p = full({3}, 0.25), t = full({3}, 1.0);
    {
        amp::autocast region("cpu", {.dtype = DType::f16, .table = cuda_table()});
        const std::string message = error_message([&] { binary_cross_entropy(p, t); }, ErrorKind::state);
        CHECK(message ==
              "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
              "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
              "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
              "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
              "safe to autocast.");
        CHECK(binary_cross_entropy_with_logits(p, t).dtype() == f32);
    }
    amp::autocast region("cpu");
    CHECK(binary_cross_entropy(p.to(bf16), t).dtype() == f32);
}

TEST_CASE("an op banned by an edited table is refused with a message that names it and the table")
{
    amp::PolicyTable table = amp::PolicyTable::cpu();
    table.set_name("lab-table");
    table.set("exp", amp::CastPolicy::banned);
    amp::autocast region("cpu", {.dtype = DType::bf16, .table = std::make_shared<const amp::PolicyTable>(table)});
    const std::string message = error_message([&] { exp(ones({2})); }, ErrorKind::state);
    CHECK(message == "exp is banned under autocast by the policy table 'lab-table': run it outside the autocast region, "
                     "or move it to another policy (PolicyTable::set)");
}

// PyTorch's cached_cast runs with autocast excluded: the casts autocast makes are not ops it
// decides about again. A table that bans `to` shows it: a user's own .to() is refused, while the
// casts of a lower-precision op (through the cache), of an fp32 op and of promote all run.
TEST_CASE("the casts autocast makes do not go through the autocast decision again")
{
    amp::PolicyTable table = amp::PolicyTable::cpu();
    table.set_name("no-to");
    table.set("to", amp::CastPolicy::banned);
    amp::autocast region("cpu", {.dtype = DType::bf16, .table = std::make_shared<const amp::PolicyTable>(table)});
    const Tensor w = ones({4, 3}).requires_grad_();
    const Tensor x = ones({2, 3});
    CHECK(error_message([&] { (void)x.to(f16); }, ErrorKind::state).find("to is banned") != std::string::npos);
    const Tensor y = linear(x, w);                     // x and w cast to bf16, w through the cache
    CHECK(y.dtype() == bf16);
    CHECK(linear(x, w).dtype() == bf16);               // a cache hit
    CHECK(mse_loss(y, zeros({2, 4})).dtype() == f32);  // fp32: y cast up
    CHECK(cat({y, zeros({2, 4})}, 0).dtype() == f32);  // promote: y cast up
}

TEST_CASE("fp32_set_opt_dtype keeps the inputs and respects a dtype the user gave")
{
    amp::autocast region("cpu", {.dtype = DType::f16, .table = cuda_table()});
    const Tensor h = ones({2, 3}, f16).requires_grad_();
    const Tensor y = softmax(h, -1);
    CHECK(y.dtype() == f32);
    REQUIRE(y.grad_fn());
    CHECK(y.grad_fn()->name() == "softmax");  // no separate cast node: the op upcasts inside
    CHECK(y.grad_fn()->inputs[0].dtype == f16);
    CHECK(softmax(h, -1, f16).dtype() == f16);  // given by the user: respected
    CHECK(sum(h).dtype() == f32);
    CHECK(sum(h, {0}, false, bf16).dtype() == bf16);
}

TEST_CASE("casts are differentiable nodes: backward runs in the forward's dtypes and reaches the f32 weight")
{
    const Tensor w = ones({4, 3}).requires_grad_().set_name("w");
    const Tensor x = ones({2, 3});
    Tensor y;
    {
        amp::autocast region("cpu");
        y = linear(x, w);
    }
    CHECK(y.dtype() == bf16);
    REQUIRE(y.grad_fn());
    CHECK(y.grad_fn()->name() == "linear");
    CHECK(y.grad_fn()->inputs[1].dtype == bf16);
    REQUIRE(y.grad_fn()->next_edges[1].valid());
    CHECK(y.grad_fn()->next_edges[1].node->name() == "to");  // the cast of w
    sum(y).backward();
    CHECK(w.grad().dtype() == f32);
    CHECK(w.grad().to_vector() == std::vector<double>(12, 2.0));
}

TEST_CASE("an enabled=false sub-region runs ops in the dtypes they are given")
{
    const Tensor a = ones({2, 2}), b = ones({2, 2});
    amp::autocast region("cpu");
    const Tensor low = mm(a, b);
    CHECK(low.dtype() == bf16);
    {
        amp::autocast off("cpu", {.enabled = false});
        CHECK(mm(a, b).dtype() == f32);
        CHECK(error_message([&] { mm(low, b); }, ErrorKind::dtype).find("same dtype") != std::string::npos);  // cast it yourself
        CHECK(mm(low.to(f32), b).dtype() == f32);
    }
    CHECK(mm(low, b).dtype() == bf16);  // back in the region: no manual casts needed
}

TEST_CASE("backward called inside an autocast region is not autocast: gradients equal those of a backward outside")
{
    // The forward runs in f32 outside any region; were its backward matmuls autocast, they would
    // run in bf16 and the gradient would change.
    Generator gen(5);
    const Tensor w = randn({3, 4}, f32, gen).requires_grad_();
    const Tensor x = randn({2, 4}, f32, gen).requires_grad_();
    sum(mul(linear(x, w), linear(x, w))).backward();
    const std::vector<double> outside = w.grad().to_vector();
    w.set_grad(Tensor());
    const Tensor loss = sum(mul(linear(x, w), linear(x, w)));
    {
        amp::autocast region("cpu");
        loss.backward();
    }
    CHECK(w.grad().dtype() == f32);
    CHECK(w.grad().to_vector() == outside);
}

TEST_CASE("scaled_dot_product_attention is lower_precision_fp on both tables, a bool mask is never cast, the reference's ops keep their own rows")
{
    Generator gen(9);
    const Tensor q = randn({2, 3, 4}, f32, gen), k = randn({2, 5, 4}, f32, gen), v = randn({2, 5, 3}, f32, gen);
    const Tensor keep = tril(ones({3, 5}, boolean));
    {
        amp::autocast region("cpu");
        const Tensor y = scaled_dot_product_attention(q, k, v, keep);
        CHECK(y.dtype() == bf16);
        CHECK(bit_equal(y, scaled_dot_product_attention(q.to(bf16), k.to(bf16), v.to(bf16), keep)));
        CHECK(scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true).dtype() == bf16);
        // The reference: matmul is lower_precision_fp, softmax is not listed on the CPU.
        CHECK(scaled_dot_product_attention_reference(q, k, v, keep).dtype() == bf16);
    }
    {
        amp::autocast region("cpu", {.dtype = DType::f16, .table = cuda_table()});
        CHECK(scaled_dot_product_attention(q, k, v, keep).dtype() == f16);
        // softmax gives f32 there (fp32_set_opt_dtype), and the last matmul casts it back to f16.
        CHECK(scaled_dot_product_attention_reference(q, k, v, keep).dtype() == f16);
    }
    amp::autocast region("cpu");
    CHECK(scaled_dot_product_attention(q.to(f64), k.to(f64), v.to(f64)).dtype() == f64);  // f64 is never cast
}

TEST_CASE("embedding, masked_fill, where and tril are in no list: they run in their input dtypes under autocast, as in PyTorch")
{
    const Tensor weight = ones({5, 3}), tokens = tensor({1, 4}, i64), x = ones({2, 3}), mask = tril(ones({2, 3}, boolean));
    for (const bool cuda_rules : {false, true}) {
        INFO(std::string(cuda_rules ? "CUDA table, f16" : "CPU table, bf16"));
        amp::autocast region("cpu", cuda_rules ? amp::AutocastOptions{.dtype = DType::f16, .table = cuda_table()} : amp::AutocastOptions{});
        CHECK(embedding(tokens, weight).dtype() == f32);
        CHECK(embedding(tokens, weight.to(bf16)).dtype() == bf16);
        CHECK(masked_fill(x, mask, -INFINITY).dtype() == f32);
        CHECK(masked_fill(x.to(bf16), mask, -INFINITY).dtype() == bf16);
        CHECK(where(mask, x, -INFINITY).dtype() == f32);
        CHECK(tril(x).dtype() == f32);
        CHECK(triu(x.to(f16)).dtype() == f16);
    }
}
