// What a trace records about one tensor: its identity, dtype and shape, and (for op outputs) how
// its values sit against the ranges of f16 and bf16.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tinyamp/trace/event.h"

namespace tinyamp::trace {
namespace {

// Counts how many values a 16-bit format would lose. The rounding is the library's own exact
// conversion (Half / BFloat16 from double), so a value exactly halfway to the next step rounds as
// the real cast does: 65520 becomes inf in f16 while 65519 stays 65504.
template <class Format16>
struct LossCounter {
    std::int64_t underflow = 0;  // finite, non-zero, rounds to +-0
    std::int64_t overflow = 0;   // finite, rounds to +-inf

    void add(double finite_value)
    {
        const double rounded = double(float(Format16(finite_value)));
        if (finite_value != 0 && rounded == 0) ++underflow;
        if (std::isinf(rounded)) ++overflow;
    }
};

double share(std::int64_t count, std::int64_t total) { return total == 0 ? 0.0 : double(count) / double(total); }

// Log2Histogram's exponent range: ilogb is exact (unlike log2) and gives a subnormal's exponent
// as if it were normalized, so every finite non-zero double lands in one of these binades.
constexpr int kLowestExponent = Log2Histogram::kSmallestExponent;
constexpr int kHighestExponent = Log2Histogram::kLargestExponent;
static_assert(kLowestExponent == std::numeric_limits<double>::min_exponent - std::numeric_limits<double>::digits &&
              kHighestExponent == std::numeric_limits<double>::max_exponent - 1);

// Counts by binade over the whole range of doubles, then keeps the run from the lowest to the
// highest exponent present.
class BinadeCounter {
public:
    void add(double finite_non_zero) { ++counts_[std::size_t(std::ilogb(finite_non_zero) - kLowestExponent)]; }

    Log2Histogram histogram() const
    {
        Log2Histogram h;
        const auto used = [](std::int64_t n) { return n != 0; };
        const auto first = std::find_if(counts_.begin(), counts_.end(), used);
        if (first == counts_.end()) return h;
        const auto last = std::find_if(counts_.rbegin(), counts_.rend(), used).base();
        h.lowest_exponent = kLowestExponent + int(first - counts_.begin());
        h.counts.assign(first, last);
        return h;
    }

private:
    std::vector<std::int64_t> counts_ = std::vector<std::int64_t>(std::size_t(kHighestExponent - kLowestExponent + 1), 0);
};

}  // namespace

ValueStats compute_stats(const Tensor& t)
{
    ValueStats stats;
    if (!t.defined() || t.numel() == 0) return stats;

    const std::vector<double> values = t.to_vector();  // exact: every dtype's values fit in a double
    std::int64_t zeros = 0, infs = 0, nans = 0, finite = 0, finite_non_zero = 0;
    double min_abs = std::numeric_limits<double>::infinity(), max_abs = 0;
    LossCounter<Half> f16;
    LossCounter<BFloat16> bf16;
    BinadeCounter binades;
    for (const double v : values) {
        if (std::isnan(v)) {
            ++nans;
            continue;
        }
        if (std::isinf(v)) {
            ++infs;
            continue;
        }
        ++finite;
        max_abs = std::max(max_abs, std::abs(v));
        if (v == 0) {
            ++zeros;
        } else {
            ++finite_non_zero;
            min_abs = std::min(min_abs, std::abs(v));
            binades.add(v);
        }
        f16.add(v);
        bf16.add(v);
    }

    const auto total = std::int64_t(values.size());
    stats.min_abs = finite_non_zero == 0 ? 0.0 : min_abs;
    stats.max_abs = max_abs;
    stats.zeros = share(zeros, total);
    stats.infs = share(infs, total);
    stats.nans = share(nans, total);
    stats.f16_underflow = share(f16.underflow, finite_non_zero);
    stats.f16_overflow = share(f16.overflow, finite);
    stats.bf16_underflow = share(bf16.underflow, finite_non_zero);
    stats.bf16_overflow = share(bf16.overflow, finite);
    stats.log2_abs = binades.histogram();
    return stats;
}

TensorInfo describe(const Tensor& t, bool with_stats)
{
    TINYAMP_CHECK(t.defined(), state, "trace::describe got an undefined Tensor; describe only tensors that exist "
                                      "(skip an op's missing optional arguments)");
    TensorInfo info;
    info.id = t.id();
    info.dtype = t.dtype();
    info.shape = t.shape();
    info.name = t.name();
    info.is_leaf = t.is_leaf();
    info.requires_grad = t.requires_grad();
    info.has_stats = with_stats;
    if (with_stats) info.stats = compute_stats(t);
    return info;
}

}  // namespace tinyamp::trace
