// Type promotion against PyTorch (golden type_promotion.json): the result dtype of binary ops,
// autocast off, for every pair of tinyamp's dtypes, as tensor-tensor, tensor-0-D, 0-D-tensor and
// 0-D-0-D pairs and with a Python int or float on either side. Compared exactly; where PyTorch
// raises, tinyamp must throw.
#include <doctest/doctest.h>

#include <functional>
#include <map>

#include "tests/oracle/golden.h"

using namespace tinyamp;
using namespace tinyamp::oracle;

namespace {

using TensorOp = std::function<Tensor(const Tensor&, const Tensor&)>;

// The oracle's OPS (tools/oracle/scenarios/type_promotion.py). result_type answers a dtype, so it
// is run as an empty tensor of that dtype.
const std::map<std::string, TensorOp>& tensor_ops()
{
    static const std::map<std::string, TensorOp> table = {
        {"result_type", [](const Tensor& a, const Tensor& b) { return empty({0}, result_type(a, b)); }},
        {"add", [](const Tensor& a, const Tensor& b) { return add(a, b); }},
        {"sub", [](const Tensor& a, const Tensor& b) { return sub(a, b); }},
        {"mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); }},
        {"div", [](const Tensor& a, const Tensor& b) { return div(a, b); }},
        {"pow", [](const Tensor& a, const Tensor& b) { return pow(a, b); }},
        {"eq", [](const Tensor& a, const Tensor& b) { return eq(a, b); }},
        {"lt", [](const Tensor& a, const Tensor& b) { return lt(a, b); }},
        {"where", [](const Tensor& a, const Tensor& b) { return where(scalar_tensor(1, boolean), a, b); }},
    };
    return table;
}

// With a Python number: tinyamp's double overloads. Ops without the overload for that side
// (add, mul and the comparisons take the number second only; PyTorch's `2 + t` is t + 2 there)
// are called with the operands swapped, which gives the same dtype.
Tensor with_number(const std::string& op, const Tensor& t, double number, bool number_first)
{
    if (op == "result_type") return empty({0}, result_type(t, scalar_like(number, t)));
    if (op == "sub") return number_first ? sub(number, t) : sub(t, number);
    if (op == "div") return number_first ? div(number, t) : div(t, number);
    if (op == "add") return add(t, number);
    if (op == "mul") return mul(t, number);
    if (op == "pow") return number_first ? pow(scalar_like(number, t), t) : pow(t, number);
    if (op == "eq") return eq(t, number);
    if (op == "lt") return number_first ? gt(t, number) : lt(t, number);
    FAIL("the golden has op ", op, " with a number, which the test does not know");
    return {};
}

Tensor operand(const std::string& dtype, bool zero_d)
{
    const DType d = parse_dtype(dtype);
    return zero_d ? scalar_tensor(1, d) : tensor({1, 2}, {2}, d);
}

std::string run(const Json& c)
{
    const std::string op = c["op"], kind = c["kind"], a = c["a"];
    try {
        if (kind == "tensor_int" || kind == "tensor_float" || kind == "int_tensor" || kind == "float_tensor")
            return dtype_name(with_number(op, operand(a, false), number(c["b"]), kind.ends_with("_tensor")).dtype());
        const Tensor x = operand(a, kind.starts_with("0d")), y = operand(c["b"], kind.ends_with("0d"));
        return dtype_name(tensor_ops().at(op)(x, y).dtype());
    } catch (const Error&) {
        return "error";
    }
}

// Where tinyamp differs on purpose (docs/differences_from_pytorch.md, "Checked against PyTorch
// running"): an op with operands of these dtypes, whatever their kinds, and what tinyamp gives.
struct KnownDifference {
    const char* name;
    const char* op;
    bool (*operands)(const std::string& a, const std::string& b);
    const char* tinyamp_gives;
};

bool two_bools(const std::string& a, const std::string& b) { return a == "bool" && b == "bool"; }
bool two_integers(const std::string& a, const std::string& b)
{
    const auto integer = [](const std::string& d) { return d == "i64" || d == "bool" || d == "2"; };  // "2": a Python int
    return integer(a) && integer(b) && !two_bools(a, b);  // pow of two bools is an error in both
}

const std::vector<KnownDifference>& known_differences()
{
    static const std::vector<KnownDifference> table = {
        // tinyamp has no bool arithmetic: PyTorch's add (logical or), mul (and) and div (to f32)
        // of two bool tensors are refused, with a message that says to convert first. (where of
        // two bool tensors gives bool, as in PyTorch.)
        {"add of two bool tensors", "add", two_bools, "error"},
        {"mul of two bool tensors", "mul", two_bools, "error"},
        {"div of two bool tensors", "div", two_bools, "error"},
        // pow computes in floats: integer operands give f32 where PyTorch gives i64.
        {"pow of integers", "pow", two_integers, "f32"},
    };
    return table;
}

}  // namespace

TEST_CASE("binary ops promote dtypes as PyTorch does, for every pair of dtypes and operand kinds (golden)")
{
    const Json golden = load_golden("type_promotion");
    std::map<std::string, int> differing;
    int compared = 0;
    for (const Json& c : golden["cases"]) {
        const std::string op = c["op"], a = c["a"], b = c["b"];
        const std::string name = op + " " + c["kind"].get<std::string>() + " " + a + " " + b;
        const std::string torch = c["error"].get<bool>() ? "error" : c["out"].get<std::string>();
        const KnownDifference* known = nullptr;
        for (const KnownDifference& k : known_differences())
            if (op == k.op && k.operands(a, b)) known = &k;
        const std::string expected = known ? known->tinyamp_gives : torch;
        const std::string got = run(c);
        const std::string note = known ? std::string(" (documented difference: ") + known->name + ")" : "";
        CHECK_MESSAGE(got == expected, name, ": tinyamp gives ", got, ", expected ", expected, "; PyTorch ", torch, note);
        if (known && expected != torch) ++differing[known->name];
        ++compared;
    }
    for (const KnownDifference& k : known_differences()) CHECK_MESSAGE(differing[k.name] > 0, "no case shows: ", k.name);
    MESSAGE(compared, " type promotion cases compared");
}
