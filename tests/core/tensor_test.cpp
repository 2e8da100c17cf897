#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {

using Values = std::vector<double>;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::int64_t kMaxI64 = std::numeric_limits<std::int64_t>::max();


// The 3x4 f32 matrix 0..11 that most tests here take views of:
//   [[0, 1,  2,  3],
//    [4, 5,  6,  7],
//    [8, 9, 10, 11]]
Tensor grid() { return arange(0, 12, 1).view({3, 4}); }

// Checks that `v` is a view of `base` with this layout.
void check_view(const Tensor& v, const Tensor& base, const Shape& shape, const Strides& strides, std::int64_t offset)
{
    CHECK(v.shares_storage_with(base));
    CHECK(v.shape() == shape);
    CHECK(v.strides() == strides);
    CHECK(v.storage_offset() == offset);
    CHECK(v.dtype() == base.dtype());
}

}  // namespace

// ---------------------------------------------------------------- layout

TEST_CASE("layout of a new tensor: shape, sizes, strides, numel, bytes")
{
    const Tensor a = grid();
    CHECK(a.defined());
    CHECK(a.dim() == 2);
    CHECK(a.shape() == Shape{3, 4});
    CHECK(a.size(0) == 3);
    CHECK(a.size(1) == 4);
    CHECK(a.size(-1) == 4);
    CHECK(a.size(-2) == 3);
    CHECK(a.strides() == Strides{4, 1});
    CHECK(a.stride(0) == 4);
    CHECK(a.stride(-1) == 1);
    CHECK(a.numel() == 12);
    CHECK(a.storage_offset() == 0);
    CHECK(a.dtype() == f32);
    CHECK(a.element_size() == 4);
    CHECK(a.nbytes() == 48);
    CHECK(a.device() == Device::cpu());
    CHECK(a.is_contiguous());
    CHECK(a.to_vector() == Values{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    CHECK(zeros({2, 3}, f16).nbytes() == 12);
    CHECK(zeros({2, 3}, boolean).element_size() == 1);

    CHECK(error_message([&] { a.size(2); }, ErrorKind::index) ==
          "dimension 2 is out of range for a tensor with 2 dimensions (valid: -2..1)");
    CHECK(error_message([&] { a.stride(-3); }, ErrorKind::index) ==
          "dimension -3 is out of range for a tensor with 2 dimensions (valid: -2..1)");
}

TEST_CASE("a 0-D tensor has no sizes to ask for")
{
    const Tensor s = scalar_tensor(4);
    CHECK(s.dim() == 0);
    CHECK(s.shape().empty());
    CHECK(s.strides().empty());
    CHECK(s.numel() == 1);
    CHECK(s.is_contiguous());
    CHECK(error_message([&] { s.size(0); }, ErrorKind::index) ==
          "size(dim=0) needs a dimension, but the tensor is 0-D (a scalar); unsqueeze it first or read it with item()");
    CHECK(error_message([&] { s.stride(-1); }, ErrorKind::index) ==
          "stride(dim=-1) needs a dimension, but the tensor is 0-D (a scalar); unsqueeze it first or read it with item()");
}

TEST_CASE("copying a Tensor copies the handle, not the data")
{
    const Tensor a = grid();
    const Tensor b = a;  // NOLINT(performance-unnecessary-copy-initialization): the copy is the point
    CHECK(b.is_same(a));
    CHECK(b.shares_storage_with(a));
    b.set({1, 1}, 50);
    CHECK(a.at({1, 1}) == 50);

    const Tensor c = a.clone();
    CHECK_FALSE(c.is_same(a));
    CHECK_FALSE(c.shares_storage_with(a));
    CHECK(c.to_vector() == a.to_vector());
    c.set({0, 0}, -1);
    CHECK(a.at({0, 0}) == 0);
}

// ---------------------------------------------------------------- view and reshape

TEST_CASE("view shares storage, and writes go both ways")
{
    const Tensor a = grid();
    const Tensor v = a.view({4, 3});
    check_view(v, a, {4, 3}, {3, 1}, 0);
    CHECK_FALSE(v.is_same(a));
    CHECK(v.at({3, 2}) == 11);
    CHECK(v.at({1, 0}) == 3);

    v.set({3, 2}, 100);  // flat element 11
    CHECK(a.at({2, 3}) == 100);
    a.set({0, 1}, -5);  // flat element 1
    CHECK(v.at({0, 1}) == -5);

    check_view(a.view({12}), a, {12}, {1}, 0);
    check_view(a.view({2, 2, 3}), a, {2, 2, 3}, {6, 3, 1}, 0);
    check_view(a.view({1, 12, 1}), a, {1, 12, 1}, {12, 1, 1}, 0);
    check_view(a.view({3, 4}), a, {3, 4}, {4, 1}, 0);

    // A view of a view keeps the offset.
    const Tensor row = a.select(0, 1).view({2, 2});
    check_view(row, a, {2, 2}, {2, 1}, 4);
    CHECK(row.to_vector() == Values{4, 5, 6, 7});
    // 0-D <-> one element.
    const Tensor s = scalar_tensor(3);
    check_view(s.view({1, 1}), s, {1, 1}, {1, 1}, 0);
    check_view(s.view({1}).view({}), s, {}, {}, 0);
}

TEST_CASE("view infers one -1")
{
    const Tensor a = grid();
    check_view(a.view({-1}), a, {12}, {1}, 0);
    check_view(a.view({2, -1}), a, {2, 6}, {6, 1}, 0);
    check_view(a.view({-1, 1, 6}), a, {2, 1, 6}, {6, 6, 1}, 0);
    check_view(a.view({2, -1, 3}), a, {2, 2, 3}, {6, 3, 1}, 0);
}

TEST_CASE("view with a shape of the wrong size, or two -1s, is a shape error")
{
    const Tensor a = grid();
    CHECK(error_message([&] { a.view({5, 3}); }, ErrorKind::shape) ==
          "shape [5, 3] is invalid for 12 elements (it holds 15); pick sizes whose product is 12");
    CHECK(error_message([&] { a.view({5, -1}); }, ErrorKind::shape) ==
          "shape [5, -1] is invalid for 12 elements: the -1 cannot be inferred");
    CHECK(error_message([&] { a.view({-1, -1}); }, ErrorKind::shape) ==
          "shape [-1, -1] has more than one -1; only one size can be inferred");
    CHECK(error_message([&] { a.view({}); }, ErrorKind::shape) ==
          "shape [] is invalid for 12 elements (it holds 1); pick sizes whose product is 12");
}

TEST_CASE("view of a transposed tensor: splitting works, merging across the gap throws and suggests reshape")
{
    const Tensor a = grid();
    const Tensor t = a.t();  // shape [4, 3], strides [1, 4]
    CHECK(error_message([&] { t.view({12}); }, ErrorKind::shape) ==
          "view([12]) is not possible for a tensor of shape [4, 3] with strides [1, 4]: its elements are not laid out so "
          "that one view covers them; use .reshape(...) (which copies when needed) or call .contiguous() first");
    const std::string m = error_message([&] { t.view({3, -1}); }, ErrorKind::shape);
    CHECK(m.find("view([3, -1]) is not possible") == 0);
    CHECK(m.find(".reshape(...)") != std::string::npos);
    CHECK(m.find(".contiguous()") != std::string::npos);

    // Splitting the first dimension needs no memory to move.
    const Tensor split = t.view({2, 2, 3});
    check_view(split, a, {2, 2, 3}, {2, 1, 4}, 0);
    CHECK(split.at({1, 0, 2}) == a.at({2, 2}));
    // And contiguous() first makes any view possible.
    CHECK(t.contiguous().view({12}).to_vector() == Values{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
}

TEST_CASE("reshape is a view when it can be, a copy when it must be")
{
    const Tensor a = grid();
    const Tensor r = a.reshape({2, 6});
    check_view(r, a, {2, 6}, {6, 1}, 0);
    check_view(a.reshape({-1}), a, {12}, {1}, 0);
    r.set({1, 0}, 60);
    CHECK(a.at({1, 2}) == 60);
    a.set({1, 2}, 6);

    const Tensor t = a.t();
    const Tensor flat = t.reshape({12});  // no view can do this: a copy
    CHECK_FALSE(flat.shares_storage_with(a));
    CHECK(flat.shape() == Shape{12});
    CHECK(flat.strides() == Strides{1});
    CHECK(flat.is_contiguous());
    CHECK(flat.to_vector() == Values{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
    flat.set({0}, 99);
    CHECK(a.at({0, 0}) == 0);  // the copy is independent

    check_view(t.reshape({2, 2, 3}), a, {2, 2, 3}, {2, 1, 4}, 0);  // a view is possible here
    CHECK(error_message([&] { a.reshape({5, 2}); }, ErrorKind::shape) ==
          "shape [5, 2] is invalid for 12 elements (it holds 10); pick sizes whose product is 12");
}

// ---------------------------------------------------------------- transpose, t, permute

TEST_CASE("transpose and t swap sizes and strides over the same storage")
{
    const Tensor a = grid();
    const Tensor t = a.t();
    check_view(t, a, {4, 3}, {1, 4}, 0);
    CHECK_FALSE(t.is_contiguous());
    CHECK(t.at({3, 1}) == 7);  // a[1][3]
    CHECK(t.at({0, 2}) == 8);  // a[2][0]
    t.set({0, 2}, 80);
    CHECK(a.at({2, 0}) == 80);
    a.set({1, 3}, 70);
    CHECK(t.at({3, 1}) == 70);

    check_view(a.transpose(0, 1), a, {4, 3}, {1, 4}, 0);
    check_view(a.transpose(-1, -2), a, {4, 3}, {1, 4}, 0);
    check_view(a.transpose(1, 1), a, {3, 4}, {4, 1}, 0);
    check_view(t.t(), a, {3, 4}, {4, 1}, 0);
    CHECK(t.t().is_contiguous());

    const Tensor b = arange(0, 24, 1).view({2, 3, 4});
    const Tensor bt = b.transpose(0, 2);
    check_view(bt, b, {4, 3, 2}, {1, 4, 12}, 0);
    CHECK(bt.at({3, 2, 1}) == 23);  // b[1][2][3]
    CHECK(bt.at({1, 0, 1}) == 13);  // b[1][0][1]

    // t() leaves 1-D and 0-D tensors as they are.
    const Tensor v = arange(3);
    CHECK(v.t().is_same(v));
    const Tensor s = scalar_tensor(2);
    CHECK(s.t().is_same(s));
    check_view(s.transpose(0, -1), s, {}, {}, 0);  // as in PyTorch: a scalar's only "dimension" is 0 (or -1)
}

TEST_CASE("transpose and t: bad dimensions")
{
    const Tensor a = grid();
    CHECK(error_message([&] { a.transpose(0, 2); }, ErrorKind::index) ==
          "dimension 2 is out of range for a tensor with 2 dimensions (valid: -2..1)");
    CHECK(error_message([&] { a.transpose(-3, 0); }, ErrorKind::index) ==
          "dimension -3 is out of range for a tensor with 2 dimensions (valid: -2..1)");
    CHECK(error_message([] { scalar_tensor(1).transpose(0, 1); }, ErrorKind::index) ==
          "dimension 1 is out of range for a tensor with 0 dimensions (valid: -1..0)");
    CHECK(error_message([] { zeros({2, 3, 4}).t(); }, ErrorKind::shape) ==
          "t() expects a tensor with at most 2 dimensions, got shape [2, 3, 4]; use transpose(dim0, dim1) or permute(...)");
}

TEST_CASE("permute reorders dimensions")
{
    const Tensor b = arange(0, 24, 1).view({2, 3, 4});
    const Tensor p = b.permute({2, 0, 1});
    check_view(p, b, {4, 2, 3}, {1, 12, 4}, 0);
    CHECK(p.at({3, 1, 2}) == 23);  // b[1][2][3]
    CHECK(p.at({1, 0, 2}) == 9);   // b[0][2][1]
    p.set({0, 1, 1}, -4);
    CHECK(b.at({1, 1, 0}) == -4);

    check_view(b.permute({-1, 0, 1}), b, {4, 2, 3}, {1, 12, 4}, 0);
    check_view(b.permute({0, 1, 2}), b, {2, 3, 4}, {12, 4, 1}, 0);
    CHECK(b.permute({0, 1, 2}).is_contiguous());
    check_view(b.permute({1, 0, 2}), b, {3, 2, 4}, {4, 12, 1}, 0);
    // Permuting back restores the layout.
    check_view(p.permute({1, 2, 0}), b, {2, 3, 4}, {12, 4, 1}, 0);
}

TEST_CASE("permute: each dimension exactly once")
{
    const Tensor b = zeros({2, 3, 4});
    CHECK(error_message([&] { b.permute({0, 0, 1}); }, ErrorKind::shape) ==
          "permute dims [0, 0, 1] repeat dimension 0; name each dimension once");
    CHECK(error_message([&] { b.permute({2, 1, -1}); }, ErrorKind::shape) ==
          "permute dims [2, 1, -1] repeat dimension 2; name each dimension once");
    CHECK(error_message([&] { b.permute({0, 1}); }, ErrorKind::shape) ==
          "permute got 2 dims [0, 1] for a tensor with 3 dimensions (shape [2, 3, 4]); name each dimension once");
    CHECK(error_message([&] { b.permute({0, 1, 3}); }, ErrorKind::index) ==
          "dimension 3 is out of range for a tensor with 3 dimensions (valid: -3..2)");
}

// ---------------------------------------------------------------- slice, narrow, select

TEST_CASE("slice with a step: strides multiply, the offset moves to the start")
{
    const Tensor a = grid();
    const Tensor s = a.slice(1, 1, 4, 2);  // columns 1 and 3
    check_view(s, a, {3, 2}, {4, 2}, 1);
    CHECK_FALSE(s.is_contiguous());
    CHECK(s.to_vector() == Values{1, 3, 5, 7, 9, 11});
    s.set({2, 1}, -1);
    CHECK(a.at({2, 3}) == -1);
    a.set({1, 1}, 42);
    CHECK(s.at({1, 0}) == 42);

    const Tensor r = arange(10);
    check_view(r.slice(0, 1, 10, 3), r, {3}, {3}, 1);
    CHECK(r.slice(0, 1, 10, 3).to_vector() == Values{1, 4, 7});
    CHECK(r.slice(0, 1, 8, 3).to_vector() == Values{1, 4, 7});
    CHECK(r.slice(0, 1, 7, 3).to_vector() == Values{1, 4});
    CHECK(r.slice(0, 0, 10, 100).to_vector() == Values{0});
    CHECK(r.slice(0, 3, 10, kMaxI64).to_vector() == Values{3});  // no overflow counting the elements
    // A slice of a slice: elements 1, 3, 5, 7, 9, then every other from index 1: 3 and 7.
    const Tensor ss = r.slice(0, 1, 10, 2).slice(0, 1, 5, 2);
    check_view(ss, r, {2}, {4}, 3);
    CHECK(ss.to_vector() == Values{3, 7});
}

TEST_CASE("slice bounds: negative ones count from the end, out-of-range ones are clamped (as in Python)")
{
    const Tensor a = grid();
    check_view(a.slice(1, -3, -1), a, {3, 2}, {4, 1}, 1);  // columns 1, 2
    CHECK(a.slice(1, -3, -1).to_vector() == Values{1, 2, 5, 6, 9, 10});
    check_view(a.slice(0, -100, 100), a, {3, 4}, {4, 1}, 0);
    check_view(a.slice(1, 2, kMaxI64), a, {3, 2}, {4, 1}, 2);
    check_view(a.slice(0, -1, 3), a, {1, 4}, {4, 1}, 8);
    CHECK(a.slice(0, -1, 3).to_vector() == Values{8, 9, 10, 11});
    // Empty results: start at or past end.
    check_view(a.slice(0, 2, 1), a, {0, 4}, {4, 1}, 8);
    check_view(a.slice(1, 10, 20), a, {3, 0}, {4, 1}, 4);
    check_view(a.slice(0, 1, 1), a, {0, 4}, {4, 1}, 4);
    CHECK(a.slice(1, 10, 20).numel() == 0);
}

TEST_CASE("slice: bad step or dimension")
{
    const Tensor a = grid();
    CHECK(error_message([&] { a.slice(0, 0, 3, 0); }, ErrorKind::value) == "slice step must be positive, got 0");
    CHECK(error_message([&] { a.slice(0, 3, 0, -1); }, ErrorKind::value) == "slice step must be positive, got -1");
    CHECK(error_message([&] { a.slice(2, 0, 1); }, ErrorKind::index) ==
          "dimension 2 is out of range for a tensor with 2 dimensions (valid: -2..1)");
    CHECK(error_message([] { scalar_tensor(1).slice(0, 0, 1); }, ErrorKind::index) ==
          "slice(dim=0) needs a dimension, but the tensor is 0-D (a scalar); unsqueeze it first or read it with item()");
}

TEST_CASE("narrow: length elements from start")
{
    const Tensor a = grid();
    const Tensor n = a.narrow(0, 1, 2);  // rows 1, 2
    check_view(n, a, {2, 4}, {4, 1}, 4);
    CHECK(n.is_contiguous());
    CHECK(n.to_vector() == Values{4, 5, 6, 7, 8, 9, 10, 11});
    n.set({0, 0}, 40);
    CHECK(a.at({1, 0}) == 40);

    check_view(a.narrow(1, -2, 2), a, {3, 2}, {4, 1}, 2);  // columns 2, 3
    CHECK(a.narrow(1, -2, 2).to_vector() == Values{2, 3, 6, 7, 10, 11});
    check_view(a.narrow(-1, 1, 0), a, {3, 0}, {4, 1}, 1);
    check_view(a.narrow(0, 0, 3), a, {3, 4}, {4, 1}, 0);
}

TEST_CASE("narrow: the range must fit, and the message names start, length, dim and size")
{
    const Tensor a = grid();
    CHECK(error_message([&] { a.narrow(0, 2, 2); }, ErrorKind::index) ==
          "narrow(dim=0, start=2, length=2) does not fit in a dimension of size 3 (shape [3, 4]); need 0 <= start and "
          "start + length <= 3");
    CHECK(error_message([&] { a.narrow(1, -5, 1); }, ErrorKind::index) ==
          "narrow(dim=1, start=-5, length=1) does not fit in a dimension of size 4 (shape [3, 4]); need 0 <= start and "
          "start + length <= 4");
    CHECK(error_message([&] { a.narrow(1, 0, -1); }, ErrorKind::index).find("narrow(dim=1, start=0, length=-1) does not fit") == 0);
    CHECK(error_message([&] { a.narrow(0, 1, kMaxI64); }, ErrorKind::index).find("does not fit in a dimension of size 3") !=
          std::string::npos);
    CHECK(error_message([&] { a.narrow(-3, 0, 1); }, ErrorKind::index) ==
          "dimension -3 is out of range for a tensor with 2 dimensions (valid: -2..1)");
    CHECK(error_message([] { scalar_tensor(1).narrow(0, 0, 1); }, ErrorKind::index).find("narrow(dim=0) needs a dimension") == 0);
}

TEST_CASE("select drops a dimension")
{
    const Tensor a = grid();
    const Tensor row = a.select(0, 1);
    check_view(row, a, {4}, {1}, 4);
    CHECK(row.is_contiguous());
    CHECK(row.to_vector() == Values{4, 5, 6, 7});

    const Tensor col = a.select(1, -1);  // the last column
    check_view(col, a, {3}, {4}, 3);
    CHECK_FALSE(col.is_contiguous());
    CHECK(col.to_vector() == Values{3, 7, 11});
    col.set({1}, 70);
    CHECK(a.at({1, 3}) == 70);
    a.set({2, 3}, 110);
    CHECK(col.at({2}) == 110);

    const Tensor b = arange(0, 24, 1).view({2, 3, 4});
    check_view(b.select(1, 2), b, {2, 4}, {12, 1}, 8);
    CHECK(b.select(1, 2).to_vector() == Values{8, 9, 10, 11, 20, 21, 22, 23});

    const Tensor element = row.select(0, 2);  // down to 0-D
    check_view(element, a, {}, {}, 6);
    CHECK(element.item() == 6);
}

TEST_CASE("select: the message names the index, the dim and the size")
{
    const Tensor a = grid();
    CHECK(error_message([&] { a.select(0, 3); }, ErrorKind::index) ==
          "index 3 is out of range for dimension 0 with size 3 (valid: -3..2)");
    CHECK(error_message([&] { a.select(1, -5); }, ErrorKind::index) ==
          "index -5 is out of range for dimension 1 with size 4 (valid: -4..3)");
    CHECK(error_message([&] { a.select(-1, 4); }, ErrorKind::index) ==
          "index 4 is out of range for dimension 1 with size 4 (valid: -4..3)");
    CHECK(error_message([&] { a.select(2, 0); }, ErrorKind::index) ==
          "dimension 2 is out of range for a tensor with 2 dimensions (valid: -2..1)");
    CHECK(error_message([] { zeros({0, 2}).select(0, 0); }, ErrorKind::index) ==
          "index 0 is out of range for dimension 0 with size 0 (the dimension is empty)");
    CHECK(error_message([] { scalar_tensor(1).select(0, 0); }, ErrorKind::index) ==
          "select(dim=0) needs a dimension, but the tensor is 0-D (a scalar); unsqueeze it first or read it with item()");
}

// ---------------------------------------------------------------- unsqueeze, squeeze, expand

TEST_CASE("unsqueeze inserts a size-1 dimension, squeeze removes one")
{
    const Tensor a = grid();
    check_view(a.unsqueeze(0), a, {1, 3, 4}, {12, 4, 1}, 0);
    check_view(a.unsqueeze(1), a, {3, 1, 4}, {4, 4, 1}, 0);
    check_view(a.unsqueeze(2), a, {3, 4, 1}, {4, 1, 1}, 0);
    check_view(a.unsqueeze(-1), a, {3, 4, 1}, {4, 1, 1}, 0);
    check_view(a.unsqueeze(-3), a, {1, 3, 4}, {12, 4, 1}, 0);
    CHECK(a.unsqueeze(1).is_contiguous());

    const Tensor u = a.unsqueeze(1);
    u.set({2, 0, 1}, 99);
    CHECK(a.at({2, 1}) == 99);
    check_view(u.squeeze(1), a, {3, 4}, {4, 1}, 0);
    check_view(u.squeeze(-2), a, {3, 4}, {4, 1}, 0);
    // Squeezing a dimension whose size is not 1 changes nothing.
    const Tensor same = a.squeeze(0);
    check_view(same, a, {3, 4}, {4, 1}, 0);

    // Of a view with an offset, and of a 0-D tensor.
    const Tensor col = a.select(1, 2);  // shape [3], stride 4, offset 2
    check_view(col.unsqueeze(1), a, {3, 1}, {4, 1}, 2);
    check_view(col.unsqueeze(0), a, {1, 3}, {12, 4}, 2);
    const Tensor s = scalar_tensor(5);
    check_view(s.unsqueeze(0), s, {1}, {1}, 0);
    check_view(s.unsqueeze(-1), s, {1}, {1}, 0);
    check_view(s.unsqueeze(0).squeeze(0), s, {}, {}, 0);
    check_view(s.squeeze(0), s, {}, {}, 0);
    check_view(s.squeeze(-1), s, {}, {}, 0);

    CHECK(error_message([&] { a.unsqueeze(3); }, ErrorKind::index) ==
          "dimension 3 is out of range for a tensor with 3 dimensions (valid: -3..2)");
    CHECK(error_message([&] { a.squeeze(2); }, ErrorKind::index) ==
          "dimension 2 is out of range for a tensor with 2 dimensions (valid: -2..1)");
    CHECK(error_message([&] { s.squeeze(1); }, ErrorKind::index) ==
          "dimension 1 is out of range for a tensor with 0 dimensions (valid: -1..0)");
}

TEST_CASE("expand repeats size-1 dimensions with stride 0")
{
    const Tensor c = tensor({1.0, 2.0, 3.0});
    const Tensor e = c.expand({2, 3});
    check_view(e, c, {2, 3}, {0, 1}, 0);
    CHECK_FALSE(e.is_contiguous());
    CHECK(e.to_vector() == Values{1, 2, 3, 1, 2, 3});
    check_view(c.expand({2, -1}), c, {2, 3}, {0, 1}, 0);
    check_view(c.expand({3}), c, {3}, {1}, 0);
    check_view(e.expand({4, 2, 3}), c, {4, 2, 3}, {0, 0, 1}, 0);
    check_view(c.expand({0, 3}), c, {0, 3}, {0, 1}, 0);

    // Every element of an expanded row is the same memory.
    const Tensor col = arange(0, 3, 1).view({3, 1});
    const Tensor wide = col.expand({3, 4});
    check_view(wide, col, {3, 4}, {1, 0}, 0);
    CHECK(wide.to_vector() == Values{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2});
    wide.set({1, 2}, 7);
    CHECK(col.at({1, 0}) == 7);
    CHECK(wide.at({1, 0}) == 7);
    CHECK(wide.at({1, 3}) == 7);

    const Tensor s = scalar_tensor(9);
    check_view(s.expand({2, 2}), s, {2, 2}, {0, 0}, 0);
    CHECK(s.expand({2, 2}).to_vector() == Values{9, 9, 9, 9});
    // An expanded view copies into real memory with contiguous().
    const Tensor copy = e.contiguous();
    CHECK_FALSE(copy.shares_storage_with(c));
    CHECK(copy.strides() == Strides{3, 1});
    CHECK(copy.to_vector() == Values{1, 2, 3, 1, 2, 3});
}

TEST_CASE("expand: only sizes of 1 grow, and only leading dimensions can be added")
{
    const Tensor c = tensor({1.0, 2.0, 3.0});
    CHECK(error_message([&] { c.expand({2, 4}); }, ErrorKind::shape) ==
          "cannot expand shape [3] to [2, 4]: dimension 1 has size 3, and only sizes of 1 can be expanded");
    CHECK(error_message([&] { c.expand({1}); }, ErrorKind::shape) ==
          "cannot expand shape [3] to [1]: dimension 0 has size 3, and only sizes of 1 can be expanded");
    CHECK(error_message([] { zeros({2, 3}).expand({3}); }, ErrorKind::shape) ==
          "expand([3]) has fewer dimensions than the tensor's shape [2, 3]; expand can only add leading dimensions");
    CHECK(error_message([&] { c.expand({-1, 3}); }, ErrorKind::shape) ==
          "expand([-1, 3]): a new leading dimension needs a size >= 0 (-1 only keeps an existing size)");
    CHECK(error_message([] { zeros({3, 1}).expand({3, -2}); }, ErrorKind::shape) ==
          "expand([3, -2]) has a negative size -2; sizes must be >= 0, or -1 to keep a size");
}

// ---------------------------------------------------------------- contiguous and clone

TEST_CASE("contiguous returns the same tensor when it already is contiguous")
{
    const Tensor a = grid();
    CHECK(a.contiguous().is_same(a));
    const Tensor rows = a.narrow(0, 1, 2);
    CHECK(rows.contiguous().is_same(rows));
    const Tensor row = a.select(0, 2);
    CHECK(row.contiguous().is_same(row));
    const Tensor u = a.unsqueeze(0);
    CHECK(u.contiguous().is_same(u));
    // Sizes of 1 may have any stride.
    const Tensor first_row = a.slice(0, 0, 1);  // shape [1, 4], strides [4, 1]
    CHECK(first_row.is_contiguous());
    const Tensor odd = arange(0, 3, 1).view({3, 1}).expand({3, 1}).t();  // shape [1, 3], strides [0, 1]
    CHECK(odd.strides() == Strides{1, 1});
    CHECK(odd.is_contiguous());
    // Empty tensors are contiguous whatever their strides.
    CHECK(zeros({0, 3}).t().is_contiguous());
}

TEST_CASE("contiguous copies a transposed or stepped view into new row-major storage")
{
    const Tensor a = grid();
    const Tensor t = a.t();
    const Tensor tc = t.contiguous();
    CHECK_FALSE(tc.is_same(t));
    CHECK_FALSE(tc.shares_storage_with(a));
    CHECK(tc.is_contiguous());
    CHECK(tc.shape() == Shape{4, 3});
    CHECK(tc.strides() == Strides{3, 1});
    CHECK(tc.storage_offset() == 0);
    CHECK(tc.to_vector() == Values{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
    CHECK(tc.storage()->nbytes() == 48);

    const Tensor stepped = arange(10, f32).slice(0, 0, 10, 3);
    CHECK_FALSE(stepped.is_contiguous());
    const Tensor sc = stepped.contiguous();
    CHECK(sc.strides() == Strides{1});
    CHECK(sc.to_vector() == Values{0, 3, 6, 9});
    CHECK(sc.storage()->nbytes() == 16);  // just the 4 elements

    const Tensor col = a.select(1, 1);  // an offset and a stride
    const Tensor cc = col.contiguous();
    CHECK_FALSE(cc.shares_storage_with(a));
    CHECK(cc.storage_offset() == 0);
    CHECK(cc.to_vector() == Values{1, 5, 9});
    cc.set({0}, 100);
    CHECK(a.at({0, 1}) == 1);  // independent of the original

    const Tensor b = arange(0, 24, 1).view({2, 3, 4}).permute({2, 0, 1});
    CHECK(b.contiguous().to_vector() ==
          Values{0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
}

TEST_CASE("clone always copies")
{
    const Tensor a = grid();
    const Tensor c = a.clone();
    CHECK_FALSE(c.shares_storage_with(a));
    CHECK(c.shape() == a.shape());
    CHECK(c.strides() == a.strides());
    CHECK(c.to_vector() == a.to_vector());
    const Tensor s = a.slice(1, 1, 3).clone();
    CHECK(s.is_contiguous());
    CHECK(s.to_vector() == Values{1, 2, 5, 6, 9, 10});
    CHECK(scalar_tensor(2.5, bf16).clone().item() == 2.5);
    CHECK(zeros({3, 0}).clone().shape() == Shape{3, 0});
}

TEST_CASE("views of an empty storage can still be copied")
{
    const Tensor e = zeros({3, 0});
    const Tensor v = e.slice(0, 1, 3);  // an offset into a storage with no bytes
    CHECK(v.shape() == Shape{2, 0});
    CHECK(v.storage_offset() == 1);
    CHECK(v.data_ptr() == nullptr);
    CHECK(v.contiguous().shape() == Shape{2, 0});
    CHECK(v.clone().numel() == 0);
    CHECK(v.to(f16).numel() == 0);
    CHECK(v.to_vector().empty());
}

// ---------------------------------------------------------------- to(dtype), to(device)

TEST_CASE("to(dtype): the same dtype gives back the same tensor")
{
    const Tensor a = grid();
    CHECK(a.to(f32).is_same(a));
    const Tensor t = a.t();
    CHECK(t.to(f32).is_same(t));
    CHECK(a.to(Device::cpu()).is_same(a));
    CHECK(a.cpu().is_same(a));
}

TEST_CASE("to(f16) and to(bf16) round to nearest even")
{
    const Tensor x = tensor({1.0 + 1e-4, 65504.0, 65519.0, 65520.0, 1e-8, 6e-8, -2.5, 0.1});
    const Tensor h = x.to(f16);
    CHECK(h.dtype() == f16);
    CHECK(h.shape() == Shape{8});
    CHECK_FALSE(h.shares_storage_with(x));
    // 1 + 1e-4 is closer to 1 than to 1 + 2^-10; 65520 is halfway between 65504 and 65536 (too
    // big for f16), so it rounds to inf; 1e-8 is below half the smallest subnormal 2^-24.
    CHECK(h.to_vector() == Values{1.0, 65504.0, 65504.0, kInf, 0.0, 0x1p-24, -2.5, 0.0999755859375});
    CHECK(tensor({-65520.0}).to(f16).item() == -kInf);

    const Tensor b = x.to(bf16);
    CHECK(b.dtype() == bf16);
    const Values bv = b.to_vector();
    CHECK(bv[0] == 1.0);
    CHECK(bv[1] == 65536.0);  // bf16 keeps only 8 significant bits
    CHECK(bv[3] == 65536.0);
    CHECK(bv[4] != 0.0);  // bf16 has f32's exponent range: 1e-8 survives
    CHECK(std::abs(bv[4] - 1e-8) <= 1e-8 * 0x1p-8);
    CHECK(bv[6] == -2.5);
    CHECK(bv[7] == 0.10009765625);

    // Back up to f32 is exact.
    CHECK(h.to(f32).to_vector() == h.to_vector());
    CHECK(tensor({0.1}, f16).to(f32).item() == 0.0999755859375);
    CHECK(tensor({0.1}, f16).to(f64).item() == 0.0999755859375);
}

TEST_CASE("to(i64) truncates toward zero, to(bool) is x != 0")
{
    const Tensor x = tensor({-2.7, 2.7, -0.5, 0.9999, 3.0, -1e10});
    const Tensor l = x.to(i64);
    CHECK(l.dtype() == i64);
    CHECK(l.to_vector() == Values{-2, 2, 0, 0, 3, -1e10});

    const Tensor b = tensor({0.0, -0.0, 0.5, -3.0, std::nan("")}).to(boolean);
    CHECK(b.dtype() == boolean);
    CHECK(b.to_vector() == Values{0, 0, 1, 1, 1});  // NaN is not 0, so true (as in PyTorch)
    CHECK(arange(3).to(boolean).to_vector() == Values{0, 1, 1});

    CHECK(b.to(f32).to_vector() == Values{0, 0, 1, 1, 1});
    CHECK(arange(4).to(f32).to_vector() == Values{0, 1, 2, 3});
    const Tensor big = tensor({2049, 2051, 4097}, {3}, i64).to(f16);
    CHECK(big.to_vector() == Values{2048, 2052, 4096});  // f16 integers are 2 apart above 2048, 4 above 4096
}

TEST_CASE("to(dtype) of a non-contiguous tensor converts its elements in view order")
{
    const Tensor a = grid();
    const Tensor h = a.t().to(f16);
    CHECK(h.shape() == Shape{4, 3});
    CHECK(h.strides() == Strides{3, 1});
    CHECK(h.is_contiguous());
    CHECK(h.to_vector() == Values{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
    CHECK(a.slice(1, 1, 4, 2).to(i64).to_vector() == Values{1, 3, 5, 7, 9, 11});
    CHECK(a.select(1, 0).to(bf16).to_vector() == Values{0, 4, 8});
    CHECK(tensor({1.5, 2.5}).expand({2, 2}).to(f64).to_vector() == Values{1.5, 2.5, 1.5, 2.5});
}

TEST_CASE("to(i64) of NaN or inf is a value error naming the element")
{
    CHECK(error_message([] { tensor({1.0, std::nan(""), 3.0}).to(i64); }, ErrorKind::value) ==
          "to(i64): element 1 (flat index) is nan, which has no i64 value; replace NaN/inf or clamp the tensor to the "
          "target's range before converting");
    CHECK(error_message([] { tensor({kInf}, f16).to(i64); }, ErrorKind::value).find("to(i64): element 0 (flat index) is inf,") == 0);
    CHECK(error_message([] { tensor({0.0, -kInf}, bf16).to(i64); }, ErrorKind::value).find("element 1 (flat index) is -inf,") !=
          std::string::npos);
    CHECK(error_message([] { tensor({1e19}, f64).to(i64); }, ErrorKind::value).find("element 0 (flat index) is 1e+19,") !=
          std::string::npos);
    // The flat index is the element's position in the view, row-major.
    const Tensor t = tensor({0.0, 1.0, std::nan(""), 3.0}, {2, 2}).t();  // [[0, nan], [1, 3]]
    CHECK(error_message([&] { t.to(i64); }, ErrorKind::value).find("element 1 (flat index) is nan") != std::string::npos);
}

// ---------------------------------------------------------------- element access

TEST_CASE("item reads a one-element tensor of any shape")
{
    CHECK(scalar_tensor(3.5).item() == 3.5);
    CHECK(full({1, 1, 1}, -2, i64).item() == -2);
    CHECK(grid().select(0, 2).select(0, 1).item() == 9);
    CHECK(grid().slice(1, 3, 4).slice(0, 1, 2).item() == 7);

    CHECK(error_message([] { zeros({2}).item(); }, ErrorKind::shape) ==
          "item() needs a tensor with exactly one element, got shape [2] (2 elements); index it with at({...}) or reduce it first");
    CHECK(error_message([] { zeros({0}).item(); }, ErrorKind::shape) ==
          "item() needs a tensor with exactly one element, got shape [0] (0 elements); index it with at({...}) or reduce it first");
}

TEST_CASE("at and set: one index per dimension, negative ones from the end")
{
    const Tensor a = grid();
    CHECK(a.at({0, 0}) == 0);
    CHECK(a.at({2, 1}) == 9);
    CHECK(a.at({-1, -1}) == 11);
    CHECK(a.at({-3, 2}) == 2);
    CHECK(a.at(std::vector<std::int64_t>{1, 3}) == 7);
    a.set({-3, 0}, 5);
    CHECK(a.at({0, 0}) == 5);
    a.set(std::vector<std::int64_t>{2, 2}, 0.25);
    CHECK(a.at({2, 2}) == 0.25);
    CHECK(scalar_tensor(8).at({}) == 8);
}

TEST_CASE("set rounds the value to the tensor's dtype")
{
    const Tensor h = zeros({3}, f16);
    h.set({0}, 0.1);
    h.set({1}, 1e6);  // beyond f16's range: inf, as a cast would give
    h.set({2}, 1.0 + 1e-4);
    CHECK(h.to_vector() == Values{0.0999755859375, kInf, 1.0});

    const Tensor l = zeros({2}, i64);
    l.set({0}, 2.9);
    l.set({1}, -2.9);
    CHECK(l.to_vector() == Values{2, -2});

    const Tensor b = zeros({2}, boolean);
    b.set({0}, 5);
    b.set({1}, 0);
    CHECK(b.to_vector() == Values{1, 0});

    CHECK(error_message([&] { l.set({0}, std::nan("")); }, ErrorKind::value) ==
          "set: nan has no i64 value; store a finite number within the range of i64");
    CHECK(error_message([&] { l.set({0}, -kInf); }, ErrorKind::value) ==
          "set: -inf has no i64 value; store a finite number within the range of i64");
    CHECK(l.to_vector() == Values{2, -2});  // unchanged by the failed sets
}

TEST_CASE("at and set: out-of-range indices name the index, the dim and the size")
{
    const Tensor a = grid();
    CHECK(error_message([&] { a.at({3, 0}); }, ErrorKind::index) ==
          "index 3 is out of range for dimension 0 with size 3 (valid: -3..2)");
    CHECK(error_message([&] { a.at({0, 4}); }, ErrorKind::index) ==
          "index 4 is out of range for dimension 1 with size 4 (valid: -4..3)");
    CHECK(error_message([&] { a.set({0, -5}, 1); }, ErrorKind::index) ==
          "index -5 is out of range for dimension 1 with size 4 (valid: -4..3)");
    CHECK(error_message([&] { a.set({-4, 0}, 1); }, ErrorKind::index) ==
          "index -4 is out of range for dimension 0 with size 3 (valid: -3..2)");
}

TEST_CASE("at and set: the wrong number of indices is an index error")
{
    const Tensor a = grid();
    CHECK(error_message([&] { a.at({1}); }, ErrorKind::index) ==
          "index [1] has 1 coordinate but the tensor has 2 dimensions (shape [3, 4]); give one index per dimension");
    CHECK(error_message([&] { a.set({1, 2, 3}, 0); }, ErrorKind::index) ==
          "index [1, 2, 3] has 3 coordinates but the tensor has 2 dimensions (shape [3, 4]); give one index per dimension");
    CHECK(error_message([] { arange(3).at({}); }, ErrorKind::index) ==
          "index [] has 0 coordinates but the tensor has 1 dimension (shape [3]); give one index per dimension");
    CHECK(error_message([] { scalar_tensor(1).at({0}); }, ErrorKind::index) ==
          "index [0] has 1 coordinate but the tensor has 0 dimensions (shape []); give one index per dimension");
}

TEST_CASE("data_ptr points at the first element of the view, typed only as the tensor's dtype")
{
    const Tensor a = grid();
    float* p = a.data_ptr<float>();
    CHECK(p[5] == 5.0f);
    CHECK(static_cast<void*>(p) == a.data_ptr());
    CHECK(a.select(0, 2).data_ptr<float>() == p + 8);
    CHECK(a.slice(1, 1, 4, 2).data_ptr<float>() == p + 1);
    p[0] = 3.5f;
    CHECK(a.at({0, 0}) == 3.5);

    const Tensor h = tensor({1.5}, f16);
    CHECK(float(h.data_ptr<Half>()[0]) == 1.5f);
    CHECK(*arange(3).data_ptr<std::int64_t>() == 0);
    CHECK(*tensor({1.0}, boolean).data_ptr<bool>());
    CHECK(*scalar_tensor(2.0, f64).data_ptr<double>() == 2.0);

    CHECK(error_message([&] { a.data_ptr<double>(); }, ErrorKind::dtype) ==
          "data_ptr<f64> called on a f32 tensor; ask for data_ptr<f32's element type> or convert with .to(f64)");
    CHECK(error_message([&] { h.data_ptr<BFloat16>(); }, ErrorKind::dtype).find("data_ptr<bf16> called on a f16 tensor") == 0);
}

TEST_CASE("to_vector reads every element of a view, row-major, as double")
{
    const Tensor a = grid();
    CHECK(a.t().slice(0, 1, 3).to_vector() == Values{1, 5, 9, 2, 6, 10});
    CHECK(tensor({1.0, 0.0}, boolean).to_vector() == Values{1, 0});
    CHECK(scalar_tensor(-4, i64).to_vector() == Values{-4});
    CHECK(zeros({0}).to_vector().empty());
}

// ---------------------------------------------------------------- requires_grad, grad, name

TEST_CASE("requires_grad_ marks floating point tensors")
{
    const Tensor x = zeros({2, 2});
    CHECK_FALSE(x.requires_grad());
    CHECK(&x.requires_grad_() == &x);  // returns the tensor, for chaining
    CHECK(x.requires_grad());
    const Tensor alias = x;
    CHECK(alias.requires_grad());  // one tensor, two handles
    CHECK(x.t().requires_grad());  // a view of it too
    x.requires_grad_(false);
    CHECK_FALSE(x.requires_grad());
    CHECK_FALSE(alias.requires_grad());

    for (DType d : {f64, f32, f16, bf16}) {
        INFO("dtype ", std::string(dtype_name(d)));
        CHECK(zeros({1}, d).requires_grad_().requires_grad());
    }
    CHECK(zeros({1}).requires_grad_().clone().requires_grad());
}

TEST_CASE("requires_grad_ on an integer or bool tensor is a dtype error")
{
    CHECK(error_message([] { arange(3).requires_grad_(); }, ErrorKind::dtype) ==
          "only floating point tensors can require gradients, but this tensor is i64; convert it first, e.g. "
          "x.to(f32).requires_grad_()");
    CHECK(error_message([] { zeros({2}, boolean).requires_grad_(); }, ErrorKind::dtype).find("but this tensor is bool;") !=
          std::string::npos);
    const Tensor l = arange(3);
    l.requires_grad_(false);  // turning it off is always fine
    CHECK_FALSE(l.requires_grad());
}

TEST_CASE("grad is undefined until set")
{
    const Tensor x = zeros({3}).requires_grad_();
    CHECK_FALSE(x.grad().defined());
    const Tensor g = ones({3});
    x.set_grad(g);
    CHECK(x.grad().is_same(g));
    const Tensor alias = x;
    CHECK(alias.grad().is_same(g));
    x.set_grad(Tensor());
    CHECK_FALSE(x.grad().defined());
}

TEST_CASE("name and set_name")
{
    const Tensor w = zeros({2});
    CHECK(w.name().empty());
    CHECK(&w.set_name("w1") == &w);
    CHECK(w.name() == "w1");
    const Tensor alias = w;
    CHECK(alias.name() == "w1");
    CHECK(w.unsqueeze(0).name().empty());  // a view is a new tensor, with its own (empty) name
    w.set_name("");
    CHECK(w.name().empty());
}

// ---------------------------------------------------------------- undefined tensors

TEST_CASE("an undefined Tensor says so when used (state error)")
{
    const Tensor u;
    CHECK_FALSE(u.defined());
    CHECK(u.is_same(Tensor()));
    const std::string expected = "this Tensor is undefined (default-constructed or moved from); create one with a factory "
                                 "such as tinyamp::zeros(shape)";
    CHECK(error_message([&] { u.shape(); }, ErrorKind::state) == expected);
    CHECK(error_message([&] { u.numel(); }, ErrorKind::state) == expected);
    CHECK(error_message([&] { u.dtype(); }, ErrorKind::state) == expected);
    CHECK(error_message([&] { u.view({1}); }, ErrorKind::state) == expected);
    CHECK(error_message([&] { u.t(); }, ErrorKind::state) == expected);
    CHECK(error_message([&] { u.contiguous(); }, ErrorKind::state) == expected);
    CHECK(error_message([&] { u.to(f16); }, ErrorKind::state) == expected);
    CHECK(error_message([&] { u.item(); }, ErrorKind::state) == expected);
    CHECK(error_message([&] { u.data_ptr(); }, ErrorKind::state) == expected);
    CHECK(error_message([&] { u.requires_grad_(); }, ErrorKind::state) == expected);
    CHECK(error_message([&] { u.set_name("x"); }, ErrorKind::state) == expected);
    CHECK(error_message([&] { u.grad(); }, ErrorKind::state) == expected);
    CHECK(error_message([&] { zeros({1}).shares_storage_with(u); }, ErrorKind::state) == expected);
    CHECK(error_message([&] { zeros_like(u); }, ErrorKind::state) == expected);

    Tensor moved = zeros({2});
    const Tensor target = std::move(moved);
    CHECK(target.defined());
    CHECK_FALSE(moved.defined());  // NOLINT(bugprone-use-after-move): a moved-from Tensor is undefined
    CHECK(error_message([&] { moved.at({0}); }, ErrorKind::state) == expected);
}

TEST_CASE("squeeze always returns a new view, so changing its flags leaves the original alone")
{
    const Tensor x = zeros({2, 3});
    const Tensor same_shape = x.squeeze(0);  // size 2: nothing to squeeze
    CHECK_FALSE(same_shape.is_same(x));
    CHECK(same_shape.shares_storage_with(x));
    same_shape.set_name("renamed");
    CHECK(x.name().empty());
    const Tensor scalar = scalar_tensor(1.0);
    CHECK_FALSE(scalar.squeeze(0).is_same(scalar));
}
