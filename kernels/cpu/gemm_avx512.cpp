// The avx512 tier (gemm_fast.h): the blocked GEMM of gemm_blocked.h around the 8 x 32 micro-kernel
// of f32 FMAs in 512-bit registers (gemm_avx512_kernel.h). f16 and bf16 inputs arrive here already
// widened to f32 by the packing, so one kernel serves all three dtypes.
#include "kernels/cpu/gemm_avx512_kernel.h"
#include "kernels/cpu/gemm_blocked.h"

namespace tinyamp::kernels::cpu::avx512 {
#if defined(__x86_64__)  // elsewhere gemm_on_tier() never calls a tier

TINYAMP_DEFINE_WIDENING_GEMM_TIER(gemm_avx512, Kernel<>)

#endif

}  // namespace tinyamp::kernels::cpu::avx512
