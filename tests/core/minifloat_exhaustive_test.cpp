// Every one of the 2^32 f32 bit patterns through minifloat::encode, for each of the four formats
// in both overflow modes, against the independent reference of minifloat_reference.h (nearest of
// the format's values by binary search, ties to the even code, then the overflow rule). Runs on
// all cores; registered in CTest with label `long` (minutes on 2 cores).
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "minifloat_reference.h"

namespace mf = tinyamp::minifloat;
using minifloat_reference::ReferenceEncoder;
using minifloat_reference::Spec;

namespace {

constexpr std::uint64_t kChunk = 1 << 20;
constexpr std::uint64_t kTotal = std::uint64_t{1} << 32;
constexpr mf::Overflow kModes[] = {mf::Overflow::saturate, mf::Overflow::non_saturating};

struct Tally {
    std::atomic<std::uint64_t> checked{0};
    std::atomic<std::uint64_t> mismatches{0};
    std::mutex print;
};

void run_range(Spec spec, std::uint64_t first_chunk, std::uint64_t step, Tally& tally)
{
    const mf::Format& f = minifloat_reference::format_of(spec);
    const ReferenceEncoder reference(spec);
    for (std::uint64_t start = first_chunk * kChunk; start < kTotal; start += step * kChunk) {
        std::uint64_t bad = 0;
        for (std::uint64_t b = start; b < start + kChunk; ++b) {
            const float x = std::bit_cast<float>(std::uint32_t(b));
            const ReferenceEncoder::Codes want = reference.encode_both(x);
            for (mf::Overflow mode : kModes) {
                const std::uint8_t got = mf::encode(f, x, mode);
                const std::uint8_t expected = mode == mf::Overflow::saturate ? want.saturate : want.non_saturating;
                if (got == expected) continue;
                ++bad;
                if (tally.mismatches.load() + bad <= 10) {
                    const std::lock_guard<std::mutex> lock(tally.print);
                    std::printf("MISMATCH %s %s: input 0x%08" PRIx32 ": tinyamp 0x%02x, reference 0x%02x\n", f.name,
                                mode == mf::Overflow::saturate ? "saturate" : "non_saturating", std::uint32_t(b), got,
                                expected);
                }
            }
        }
        tally.mismatches += bad;
        tally.checked += 2 * kChunk;
    }
}

}  // namespace

int main()
{
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::printf("all 2^32 f32 inputs, 4 formats x 2 overflow modes, %u threads\n", threads);
    Tally tally;
    for (Spec spec : minifloat_reference::kSpecs) {
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t) pool.emplace_back(run_range, spec, t, threads, std::ref(tally));
        for (auto& th : pool) th.join();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s: done in %.1f s\n", minifloat_reference::format_of(spec).name, seconds);
        std::fflush(stdout);
    }
    const std::uint64_t bad = tally.mismatches.load(), checked = tally.checked.load();
    std::printf("%" PRIu64 " conversions compared\n", checked);
    std::printf("%" PRIu64 " passed, %" PRIu64 " failed\n", checked - bad, bad);
    return bad == 0 ? 0 : 1;
}
