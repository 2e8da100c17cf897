#include "tinyamp/engine/gradcheck.h"

#include <cmath>
#include <sstream>

#include "tinyamp/tensor/factories.h"
#include "tinyamp/support/grad_mode.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/ops/reduce.h"

namespace tinyamp {
namespace {

// sum(fn(x) * v) without recording a graph.
double projected(const std::function<Tensor(const std::vector<Tensor>&)>& fn, const std::vector<Tensor>& inputs, const Tensor& v)
{
    NoGradGuard no_grad;
    return sum(mul(fn(inputs), v)).item();
}

}  // namespace

GradcheckResult gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& fn, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options)
{
    for (std::size_t k = 0; k < inputs.size(); ++k)
        TINYAMP_CHECK(!inputs[k].defined() || !inputs[k].requires_grad() || inputs[k].dtype() == DType::f64, dtype, "gradcheck: input ", k,
                      " is ", dtype_name(inputs[k].dtype()), "; finite differences are only meaningful in f64, so make inputs with dtype f64");

    // Analytical: fresh leaves (so earlier .grad values do not add in), one backward along v.
    std::vector<Tensor> leaves;
    for (const Tensor& x : inputs) {
        if (!x.defined() || !x.requires_grad()) {
            leaves.push_back(x);
            continue;
        }
        leaves.push_back(layout::clone(x).requires_grad_());
    }
    const Tensor out = fn(leaves);
    TINYAMP_CHECK(is_floating_point(out.dtype()), dtype, "gradcheck: the function returned a ", dtype_name(out.dtype()), " tensor, which has no gradient");
    Generator generator(options.seed);
    const Tensor v = randn(out.shape(), out.dtype(), generator);
    if (out.requires_grad()) out.backward(v);

    std::ostringstream report;
    report.precision(10);
    bool ok = true;
    int shown = 0;
    std::size_t compared = 0;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        if (!inputs[k].defined() || !inputs[k].requires_grad()) continue;
        const Tensor analytical = leaves[k].grad().defined() ? leaves[k].grad() : zeros_like(leaves[k]);
        // Numerical: perturb one element of a private copy at a time.
        std::vector<Tensor> probe;
        for (const Tensor& x : inputs) probe.push_back(x.defined() ? layout::clone(x) : x);
        const Tensor& xk = probe[k];
        std::vector<std::int64_t> index(std::size_t(xk.dim()), 0);
        for (std::int64_t flat = 0; flat < xk.numel(); ++flat) {
            std::int64_t rest = flat;
            for (std::size_t d = index.size(); d-- > 0;) {
                index[d] = rest % xk.shape()[d];
                rest /= xk.shape()[d];
            }
            const double original = xk.at(index);
            xk.set(index, original + options.eps);
            const double plus = projected(fn, probe, v);
            xk.set(index, original - options.eps);
            const double minus = projected(fn, probe, v);
            xk.set(index, original);
            const double numerical = (plus - minus) / (2 * options.eps);
            const double got = analytical.at(index);
            ++compared;
            if (!(std::abs(got - numerical) <= options.atol + options.rtol * std::abs(numerical))) {
                ok = false;
                if (shown++ < 5)
                    report << "input " << k << " element " << shape_str(index) << ": backward gives " << got << ", finite differences give "
                           << numerical << '\n';
            }
        }
    }
    report << (ok ? "gradients match" : "gradients differ") << " (" << compared << " elements compared, eps " << options.eps << ", atol "
           << options.atol << ", rtol " << options.rtol << ")";
    return {ok, report.str()};
}

}  // namespace tinyamp
