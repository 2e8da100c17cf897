// Printing tensors: PyTorch's layout, plus dtype and shape always shown, and each value written
// with the fewest digits that still read back as the same value of the tensor's dtype.
// A large tensor shows only the first and last few items of each dimension; only those
// elements are read and formatted, so printing a huge tensor is quick.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <sstream>

#include "kernels/cpu/convert.h"
#include "tinyamp/values/fp4_packing.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/tensor/tensor.h"

namespace tinyamp {
namespace {

constexpr std::int64_t kSummarizeAbove = 1000;  // elements; larger tensors show their edges only
constexpr std::int64_t kEdgeItems = 3;

double round_trip(double value, DType dtype)
{
    unsigned char buffer[8];
    double back = 0;
    kernels::cpu::convert(&value, DType::f64, buffer, dtype, 1);
    kernels::cpu::convert(buffer, dtype, &back, DType::f64, 1);
    return back;
}

std::string format_value(double v, DType dtype)
{
    if (dtype == DType::boolean) return v != 0 ? "true" : "false";
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char text[40];
    if (v == std::trunc(v) && std::abs(v) < 0x1p53) {  // a whole number: show it exactly (65504, not 6.55e+04)
        std::snprintf(text, sizeof text, "%.0f", v);
        return text;
    }
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, v);
        if (round_trip(std::strtod(text, nullptr), dtype) == v) break;
    }
    return text;
}

// One element in host memory. i64 is read as it is: through a double it would round above 2^53.
// An f4e2m1x2 byte holds two FP4 values: shown as "first|second" (low nibble first).
std::string format_element(const unsigned char* element, DType dtype)
{
    if (dtype == DType::f4e2m1x2) {
        const auto value = [&](std::size_t i) { return minifloat::decode(minifloat::f4e2m1, minifloat::unpack_fp4(element, i)); };
        return format_value(value(0), DType::f32) + "|" + format_value(value(1), DType::f32);
    }
    if (dtype == DType::i64) {
        std::int64_t x = 0;
        std::memcpy(&x, element, sizeof x);
        return std::to_string(x);
    }
    double v = 0;
    kernels::cpu::convert(element, dtype, &v, DType::f64, 1);  // never fails: to f64
    return format_value(v, dtype);
}

class Printer {
public:
    explicit Printer(const Tensor& host)
        : shape_(host.shape()), summarize_(host.numel() > kSummarizeAbove)
    {
        collect(host, 0, host.storage_offset());
    }

    std::string str() { return block(0, 7); }  // 7: the width of "tensor("

private:
    // The indices shown along a dimension of size n; -1 stands for the "..." between the edges.
    std::vector<std::int64_t> shown(std::int64_t n) const
    {
        const bool elide = summarize_ && n > 2 * kEdgeItems;
        std::vector<std::int64_t> indices;
        for (std::int64_t i = 0; i < n; ++i) {
            if (elide && i == kEdgeItems) {
                indices.push_back(-1);
                i = n - kEdgeItems - 1;
                continue;
            }
            indices.push_back(i);
        }
        return indices;
    }

    // Formats the shown elements, in printing order. `offset` is in elements, into the storage.
    void collect(const Tensor& host, std::size_t d, std::int64_t offset)
    {
        if (d == shape_.size()) {
            const auto* base = static_cast<const unsigned char*>(host.storage()->data());
            text_.push_back(format_element(base + offset * host.element_size(), host.dtype()));
            width_ = std::max(width_, text_.back().size());
            return;
        }
        for (std::int64_t i : shown(shape_[d]))
            if (i >= 0) collect(host, d + 1, offset + i * host.strides()[d]);
    }

    // Separator between the items of dimension d: ", " in the last dimension, else a newline
    // (two for 3-D and up) indented under the opening bracket.
    std::string separator(std::size_t d, std::size_t indent) const
    {
        if (d + 1 == shape_.size()) return ", ";
        std::string sep(",");
        sep.append(d + 2 < shape_.size() ? 2 : 1, '\n');
        sep.append(indent + 1, ' ');
        return sep;
    }

    // Dimension d and those inside it, taking the formatted values in the order collect() made them.
    std::string block(std::size_t d, std::size_t indent)
    {
        if (shape_.empty()) return text_[0];
        const bool last_dim = d + 1 == shape_.size();
        const std::string sep = separator(d, indent);
        const std::vector<std::int64_t> indices = shown(shape_[d]);
        std::string out(1, '[');
        for (std::size_t j = 0; j < indices.size(); ++j) {
            if (j > 0) out.append(sep);
            if (indices[j] < 0) {
                out.append("...");
            } else if (last_dim) {
                const std::string& t = text_[next_++];
                out.append(width_ - t.size(), ' ').append(t);
            } else {
                out.append(block(d + 1, indent + 1));
            }
        }
        out.push_back(']');
        return out;
    }

    const Shape& shape_;
    bool summarize_;
    std::vector<std::string> text_;  // the shown values, formatted, in printing order
    std::size_t width_ = 0;          // of the widest shown value: columns line up
    std::size_t next_ = 0;           // the next entry of text_ that block() prints
};

}  // namespace

std::string Tensor::to_string() const
{
    if (!defined()) return "tensor(undefined)";
    const Tensor host = layout::to_device(*this, Device::cpu());  // a copy, not the `to` op
    std::ostringstream out;
    out << "tensor(" << Printer(host).str() << ", dtype=" << dtype_name(dtype()) << ", shape=" << shape_str(shape());
    if (!device().is_cpu()) out << ", device=" << device();
    if (requires_grad()) out << ", requires_grad=true";
    if (!name().empty()) out << ", name='" << name() << "'";
    out << ')';
    return out.str();
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) { return out << tensor.to_string(); }

}  // namespace tinyamp
