// The losses against PyTorch (golden losses.json): mse_loss, nll_loss, cross_entropy,
// binary_cross_entropy and binary_cross_entropy_with_logits, f32 and f64, every reduction, with
// ignore_index and pos_weight cases: the value, its dtype and shape, and every gradient.
#include <doctest/doctest.h>

#include <algorithm>

#include "tests/oracle/golden.h"

using namespace tinyamp;
using namespace tinyamp::oracle;

namespace {

Reduction reduction_of(const std::string& name)
{
    for (Reduction r : {Reduction::none, Reduction::mean, Reduction::sum})
        if (name == reduction_name(r)) return r;
    FAIL("unknown reduction ", name);
    return Reduction::mean;
}

Tensor call(const std::string& op, const std::map<std::string, Tensor>& in, Reduction r, std::int64_t ignore_index)
{
    const auto arg = [&](const char* name) { return in.count(name) ? in.at(name) : Tensor(); };
    if (op == "mse_loss") return mse_loss(arg("input"), arg("target"), r);
    if (op == "nll_loss") return nll_loss(arg("input"), arg("target"), r, ignore_index);
    if (op == "cross_entropy") return cross_entropy(arg("input"), arg("target"), r, ignore_index);
    if (op == "binary_cross_entropy") return binary_cross_entropy(arg("input"), arg("target"), r);
    if (op == "binary_cross_entropy_with_logits") return binary_cross_entropy_with_logits(arg("input"), arg("target"), r, arg("pos_weight"));
    FAIL("the golden has loss ", op, " which the test does not know");
    return {};
}

// Both sides compute in the inputs' dtype, but with different libm calls (exp, log, log1p) and
// summation orders, so the last bit may differ: each value is allowed the default 2 ulps of
// tests/support/tolerance.h (one for the result's rounding, one for the arithmetic inside),
// relative to the largest value of its tensor, so that a term cancelling to near 0 is judged on
// its neighbours' scale. With PyTorch 2.15 every value is within 1 such ulp.
void check_values(const std::string& what, const std::vector<double>& got, const Json& expected, DType dtype)
{
    const std::vector<double> want = numbers(expected);
    REQUIRE_MESSAGE(got.size() == want.size(), what, ": ", got.size(), " values, PyTorch has ", want.size());
    double scale = 0;
    for (double v : want)
        if (std::isfinite(v)) scale = std::max(scale, std::abs(v));
    for (std::size_t i = 0; i < got.size(); ++i)
        CHECK_MESSAGE(close(got[i], want[i], dtype, 2, scale), what, " element ", i, ": tinyamp ", hex(got[i]),
                      ", PyTorch ", hex(want[i]));
}

}  // namespace

TEST_CASE("the losses' values and gradients match PyTorch's for every reduction (golden)")
{
    const Json golden = load_golden("losses");
    CHECK(golden["defaults"]["reduction"] == reduction_name(Reduction::mean));
    int compared = 0;
    for (const Json& c : golden["cases"]) {
        const std::string name = c["case"].get<std::string>() + " " + c["dtype"].get<std::string>() + " " + c["reduction"].get<std::string>();
        CAPTURE(name);
        const DType dtype = dtype_of(c["dtype"]);
        std::map<std::string, Tensor> in;
        for (const auto& [arg, spec] : c["inputs"].items()) {
            in[arg] = tensor_of(spec);
            if (c["grads"].contains(arg)) in[arg].requires_grad_();
        }
        const std::int64_t ignore_index = c["options"].value("ignore_index", std::int64_t{-100});
        const Tensor out = call(c["op"], in, reduction_of(c["reduction"]), ignore_index);
        CHECK_MESSAGE(dtype_name(out.dtype()) == c["out_dtype"].get<std::string>(), name, ": result dtype");
        CHECK_MESSAGE(out.shape() == shape_of(c["out_shape"]), name, ": result shape ", shape_str(out.shape()));
        check_values(name + " value", out.to_vector(), c["value"], dtype);
        out.backward(c["grad_output"].is_null() ? Tensor() : tensor_of(c["grad_output"]));
        for (const auto& [arg, grad] : c["grads"].items()) {
            REQUIRE_MESSAGE(in[arg].grad().defined(), name, ": no gradient for ", arg);
            check_values(name + " d/d" + arg, in[arg].grad().to_vector(), grad, dtype);
        }
        ++compared;
    }
    MESSAGE(compared, " loss cases compared (value, dtype, shape, gradients)");
}
