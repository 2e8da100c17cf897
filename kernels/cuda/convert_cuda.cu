// CUDA dtype conversions: one thread per element (grid-stride), one rounding per element.
#include "kernels/cuda/convert_cuda.h"

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_math.cuh"

namespace tinyamp::kernels::cuda {
namespace {

using detail::global_index;
using detail::grid_stride;

// Writes the element as To, or records its index in *first_bad (the smallest one wins) when it
// has no value in To: only possible from a float to i64.
template <class From, class To>
__global__ void convert_kernel(const From* src, To* dst, std::int64_t n, unsigned long long* first_bad)
{
    for (std::int64_t i = global_index(); i < n; i += grid_stride()) {
        const From x = src[i];
        if constexpr (std::is_same_v<From, To>) {
            dst[i] = x;
        } else if constexpr (std::is_same_v<To, std::int64_t> && !std::is_same_v<From, std::int64_t> && !std::is_same_v<From, bool>) {
            const double d = double(detail::load(x));
            constexpr double two_pow_63 = 9223372036854775808.0;
            if (!(d >= -two_pow_63 && d < two_pow_63)) {
                atomicMin(first_bad, (unsigned long long)i);
                dst[i] = 0;
            } else {
                dst[i] = std::int64_t(d);  // truncates toward zero
            }
        } else if constexpr (std::is_same_v<From, bool>) {
            dst[i] = detail::store<To>(x ? 1.0f : 0.0f);
        } else if constexpr (std::is_same_v<From, std::int64_t>) {
            if constexpr (std::is_same_v<To, bool>) dst[i] = x != 0;
            else dst[i] = detail::store<To>(x);  // one rounding, straight from the integer
        } else if constexpr (std::is_same_v<From, double>) {
            dst[i] = detail::store<To>(x);  // straight from f64: one rounding
        } else {
            // f32, f16, bf16: exact in f32, so one rounding into To.
            dst[i] = detail::store<To>(detail::load(x));
        }
    }
}

}  // namespace

std::int64_t convert(const void* src, DType src_dtype, void* dst, DType dst_dtype, std::int64_t n, int device)
{
    if (n <= 0) return -1;
    detail::use_device(device);
    constexpr unsigned long long none = ~0ull;
    unsigned long long* first_bad = nullptr;
    // Frees the flag however this function ends: a failed copy or launch below throws.
    struct FreeFlag {
        unsigned long long*& p;
        ~FreeFlag() { if (p) cudaFree(p); }
    } free_flag{first_bad};
    const bool can_fail = dst_dtype == DType::i64 && is_floating_point(src_dtype);
    if (can_fail) {
        detail::check(cudaMalloc(&first_bad, sizeof(unsigned long long)), "cudaMalloc (convert flag)");
        detail::check(cudaMemcpy(first_bad, &none, sizeof none, cudaMemcpyHostToDevice), "cudaMemcpy (convert flag)");
    }
    constexpr int threads = 256;
    detail::visit_device_dtype(src_dtype, [&](auto src_tag) {
        using From = decltype(src_tag);
        detail::visit_device_dtype(dst_dtype, [&](auto dst_tag) {
            using To = decltype(dst_tag);
            convert_kernel<From, To><<<detail::blocks_for(n, threads), threads>>>(static_cast<const From*>(src), static_cast<To*>(dst), n,
                                                                                 first_bad);
        });
    });
    detail::check_launch("convert kernel");
    if (!can_fail) return -1;
    unsigned long long bad = none;
    detail::check(cudaMemcpy(&bad, first_bad, sizeof bad, cudaMemcpyDeviceToHost), "cudaMemcpy (convert flag back)");
    return bad == none ? -1 : std::int64_t(bad);
}

}  // namespace tinyamp::kernels::cuda
