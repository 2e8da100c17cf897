#include "tinyamp/values/shape.h"

#include <algorithm>
#include <sstream>

#include "tinyamp/support/error.h"

namespace tinyamp {

std::string shape_str(const Shape& shape)
{
    std::ostringstream out;
    out << '[';
    for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
    out << ']';
    return out.str();
}

std::int64_t numel(const Shape& shape)
{
    std::int64_t n = 1;
    bool overflow = false;
    for (auto s : shape) overflow |= __builtin_mul_overflow(n, s, &n);
    if (overflow) {  // a size of 0 still makes an empty tensor, whatever the other sizes
        for (auto s : shape)
            if (s == 0) return 0;
        TINYAMP_FAIL(shape, "shape ", shape_str(shape), " has more elements than a 64-bit count can hold; no tensor can be that large");
    }
    return n;
}

Strides contiguous_strides(const Shape& shape)
{
    Strides strides(shape.size());
    // Unsigned, so that the product is defined even when it passes 2^63: that happens only for
    // an empty tensor with huge other sizes (numel refuses any other such shape), whose strides
    // are never used to reach an element.
    std::uint64_t step = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        strides[i] = std::int64_t(step);
        step *= std::uint64_t(shape[i] > 0 ? shape[i] : 1);
    }
    return strides;
}

std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim)
{
    const std::int64_t lo = ndim > 0 ? -ndim : -1, hi = ndim > 0 ? ndim - 1 : 0;
    TINYAMP_CHECK(dim >= lo && dim <= hi, index, "dimension ", dim, " is out of range for a tensor with ", ndim,
                  " dimension", ndim == 1 ? "" : "s", " (valid: ", lo, "..", hi, ")");
    return dim < 0 ? dim + (ndim > 0 ? ndim : 1) : dim;
}

std::int64_t wrap_index(std::int64_t index, std::int64_t size, std::int64_t dim)
{
    TINYAMP_CHECK(index >= -size && index < size, index, "index ", index, " is out of range for dimension ", dim,
                  " with size ", size, size > 0 ? " (valid: " + std::to_string(-size) + ".." + std::to_string(size - 1) + ")"
                                                : " (the dimension is empty)");
    return index < 0 ? index + size : index;
}

Shape infer_size(const Shape& shape, std::int64_t total)
{
    Shape result = shape;
    std::int64_t known = 1;
    int infer_at = -1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == -1) {
            TINYAMP_CHECK(infer_at < 0, shape, "shape ", shape_str(shape), " has more than one -1; only one size can be inferred");
            infer_at = int(i);
        } else {
            TINYAMP_CHECK(shape[i] >= 0, shape, "shape ", shape_str(shape), " has a negative size ", shape[i],
                          "; sizes must be >= 0 (or -1 once, to infer it)");
            known *= shape[i];
        }
    }
    if (infer_at >= 0) {
        TINYAMP_CHECK(known != 0 && total % known == 0, shape, "shape ", shape_str(shape), " is invalid for ", total,
                      " elements: the -1 cannot be inferred");
        result[infer_at] = total / known;
    } else {
        TINYAMP_CHECK(known == total, shape, "shape ", shape_str(shape), " is invalid for ", total, " elements (it holds ",
                      known, "); pick sizes whose product is ", total);
    }
    return result;
}

Shape broadcast_shapes(const Shape& a, const Shape& b)
{
    const std::size_t n = std::max(a.size(), b.size());
    Shape out(n);
    for (std::size_t i = 0; i < n; ++i) {  // i counts from the right
        const std::int64_t sa = i < a.size() ? a[a.size() - 1 - i] : 1;
        const std::int64_t sb = i < b.size() ? b[b.size() - 1 - i] : 1;
        TINYAMP_CHECK(sa == sb || sa == 1 || sb == 1, shape, "shapes ", shape_str(a), " and ", shape_str(b),
                      " cannot be broadcast together: dimension ", -std::int64_t(i) - 1, " has sizes ", sa, " and ", sb,
                      " (sizes must be equal, or one of them 1)");
        out[n - 1 - i] = sa == 1 ? sb : sa;
    }
    return out;
}

bool broadcastable(const Shape& a, const Shape& b)
{
    for (std::size_t i = 1; i <= std::min(a.size(), b.size()); ++i) {
        const std::int64_t sa = a[a.size() - i], sb = b[b.size() - i];
        if (sa != sb && sa != 1 && sb != 1) return false;
    }
    return true;
}

// Walks the old dimensions from the last, grouping runs of dimensions that are contiguous with
// each other ("chunks"); each chunk must be covered exactly by consecutive new dimensions, which
// then get strides inside that chunk. The same algorithm as PyTorch's view.
ViewStrides view_strides(const Shape& old_shape_in, const Strides& old_strides_in, const Shape& new_shape)
{
    const Shape old_shape = old_shape_in.empty() ? Shape{1} : old_shape_in;
    const Strides old_strides = old_strides_in.empty() ? Strides{1} : old_strides_in;
    if (numel(old_shape) == 0) return {true, contiguous_strides(new_shape)};

    Strides strides(new_shape.size());
    std::int64_t view_d = std::int64_t(new_shape.size()) - 1;
    std::int64_t chunk_base_stride = old_strides.back();
    std::int64_t tensor_numel = 1, view_numel = 1;
    for (std::int64_t d = std::int64_t(old_shape.size()) - 1; d >= 0; --d) {
        tensor_numel *= old_shape[d];
        const bool chunk_ends = d == 0 || (old_shape[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride);
        if (!chunk_ends) continue;
        while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
            strides[view_d] = view_numel * chunk_base_stride;
            view_numel *= new_shape[view_d];
            --view_d;
        }
        if (view_numel != tensor_numel) return {false, {}};
        if (d > 0) {
            chunk_base_stride = old_strides[d - 1];
            tensor_numel = view_numel = 1;
        }
    }
    if (view_d != -1) return {false, {}};
    return {true, strides};
}

}  // namespace tinyamp
