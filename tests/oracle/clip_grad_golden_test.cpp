// clip_grad_norm_ against torch.nn.utils.clip_grad_norm_ (golden clip_grad_norm.json): the
// total norm and the gradients after clipping, for max_norm below, at and above the norm, for
// inf and NaN gradients with and without error_if_nonfinite, in f32 and f64.
#include <doctest/doctest.h>

#include "tests/oracle/golden.h"

using namespace tinyamp;
using namespace tinyamp::oracle;

TEST_CASE("clip_grad_norm_ has PyTorch's defaults: norm_type 2, error_if_nonfinite false (golden)")
{
    const Json d = load_golden("clip_grad_norm")["defaults"];
    CHECK(number(d["norm_type"]) == 2.0);  // tinyamp's only norm
    CHECK_FALSE(d["error_if_nonfinite"].get<bool>());
    // tinyamp's default must be the same: a NaN gradient clips without an error.
    const Tensor p = zeros({1}).requires_grad_();
    p.set_grad(tensor({std::nan("")}, {1}));
    CHECK(std::isnan(optim::clip_grad_norm_({p}, 1.0)));
}

TEST_CASE("clip_grad_norm_ returns PyTorch's total norm and leaves PyTorch's gradients (golden)")
{
    const Json golden = load_golden("clip_grad_norm");
    int compared = 0;
    for (const Json& c : golden["cases"]) {
        const std::string name = c["case"];
        CAPTURE(name);
        const DType dtype = dtype_of(c["dtype"]);
        std::vector<Tensor> params;
        for (const Json& g : c["grads_before"]) {
            params.push_back(zeros({g.is_null() ? 2 : std::int64_t(g.size())}, dtype).requires_grad_());
            if (!g.is_null()) params.back().set_grad(tensor(numbers(g), {std::int64_t(g.size())}, dtype));
        }
        double norm = 0;
        bool threw = false;
        try {
            norm = optim::clip_grad_norm_(params, number(c["max_norm"]), c["error_if_nonfinite"].get<bool>());
        } catch (const Error& e) {
            threw = true;
            CHECK(e.kind() == ErrorKind::value);
        }
        CHECK_MESSAGE(threw == c["error"].get<bool>(), name, ": tinyamp ", std::string(threw ? "threw" : "did not throw"));
        ++compared;
        if (threw || c["error"].get<bool>()) continue;
        // PyTorch computes the norm in the gradients' dtype (per-tensor norms, then their norm) and
        // the clip factor from it; tinyamp sums in f64 and rounds the factor once into the
        // gradient's dtype. Either way the results are within 2 ulps of the gradients' dtype.
        CHECK_MESSAGE(close(norm, number(c["total_norm"]), dtype, 2), name, ": total norm ", hex(norm), ", PyTorch ",
                      c["total_norm"].get<std::string>());
        for (std::size_t i = 0; i < params.size(); ++i) {
            const Json& want = c["grads_after"][i];
            CHECK_MESSAGE(params[i].grad().defined() == !want.is_null(), name, " param ", i);
            if (want.is_null()) continue;
            const std::vector<double> got = params[i].grad().to_vector(), expected = numbers(want);
            for (std::size_t e = 0; e < got.size(); ++e)
                CHECK_MESSAGE(close(got[e], expected[e], dtype, 2), name, " param ", i, " element ", e, ": tinyamp ", hex(got[e]),
                              ", PyTorch ", hex(expected[e]));
        }
    }
    MESSAGE(compared, " clip_grad_norm_ cases compared");
}
