#include "tinyamp/tensor/factories.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/cpu/convert.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/tensor/storage.h"
#include "tinyamp/tensor/cuda_memory.h"

namespace tinyamp {
namespace {

void check_shape(const Shape& shape)
{
    for (auto s : shape)
        TINYAMP_CHECK(s >= 0, shape, "shape ", shape_str(shape), " has a negative size; sizes must be >= 0");
}

// The f64 values a factory computes before rounding them into the dtype. A shape too large for
// the machine is an Error here (shape: beyond 64 bits; value: out of memory), before any
// allocation is tried.
std::vector<double> staging_values(const Shape& shape, DType dtype)
{
    check_shape(shape);
    storage_nbytes(shape, dtype);  // first for the caller's dtype, so that an overflow's message names it
    check_fits_in_memory(storage_nbytes(shape, f64), "the f64 values of a " + std::string(dtype_name(dtype)) + " tensor of shape " + shape_str(shape));
    return std::vector<double>(std::size_t(numel(shape)));
}

// Fills `count` elements of `size` bytes each with the element at `pattern`.
void fill_elements(void* out, const void* pattern, std::int64_t count, std::int64_t size)
{
    auto fill = [&]<class T>(T) {
        T value;
        std::memcpy(&value, pattern, sizeof value);
        std::fill_n(static_cast<T*>(out), count, value);
    };
    switch (size) {
    case 1: fill(std::uint8_t{}); break;
    case 2: fill(std::uint16_t{}); break;
    case 4: fill(std::uint32_t{}); break;
    case 8: fill(std::uint64_t{}); break;
    default: TINYAMP_FAIL(dtype, "no fill for elements of ", size, " bytes");
    }
}

// Rounds `count` f64 values once into `dtype` at `out`; a value the dtype has no value for (NaN
// or out of range for an integer dtype) is a value Error naming it.
void round_into(const double* values, std::int64_t count, void* out, DType dtype)
{
    const std::int64_t bad = kernels::cpu::convert(values, DType::f64, out, dtype, count);
    TINYAMP_CHECK(bad < 0, value, "value ", values[bad < 0 ? 0 : bad], " (element ", bad, ") has no ", dtype_name(dtype),
                  " value; use finite numbers within the range of ", dtype_name(dtype), " or another dtype");
}

// Every factory computes its values in f64 on the host, then rounds them once into the dtype.
// To another device it is a plain copy (layout::to_device), not the `to` op, which lives above
// the dispatcher: a factory makes a leaf, with no graph to record.
Tensor from_f64(const std::vector<double>& values, const Shape& shape, DType dtype, Device device)
{
    Tensor host = empty(shape, dtype, Device::cpu());
    round_into(values.data(), std::int64_t(values.size()), host.data_ptr(), dtype);
    return layout::to_device(host, device);
}

}  // namespace

Tensor empty(const Shape& shape, DType dtype, Device device)
{
    check_shape(shape);
    auto impl = std::make_shared<TensorImpl>();
    impl->storage = std::make_shared<Storage>(storage_nbytes(shape, dtype), dtype, device);
    impl->shape = shape;
    impl->strides = contiguous_strides(shape);
    impl->dtype = dtype;
    return Tensor(std::move(impl));
}

Tensor tensor(const std::vector<double>& values, const Shape& shape, DType dtype, Device device)
{
    check_shape(shape);
    TINYAMP_CHECK(std::int64_t(values.size()) == numel(shape), shape, "tensor(): ", values.size(), " values do not fill shape ",
                  shape_str(shape), ", which holds ", numel(shape), "; pass as many values as the shape holds");
    return from_f64(values, shape, dtype, device);
}

Tensor tensor(std::initializer_list<double> values) { return tensor(values, f32); }

Tensor scalar_tensor(double value, DType dtype) { return tensor({value}, Shape{}, dtype); }

Tensor full(const Shape& shape, double value, DType dtype, Device device)
{
    check_shape(shape);
    // The value rounded once into the dtype, then copied into every element (no f64 staging).
    alignas(8) unsigned char element[8];
    round_into(&value, 1, element, dtype);
    Tensor host = empty(shape, dtype, Device::cpu());
    fill_elements(host.data_ptr(), element, host.numel(), host.element_size());
    return layout::to_device(host, device);
}

Tensor zeros(const Shape& shape, DType dtype, Device device) { return full(shape, 0.0, dtype, device); }
Tensor ones(const Shape& shape, DType dtype, Device device) { return full(shape, 1.0, dtype, device); }
Tensor zeros_like(const Tensor& like) { return zeros(like.shape(), like.dtype(), like.device()); }
Tensor ones_like(const Tensor& like) { return ones(like.shape(), like.dtype(), like.device()); }
Tensor full_like(const Tensor& like, double value) { return full(like.shape(), value, like.dtype(), like.device()); }

Tensor arange(std::int64_t end, DType dtype)
{
    TINYAMP_CHECK(end >= 0, value, "arange(", end, "): end must be >= 0");
    std::vector<double> values = staging_values(Shape{end}, dtype);
    for (std::int64_t i = 0; i < end; ++i) values[std::size_t(i)] = double(i);
    return from_f64(values, Shape{end}, dtype, Device::cpu());
}

Tensor arange(double start, double end, double step, DType dtype)
{
    TINYAMP_CHECK(step != 0 && std::isfinite(step) && std::isfinite(start) && std::isfinite(end), value, "arange(", start, ", ", end,
                  ", ", step, "): start and end must be finite and step finite and non-zero");
    TINYAMP_CHECK((end - start) / step >= 0, value, "arange(", start, ", ", end, ", ", step,
                  "): step goes the wrong way (from start it never reaches end); flip its sign");
    const double steps = std::ceil((end - start) / step);
    TINYAMP_CHECK(steps < 0x1p40, value, "arange(", start, ", ", end, ", ", step, ") would hold ", steps,
                  " elements; use a larger step or a smaller range");
    const auto count = std::int64_t(steps);
    std::vector<double> values = staging_values(Shape{count}, dtype);
    for (std::int64_t i = 0; i < count; ++i) values[std::size_t(i)] = start + double(i) * step;
    return from_f64(values, Shape{count}, dtype, Device::cpu());
}

Tensor rand(const Shape& shape, DType dtype, Generator& generator)
{
    check_shape(shape);
    TINYAMP_CHECK(is_floating_point(dtype), dtype, "rand() makes floating point values, not ", dtype_name(dtype), "; pick f32, f64, f16 or bf16");
    // k * 2^-(M+1) with k < 2^(M+1): every value is exact in the dtype and below 1, so rounding
    // can never turn 0.9999 into 1 (as it would drawing in f64 and rounding to bf16).
    const int bits = traits(dtype).mantissa_bits + 1;
    const double unit = pow2(-bits);
    std::vector<double> values = staging_values(shape, dtype);
    for (auto& v : values) v = double(generator.next_u64() >> (64 - bits)) * unit;
    return from_f64(values, shape, dtype, Device::cpu());
}

Tensor randn(const Shape& shape, DType dtype, Generator& generator)
{
    check_shape(shape);
    TINYAMP_CHECK(is_floating_point(dtype), dtype, "randn() makes floating point values, not ", dtype_name(dtype), "; pick f32, f64, f16 or bf16");
    std::vector<double> values = staging_values(shape, dtype);
    for (auto& v : values) v = generator.normal();
    return from_f64(values, shape, dtype, Device::cpu());
}

}  // namespace tinyamp
