// Built when tinyamp has no CUDA backend (nvcc was not found, or -DTINYAMP_CUDA=OFF): the CUDA
// kernels' entry points exist, so ops link, and each says clearly why it cannot run. Ops only
// reach them for CUDA tensors, which cannot be made without the backend, so these are a guard.
#include "kernels/cuda/amp_cuda.h"
#include "kernels/cuda/convert_cuda.h"
#include "kernels/cuda/elementwise_cuda.h"
#include "kernels/cuda/gemm_cuda.h"
#include "kernels/cuda/loss_cuda.h"
#include "kernels/cuda/optimizer_step_cuda.h"
#include "kernels/cuda/reduce_cuda.h"
#include "kernels/cuda/softmax_cuda.h"
#include "kernels/cuda/strided_copy_cuda.h"
#include "tinyamp/support/error.h"

namespace tinyamp::kernels::cuda {
namespace {

[[noreturn]] void absent(const char* kernel)
{
    TINYAMP_FAIL(device, "the CUDA kernel '", kernel, "' is not available: tinyamp was built without its CUDA backend (nvcc was not found "
                         "or TINYAMP_CUDA was OFF when CMake configured the build); install the CUDA toolkit and reconfigure, or keep "
                         "the tensors on the CPU");
}

}  // namespace

std::int64_t convert(const void*, DType, void*, DType, std::int64_t, int) { absent("convert"); }
void strided_copy(const void*, const std::int64_t*, const std::int64_t*, int, std::int64_t, void*, int) { absent("strided_copy"); }
void strided_scatter(const void*, const std::int64_t*, const std::int64_t*, int, std::int64_t, void*, int) { absent("strided_scatter"); }
void binary(BinaryOp, DType, const void*, const void*, const BroadcastLayout&, void*, int) { absent("binary"); }
void unary(UnaryOp, DType, const void*, void*, std::int64_t, double, int) { absent("unary"); }
void where(const bool*, const void*, const void*, DType, const BroadcastLayout&, void*, int) { absent("where"); }
void fill(void*, DType, std::int64_t, double, int) { absent("fill"); }
void sum_rows(const void*, DType, std::int64_t, std::int64_t, void*, DType, double, int) { absent("sum_rows"); }
void max_rows(const void*, DType, std::int64_t, std::int64_t, void*, std::int64_t*, int) { absent("max_rows"); }
void take_along_rows(const void*, std::int64_t, std::int64_t, std::int64_t, const std::int64_t*, void*, int) { absent("take_along_rows"); }
void put_along_rows(const void*, std::int64_t, std::int64_t, std::int64_t, const std::int64_t*, void*, int) { absent("put_along_rows"); }
void softmax_lanes(const void*, void*, DType, std::int64_t, std::int64_t, std::int64_t, bool, int) { absent("softmax_lanes"); }
void layer_norm_rows(const void*, DType, std::int64_t, std::int64_t, double, const void*, const void*, DType, void*, void*, void*, int)
{
    absent("layer_norm_rows");
}
void cross_entropy_rows(const void*, DType, std::int64_t, std::int64_t, const std::int64_t*, std::int64_t, void*, int)
{
    absent("cross_entropy_rows");
}
void nll_rows(const void*, DType, std::int64_t, std::int64_t, const std::int64_t*, std::int64_t, void*, int) { absent("nll_rows"); }
void target_masks(const std::int64_t*, std::int64_t, std::int64_t, std::int64_t, double, DType, void*, void*, int) { absent("target_masks"); }
void gemm(DType, Transpose, Transpose, std::int64_t, std::int64_t, std::int64_t, double, const void*, std::int64_t, std::int64_t, const void*,
          std::int64_t, std::int64_t, double, void*, std::int64_t, std::int64_t, std::int64_t, int)
{
    absent("gemm");
}
void amp_foreach_non_finite_check_and_unscale_(const std::vector<GradBuffer>&, float*, const float*, int)
{
    absent("amp_foreach_non_finite_check_and_unscale_");
}
void amp_update_scale_(float*, std::int64_t*, const float*, double, double, std::int64_t, int) { absent("amp_update_scale_"); }

void optimizer_step(const SgdRule<float>&, float*, const float*, float*, float*, std::int64_t, int) { absent("optimizer_step"); }
void optimizer_step(const SgdRule<double>&, double*, const double*, double*, double*, std::int64_t, int) { absent("optimizer_step"); }
void optimizer_step(const AdamRule<float>&, float*, const float*, float*, float*, std::int64_t, int) { absent("optimizer_step"); }
void optimizer_step(const AdamRule<double>&, double*, const double*, double*, double*, std::int64_t, int) { absent("optimizer_step"); }

}  // namespace tinyamp::kernels::cuda
