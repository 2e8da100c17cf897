// Every one of the 2^32 f32 bit patterns through minifloat::encode, for each of the four formats
// in both overflow modes, against the independent reference of minifloat_reference.h (nearest of
// the format's values by binary search, ties to the even code, then the overflow rule). Runs on
// all cores; registered in CTest with label `long`.
//
// tinyamp's encode runs on every input; the reference does not need to. Over the finite, non-zero
// inputs of one sign, the reference is a step function of the bit pattern: a larger pattern is a
// larger magnitude, the nearest value's index never goes down as the magnitude grows, and the
// codes beyond max are one overflow code next to max's. So each code's inputs form one interval,
// and where the reference gives the same codes at both ends of a range, it gives them inside. A
// bisection finds those ranges with a few thousand reference calls per format (instead of 2^32).
// Zeros, infinities and NaNs are not on that staircase: the reference is asked for each of them.
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
using Codes = ReferenceEncoder::Codes;

namespace {

constexpr std::uint64_t kChunk = 1 << 20;
constexpr std::uint64_t kTotal = std::uint64_t{1} << 32;

float from_bits(std::uint64_t b) { return std::bit_cast<float>(std::uint32_t(b)); }
bool same(Codes a, Codes b) { return a.saturate == b.saturate && a.non_saturating == b.non_saturating; }

// Bit patterns [first, last] on which the reference gives `codes`, or, when `ask_each` is set,
// patterns the reference is asked about one by one.
struct Run {
    std::uint64_t first, last;
    Codes codes;
    bool ask_each;
};

// The runs of [first, last], finite non-zero patterns of one sign, by bisection (see the top).
void staircase(const ReferenceEncoder& reference, std::uint64_t first, std::uint64_t last, Codes at_first, Codes at_last,
               std::vector<Run>& runs)
{
    if (same(at_first, at_last)) {
        runs.push_back({first, last, at_first, false});
        return;
    }
    if (last == first + 1) {
        runs.push_back({first, first, at_first, false});
        runs.push_back({last, last, at_last, false});
        return;
    }
    const std::uint64_t middle = first + (last - first) / 2;
    staircase(reference, first, middle, at_first, reference.encode_both(from_bits(middle)), runs);
    staircase(reference, middle + 1, last, reference.encode_both(from_bits(middle + 1)), at_last, runs);
}

// Every pattern 0 .. 2^32 - 1, in order, covered by runs.
std::vector<Run> runs_of(const ReferenceEncoder& reference)
{
    std::vector<Run> runs;
    for (const std::uint64_t sign : {std::uint64_t{0}, std::uint64_t{0x80000000}}) {
        const std::uint64_t zero = sign, smallest = sign | 1, largest = sign | 0x7F7FFFFF, inf = sign | 0x7F800000;
        runs.push_back({zero, zero, {}, true});
        staircase(reference, smallest, largest, reference.encode_both(from_bits(smallest)), reference.encode_both(from_bits(largest)),
                  runs);
        runs.push_back({inf, sign | 0x7FFFFFFF, {}, true});  // +-inf and the NaNs
    }
    return runs;
}

struct Tally {
    std::atomic<std::uint64_t> checked{0};
    std::atomic<std::uint64_t> mismatches{0};
    std::mutex print;
};

// One input in both modes. The format is a template argument so that the compiler specialises
// encode() for it, as it would for a call with a known format: a third of the test's time.
template <const mf::Format& f>
void check(std::uint64_t b, Codes want, Tally& tally, std::uint64_t& bad)
{
    const float x = from_bits(b);
    const std::uint8_t got[2] = {mf::encode(f, x, mf::Overflow::saturate), mf::encode(f, x, mf::Overflow::non_saturating)};
    const std::uint8_t expected[2] = {want.saturate, want.non_saturating};
    for (int mode = 0; mode < 2; ++mode) {
        if (got[mode] == expected[mode]) continue;
        ++bad;
        if (tally.mismatches.load() + bad <= 10) {
            const std::lock_guard<std::mutex> lock(tally.print);
            std::printf("MISMATCH %s %s: input 0x%08" PRIx64 ": tinyamp 0x%02x, reference 0x%02x\n", f.name,
                        mode == 0 ? "saturate" : "non_saturating", b, got[mode], expected[mode]);
        }
    }
}

// Chunks first_chunk, first_chunk + step, ...: each input against the run that holds it.
template <const mf::Format& f>
void run_range(Spec spec, const std::vector<Run>& runs, std::uint64_t first_chunk, std::uint64_t step, Tally& tally)
{
    const ReferenceEncoder reference(spec);
    for (std::uint64_t start = first_chunk * kChunk; start < kTotal; start += step * kChunk) {
        const std::uint64_t end = start + kChunk - 1;
        std::uint64_t bad = 0, checked = 0;
        auto run = std::upper_bound(runs.begin(), runs.end(), start, [](std::uint64_t b, const Run& r) { return b < r.first; }) - 1;
        for (; run != runs.end() && run->first <= end; ++run)
            for (std::uint64_t b = std::max(run->first, start); b <= std::min(run->last, end); ++b, checked += 2)
                check<f>(b, run->ask_each ? reference.encode_both(from_bits(b)) : run->codes, tally, bad);
        tally.mismatches += bad;
        tally.checked += checked;
    }
}

// run_range for the format of `spec`.
auto run_range_for(Spec spec)
{
    switch (spec) {
    case Spec::e4m3fn: return &run_range<mf::f8e4m3fn>;
    case Spec::e5m2: return &run_range<mf::f8e5m2>;
    case Spec::e8m0: return &run_range<mf::e8m0>;
    case Spec::e2m1: return &run_range<mf::f4e2m1>;
    }
    return &run_range<mf::f8e4m3fn>;
}

}  // namespace

int main()
{
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::printf("all 2^32 f32 inputs, 4 formats x 2 overflow modes, %u threads\n", threads);
    Tally tally;
    for (Spec spec : minifloat_reference::kSpecs) {
        const auto t0 = std::chrono::steady_clock::now();
        const std::vector<Run> runs = runs_of(ReferenceEncoder(spec));
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t) pool.emplace_back(run_range_for(spec), spec, std::cref(runs), t, threads, std::ref(tally));
        for (auto& th : pool) th.join();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s: %zu runs of equal reference codes; done in %.1f s\n", minifloat_reference::format_of(spec).name, runs.size(),
                    seconds);
        std::fflush(stdout);
    }
    const std::uint64_t bad = tally.mismatches.load(), checked = tally.checked.load();
    std::printf("%" PRIu64 " conversions compared\n", checked);
    std::printf("%" PRIu64 " passed, %" PRIu64 " failed\n", checked - bad, bad);
    return bad == 0 && checked == 2 * kTotal * std::size(minifloat_reference::kSpecs) ? 0 : 1;
}
