#include "tinyamp/ops/type_promotion.h"

#include <cmath>

#include "tinyamp/tensor/factories.h"

namespace tinyamp {
namespace {

int category(DType d) { return d == DType::boolean ? 0 : is_floating_point(d) ? 2 : 1; }

}  // namespace

DType result_type(const Tensor& a, const Tensor& b)
{
    const bool a_dims = a.dim() > 0, b_dims = b.dim() > 0;
    if (a_dims == b_dims) return promote_types(a.dtype(), b.dtype());
    const DType dimensioned = a_dims ? a.dtype() : b.dtype();
    const DType zero_dim = a_dims ? b.dtype() : a.dtype();
    // A 0-D tensor only decides the dtype when it brings a higher category.
    return category(zero_dim) > category(dimensioned) ? zero_dim : dimensioned;
}

Tensor scalar_like(double value, const Tensor& like)
{
    if (is_floating_point(like.dtype())) return scalar_tensor(value, like.dtype());
    const bool whole = std::isfinite(value) && value == std::trunc(value) && std::abs(value) < 0x1p62;
    return scalar_tensor(value, whole ? DType::i64 : DType::f32);
}

DType float_result_type(DType dtype) { return is_floating_point(dtype) ? dtype : DType::f32; }

void require_cpu(const char* op, const std::vector<Tensor>& tensors)
{
    for (const Tensor& t : tensors)
        TINYAMP_CHECK(!t.defined() || t.device().is_cpu(), device, op, " has no CUDA kernel yet, and got a tensor on ", t.device(),
                      "; move the tensors with .cpu()");
}

Device op_device(const char* op, std::initializer_list<Tensor> tensors)
{
    const Tensor* first = nullptr;  // the first tensor that decides: on a GPU, or with dimensions
    for (const Tensor& t : tensors) {
        if (!t.defined() || (t.device().is_cpu() && t.dim() == 0)) continue;
        if (!first) {
            first = &t;
            continue;
        }
        TINYAMP_CHECK(t.device() == first->device(), device, "Expected all tensors to be on the same device, but found at least two devices, ",
                      first->device(), " and ", t.device(), "! (in ", op, "); move them to one device with .to(device), e.g. .cuda() or .cpu()");
    }
    if (first) return first->device();
    for (const Tensor& t : tensors)  // only 0-D CPU tensors, or nothing defined
        if (t.defined()) return t.device();
    return Device::cpu();
}

}  // namespace tinyamp
