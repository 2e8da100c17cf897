#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

// The counters are global, so every check here is a difference between two snapshots taken
// around the statements under test (nothing else allocates tensors in between).

TEST_CASE("memory stats: a new tensor adds exactly its bytes, and dropping it takes them back")
{
    const MemoryStats before = memory_stats();
    {
        const Tensor t = zeros({3, 5}, f16);  // 15 elements x 2 bytes
        const MemoryStats during = memory_stats();
        CHECK(during[f16].live_bytes - before[f16].live_bytes == 30);
        CHECK(during[f16].allocations - before[f16].allocations == 1);
        CHECK(during.total.live_bytes - before.total.live_bytes == 30);
        CHECK(during.total.allocations - before.total.allocations == 1);
        // No other dtype moved: zeros() computes in f64 on the host, but not in a tensor.
        for (DType d : {f64, f32, bf16, i64, boolean}) {
            INFO("dtype ", std::string(dtype_name(d)));
            CHECK(during[d].live_bytes == before[d].live_bytes);
            CHECK(during[d].allocations == before[d].allocations);
        }
    }
    const MemoryStats after = memory_stats();
    CHECK(after[f16].live_bytes == before[f16].live_bytes);
    CHECK(after[f16].allocations == before[f16].allocations);
    CHECK(after.total.live_bytes == before.total.live_bytes);
    CHECK(after.total.allocations == before.total.allocations);
}

TEST_CASE("memory stats: views and copies of the handle add nothing, and the storage lives while any view does")
{
    const MemoryStats before = memory_stats();
    Tensor view;
    {
        const Tensor t = ones({4, 6}, f32);  // 96 bytes
        CHECK(memory_stats()[f32].live_bytes - before[f32].live_bytes == 96);
        const Tensor handle = t;  // copies the handle, not the data
        view = t.t().slice(0, 1, 5, 2).unsqueeze(0).expand({3, 2, 4});  // shape [3, 2, 4]
        const Tensor others[] = {t.view({24}), t.reshape({2, 12}), t.select(1, 2), t.narrow(0, 1, 2), t.permute({1, 0}),
                                 t.contiguous(), t.to(f32), t.squeeze(0)};
        const MemoryStats with_views = memory_stats();
        CHECK(with_views[f32].live_bytes - before[f32].live_bytes == 96);
        CHECK(with_views[f32].allocations - before[f32].allocations == 1);
        CHECK(with_views.total.allocations - before.total.allocations == 1);
    }
    // `t` is gone but `view` still holds its storage.
    CHECK(memory_stats()[f32].live_bytes - before[f32].live_bytes == 96);
    CHECK(view.at({2, 1, 3}) == 1.0);
    view = Tensor();
    CHECK(memory_stats()[f32].live_bytes == before[f32].live_bytes);
    CHECK(memory_stats()[f32].allocations == before[f32].allocations);
}

TEST_CASE("memory stats: copies count in their own dtype")
{
    const Tensor x = zeros({2, 8}, f32);  // 64 bytes
    MemoryStats before = memory_stats();
    {
        const Tensor h = x.to(f16);  // contiguous source: just the 32-byte result
        MemoryStats now = memory_stats();
        CHECK(now[f16].live_bytes - before[f16].live_bytes == 32);
        CHECK(now[f32].live_bytes == before[f32].live_bytes);
        CHECK(now.total.live_bytes - before.total.live_bytes == 32);

        const Tensor c = x.t().contiguous();  // a real copy: 64 more f32 bytes
        now = memory_stats();
        CHECK(now[f32].live_bytes - before[f32].live_bytes == 64);
        CHECK(now[f32].allocations - before[f32].allocations == 1);

        const Tensor b = zeros({10}, boolean);  // 1 byte per element
        const Tensor l = zeros({3}, i64);       // 8 bytes per element
        now = memory_stats();
        CHECK(now[boolean].live_bytes - before[boolean].live_bytes == 10);
        CHECK(now[i64].live_bytes - before[i64].live_bytes == 24);
        CHECK(now.total.live_bytes - before.total.live_bytes == 32 + 64 + 10 + 24);
        CHECK(now.total.allocations - before.total.allocations == 4);
    }
    CHECK(memory_stats().total.live_bytes == before.total.live_bytes);

    // An empty tensor is a storage of 0 bytes: counted as one, adding no bytes.
    {
        const Tensor e = zeros({0, 5}, bf16);
        const MemoryStats now = memory_stats();
        CHECK(now[bf16].allocations - before[bf16].allocations == 1);
        CHECK(now[bf16].live_bytes == before[bf16].live_bytes);
    }
    CHECK(memory_stats()[bf16].allocations == before[bf16].allocations);
}

TEST_CASE("memory stats: a failed conversion leaks nothing")
{
    const Tensor x = tensor({1.0, std::nan(""), 3.0});
    const MemoryStats before = memory_stats();
    CHECK_THROWS_AS(x.to(i64), Error);
    CHECK_THROWS_AS(tensor({1.0, 1e300}, Shape{2}, i64), Error);
    const MemoryStats after = memory_stats();
    CHECK(after[i64].live_bytes == before[i64].live_bytes);
    CHECK(after[i64].allocations == before[i64].allocations);
    CHECK(after.total.live_bytes == before.total.live_bytes);
    // The failed attempts did allocate for a moment, which the peak remembers.
    CHECK(after[i64].peak_bytes >= before[i64].live_bytes + 24);
}

TEST_CASE("memory stats: the peak stays until reset_peak_memory_stats, which sets it to what is live")
{
    reset_peak_memory_stats();
    const MemoryStats start = memory_stats();
    CHECK(start.total.peak_bytes == start.total.live_bytes);
    for (DType d : kAllDTypes) {
        INFO("dtype ", std::string(dtype_name(d)));
        CHECK(start[d].peak_bytes == start[d].live_bytes);
    }

    {
        const Tensor a = zeros({100}, f32);  // 400 bytes
        {
            const Tensor b = zeros({50}, f64);  // 400 bytes
            const MemoryStats both = memory_stats();
            CHECK(both.total.peak_bytes - start.total.live_bytes == 800);
            CHECK(both[f32].peak_bytes - start[f32].live_bytes == 400);
            CHECK(both[f64].peak_bytes - start[f64].live_bytes == 400);
        }
        const Tensor c = zeros({20}, f64);  // 160 bytes, while `a` is still live
        const MemoryStats later = memory_stats();
        CHECK(later.total.live_bytes - start.total.live_bytes == 560);
        CHECK(later.total.peak_bytes - start.total.live_bytes == 800);  // the high-water mark stays
        CHECK(later[f64].live_bytes - start[f64].live_bytes == 160);
        CHECK(later[f64].peak_bytes - start[f64].live_bytes == 400);
    }
    const MemoryStats end = memory_stats();
    CHECK(end.total.live_bytes == start.total.live_bytes);
    CHECK(end.total.peak_bytes - start.total.live_bytes == 800);
    CHECK(end[f32].peak_bytes - start[f32].live_bytes == 400);

    reset_peak_memory_stats();
    const MemoryStats reset = memory_stats();
    CHECK(reset.total.peak_bytes == reset.total.live_bytes);
    CHECK(reset.total.live_bytes == start.total.live_bytes);
    CHECK(reset[f32].peak_bytes == reset[f32].live_bytes);
    CHECK(reset[f64].peak_bytes == reset[f64].live_bytes);
}

TEST_CASE("memory stats: the total's peak is the peak of the sum, not the sum of the peaks")
{
    reset_peak_memory_stats();
    const MemoryStats start = memory_stats();
    { const Tensor a = zeros({10}, f32); }  // 40 bytes, then gone
    { const Tensor b = zeros({10}, f16); }  // 20 bytes, then gone
    const MemoryStats end = memory_stats();
    CHECK(end[f32].peak_bytes - start[f32].live_bytes == 40);
    CHECK(end[f16].peak_bytes - start[f16].live_bytes == 20);
    CHECK(end.total.peak_bytes - start.total.live_bytes == 40);  // never 60 at once
}

TEST_CASE("memory stats are kept per device")
{
    const Device gpu = Device::cuda(0);
    const MemoryStats cuda_before = memory_stats(gpu);
    CHECK(cuda_before.device == gpu);
    CHECK(memory_stats().device == Device::cpu());
    {
        const Tensor t = zeros({64}, f32);
        const MemoryStats cuda_now = memory_stats(gpu);
        CHECK(cuda_now.total.live_bytes == cuda_before.total.live_bytes);
        CHECK(cuda_now.total.allocations == cuda_before.total.allocations);
    }
    CHECK(memory_stats(Device::cuda(5)).device == Device::cuda(5));
    CHECK(memory_stats(Device::cuda(5)).total.allocations == 0);
}

TEST_CASE("MemoryStats::to_string: a header line, then one row per dtype in use")
{
    MemoryStats s;
    s.total = {30, 430, 1};
    s.by_dtype[static_cast<int>(f16)] = {30, 30, 1};
    s.by_dtype[static_cast<int>(f64)] = {0, 400, 0};  // freed, but its peak is shown
    CHECK(s[f16].live_bytes == 30);
    CHECK(s[f64].peak_bytes == 400);
    const std::string expected =
        "memory on cpu:  live 30 B, peak 430 B, 1 storage\n"
        "  f64   live            0 B   peak          400 B   storages 0\n"
        "  f16   live           30 B   peak           30 B   storages 1\n";
    CHECK(s.to_string() == expected);
    std::ostringstream out;
    out << s;
    CHECK(out.str() == expected);

    MemoryStats none;
    none.device = Device::cuda(1);
    CHECK(none.to_string() == "memory on cuda:1:  live 0 B, peak 0 B, 0 storages\n");
    none.total.allocations = 2;
    CHECK(none.to_string() == "memory on cuda:1:  live 0 B, peak 0 B, 2 storages\n");
}

TEST_CASE("Storage: aligned raw memory, counted while it lives")
{
    const MemoryStats before = memory_stats();
    {
        const auto s = std::make_shared<Storage>(100, f32, Device::cpu());
        CHECK(s->nbytes() == 100);
        CHECK(s->dtype() == f32);
        CHECK(s->device() == Device::cpu());
        REQUIRE(s->data() != nullptr);
        CHECK(reinterpret_cast<std::uintptr_t>(s->data()) % 64 == 0);
        CHECK(memory_stats()[f32].live_bytes - before[f32].live_bytes == 100);  // what was asked, not the rounded size
        const Storage empty_storage(0, f16, Device::cpu());
        CHECK(empty_storage.data() == nullptr);
        CHECK(empty_storage.nbytes() == 0);
    }
    CHECK(memory_stats()[f32].live_bytes == before[f32].live_bytes);
    CHECK(memory_stats()[f16].allocations == before[f16].allocations);

    CHECK_THROWS_WITH_AS(Storage(-8, f32, Device::cpu()), "value error: cannot allocate a negative number of bytes (-8)", Error);
    if (cuda_device_count() == 0) {
        const MemoryStats cuda_before = memory_stats(Device::cuda(0));
        CHECK_THROWS_AS(Storage(16, f32, Device::cuda(0)), Error);
        CHECK(memory_stats(Device::cuda(0)).total.allocations == cuda_before.total.allocations);  // not counted
    }
    CHECK(memory_stats().total.live_bytes == before.total.live_bytes);
}
