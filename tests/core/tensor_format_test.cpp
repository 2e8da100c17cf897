#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

TEST_CASE("to_string: a 0-D tensor prints its value alone")
{
    CHECK(scalar_tensor(2.5).to_string() == "tensor(2.5, dtype=f32, shape=[])");
    CHECK(scalar_tensor(-7, i64).to_string() == "tensor(-7, dtype=i64, shape=[])");
    CHECK(scalar_tensor(0, boolean).to_string() == "tensor(false, dtype=bool, shape=[])");
}

TEST_CASE("to_string: 1-D values are right-aligned to the widest one")
{
    CHECK(tensor({1.0, 2.5}, f16).to_string() == "tensor([  1, 2.5], dtype=f16, shape=[2])");
    CHECK(tensor({1.0, 2.0, 3.0}).to_string() == "tensor([1, 2, 3], dtype=f32, shape=[3])");
    CHECK(tensor({-1.5, 100.0, 0.25}, f64).to_string() == "tensor([-1.5,  100, 0.25], dtype=f64, shape=[3])");
    CHECK(arange(4).to_string() == "tensor([0, 1, 2, 3], dtype=i64, shape=[4])");
    CHECK(tensor({-12.0, 3.0}, i64).to_string() == "tensor([-12,   3], dtype=i64, shape=[2])");
    CHECK(tensor({1.0, 0.0, 1.0}, boolean).to_string() == "tensor([ true, false,  true], dtype=bool, shape=[3])");
    CHECK(tensor({std::nan(""), kInf, -kInf, 1.0}).to_string() == "tensor([ nan,  inf, -inf,    1], dtype=f32, shape=[4])");
    CHECK(tensor({-0.0, 0.0}).to_string() == "tensor([-0,  0], dtype=f32, shape=[2])");
}

TEST_CASE("to_string: 2-D rows go on separate lines, columns aligned under the first bracket")
{
    const Tensor t = tensor({1, -2.5, 3, 10, 0.5, 6}, {2, 3});
    CHECK(t.to_string() ==
          "tensor([[   1, -2.5,    3],\n"
          "        [  10,  0.5,    6]], dtype=f32, shape=[2, 3])");
    CHECK(arange(6).view({3, 2}).to_string() ==
          "tensor([[0, 1],\n"
          "        [2, 3],\n"
          "        [4, 5]], dtype=i64, shape=[3, 2])");
    CHECK(zeros({1, 1}, bf16).to_string() == "tensor([[0]], dtype=bf16, shape=[1, 1])");
}

TEST_CASE("to_string: 3-D blocks are separated by a blank line")
{
    CHECK(arange(8).view({2, 2, 2}).to_string() ==
          "tensor([[[0, 1],\n"
          "         [2, 3]],\n"
          "\n"
          "        [[4, 5],\n"
          "         [6, 7]]], dtype=i64, shape=[2, 2, 2])");
    CHECK(arange(0, 12, 1, f16).view({3, 1, 2, 2}).select(0, 1).to_string() ==
          "tensor([[[4, 5],\n"
          "         [6, 7]]], dtype=f16, shape=[1, 2, 2])");
}

TEST_CASE("to_string: views print their own elements")
{
    const Tensor m = arange(6).view({2, 3});
    CHECK(m.t().to_string() ==
          "tensor([[0, 3],\n"
          "        [1, 4],\n"
          "        [2, 5]], dtype=i64, shape=[3, 2])");
    CHECK(m.select(0, 1).to_string() == "tensor([3, 4, 5], dtype=i64, shape=[3])");
    CHECK(m.slice(1, 0, 3, 2).to_string() ==
          "tensor([[0, 2],\n"
          "        [3, 5]], dtype=i64, shape=[2, 2])");
    CHECK(tensor({1.0, 2.0}).expand({2, 2}).to_string() ==
          "tensor([[1, 2],\n"
          "        [1, 2]], dtype=f32, shape=[2, 2])");
}

TEST_CASE("to_string: empty tensors")
{
    CHECK(zeros({0}).to_string() == "tensor([], dtype=f32, shape=[0])");
    CHECK(zeros({2, 0}, i64).to_string() ==
          "tensor([[],\n"
          "        []], dtype=i64, shape=[2, 0])");
    CHECK(zeros({0, 3}).to_string() == "tensor([], dtype=f32, shape=[0, 3])");
}

TEST_CASE("to_string: each value in the fewest digits that read back to it in the tensor's dtype")
{
    // 1.0001 is an f32 value apart from 1, but rounds to 1 in f16.
    CHECK(tensor({1.0001}).to_string() == "tensor([1.0001], dtype=f32, shape=[1])");
    CHECK(tensor({1.0001}, f16).to_string() == "tensor([1], dtype=f16, shape=[1])");
    // 1/3 in each dtype: more digits where the dtype keeps more bits.
    CHECK(tensor({1.0 / 3.0}, f64).to_string() == "tensor([0.3333333333333333], dtype=f64, shape=[1])");
    CHECK(tensor({1.0 / 3.0}, f32).to_string() == "tensor([0.33333334], dtype=f32, shape=[1])");
    CHECK(tensor({1.0 / 3.0}, f16).to_string() == "tensor([0.3333], dtype=f16, shape=[1])");   // 0.333251953125
    CHECK(tensor({1.0 / 3.0}, bf16).to_string() == "tensor([0.334], dtype=bf16, shape=[1])");  // 0.333984375
    // 0.1 is stored inexactly in every dtype, but "0.1" reads back to the stored value in each.
    CHECK(tensor({0.1}, f64).to_string() == "tensor([0.1], dtype=f64, shape=[1])");
    CHECK(tensor({0.1}, f16).to_string() == "tensor([0.1], dtype=f16, shape=[1])");
    CHECK(tensor({0.1}, bf16).to_string() == "tensor([0.1], dtype=bf16, shape=[1])");
    // Whole numbers are written out exactly, not in exponent form.
    CHECK(tensor({65504.0}, f16).to_string() == "tensor([65504], dtype=f16, shape=[1])");
    CHECK(tensor({16777216.0, 0.5}).to_string() == "tensor([16777216,      0.5], dtype=f32, shape=[2])");
    // Beyond 2^53 and very small values use the shortest %g form.
    CHECK(tensor({1e20}).to_string() == "tensor([1e+20], dtype=f32, shape=[1])");
    CHECK(tensor({1e-8}, bf16).to_string() == "tensor([1e-08], dtype=bf16, shape=[1])");
    CHECK(tensor({65520.0}, f16).to_string() == "tensor([inf], dtype=f16, shape=[1])");
}

TEST_CASE("to_string: i64 values are exact, even beyond 2^53")
{
    const Tensor t = zeros({2}, i64);
    t.data_ptr<std::int64_t>()[0] = 9007199254740993;  // 2^53 + 1: no double holds it
    t.data_ptr<std::int64_t>()[1] = std::numeric_limits<std::int64_t>::min();
    CHECK(t.to_string() == "tensor([    9007199254740993, -9223372036854775808], dtype=i64, shape=[2])");
}

TEST_CASE("to_string: requires_grad and name are shown when set")
{
    const Tensor t = tensor({1.0, 2.0});
    t.requires_grad_();
    CHECK(t.to_string() == "tensor([1, 2], dtype=f32, shape=[2], requires_grad=true)");
    t.set_name("w1");
    CHECK(t.to_string() == "tensor([1, 2], dtype=f32, shape=[2], requires_grad=true, name='w1')");
    t.requires_grad_(false);
    CHECK(t.to_string() == "tensor([1, 2], dtype=f32, shape=[2], name='w1')");
}

TEST_CASE("operator<< writes to_string, and an undefined tensor prints as such")
{
    std::ostringstream out;
    out << arange(3) << '|' << Tensor();
    CHECK(out.str() == "tensor([0, 1, 2], dtype=i64, shape=[3])|tensor(undefined)");
    CHECK(Tensor().to_string() == "tensor(undefined)");
}

TEST_CASE("to_string: above 1000 elements only the first and last 3 of each dimension are shown")
{
    CHECK(arange(1001).to_string() == "tensor([   0,    1,    2, ...,  998,  999, 1000], dtype=i64, shape=[1001])");

    // 1000 elements is not yet "large": all of them print.
    const std::string all = arange(1000).to_string();
    CHECK(all.find("...") == std::string::npos);
    CHECK(all.rfind("tensor([  0,   1,   2,   3,", 0) == 0);
    CHECK(all.find(" 500, 501,") != std::string::npos);
    CHECK(all.size() == std::string("tensor([], dtype=i64, shape=[1000])").size() + 1000 * 3 + 999 * 2);

    CHECK(arange(0.0, 2000.0, 1.0).view({20, 100}).to_string() ==
          "tensor([[   0,    1,    2, ...,   97,   98,   99],\n"
          "        [ 100,  101,  102, ...,  197,  198,  199],\n"
          "        [ 200,  201,  202, ...,  297,  298,  299],\n"
          "        ...,\n"
          "        [1700, 1701, 1702, ..., 1797, 1798, 1799],\n"
          "        [1800, 1801, 1802, ..., 1897, 1898, 1899],\n"
          "        [1900, 1901, 1902, ..., 1997, 1998, 1999]], dtype=f32, shape=[20, 100])");

    // A transposed view: shown rows and columns are picked in the view's own order.
    CHECK(arange(2000).view({20, 100}).t().to_string() ==
          "tensor([[   0,  100,  200, ..., 1700, 1800, 1900],\n"
          "        [   1,  101,  201, ..., 1701, 1801, 1901],\n"
          "        [   2,  102,  202, ..., 1702, 1802, 1902],\n"
          "        ...,\n"
          "        [  97,  197,  297, ..., 1797, 1897, 1997],\n"
          "        [  98,  198,  298, ..., 1798, 1898, 1998],\n"
          "        [  99,  199,  299, ..., 1799, 1899, 1999]], dtype=i64, shape=[100, 20])");

    // Dimensions of up to 6 items are shown whole.
    CHECK(zeros({2, 3, 200}).to_string() ==
          "tensor([[[0, 0, 0, ..., 0, 0, 0],\n"
          "         [0, 0, 0, ..., 0, 0, 0],\n"
          "         [0, 0, 0, ..., 0, 0, 0]],\n"
          "\n"
          "        [[0, 0, 0, ..., 0, 0, 0],\n"
          "         [0, 0, 0, ..., 0, 0, 0],\n"
          "         [0, 0, 0, ..., 0, 0, 0]]], dtype=f32, shape=[2, 3, 200])");
    // Blocks of 3-D and up are separated by one blank line.
    CHECK(zeros({7, 7, 7, 7}, bf16).to_string().find("]]],\n\n        ...,\n\n        [[[0, 0, 0, ..., 0, 0, 0],") != std::string::npos);

    // As in PyTorch, the column width comes from the shown values only.
    const Tensor wide_middle = zeros({1001}, i64);
    wide_middle.set({500}, 123456);
    CHECK(wide_middle.to_string() == "tensor([0, 0, 0, ..., 0, 0, 0], dtype=i64, shape=[1001])");
}

TEST_CASE("to_string of a 16-million-element tensor is short (only the shown elements are formatted)")
{
    const std::string s = zeros({4000, 4000}).to_string();
    CHECK(s ==
          "tensor([[0, 0, 0, ..., 0, 0, 0],\n"
          "        [0, 0, 0, ..., 0, 0, 0],\n"
          "        [0, 0, 0, ..., 0, 0, 0],\n"
          "        ...,\n"
          "        [0, 0, 0, ..., 0, 0, 0],\n"
          "        [0, 0, 0, ..., 0, 0, 0],\n"
          "        [0, 0, 0, ..., 0, 0, 0]], dtype=f32, shape=[4000, 4000])");
    CHECK(s.size() < 300);
}
