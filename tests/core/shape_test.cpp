#include <doctest/doctest.h>

#include <string>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {


}  // namespace

TEST_CASE("shape_str and numel")
{
    CHECK(shape_str({}) == "[]");
    CHECK(shape_str({5}) == "[5]");
    CHECK(shape_str({2, 3, 4}) == "[2, 3, 4]");
    CHECK(shape_str({-1, 0}) == "[-1, 0]");
    CHECK(numel({}) == 1);  // a scalar holds one element
    CHECK(numel({7}) == 7);
    CHECK(numel({2, 3, 4}) == 24);
    CHECK(numel({2, 0, 4}) == 0);
}

TEST_CASE("contiguous_strides: row-major, the last dimension moves fastest")
{
    CHECK(contiguous_strides({}) == Strides{});
    CHECK(contiguous_strides({5}) == Strides{1});
    CHECK(contiguous_strides({2, 3}) == Strides{3, 1});
    CHECK(contiguous_strides({2, 3, 4}) == Strides{12, 4, 1});
    CHECK(contiguous_strides({4, 1, 3}) == Strides{3, 3, 1});
    // A size of 0 counts as 1 for the strides around it, as in PyTorch.
    CHECK(contiguous_strides({2, 0, 3}) == Strides{3, 3, 1});
    CHECK(contiguous_strides({0, 5}) == Strides{5, 1});
}

TEST_CASE("wrap_dim turns negative dims into 0..ndim-1")
{
    CHECK(wrap_dim(0, 3) == 0);
    CHECK(wrap_dim(2, 3) == 2);
    CHECK(wrap_dim(-1, 3) == 2);
    CHECK(wrap_dim(-3, 3) == 0);
    // A 0-D tensor accepts 0 and -1, as PyTorch does (for reductions over "all" of a scalar).
    CHECK(wrap_dim(0, 0) == 0);
    CHECK(wrap_dim(-1, 0) == 0);

    CHECK(error_message([] { wrap_dim(3, 3); }, ErrorKind::index) ==
          "dimension 3 is out of range for a tensor with 3 dimensions (valid: -3..2)");
    CHECK(error_message([] { wrap_dim(-4, 3); }, ErrorKind::index) ==
          "dimension -4 is out of range for a tensor with 3 dimensions (valid: -3..2)");
    CHECK(error_message([] { wrap_dim(1, 1); }, ErrorKind::index) ==
          "dimension 1 is out of range for a tensor with 1 dimension (valid: -1..0)");
    CHECK(error_message([] { wrap_dim(1, 0); }, ErrorKind::index) ==
          "dimension 1 is out of range for a tensor with 0 dimensions (valid: -1..0)");
}

TEST_CASE("wrap_index turns negative indices into 0..size-1, naming the dim and size when out of range")
{
    CHECK(wrap_index(0, 4, 0) == 0);
    CHECK(wrap_index(3, 4, 0) == 3);
    CHECK(wrap_index(-1, 4, 0) == 3);
    CHECK(wrap_index(-4, 4, 0) == 0);

    CHECK(error_message([] { wrap_index(4, 4, 1); }, ErrorKind::index) ==
          "index 4 is out of range for dimension 1 with size 4 (valid: -4..3)");
    CHECK(error_message([] { wrap_index(-5, 4, 0); }, ErrorKind::index) ==
          "index -5 is out of range for dimension 0 with size 4 (valid: -4..3)");
    CHECK(error_message([] { wrap_index(0, 0, 2); }, ErrorKind::index) ==
          "index 0 is out of range for dimension 2 with size 0 (the dimension is empty)");
}

TEST_CASE("infer_size fills in one -1")
{
    CHECK(infer_size({2, 3}, 6) == Shape{2, 3});
    CHECK(infer_size({-1}, 6) == Shape{6});
    CHECK(infer_size({2, -1}, 6) == Shape{2, 3});
    CHECK(infer_size({-1, 3, 2}, 12) == Shape{2, 3, 2});
    CHECK(infer_size({}, 1) == Shape{});
    CHECK(infer_size({4, 0}, 0) == Shape{4, 0});
    CHECK(infer_size({-1, 4}, 0) == Shape{0, 4});

    CHECK(error_message([] { infer_size({5, 3}, 12); }, ErrorKind::shape) ==
          "shape [5, 3] is invalid for 12 elements (it holds 15); pick sizes whose product is 12");
    CHECK(error_message([] { infer_size({5, -1}, 12); }, ErrorKind::shape) ==
          "shape [5, -1] is invalid for 12 elements: the -1 cannot be inferred");
    CHECK(error_message([] { infer_size({-1, -1}, 12); }, ErrorKind::shape) ==
          "shape [-1, -1] has more than one -1; only one size can be inferred");
    CHECK(error_message([] { infer_size({-2, 6}, 12); }, ErrorKind::shape) ==
          "shape [-2, 6] has a negative size -2; sizes must be >= 0 (or -1 once, to infer it)");
    // With a 0 beside it, any size fits the -1, so it cannot be inferred (PyTorch refuses too).
    CHECK(error_message([] { infer_size({0, -1}, 0); }, ErrorKind::shape) ==
          "shape [0, -1] is invalid for 0 elements: the -1 cannot be inferred");
}

TEST_CASE("view_strides: contiguous tensors can take any shape of the same numel")
{
    ViewStrides v = view_strides({3, 4}, {4, 1}, {12});
    CHECK(v.ok);
    CHECK(v.strides == Strides{1});
    v = view_strides({3, 4}, {4, 1}, {2, 6});
    CHECK(v.ok);
    CHECK(v.strides == Strides{6, 1});
    v = view_strides({12}, {1}, {2, 1, 3, 2});
    CHECK(v.ok);
    CHECK(v.strides == Strides{6, 6, 2, 1});
    // A 0-D tensor and shapes made of 1s.
    v = view_strides({}, {}, {1, 1});
    CHECK(v.ok);
    CHECK(v.strides == Strides{1, 1});
    v = view_strides({1, 1}, {1, 1}, {});
    CHECK(v.ok);
    CHECK(v.strides == Strides{});
    // An empty tensor views freely, with contiguous strides.
    v = view_strides({0, 4}, {4, 1}, {2, 0, 2});
    CHECK(v.ok);
    CHECK(v.strides == Strides{2, 2, 1});
}

TEST_CASE("view_strides: a strided tensor can be viewed only where its chunks stay whole")
{
    // The transpose of a 3x4 tensor: shape [4, 3], strides [1, 4].
    ViewStrides v = view_strides({4, 3}, {1, 4}, {12});
    CHECK_FALSE(v.ok);
    CHECK(v.strides.empty());
    // Splitting a dimension works: each of [4] and [3] is covered by whole new dimensions.
    v = view_strides({4, 3}, {1, 4}, {2, 2, 3});
    CHECK(v.ok);
    CHECK(v.strides == Strides{2, 1, 4});
    v = view_strides({4, 3}, {1, 4}, {4, 3, 1});
    CHECK(v.ok);
    CHECK(v.strides == Strides{1, 4, 4});
    // Merging them does not.
    CHECK_FALSE(view_strides({4, 3}, {1, 4}, {3, 4}).ok);
    CHECK_FALSE(view_strides({4, 3}, {1, 4}, {6, 2}).ok);

    // The first 4 columns of a 3x8 tensor: shape [3, 4], strides [8, 1]. The rows can't merge
    // (there is a gap after each), but each row of 4 can split into 2x2.
    CHECK_FALSE(view_strides({3, 4}, {8, 1}, {12}).ok);
    v = view_strides({3, 4}, {8, 1}, {3, 2, 2});
    CHECK(v.ok);
    CHECK(v.strides == Strides{8, 2, 1});
    // Every other column of a 3x8 tensor (strides [8, 2]) is evenly spaced: it flattens.
    v = view_strides({3, 4}, {8, 2}, {12});
    CHECK(v.ok);
    CHECK(v.strides == Strides{2});

    // Stride-0 (expanded) dimensions: a [3] expanded to [2, 3] cannot be flattened.
    CHECK_FALSE(view_strides({2, 3}, {0, 1}, {6}).ok);
    v = view_strides({2, 3}, {0, 1}, {2, 3, 1});
    CHECK(v.ok);
    CHECK(v.strides == Strides{0, 1, 1});

    // Rows 1..2 of a 4x5 tensor (narrowed: shape [2, 5], strides [5, 1]) are still one chunk.
    v = view_strides({2, 5}, {5, 1}, {10});
    CHECK(v.ok);
    CHECK(v.strides == Strides{1});
}
