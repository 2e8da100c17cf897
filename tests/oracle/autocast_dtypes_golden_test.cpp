// Autocast output dtypes against PyTorch (golden autocast_dtypes.json): every op of the
// dispatcher, in CPU autocast regions of bf16 and f16 and with autocast off, for uniform and mixed
// input dtypes. Dtypes are compared exactly, and where PyTorch raises, tinyamp must throw.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "tests/oracle/golden.h"

using namespace tinyamp;
using namespace tinyamp::oracle;

namespace {

using Args = std::vector<Tensor>;
using Call = std::function<Tensor(const Args&)>;

// The C++ side of the oracle's CASES table (tools/oracle/scenarios/autocast_dtypes.py): the same
// call, with the same fixed arguments, for each case name.
const std::map<std::string, Call>& calls()
{
    static const std::map<std::string, Call> table = {
        {"matmul", [](const Args& a) { return matmul(a[0], a[1]); }},
        {"mm", [](const Args& a) { return mm(a[0], a[1]); }},
        {"bmm", [](const Args& a) { return bmm(a[0], a[1]); }},
        {"addmm", [](const Args& a) { return addmm(a[0], a[1], a[2]); }},
        {"linear", [](const Args& a) { return linear(a[0], a[1], a[2]); }},
        {"conv2d", [](const Args& a) { return conv2d(a[0], a[1], a[2]); }},
        {"add", [](const Args& a) { return add(a[0], a[1]); }},
        {"sub", [](const Args& a) { return sub(a[0], a[1]); }},
        {"mul", [](const Args& a) { return mul(a[0], a[1]); }},
        {"div", [](const Args& a) { return div(a[0], a[1]); }},
        {"neg", [](const Args& a) { return neg(a[0]); }},
        {"pow_scalar", [](const Args& a) { return pow(a[0], 2.0); }},
        {"pow_tensor", [](const Args& a) { return pow(a[0], a[1]); }},
        {"exp", [](const Args& a) { return exp(a[0]); }},
        {"log", [](const Args& a) { return log(a[0]); }},
        {"sqrt", [](const Args& a) { return sqrt(a[0]); }},
        {"tanh", [](const Args& a) { return tanh(a[0]); }},
        {"sigmoid", [](const Args& a) { return sigmoid(a[0]); }},
        {"erf", [](const Args& a) { return erf(a[0]); }},
        {"relu", [](const Args& a) { return relu(a[0]); }},
        {"gelu", [](const Args& a) { return gelu(a[0]); }},
        {"where", [](const Args& a) { return where(a[0], a[1], a[2]); }},
        {"eq", [](const Args& a) { return eq(a[0], a[1]); }},
        {"ne", [](const Args& a) { return ne(a[0], a[1]); }},
        {"lt", [](const Args& a) { return lt(a[0], a[1]); }},
        {"le", [](const Args& a) { return le(a[0], a[1]); }},
        {"gt", [](const Args& a) { return gt(a[0], a[1]); }},
        {"ge", [](const Args& a) { return ge(a[0], a[1]); }},
        {"cat", [](const Args& a) { return cat({a[0], a[1]}, 0); }},
        {"stack", [](const Args& a) { return stack({a[0], a[1]}, 0); }},
        {"sum", [](const Args& a) { return sum(a[0]); }},
        {"sum_dim", [](const Args& a) { return sum(a[0], std::vector<std::int64_t>{1}); }},
        {"mean", [](const Args& a) { return mean(a[0]); }},
        {"max", [](const Args& a) { return max(a[0]); }},
        {"max_dim", [](const Args& a) { return max(a[0], 1).values; }},
        {"argmax", [](const Args& a) { return argmax(a[0], 1); }},
        {"softmax", [](const Args& a) { return softmax(a[0], 1); }},
        {"log_softmax", [](const Args& a) { return log_softmax(a[0], 1); }},
        {"layer_norm", [](const Args& a) { return layer_norm(a[0], {3}, a[1], a[2]); }},
        {"batch_norm", [](const Args& a) { return batch_norm(a[0], Tensor(), Tensor(), a[1], a[2], true); }},
        {"mse_loss", [](const Args& a) { return mse_loss(a[0], a[1]); }},
        {"nll_loss", [](const Args& a) { return nll_loss(a[0], a[1]); }},
        {"cross_entropy", [](const Args& a) { return cross_entropy(a[0], a[1]); }},
        {"binary_cross_entropy", [](const Args& a) { return binary_cross_entropy(a[0], a[1]); }},
        {"binary_cross_entropy_with_logits",
         [](const Args& a) { return binary_cross_entropy_with_logits(a[0], a[1], Reduction::mean, a[2]); }},
        {"view", [](const Args& a) { return a[0].view({3, 2}); }},
        {"reshape", [](const Args& a) { return a[0].reshape({6}); }},
        {"transpose", [](const Args& a) { return a[0].transpose(0, 1); }},
        {"permute", [](const Args& a) { return a[0].permute({1, 0}); }},
        {"slice", [](const Args& a) { return a[0].slice(1, 1, 3); }},
        {"select", [](const Args& a) { return a[0].select(0, 1); }},
        {"unsqueeze", [](const Args& a) { return a[0].unsqueeze(0); }},
        {"squeeze", [](const Args& a) { return a[0].unsqueeze(0).squeeze(0); }},
        {"expand", [](const Args& a) { return a[0].slice(0, 0, 1).expand({4, 3}); }},
        {"clone", [](const Args& a) { return a[0].clone(); }},
    };
    return table;
}

// Where tinyamp differs from PyTorch 2.15 on purpose (docs/differences_from_pytorch.md, "Checked
// against PyTorch running"). Each applies to one op with inputs of several float dtypes and says
// what tinyamp gives there; for uniform inputs the two agree, and every other case must match.
struct KnownDifference {
    const char* name;
    const char* op;
    std::string (*tinyamp_gives)(const std::vector<std::string>& inputs);
};

bool any_f64(const std::vector<std::string>& inputs) { return std::find(inputs.begin(), inputs.end(), "f64") != inputs.end(); }

const std::vector<KnownDifference>& known_differences()
{
    // PyTorch refuses weight and bias of a dtype other than the input's (bar an f32 pair with a
    // bf16/f16 input); tinyamp accepts any float pair and keeps the input's dtype.
    static const auto input_dtype = [](const std::vector<std::string>& in) { return in[0]; };
    // PyTorch refuses probabilities and targets of two dtypes; tinyamp promotes them (f32 for
    // mixed f32/f16/bf16, which CPU autocast's fp32 policy gives anyway).
    static const auto promoted = [](const std::vector<std::string>& in) { return std::string(any_f64(in) ? "f64" : "f32"); };
    static const std::vector<KnownDifference> table = {
        {"layer_norm: weight and bias of another float dtype", "layer_norm", input_dtype},
        {"batch_norm: weight and bias of another float dtype", "batch_norm", input_dtype},
        {"binary_cross_entropy: input and target of two float dtypes", "binary_cross_entropy", promoted},
        // PyTorch's composite ends in in-place ops on a target-shaped temporary, so its result
        // has the target's dtype (an f64 input with f32 targets gives f32); tinyamp promotes.
        {"binary_cross_entropy_with_logits: the result's dtype with mixed inputs", "binary_cross_entropy_with_logits", promoted},
    };
    return table;
}

const KnownDifference* known_difference(const Json& c)
{
    const std::vector<std::string> inputs = c["inputs"];
    if (std::all_of(inputs.begin(), inputs.end(), [&](const std::string& d) { return d == inputs[0]; })) return nullptr;
    for (const KnownDifference& k : known_differences())
        if (c["op"] == k.op) return &k;
    return nullptr;
}

std::string describe(const Json& c)
{
    std::ostringstream out;
    out << c["case"].get<std::string>() << ' ' << c["region"].get<std::string>();
    for (const Json& d : c["inputs"]) out << ' ' << d.get<std::string>();
    return out.str();
}

// The output dtype tinyamp gives, or "error" when it throws.
std::string run(const Json& c, const Json& specs)
{
    Args args;
    std::size_t next_float = 0;
    for (const Json& spec : specs) {
        const std::string role = spec["role"];
        const DType dtype = role == "float" ? dtype_of(c["inputs"][next_float++]) : parse_dtype(role);
        args.push_back(tensor(numbers(spec["values"]), shape_of(spec["shape"]), dtype));
    }
    const std::string region = c["region"];
    try {
        std::optional<amp::autocast> guard;
        if (region == "off")
            guard.emplace("cpu", amp::AutocastOptions{.enabled = false});
        else
            guard.emplace("cpu", amp::AutocastOptions{.dtype = parse_dtype(region)});
        return dtype_name(calls().at(c["case"])(args).dtype());
    } catch (const Error&) {
        return "error";
    }
}

}  // namespace

TEST_CASE("autocast output dtypes match PyTorch's for every op, region and input dtypes (golden)")
{
    const Json golden = load_golden("autocast_dtypes");
    std::set<std::string> cases_seen;
    std::map<std::string, int> differing;  // per known difference, the cases where it shows
    int compared = 0;
    for (const Json& c : golden["cases"]) {
        const std::string name = describe(c);
        REQUIRE_MESSAGE(calls().count(c["case"]), "the golden has case ", c["case"].get<std::string>(), " the test does not know");
        cases_seen.insert(c["case"]);
        const std::string torch = c["error"].get<bool>() ? "error" : c["out"].get<std::string>();
        const KnownDifference* known = known_difference(c);
        const std::string expected = known ? known->tinyamp_gives(c["inputs"]) : torch;
        const std::string got = run(c, golden["inputs"][c["case"].get<std::string>()]);
        const std::string note = known ? std::string(" (documented difference: ") + known->name + ")" : "";
        CHECK_MESSAGE(got == expected, name, ": tinyamp gives ", got, ", expected ", expected, "; PyTorch ", torch, note);
        if (known && expected != torch) ++differing[known->name];
        ++compared;
    }
    CHECK(cases_seen.size() == calls().size());  // every op of the table was compared
    // A listed difference that no case shows any more is stale: drop it and its docs.
    for (const KnownDifference& k : known_differences()) CHECK_MESSAGE(differing[k.name] > 0, "no case shows: ", k.name);
    MESSAGE(compared, " autocast dtype cases compared");
}
