// Every one of the 2^32 f32 bit patterns through every f32 -> f16/bf16 path: the reference
// (tinyamp's own rounding) must give the same bits as the F16C path (the vcvtps2ph instruction),
// the AVX2 and AVX-512 bf16 paths (integer rounding) and the AVX-512 BF16 path (vcvtneps2bf16
// plus tinyamp's subnormal fix-up). Runs on all cores; registered in CTest with label `long`.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/cpu_features.h"

namespace cpu = tinyamp::kernels::cpu;
using tinyamp::BFloat16;
using tinyamp::Half;

namespace {

constexpr std::uint64_t kChunk = 1 << 16;
constexpr std::uint64_t kTotal = std::uint64_t{1} << 32;

struct Tally {
    std::atomic<std::uint64_t> checked{0};
    std::atomic<std::uint64_t> mismatches{0};
};

template <class Out>
void compare(const float* in, const Out* a, const Out* b, const char* what, Tally& tally)
{
    if (std::memcmp(a, b, kChunk * sizeof(Out)) == 0) return;
    for (std::uint64_t i = 0; i < kChunk; ++i) {
        if (a[i].bits == b[i].bits) continue;
        if (tally.mismatches++ < 10) {
            std::uint32_t bits;
            std::memcpy(&bits, &in[i], 4);
            std::printf("MISMATCH %s: input 0x%08" PRIx32 ": reference 0x%04x, fast 0x%04x\n", what, bits, a[i].bits, b[i].bits);
        }
    }
}

void run_range(std::uint64_t first_chunk, std::uint64_t step, const cpu::CpuFeatures& features, Tally& tally)
{
    std::vector<float> in(kChunk);
    std::vector<Half> ref16(kChunk), fast16(kChunk);
    std::vector<BFloat16> refbf(kChunk), fastbf(kChunk);
    for (std::uint64_t start = first_chunk * kChunk; start < kTotal; start += step * kChunk) {
        for (std::uint64_t i = 0; i < kChunk; ++i) {
            const auto bits = std::uint32_t(start + i);
            std::memcpy(&in[i], &bits, 4);
        }
        // The portable bit-level paths (half_bits.h), on every CPU.
        cpu::reference::f32_to_f16(in.data(), ref16.data(), kChunk);
        cpu::bits::f32_to_f16(in.data(), fast16.data(), kChunk);
        compare(in.data(), ref16.data(), fast16.data(), "f32->f16 (bits)", tally);
        cpu::reference::f32_to_bf16(in.data(), refbf.data(), kChunk);
        cpu::bits::f32_to_bf16(in.data(), fastbf.data(), kChunk);
        compare(in.data(), refbf.data(), fastbf.data(), "f32->bf16 (bits)", tally);
        tally.checked += 2 * kChunk;
        if (features.f16c) {
            cpu::reference::f32_to_f16(in.data(), ref16.data(), kChunk);
            cpu::f16c::f32_to_f16(in.data(), fast16.data(), kChunk);
            compare(in.data(), ref16.data(), fast16.data(), "f32->f16 (F16C)", tally);
            tally.checked += kChunk;
        }
        if (features.avx512f) {
            cpu::reference::f32_to_bf16(in.data(), refbf.data(), kChunk);
            cpu::avx512::f32_to_bf16(in.data(), fastbf.data(), kChunk);
            compare(in.data(), refbf.data(), fastbf.data(), "f32->bf16 (AVX-512 integer)", tally);
            tally.checked += kChunk;
        }
        if (features.avx2) {
            cpu::reference::f32_to_bf16(in.data(), refbf.data(), kChunk);
            cpu::avx2::f32_to_bf16(in.data(), fastbf.data(), kChunk);
            compare(in.data(), refbf.data(), fastbf.data(), "f32->bf16 (AVX2)", tally);
            tally.checked += kChunk;
        }
        if (features.avx512bf16) {
            cpu::reference::f32_to_bf16(in.data(), refbf.data(), kChunk);
            cpu::avx512bf16::f32_to_bf16(in.data(), fastbf.data(), kChunk);
            compare(in.data(), refbf.data(), fastbf.data(), "f32->bf16 (AVX-512 BF16)", tally);
            tally.checked += kChunk;
        }
    }
}

}  // namespace

int main()
{
    const cpu::CpuFeatures features = cpu::detect_cpu_features();
    if (!features.f16c && !features.avx2 && !features.avx512bf16) {
        std::printf("SKIP: this CPU has neither F16C nor AVX2 nor AVX-512 BF16, so there is no fast path to compare\n");
        return 77;
    }
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::printf("all 2^32 f32 inputs, paths: %s, %u threads\n", features.str().c_str(), threads);
    const auto t0 = std::chrono::steady_clock::now();
    Tally tally;
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(run_range, t, threads, std::cref(features), std::ref(tally));
    for (auto& th : pool) th.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::uint64_t bad = tally.mismatches.load(), checked = tally.checked.load();
    std::printf("%" PRIu64 " conversions compared in %.1f s\n", checked, seconds);
    std::printf("%" PRIu64 " passed, %" PRIu64 " failed\n", checked - bad, bad);
    return bad == 0 ? 0 : 1;
}
