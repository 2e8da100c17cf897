// Matrix products: values against the definition, gradients by gradcheck in f64, f16/bf16/f32
// results against f64 on the same rounded inputs, backward in the forward's dtype, errors.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/graph_checks.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using tinyamp::test::check_close;
using tinyamp::test::check_graph_dtype;
using tinyamp::test::error_message;

namespace {

using Op = std::function<Tensor(const std::vector<Tensor>&)>;

Tensor random(const Shape& shape, std::uint64_t seed)
{
    Generator gen(seed);
    return randn(shape, f64, gen);
}

Tensor abs_of(const Tensor& x) { return where(lt(x, 0.0), neg(x), x); }

// matmul straight from its definition, with broadcasting elementwise ops:
// C[..., i, j] = sum over p of A[..., i, p] * B[..., p, j], a vector acting as a row (first) or column (second).
Tensor matmul_by_definition(const Tensor& a, const Tensor& b)
{
    const Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
    const Tensor b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
    Tensor c = sum(mul(a2.unsqueeze(-1), b2.unsqueeze(-3)), {-2});
    if (a.dim() == 1) c = c.squeeze(-2);
    if (b.dim() == 1) c = c.squeeze(-1);
    return c;
}

double max_of(const Tensor& x)
{
    double m = 0;
    for (double v : x.to_vector()) m = std::max(m, std::abs(v));
    return m;
}

// How many ulps a result summing k products may be off, relative to scale = the f64 result of the
// same op on |inputs| (the size the rounding errors of the sum are proportional to):
//   f32 accumulates in f32: a sum of k products is off by at most about (k + 1) u * scale with
//     u = eps/2, plus up to two roundings for alpha/beta/bias: within k + 2 ulps.
//   f16/bf16 accumulate in f32 too, an error far below one of their ulps of scale for these k;
//     what is left is the final rounding into f16/bf16, within the default 2 ulps.
//   f64 (the op against its definition): a different summation order, within k + 2 ulps.
double allowed_ulps(DType dtype, std::int64_t k) { return dtype == f16 || dtype == bf16 ? 2.0 : double(k) + 2.0; }

// op on f16, bf16 and f32 copies of the inputs against op in f64 on those same rounded values.
void check_low_precision(const std::string& what, const Op& op, const std::vector<Tensor>& inputs64, std::int64_t k)
{
    for (DType d : {f16, bf16, f32}) {
        INFO(what << " in " << std::string(dtype_name(d)));
        std::vector<Tensor> low, exact, magnitude;
        for (const Tensor& x : inputs64) {
            low.push_back(x.defined() ? x.to(d) : x);
            exact.push_back(x.defined() ? low.back().to(f64) : x);
            magnitude.push_back(x.defined() ? abs_of(exact.back()) : x);
        }
        const Tensor y = op(low);
        CHECK(y.dtype() == d);
        check_close(y, op(exact), d, allowed_ulps(d, k), max_of(op(magnitude)));
    }
}

void check_gradients(const std::string& what, const Op& op, std::vector<Tensor> inputs64)
{
    INFO(what);
    for (Tensor& x : inputs64)
        if (x.defined()) x.requires_grad_();
    const GradcheckResult r = gradcheck(op, inputs64);
    INFO(r.report);
    CHECK(r.ok);
}

// With bf16 inputs: one node named `name`, recorded as bf16, straight on the leaves; bf16
// gradients, computed by bf16 ops only.
void check_backward_in_bf16(const std::string& name, const Op& op, const std::vector<Tensor>& inputs64)
{
    INFO(name);
    std::vector<Tensor> in;
    for (const Tensor& x : inputs64) in.push_back(x.defined() ? x.to(bf16).requires_grad_() : x);
    const Tensor y = op(in);
    REQUIRE(y.grad_fn());
    CHECK(y.grad_fn()->name() == name);
    CHECK(y.grad_fn()->output.dtype == bf16);
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (!in[i].defined()) continue;
        CHECK(y.grad_fn()->inputs[i].dtype == bf16);
        REQUIRE(y.grad_fn()->next_edges[i].valid());
        CHECK(y.grad_fn()->next_edges[i].node->name() == "AccumulateGrad");  // no hidden reshape or cast nodes
    }
    backward({y}, {ones_like(y)}, false, /*create_graph=*/true);
    for (const Tensor& x : in) {
        if (!x.defined()) continue;
        REQUIRE(x.grad().defined());
        CHECK(x.grad().dtype() == bf16);
        check_graph_dtype(x.grad(), bf16);
    }
}

struct MatmulCase {
    Shape a, b, out;
};

// Every kind PyTorch's matmul takes: vectors, matrices, equal and broadcast batches, and 4-D.
const std::vector<MatmulCase> kMatmulCases = {
    {{3}, {3}, {}},
    {{2, 3}, {3}, {2}},
    {{3}, {3, 4}, {4}},
    {{2, 3}, {3, 4}, {2, 4}},
    {{5, 2, 3}, {5, 3, 4}, {5, 2, 4}},
    {{1, 2, 3}, {4, 3, 2}, {4, 2, 2}},
    {{4, 2, 3}, {1, 3, 2}, {4, 2, 2}},
    {{4, 2, 3}, {3, 2}, {4, 2, 2}},
    {{2, 3}, {4, 3, 2}, {4, 2, 2}},
    {{3}, {4, 3, 2}, {4, 2}},
    {{4, 2, 3}, {3}, {4, 2}},
    {{2, 1, 2, 3}, {3, 3, 2}, {2, 3, 2, 2}},
};

std::int64_t inner_size(const Shape& a) { return a.back(); }

const Op kMatmul = [](const std::vector<Tensor>& in) { return matmul(in[0], in[1]); };

}  // namespace

TEST_CASE("matmul follows PyTorch's shape rules and equals the definition")
{
    std::uint64_t seed = 10;
    for (const MatmulCase& c : kMatmulCases) {
        INFO(shape_str(c.a) << " times " << shape_str(c.b));
        const Tensor a = random(c.a, ++seed), b = random(c.b, ++seed);
        const Tensor y = matmul(a, b);
        CHECK(y.shape() == c.out);
        check_close(y, matmul_by_definition(a, b), f64, allowed_ulps(f64, inner_size(c.a)),
                    max_of(matmul_by_definition(abs_of(a), abs_of(b))));
    }
    CHECK(matmul(tensor({1.0, 2.0, 3.0}), tensor({4.0, 5.0, 6.0})).item() == 32.0);
    const Tensor a = tensor({1, 2, 3, 4}, {2, 2}), b = tensor({5, 6, 7, 8}, {2, 2});
    CHECK(matmul(a, b).to_vector() == std::vector<double>{19, 22, 43, 50});
}

TEST_CASE("matmul with empty dimensions gives empty or zero results")
{
    CHECK(matmul(ones({0, 3}), ones({3, 2})).shape() == Shape{0, 2});
    CHECK(matmul(ones({2, 0}), ones({0, 3})).to_vector() == std::vector<double>(6, 0.0));  // a sum of no products
    CHECK(matmul(ones({0, 2, 3}), ones({3, 4})).shape() == Shape{0, 2, 4});
}

TEST_CASE("matmul reads transposed and strided views correctly")
{
    const Tensor a = random({3, 2}, 1), b = random({4, 3}, 2), wide = random({2, 6}, 3), stack = random({2, 3, 4}, 4);
    const Tensor strided = wide.slice(1, 0, 6, 2);  // [2, 3] with column stride 2: neither layout the kernel reads in place
    for (const auto& [x, y] : std::vector<std::pair<Tensor, Tensor>>{
             {a.t(), b.t()}, {a.t(), random({3, 5}, 5)}, {random({5, 2}, 6), a.t()}, {strided, b.t()}, {stack.transpose(1, 2), b.t()}}) {
        INFO(shape_str(x.shape()) << " times " << shape_str(y.shape()));
        check_close(matmul(x, y), matmul_by_definition(x, y), f64, allowed_ulps(f64, x.size(-1)),
                    max_of(matmul_by_definition(abs_of(x), abs_of(y))));
    }
}

TEST_CASE("matmul: f64 gradients for vectors, matrices and batches")
{
    std::uint64_t seed = 100;
    for (const MatmulCase& c : kMatmulCases)
        check_gradients(shape_str(c.a) + " times " + shape_str(c.b), kMatmul, {random(c.a, ++seed), random(c.b, ++seed)});
    // A transposed view as an operand: its gradient comes back in its own (viewed) shape.
    check_gradients("a transposed view", [](const std::vector<Tensor>& in) { return matmul(in[0].t(), in[1]); },
                    {random({3, 2}, 1), random({3, 4}, 2)});
}

TEST_CASE("matmul: f16 and bf16 results within the dtype tolerance of f64")
{
    std::uint64_t seed = 200;
    for (const MatmulCase& c : kMatmulCases)
        check_low_precision(shape_str(c.a) + " times " + shape_str(c.b), kMatmul, {random(c.a, ++seed), random(c.b, ++seed)},
                            inner_size(c.a));
    // A longer sum: 64 products per element.
    check_low_precision("k = 64", kMatmul, {random({8, 64}, 1), random({64, 8}, 2)}, 64);
}

TEST_CASE("mm and bmm: values, f64 gradients and low precision")
{
    const Op op_mm = [](const std::vector<Tensor>& in) { return mm(in[0], in[1]); };
    const Op op_bmm = [](const std::vector<Tensor>& in) { return bmm(in[0], in[1]); };
    std::uint64_t seed = 300;
    for (const auto& [sa, sb] : std::vector<std::pair<Shape, Shape>>{{{2, 3}, {3, 4}}, {{1, 5}, {5, 1}}, {{4, 1}, {1, 3}}}) {
        const Tensor a = random(sa, ++seed), b = random(sb, ++seed);
        const std::string what = "mm " + shape_str(sa) + " times " + shape_str(sb);
        check_close(mm(a, b), matmul_by_definition(a, b), f64, allowed_ulps(f64, sa[1]),
                    max_of(matmul_by_definition(abs_of(a), abs_of(b))));
        check_gradients(what, op_mm, {a, b});
        check_low_precision(what, op_mm, {a, b}, sa[1]);
    }
    for (const auto& [sa, sb] :
         std::vector<std::pair<Shape, Shape>>{{{3, 2, 4}, {3, 4, 5}}, {{1, 3, 3}, {1, 3, 2}}, {{2, 1, 3}, {2, 3, 1}}}) {
        const Tensor a = random(sa, ++seed), b = random(sb, ++seed);
        const std::string what = "bmm " + shape_str(sa) + " times " + shape_str(sb);
        check_close(bmm(a, b), matmul_by_definition(a, b), f64, allowed_ulps(f64, sa[2]),
                    max_of(matmul_by_definition(abs_of(a), abs_of(b))));
        check_gradients(what, op_bmm, {a, b});
        check_low_precision(what, op_bmm, {a, b}, sa[2]);
    }
}

TEST_CASE("addmm: beta * bias + alpha * a b, with a broadcast bias")
{
    std::uint64_t seed = 400;
    for (const Shape& bias_shape : std::vector<Shape>{{2, 4}, {4}, {1, 4}, {2, 1}, {}}) {
        const Tensor bias = random(bias_shape, ++seed), a = random({2, 3}, ++seed), b = random({3, 4}, ++seed);
        const std::string what = "addmm with bias " + shape_str(bias_shape);
        for (const auto& [beta, alpha] : std::vector<std::pair<double, double>>{{1.0, 1.0}, {0.5, -2.0}}) {
            INFO(what << " beta " << beta << " alpha " << alpha);
            const Tensor expected = add(mul(bias, beta), mul(matmul_by_definition(a, b), alpha));
            check_close(addmm(bias, a, b, beta, alpha), expected, f64, allowed_ulps(f64, 3),
                        max_of(add(abs_of(bias), matmul_by_definition(abs_of(a), abs_of(b)))) * 2);
            check_gradients(what, [beta, alpha](const std::vector<Tensor>& in) { return addmm(in[0], in[1], in[2], beta, alpha); },
                            {bias, a, b});
        }
        // Positive beta and alpha, so the op on |inputs| is the magnitude the rounding errors scale with.
        check_low_precision(
            what, [](const std::vector<Tensor>& in) { return addmm(in[0], in[1], in[2], 0.5, 2.0); }, {bias, a, b}, 3);
    }
}

TEST_CASE("addmm with beta 0 ignores the bias, NaNs included, as PyTorch does")
{
    const Tensor bias = full({2, 2}, std::numeric_limits<double>::quiet_NaN());
    const Tensor y = addmm(bias, tensor({1, 2, 3, 4}, {2, 2}), tensor({1, 0, 0, 1}, {2, 2}), 0.0, 2.0);
    CHECK(y.to_vector() == std::vector<double>{2, 4, 6, 8});
}

TEST_CASE("linear: x times weight transposed plus bias, for any leading dims")
{
    const Op op_linear = [](const std::vector<Tensor>& in) { return linear(in[0], in[1], in[2]); };
    std::uint64_t seed = 500;
    for (const Shape& x_shape : std::vector<Shape>{{5}, {3, 5}, {2, 3, 5}, {2, 1, 3, 5}}) {
        for (bool with_bias : {true, false}) {
            const Tensor x = random(x_shape, ++seed), weight = random({4, 5}, ++seed);
            const Tensor bias = with_bias ? random({4}, ++seed) : Tensor();
            const std::string what = "linear of x " + shape_str(x_shape) + (with_bias ? " with bias" : " without bias");
            INFO(what);
            Shape out_shape = x_shape;
            out_shape.back() = 4;
            const Tensor y = linear(x, weight, bias);
            CHECK(y.shape() == out_shape);
            const Tensor product = matmul_by_definition(x, weight.t());
            const Tensor magnitude = matmul_by_definition(abs_of(x), abs_of(weight.t()));
            check_close(y, with_bias ? add(product, bias) : product, f64, allowed_ulps(f64, 5),
                        max_of(with_bias ? add(magnitude, abs_of(bias)) : magnitude));
            check_gradients(what, op_linear, {x, weight, bias});
            check_low_precision(what, op_linear, {x, weight, bias}, 5);
        }
    }
}

TEST_CASE("each product is one node, and its backward runs in bf16 for bf16 inputs")
{
    check_backward_in_bf16("matmul", kMatmul, {random({4, 2, 3}, 1), random({3, 5}, 2)});
    check_backward_in_bf16("matmul", kMatmul, {random({3}, 3), random({2, 3, 4}, 4)});
    check_backward_in_bf16("mm", [](const std::vector<Tensor>& in) { return mm(in[0], in[1]); }, {random({2, 3}, 5), random({3, 4}, 6)});
    check_backward_in_bf16("bmm", [](const std::vector<Tensor>& in) { return bmm(in[0], in[1]); },
                           {random({2, 2, 3}, 7), random({2, 3, 4}, 8)});
    check_backward_in_bf16("addmm", [](const std::vector<Tensor>& in) { return addmm(in[0], in[1], in[2], 0.5, 2.0); },
                           {random({4}, 9), random({2, 3}, 10), random({3, 4}, 11)});
    const Op op_linear = [](const std::vector<Tensor>& in) { return linear(in[0], in[1], in[2]); };
    check_backward_in_bf16("linear", op_linear, {random({2, 3, 5}, 12), random({4, 5}, 13), random({4}, 14)});
    check_backward_in_bf16("linear", op_linear, {random({3, 5}, 15), random({4, 5}, 16), Tensor()});
}

TEST_CASE("matmul errors name both shapes and the sizes that clash")
{
    CHECK(error_message(
              [] {
                  matmul(ones({2, 3}), ones({4, 5}));
              },
              ErrorKind::shape) ==
          "matmul: shapes [2, 3] and [4, 5] cannot be multiplied (the 3 columns of the first must equal the 4 rows of the second)");
    CHECK(error_message([] { matmul(ones({3}), ones({4})); }, ErrorKind::shape) ==
          "matmul: shapes [3] and [4] cannot be multiplied (the 3 elements of the first must equal the 4 elements of the second)");
    CHECK(error_message(
              [] {
                  matmul(ones({2, 3, 4}), ones({5, 4, 6}));
              },
              ErrorKind::shape) ==
          "matmul: shapes [2, 3, 4] and [5, 4, 6] cannot be multiplied: their batch dimensions [2] and [5] do not broadcast (sizes must be "
          "equal, or one of them 1)");
    CHECK(error_message([] { matmul(scalar_tensor(2.0), ones({3})); }, ErrorKind::shape).find("at least 1 dimension") != std::string::npos);
    CHECK(error_message(
              [] {
                  mm(ones({3}), ones({3, 4}));
              },
              ErrorKind::shape)
              .find("mm: expects two 2-D matrices, but got shapes [3] and [3, 4]") == 0);
    CHECK(error_message(
              [] {
                  mm(ones({2, 3}), ones({2, 3}));
              },
              ErrorKind::shape)
              .find("mm: shapes [2, 3] and [2, 3] cannot be multiplied") == 0);
    CHECK(error_message(
              [] {
                  bmm(ones({2, 3, 4}), ones({3, 4, 5}));
              },
              ErrorKind::shape) ==
          "bmm: shapes [2, 3, 4] and [3, 4, 5] have different batch sizes 2 and 3 (bmm does not broadcast; matmul does)");
    CHECK(error_message([] { bmm(ones({3, 4}), ones({4, 5})); }, ErrorKind::shape).find("bmm: expects two 3-D stacks") == 0);
    CHECK(error_message(
              [] {
                  addmm(ones({3}), ones({2, 3}), ones({3, 4}));
              },
              ErrorKind::shape) ==
          "addmm: bias of shape [3] cannot be broadcast to the shape of the product [2, 4] (sizes must be equal, or 1)");
    CHECK(error_message(
              [] {
                  linear(ones({2, 3}), ones({4, 5}));
              },
              ErrorKind::shape) ==
          "linear: x of shape [2, 3] does not fit weight of shape [4, 5]: x's last dimension (3) must equal in_features (5, the weight's "
          "second dimension)");
    CHECK(error_message(
              [] {
                  linear(ones({2, 5}), ones({4, 5}), ones({5}));
              },
              ErrorKind::shape) ==
          "linear: bias of shape [5] does not fit weight of shape [4, 5]: it must have shape [4] (one per output feature)");
}

TEST_CASE("matrix products refuse mixed dtypes and integers")
{
    const std::string mixed = error_message([] { matmul(ones({2, 3}, f32), ones({3, 4}, bf16)); }, ErrorKind::dtype);
    CHECK(mixed ==
          "matmul: both operands must have the same dtype, but got f32 and bf16 (matmul does not promote dtypes, as in PyTorch); "
          "convert with .to(f32) or .to(bf16) so they match, or run the op under amp::autocast, which casts them to the dtype "
          "its policy picks");
    CHECK(error_message(
              [] {
                  linear(ones({2, 3}), ones({4, 3}), ones({4}, f16));
              },
              ErrorKind::dtype)
              .find("linear: x, weight and bias must have the same dtype, but got f32, f32 and f16") == 0);
    CHECK(error_message([] { mm(ones({2, 3}, f16), ones({3, 4}, bf16)); }, ErrorKind::dtype).find("got f16 and bf16") != std::string::npos);
    CHECK(error_message(
              [] {
                  addmm(ones({4}, f64), ones({2, 3}), ones({3, 4}));
              },
              ErrorKind::dtype)
              .find("got f64, f32 and f32") != std::string::npos);
    CHECK(error_message(
              [] {
                  matmul(ones({2, 3}, i64), ones({3, 4}, i64));
              },
              ErrorKind::dtype) ==
          "matmul is defined for floating point tensors (f64, f32, f16, bf16) only, but got i64; convert with .to(f32) first");
    CHECK(error_message(
              [] {
                  bmm(ones({1, 2, 3}, boolean), ones({1, 3, 4}, boolean));
              },
              ErrorKind::dtype)
              .find("got bool") != std::string::npos);
}
