// The amx tier (gemm_fast.h), for bf16 inputs only: the blocked GEMM of gemm_blocked.h around the
// micro-kernel of gemm_amx_kernel.h (32 x 32 of C in four AMX tiles, fed by tdpbf16ps), on the
// CPU's tiles or on their emulation.
#include "kernels/cpu/gemm_amx_kernel.h"

namespace tinyamp::kernels::cpu::amx {
#if defined(__x86_64__)  // elsewhere gemm_on_tier() never calls a tier
template <class Out>
void gemm_amx(const GemmProblem<BFloat16, Out>& problem, int threads)
{
    blocked::gemm_blocked<Kernel<HardwareTiles>>(problem, threads);
}

template <class Out>
void gemm_amx_emulated(const GemmProblem<BFloat16, Out>& problem, int threads)
{
    blocked::gemm_blocked<Kernel<EmulatedTiles>>(problem, threads);
}

template void gemm_amx<BFloat16>(const GemmProblem<BFloat16, BFloat16>&, int);
template void gemm_amx<float>(const GemmProblem<BFloat16, float>&, int);
template void gemm_amx_emulated<BFloat16>(const GemmProblem<BFloat16, BFloat16>&, int);
template void gemm_amx_emulated<float>(const GemmProblem<BFloat16, float>&, int);

#endif

}  // namespace tinyamp::kernels::cpu::amx
