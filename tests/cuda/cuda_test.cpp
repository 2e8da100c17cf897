// CUDA tests. Without a usable device this binary prints why and exits 77, which CTest reports
// as skipped (SKIP_RETURN_CODE 77). With one, it runs its doctest cases: this file holds the
// memory round trips; the kernels, GEMM and AMP have their own files next to it.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

TEST_CASE("a tensor survives a round trip to the GPU bit for bit, in every dtype")
{
    Generator gen(7);
    for (DType d : {f32, f16, bf16, f64}) {
        const Tensor host = randn({3, 5}, d, gen);
        const Tensor device = host.cuda();
        CHECK(device.device() == Device::cuda(0));
        CHECK(memory_stats(Device::cuda(0))[d].live_bytes >= host.nbytes());
        const Tensor back = device.cpu();
        CHECK(std::memcmp(back.data_ptr(), host.data_ptr(), std::size_t(host.nbytes())) == 0);
    }
}

TEST_CASE("views of a GPU tensor gather correctly and element access reads device memory")
{
    const Tensor host = arange(0.0, 12.0, 1.0, f32).reshape({3, 4});
    const Tensor device = host.cuda();
    CHECK(device.t().contiguous().cpu().to_vector() == host.t().contiguous().to_vector());
    CHECK(device.to(bf16).cpu().to_vector() == host.to(bf16).to_vector());
    CHECK(device.at({2, 1}) == 9.0);
    device.set({0, 0}, 42.0);
    CHECK(device.cpu().at({0, 0}) == 42.0);
    CHECK(host.at({0, 0}) == 0.0);  // the GPU copy is its own storage
}

TEST_CASE("a freed GPU block goes to the cache, the next tensor of its size reuses it, and cuda_empty_cache frees it")
{
    const Device gpu = Device::cuda(0);
    cuda_empty_cache();
    CHECK(cuda_cached_bytes(0) == 0);
    const std::int64_t live_before = memory_stats(gpu).total.live_bytes;
    const void* first = nullptr;
    {
        const Tensor a = empty({1000}, f32, gpu);  // 4000 bytes: a 4096-byte block
        first = a.data_ptr();
        CHECK(memory_stats(gpu).total.live_bytes == live_before + 4000);
    }
    CHECK(cuda_cached_bytes(0) == 4096);
    CHECK(memory_stats(gpu).total.live_bytes == live_before);  // the counters count storages, not blocks
    const Tensor b = empty({1020}, f32, gpu);  // 4080 bytes: the same rounded size
    CHECK(b.data_ptr() == first);
    CHECK(cuda_cached_bytes(0) == 0);
    CHECK(empty({2000}, f32, gpu).data_ptr() != first);
    CHECK(cuda_cached_bytes(0) == 8192);

    // A reused block holds the new tensor's values once the kernel that fills it ran, also when the
    // kernel that last read the old tensor may still be queued (one stream keeps them in order).
    Generator gen(11);
    for (int round = 0; round < 20; ++round) {
        const Tensor host = randn({257, 33}, f32, gen);
        const Tensor twice = mul(host.cuda(), 2.0);
        CHECK(twice.cpu().to_vector() == mul(host, 2.0).to_vector());
    }
    cuda_empty_cache();
    CHECK(cuda_cached_bytes(0) == 0);
}

TEST_CASE("when cudaMalloc runs out of memory, the cache is emptied and the allocation tried again")
{
    const Device gpu = Device::cuda(0);
    cuda_empty_cache();
    std::size_t free_bytes = 0, total_bytes = 0;
    REQUIRE(cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess);
    const auto big = std::int64_t(double(free_bytes) * 0.6);
    { const Tensor held = empty({big}, boolean, gpu); }  // 60 % of the free memory, now cached
    CHECK(cuda_cached_bytes(0) >= big);
    const Tensor other = empty({big + 4096}, boolean, gpu);  // another size: needs the cached memory back
    CHECK(other.numel() == big + 4096);
    CHECK(cuda_cached_bytes(0) == 0);
    // More than the GPU has is still a clear error, and leaves nothing behind.
    CHECK_THROWS_WITH_AS(empty({std::int64_t(total_bytes) * 2}, boolean, gpu), doctest::Contains("out of memory on cuda:0"),
                         tinyamp::Error);
}

int main(int argc, char** argv)
{
    // cudaGetDeviceCount fails outright (not just 0) on machines without a driver; both count as "no device".
    if (cuda_device_count() == 0) {
        std::printf("SKIP: no CUDA device: %s\n", cuda_unavailable_reason().c_str());
        return 77;
    }
    doctest::Context context(argc, argv);
    return context.run();
}
