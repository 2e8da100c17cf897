// scaled_dot_product_attention (the fused op) and scaled_dot_product_attention_reference (the
// composition of ops): equal in f64 over masks, causal, broadcast batches and scales; the fused
// op within one rounding of f64 in f16/bf16 (its logits are f32), the reference further; the f16
// overflow the fused op avoids; rows with every key masked; f64 gradients by gradcheck; what the
// backward keeps alive; errors shared by both.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using tinyamp::test::check_close;
using tinyamp::test::error_message;
using tinyamp::test::ulps_for;

namespace {

using Attention = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&, const Tensor&, bool, std::optional<double>)>;

const Attention fused = [](const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool causal, std::optional<double> scale) {
    return scaled_dot_product_attention(q, k, v, mask, 0.0, causal, scale);
};
const Attention reference = [](const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool causal, std::optional<double> scale) {
    return scaled_dot_product_attention_reference(q, k, v, mask, 0.0, causal, scale);
};

double max_abs(const Tensor& t)
{
    double m = 0;
    for (double x : t.to_vector()) m = std::max(m, std::abs(x));
    return m;
}

bool all_finite(const Tensor& t)
{
    const std::vector<double> v = t.to_vector();
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// One call: shapes, a mask (undefined, bool or float), causal or not, a scale.
struct Case {
    std::string name;
    Shape q, k, v;
    Tensor mask;
    bool causal = false;
    std::optional<double> scale;
};

// A bool mask [rows, cols] with at least one key per row (row i always sees key i % cols).
Tensor bool_mask(std::int64_t rows, std::int64_t cols, Generator& gen)
{
    Tensor m = gt(rand({rows, cols}, f32, gen), 0.4);
    for (std::int64_t i = 0; i < rows; ++i) m.set({i, i % cols}, 1.0);
    return m;
}

std::vector<Case> cases()
{
    Generator gen(21);
    return {
        {"plain", {2, 3, 5, 4}, {2, 3, 6, 4}, {2, 3, 6, 7}, Tensor(), false, std::nullopt},
        {"2-D, custom scale", {5, 4}, {6, 4}, {6, 3}, Tensor(), false, 0.7},
        {"bool mask [L, S]", {2, 3, 5, 4}, {2, 3, 6, 4}, {2, 3, 6, 7}, bool_mask(5, 6, gen), false, std::nullopt},
        {"float mask [3, L, S]", {2, 3, 5, 4}, {2, 3, 6, 4}, {2, 3, 6, 7}, randn({3, 5, 6}, f64, gen), false, std::nullopt},
        {"causal, L == S", {2, 2, 6, 4}, {2, 2, 6, 4}, {2, 2, 6, 5}, Tensor(), true, std::nullopt},
        {"causal, L < S (top-left)", {2, 4, 4}, {2, 7, 4}, {2, 7, 3}, Tensor(), true, std::nullopt},
        {"causal, L > S", {2, 7, 4}, {2, 4, 4}, {2, 4, 3}, Tensor(), true, std::nullopt},
        {"key and value shared by the batch", {2, 3, 5, 4}, {1, 6, 4}, {6, 7}, bool_mask(5, 6, gen), false, std::nullopt},
    };
}

// q, k, v of a case in f64: q and k scaled so that the logits are a few units.
std::vector<Tensor> inputs(const Case& c, std::uint64_t seed)
{
    Generator gen(seed);
    return {mul(randn(c.q, f64, gen), 0.8), mul(randn(c.k, f64, gen), 0.8), randn(c.v, f64, gen)};
}

// The largest |logit| of a case: |scale q·kᵀ| plus a float mask.
double max_logit(const std::vector<Tensor>& in, const Tensor& mask, const Case& c)
{
    const double scale = c.scale.value_or(1.0 / std::sqrt(double(c.q.back())));
    const double products = max_abs(mul(matmul(in[0].to(f64), in[1].to(f64).transpose(-2, -1)), scale));
    return products + (mask.defined() && mask.dtype() != boolean ? max_abs(mask) : 0.0);
}

Tensor mask_in(const Tensor& mask, DType d) { return mask.defined() && mask.dtype() != boolean ? mask.to(d) : mask; }

}  // namespace

TEST_CASE("scaled_dot_product_attention equals the composite reference in f64")
{
    for (const Case& c : cases()) {
        INFO(c.name);
        const std::vector<Tensor> in = inputs(c, 1);
        const Tensor y = fused(in[0], in[1], in[2], c.mask, c.causal, c.scale);
        const Tensor r = reference(in[0], in[1], in[2], c.mask, c.causal, c.scale);
        CHECK(y.dtype() == f64);
        CHECK(y.shape() == r.shape());
        check_close(y, r, f64, ulps_for(f64, c.q.back() + c.k[c.k.size() - 2]));
    }
}

TEST_CASE("is_causal is the top-left triangle: the same as attn_mask = tril(ones(L, S))")
{
    for (const Case& c : cases()) {
        if (!c.causal) continue;
        INFO(c.name);
        const std::vector<Tensor> in = inputs(c, 2);
        const Tensor tri = tril(ones({c.q[c.q.size() - 2], c.k[c.k.size() - 2]}, boolean));
        CHECK(fused(in[0], in[1], in[2], Tensor(), true, c.scale).to_vector() == fused(in[0], in[1], in[2], tri, false, c.scale).to_vector());
    }
}

TEST_CASE("in f16 and bf16 the fused op is one rounding from f64 (logits in f32), the reference is further, f32 within its sums")
{
    for (const Case& c : cases()) {
        const std::vector<Tensor> in64 = inputs(c, 3);
        for (DType d : {f32, bf16, f16}) {
            INFO(c.name << " in " << dtype_name(d));
            std::vector<Tensor> in;
            for (const Tensor& t : in64) in.push_back(t.to(d));
            const Tensor mask = mask_in(c.mask, d);
            // The truth: f64 on the same rounded inputs.
            const Tensor truth = reference(in[0].to(f64), in[1].to(f64), in[2].to(f64), mask_in(mask, f64), c.causal, c.scale);
            const Tensor y = fused(in[0], in[1], in[2], mask, c.causal, c.scale);
            const Tensor r = reference(in[0], in[1], in[2], mask, c.causal, c.scale);
            CHECK(y.dtype() == d);
            CHECK(r.dtype() == d);
            // The output is a weighted mean of value rows: an error e in every logit moves it by at
            // most 2 e max|v|, and a rounding of the probabilities or the output by eps/2 max|v|. So
            // errors are measured against max|v| (max|logit| + 1), with as many ulps as roundings.
            const double through_logits = max_abs(in[2]) * (max_logit(in, mask, c) + 1);
            const double sums = ulps_for(d, c.q.back() + c.k[c.k.size() - 2]);  // f32 results also round E- and S-term sums
            // f16/bf16: every step is f32, whose errors are far below one ulp of d: only the output's
            // one rounding counts.
            if (d == f32)
                check_close(y, truth, d, sums, through_logits);
            else
                check_close(y, truth, d);
            // The reference rounds the logits, the scaled logits and the masked logits (3 eps/2 each,
            // times 2 through the softmax), the probabilities and the output.
            check_close(r, truth, d, std::max(4.0, sums), through_logits);
            check_close(y, r, d, std::max(4.0, sums) + 2.0, through_logits);
            if (d != f32) CHECK(max_abs(sub(y.to(f64), truth)) <= max_abs(sub(r.to(f64), truth)));
        }
    }
}

TEST_CASE("logits near 20 in f16: rounding them costs the reference several ulps of the output, the fused op rounds once")
{
    // Every logit is about 20 (a shared first component, 9 * 9 / 4) plus a spread of about 1, so the
    // probabilities are spread over the keys. f16's step at 64..128 is 1/16: the reference's q·kᵀ is
    // off by up to 1/32 (1/128 after the scale), which moves each probability by up to 1.6 %. The
    // fused op keeps the logits in f32 and rounds only the output.
    Generator gen(12);
    const auto near_nine = [&](std::int64_t rows) {
        return cat({full({2, rows, 1}, 9.0, f64), mul(randn({2, rows, 15}, f64, gen), 0.8)}, -1).to(f16);
    };
    const Tensor q = near_nine(8), k = near_nine(8), v = randn({2, 8, 16}, f64, gen).to(f16);
    const Tensor truth = scaled_dot_product_attention(q.to(f64), k.to(f64), v.to(f64));
    check_close(scaled_dot_product_attention(q, k, v), truth, f16);
    const double reference_error = max_abs(sub(scaled_dot_product_attention_reference(q, k, v).to(f64), truth));
    CHECK(reference_error > 4 * traits(f16).eps * max_abs(truth));  // beyond 4 ulps of the output's scale
}

TEST_CASE("f16 logits past 65504: the reference's overflow to inf gives NaN, the fused op (f32 logits) stays finite and right")
{
    // q·k = 16 * 70 * 70 = 78400 > 65504 before the scale 1/4: inf in f16. The teaching point of
    // lesson 9's f32 island, which the fused op makes unnecessary.
    Generator gen(4);
    const Tensor q = add(mul(randn({1, 2, 4, 16}, f64, gen), 0.5), 70.0).to(f16);
    const Tensor k = add(mul(randn({1, 2, 5, 16}, f64, gen), 0.5), 70.0).to(f16);
    const Tensor v = randn({1, 2, 5, 8}, f64, gen).to(f16);
    const Tensor logits16 = matmul(q, k.transpose(-2, -1));
    CHECK(std::isinf(max_abs(logits16)));
    const Tensor r = scaled_dot_product_attention_reference(q, k, v);
    const Tensor y = scaled_dot_product_attention(q, k, v);
    CHECK(std::isnan(sum(r.to(f64)).item()));
    CHECK(all_finite(y));
    CHECK(y.dtype() == f16);
    check_close(y, scaled_dot_product_attention(q.to(f64), k.to(f64), v.to(f64)), f16);
    // The same under causal masking, and its gradients are finite too.
    const Tensor qg = q.detach().requires_grad_(), kg = k.detach().requires_grad_(), vg = v.detach().requires_grad_();
    const Tensor yc = scaled_dot_product_attention(qg, kg, vg, Tensor(), 0.0, true);
    CHECK(all_finite(yc));
    sum(mul(yc, yc)).backward();
    CHECK(all_finite(qg.grad()));
    CHECK(all_finite(kg.grad()));
    CHECK(all_finite(vg.grad()));
    CHECK(qg.grad().dtype() == f16);
    CHECK(std::isnan(sum(scaled_dot_product_attention_reference(q, k, v, Tensor(), 0.0, true).to(f64)).item()));
}

TEST_CASE("a row with every key masked: zeros from the fused op (PyTorch's math backend since 2.5), NaN from the reference")
{
    Generator gen(5);
    const Tensor q = randn({2, 3, 4}, f64, gen).requires_grad_(), k = randn({2, 5, 4}, f64, gen).requires_grad_();
    const Tensor v = randn({2, 5, 6}, f64, gen).requires_grad_();
    Tensor keep = bool_mask(3, 5, gen);
    for (std::int64_t j = 0; j < 5; ++j) keep.set({1, j}, 0.0);  // query 1 sees no key
    const Tensor minus_inf = masked_fill(zeros({3, 5}, f64), eq(keep, false), -INFINITY);  // the same as a float mask
    for (const Tensor& mask : {keep, minus_inf}) {
        INFO("mask " << dtype_name(mask.dtype()));
        const Tensor y = scaled_dot_product_attention(q, k, v, mask);
        CHECK(max_abs(y.select(1, 1)) == 0.0);
        const Tensor r = scaled_dot_product_attention_reference(q, k, v, mask);
        CHECK(std::isnan(sum(r.select(1, 1)).item()));
        // The other rows agree.
        for (std::int64_t i : {0, 2}) check_close(y.select(1, i), r.select(1, i), f64, ulps_for(f64, 9));
        // Gradients are finite, and zero for the fully masked query.
        q.set_grad(Tensor());
        sum(mul(y, y)).backward();
        CHECK(all_finite(q.grad()));
        CHECK(max_abs(q.grad().select(1, 1)) == 0.0);
        CHECK(all_finite(k.grad()));
        CHECK(all_finite(v.grad()));
    }
}

TEST_CASE("scaled_dot_product_attention: f64 gradients by gradcheck for query, key, value and a float mask")
{
    for (const Case& c : cases()) {
        INFO(c.name);
        std::vector<Tensor> in = inputs(c, 6);
        for (Tensor& t : in) t.requires_grad_();
        if (c.mask.defined() && c.mask.dtype() == f64) in.push_back(c.mask.detach().requires_grad_());
        const Tensor mask = c.mask;
        const GradcheckResult r = gradcheck(
            [&](const std::vector<Tensor>& x) { return fused(x[0], x[1], x[2], x.size() > 3 ? x[3] : mask, c.causal, c.scale); }, in);
        INFO(r.report);
        CHECK(r.ok);
    }
}

TEST_CASE("the fused op's gradients in f16/bf16 are one rounding from f64, each in its input's dtype")
{
    const Case c = cases()[3];  // the float mask broadcast over the batch
    const std::vector<Tensor> in64 = inputs(c, 7);
    const Tensor g64 = randn({2, 3, 5, 7}, f64);
    for (DType d : {f16, bf16}) {
        INFO(dtype_name(d));
        std::vector<Tensor> low, exact;
        for (const Tensor& t : in64) {
            low.push_back(t.to(d).requires_grad_());
            exact.push_back(t.to(d).to(f64).requires_grad_());
        }
        const Tensor mask_low = c.mask.to(f32).requires_grad_();  // f32 mask with d inputs, as PyTorch allows
        const Tensor mask_exact = mask_low.to(f64).detach().requires_grad_();
        fused(low[0], low[1], low[2], mask_low, false, std::nullopt).backward(g64.to(d));
        fused(exact[0], exact[1], exact[2], mask_exact, false, std::nullopt).backward(g64.to(d).to(f64));
        for (std::size_t i = 0; i < 3; ++i) {
            INFO("input " << i);
            CHECK(low[i].grad().dtype() == d);
            check_close(low[i].grad(), exact[i].grad(), d);
        }
        // The mask's gradient is f32, computed in f32: far within d's tolerance.
        CHECK(mask_low.grad().dtype() == f32);
        check_close(mask_low.grad(), mask_exact.grad(), d);
    }
}

TEST_CASE("without a mask the CPU attention kernel runs: values and gradients within one rounding of f64, the same bits on 1 and 2 threads")
{
    // L and S below one causal block of 32 rows, over several blocks (the last one short, dk and dv
    // summed over blocks), and more queries than keys.
    const std::vector<std::pair<std::int64_t, std::int64_t>> lengths = {{17, 19}, {70, 75}, {70, 40}};
    const int threads = get_num_threads();
    for (const auto& [L, S] : lengths)
        for (bool causal : {false, true})
            for (DType d : {f32, bf16, f16}) {
                INFO("L " << L << ", S " << S << ", " << std::string(dtype_name(d)) << std::string(causal ? ", causal" : ""));
                Generator gen(21);
                const Tensor q64 = randn({2, 3, L, 8}, f64, gen), k64 = randn({2, 3, S, 8}, f64, gen), v64 = randn({2, 3, S, 5}, f64, gen);
                const Tensor g64 = randn({2, 3, L, 5}, f64, gen);
                std::vector<Tensor> exact{q64.to(d).to(f64).requires_grad_(), k64.to(d).to(f64).requires_grad_(),
                                          v64.to(d).to(f64).requires_grad_()};
                const Tensor truth = fused(exact[0], exact[1], exact[2], Tensor(), causal, std::nullopt);
                truth.backward(g64.to(d).to(f64));
                std::vector<std::vector<double>> bits_by_threads;
                for (int t : {1, 2}) {
                    set_num_threads(t);
                    std::vector<Tensor> low{q64.to(d).requires_grad_(), k64.to(d).requires_grad_(), v64.to(d).requires_grad_()};
                    const Tensor y = fused(low[0], low[1], low[2], Tensor(), causal, std::nullopt);
                    y.backward(g64.to(d));
                    CHECK(y.dtype() == d);
                    // f32 sums of S (or L) products differ from f64 by their length's rounding;
                    // f16/bf16 round once, well above that.
                    const double ulps = ulps_for(d, std::max(L, S));
                    check_close(y, truth, d, ulps);
                    std::vector<double> all = y.to_vector();
                    for (std::size_t i = 0; i < 3; ++i) {
                        INFO("input " << i);
                        CHECK(low[i].grad().dtype() == d);
                        check_close(low[i].grad(), exact[i].grad(), d, ulps);
                        const std::vector<double> g = low[i].grad().to_vector();
                        all.insert(all.end(), g.begin(), g.end());
                    }
                    bits_by_threads.push_back(all);
                }
                CHECK(bits_by_threads[0] == bits_by_threads[1]);
            }
    set_num_threads(threads);
}

TEST_CASE("the kernel reads a GPT's head views of qkv in place: the bits of their contiguous copies, outputs laid out [B, T, H, D]")
{
    // q, k, v = qkv.narrow(2, i C, C).view(B, T, H, D).transpose(1, 2), as nn::CausalSelfAttention makes them.
    const std::int64_t B = 2, T = 40, H = 3, D = 8, C = H * D;
    for (DType d : {f32, bf16, f16}) {
        INFO(std::string(dtype_name(d)));
        Generator gen(29);
        const Tensor qkv_values = randn({B, T, 3 * C}, f32, gen).to(d), g = randn({B, H, T, D}, f32, gen).to(d);
        const auto heads = [&](const Tensor& qkv, std::int64_t i) { return qkv.narrow(2, i * C, C).view({B, T, H, D}).transpose(1, 2); };
        const Tensor strided = qkv_values.detach().requires_grad_();
        std::vector<Tensor> copies{heads(qkv_values, 0).contiguous().requires_grad_(), heads(qkv_values, 1).contiguous().requires_grad_(),
                                   heads(qkv_values, 2).contiguous().requires_grad_()};
        const Tensor y = scaled_dot_product_attention(heads(strided, 0), heads(strided, 1), heads(strided, 2), Tensor(), 0.0, true);
        const Tensor y_copies = scaled_dot_product_attention(copies[0], copies[1], copies[2], Tensor(), 0.0, true);
        CHECK(y.to_vector() == y_copies.to_vector());
        CHECK(y.transpose(1, 2).is_contiguous());  // merging the heads back is a view
        y.backward(g);
        y_copies.backward(g);
        for (std::int64_t i = 0; i < 3; ++i) {
            INFO("input " << i);
            CHECK(heads(strided.grad(), i).to_vector() == copies[std::size_t(i)].grad().to_vector());
        }
    }
}

TEST_CASE("a NaN in one query row makes that row of the output NaN, and only that row (the kernel's softmax keeps NaN)")
{
    Generator gen(23);
    Tensor q = randn({1, 1, 3, 4}, f32, gen);
    std::vector<double> values = q.to_vector();
    values[4] = std::nan("");  // row 1
    q = tensor(values, {1, 1, 3, 4}, f32);
    const Tensor k = randn({1, 1, 5, 4}, f32, gen), v = randn({1, 1, 5, 2}, f32, gen);
    const std::vector<double> y = scaled_dot_product_attention(q, k, v).to_vector();
    for (std::size_t i = 0; i < y.size(); ++i) {
        CAPTURE(i);
        CHECK(std::isnan(y[i]) == (i / 2 == 1));
    }
}

TEST_CASE("with create_graph the attention's backward is made of ops, so it has a gradient of its own")
{
    Generator gen(22);
    const Tensor q = randn({1, 2, 4, 3}, f32, gen).requires_grad_(), k = randn({1, 2, 5, 3}, f32, gen).requires_grad_(),
                 v = randn({1, 2, 5, 3}, f32, gen).requires_grad_();
    const Tensor y = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
    sum(mul(y, y)).backward(Tensor(), /*retain_graph=*/true, /*create_graph=*/true);
    REQUIRE(q.grad().requires_grad());  // recorded: the kernel would have given a plain tensor
    const std::vector<double> first_order = k.grad().detach().to_vector();
    sum(q.grad()).backward();  // through the backward's ops, into k.grad
    CHECK(all_finite(k.grad()));
    CHECK(k.grad().detach().to_vector() != first_order);
}

TEST_CASE("the fused op keeps a log-sum-exp per row for backward, the reference keeps whole [L, S] matrices")
{
    Generator gen(8);
    const Tensor q = randn({4, 128, 16}, f32, gen).requires_grad_(), k = randn({4, 128, 16}, f32, gen).requires_grad_();
    const Tensor v = randn({4, 128, 16}, f32, gen).requires_grad_();
    const std::int64_t logits_bytes = 4 * 128 * 128 * 4, lse_bytes = 4 * 128 * 4;
    const std::int64_t before = memory_stats().total.live_bytes;
    Tensor y = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
    CHECK(memory_stats().total.live_bytes - before == y.nbytes() + lse_bytes);
    y = Tensor();
    CHECK(memory_stats().total.live_bytes == before);
    const Tensor r = scaled_dot_product_attention_reference(q, k, v, Tensor(), 0.0, true);
    CHECK(memory_stats().total.live_bytes - before >= 2 * logits_bytes);
}

TEST_CASE("both implementations refuse the same calls, with PyTorch's rules")
{
    const Tensor q = ones({2, 3, 4}), k = ones({2, 5, 4}), v = ones({2, 5, 6});
    for (const auto& [name, attend] : {std::pair{"fused", fused}, std::pair{"reference", reference}}) {
        INFO(name);
        const auto call = [&](const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& mask = Tensor(), bool causal = false) {
            return [=] { attend(a, b, c, mask, causal, std::nullopt); };
        };
        CHECK(error_message(call(q, k, v, ones({3, 5}, boolean), true), ErrorKind::value).find("should not be set when is_causal") !=
              std::string::npos);
        CHECK(error_message(call(q, ones({2, 5, 3}), v), ErrorKind::shape).find("same last dimension E") != std::string::npos);
        CHECK(error_message(call(q, k, ones({2, 4, 6})), ErrorKind::shape).find("number of keys S") != std::string::npos);
        CHECK(error_message(call(q, ones({3, 5, 4}), ones({3, 5, 6})), ErrorKind::shape).find("do not broadcast") != std::string::npos);
        CHECK(error_message(call(q, k.to(f16), v), ErrorKind::dtype).find("same dtype") != std::string::npos);
        CHECK(error_message(call(ones({4}), k, v), ErrorKind::shape).find("at least 2 dimensions") != std::string::npos);
        CHECK(error_message(call(q, k, v, ones({3, 5}, i64)), ErrorKind::dtype).find("attn_mask must be bool") != std::string::npos);
        CHECK(error_message(call(q.to(f16), k.to(f16), v.to(f16), ones({3, 5}, bf16)), ErrorKind::dtype).find(".to(f16)") != std::string::npos);
        CHECK(error_message(call(q, k, v, ones({3, 4}, boolean)), ErrorKind::shape).find("does not broadcast to the logits' shape [2, 3, 5]") !=
              std::string::npos);
    }
    CHECK(error_message([&] { scaled_dot_product_attention(q, k, v, Tensor(), 0.1); }, ErrorKind::value).find("dropout_p = 0.1 is not supported") !=
          std::string::npos);
    CHECK(error_message([&] { scaled_dot_product_attention_reference(q, k, v, Tensor(), 0.1); }, ErrorKind::value).find("no dropout") !=
          std::string::npos);
    // A float mask in f32 with f16 inputs is allowed (PyTorch's rule: bool, float, or the query's dtype).
    CHECK(scaled_dot_product_attention(q.to(f16), k.to(f16), v.to(f16), zeros({3, 5})).dtype() == f16);
}
