// CUDA tests. Without a usable device this binary prints why and exits 77, which CTest reports
// as skipped (SKIP_RETURN_CODE 77). With one, it runs its doctest cases: this file holds the
// memory round trips; the kernels, GEMM and AMP have their own files next to it.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

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
    CHECK(device.at({2, 1}) == 9.0);
    device.set({0, 0}, 42.0);
    CHECK(device.cpu().at({0, 0}) == 42.0);
    CHECK(device.to(bf16).cpu().to_vector() == host.to(bf16).to_vector());
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
