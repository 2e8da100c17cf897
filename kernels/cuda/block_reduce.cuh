#pragma once
// Block-wide max and sum over shared memory, for kernels where one block handles one row.

namespace tinyamp::kernels::cuda::detail {

constexpr int kRowThreads = 256;  // a power of two: the trees halve it

/// Every thread passes its value; every thread gets the block's total. Call from all threads.
template <class C>
__device__ C block_sum(C v, C* scratch)
{
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (int half = kRowThreads / 2; half > 0; half /= 2) {
        if (int(threadIdx.x) < half) scratch[threadIdx.x] += scratch[threadIdx.x + half];
        __syncthreads();
    }
    const C total = scratch[0];
    __syncthreads();  // scratch is reused by the next call
    return total;
}

/// The block's maximum; a NaN anywhere wins (so a NaN lane comes out NaN, as on the CPU).
template <class C>
__device__ C block_max(C v, C* scratch)
{
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (int half = kRowThreads / 2; half > 0; half /= 2) {
        if (int(threadIdx.x) < half) {
            const C other = scratch[threadIdx.x + half];
            const C mine = scratch[threadIdx.x];
            if (other != other || other > mine) scratch[threadIdx.x] = other;
        }
        __syncthreads();
    }
    const C best = scratch[0];
    __syncthreads();
    return best;
}

}  // namespace tinyamp::kernels::cuda::detail
