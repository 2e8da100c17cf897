// torch.count_nonzero's loop (nonzero_count.h).
#include "kernels/cpu/nonzero_count.h"

#include <atomic>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/worker_pool.h"
#include "tinyamp/support/parallel.h"

namespace tinyamp::kernels::cpu {
namespace {

// Nonzero elements among x[0..n), each read as the unsigned word of its width (memcpy: a load)
// with `shift` bits dropped at the top (1 for a float's sign, so -0 counts as zero; 0 for an
// integer). The count runs in 32 bits, a chunk at a time, so that the loop vectorizes.
template <class T>
using word_t = std::conditional_t<sizeof(T) == 8, std::uint64_t,
                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint8_t>>>;

template <class T>
[[gnu::always_inline]] inline std::int64_t count_words(const T* x, std::int64_t n)
{
    using Word = word_t<T>;
    static_assert(sizeof(Word) == sizeof(T));
    constexpr int kShift = std::is_integral_v<T> ? 0 : 1;
    constexpr std::int64_t kChunk = std::int64_t(1) << 30;  // fits the 32-bit count
    std::int64_t total = 0;
    for (std::int64_t begin = 0; begin < n; begin += kChunk) {
        const std::int64_t end = n - begin < kChunk ? n : begin + kChunk;
        std::uint32_t count = 0;
        for (std::int64_t i = begin; i < end; ++i) {
            Word w;
            std::memcpy(&w, x + i, sizeof w);
            count += Word(w << kShift) != 0;
        }
        total += count;
    }
    return total;
}

template <class T>
std::int64_t count_portable(const T* x, std::int64_t n)
{
    return count_words(x, n);
}
#if defined(__x86_64__)
template <class T>
__attribute__((target("avx2"))) std::int64_t count_avx2(const T* x, std::int64_t n)
{
    return count_words(x, n);
}
template <class T>
__attribute__((target("avx512f,avx512bw,avx512vl"))) std::int64_t count_avx512(const T* x, std::int64_t n)
{
    return count_words(x, n);
}
#endif

template <class T>
std::int64_t count_on(CountTier tier, const T* x, std::int64_t n)
{
#if defined(__x86_64__)
    if (tier == CountTier::avx512) return count_avx512(x, n);
    if (tier == CountTier::avx2) return count_avx2(x, n);
#endif
    (void)tier;
    return count_portable(x, n);
}

template <class T>
std::int64_t count_in_parts(const T* x, std::int64_t n)
{
    const CountTier tier = count_tier();
    std::atomic<std::int64_t> total{0};
    run_ranges(n, kElementwiseGrain, get_num_threads(),
               [&](std::int64_t first, std::int64_t last) { total.fetch_add(count_on(tier, x + first, last - first)); });
    return total.load();
}

}  // namespace

CountTier count_tier()
{
    const CpuFeatures& f = cpu_features();
    if (f.avx512f) return CountTier::avx512;
    if (f.avx2) return CountTier::avx2;
    return CountTier::portable;
}

std::int64_t count_nonzero_on(CountTier tier, const float* x, std::int64_t n)
{
    return count_on(tier, x, n);
}

std::int64_t count_nonzero(const double* x, std::int64_t n) { return count_in_parts(x, n); }
std::int64_t count_nonzero(const float* x, std::int64_t n) { return count_in_parts(x, n); }
std::int64_t count_nonzero(const Half* x, std::int64_t n) { return count_in_parts(x, n); }
std::int64_t count_nonzero(const BFloat16* x, std::int64_t n) { return count_in_parts(x, n); }
std::int64_t count_nonzero(const std::int64_t* x, std::int64_t n) { return count_in_parts(x, n); }
std::int64_t count_nonzero(const bool* x, std::int64_t n) { return count_in_parts(x, n); }

}  // namespace tinyamp::kernels::cpu
