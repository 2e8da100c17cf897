// The fast conversion paths against the reference, and the any-to-any convert().
#include <doctest/doctest.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/cpu_features.h"
#include "tests/support/float_samples.h"
#include "tinyamp/support/parallel.h"

using namespace tinyamp;
using namespace tinyamp::test;
namespace cpu = tinyamp::kernels::cpu;

namespace {

std::vector<float> all_samples()
{
    std::vector<float> v = special_floats();
    for (auto grid : {grid_boundaries<Binary16>(), grid_boundaries<BFloat16Format>()}) v.insert(v.end(), grid.begin(), grid.end());
    for (std::uint32_t bits : random_bit_patterns(1'000'000, 3)) v.push_back(f32_from_bits(bits));
    return v;
}

// Runs `fast` and `reference` over the same input, at every length 0..40 (to reach every tail
// case of the vector loops) and then over the whole input, and requires identical bytes.
template <class In, class Out>
void same_bytes(void (*fast)(const In*, Out*, std::int64_t), void (*reference)(const In*, Out*, std::int64_t),
                const std::vector<In>& input, const std::string& what)
{
    INFO(what);
    for (std::int64_t n = 0; n <= 40; ++n) {
        std::vector<Out> a(std::size_t(n) + 1), b(std::size_t(n) + 1);  // +1: nothing may be written past n
        fast(input.data(), a.data(), n);
        reference(input.data(), b.data(), n);
        CAPTURE(n);
        REQUIRE(std::memcmp(a.data(), b.data(), sizeof(Out) * a.size()) == 0);
    }
    std::vector<Out> a(input.size()), b(input.size());
    fast(input.data(), a.data(), std::int64_t(input.size()));
    reference(input.data(), b.data(), std::int64_t(input.size()));
    CHECK(std::memcmp(a.data(), b.data(), sizeof(Out) * a.size()) == 0);
}

template <class T>
std::vector<T> every_16_bit_value()
{
    std::vector<T> v(65536);
    for (std::uint32_t i = 0; i < 65536; ++i) v[i] = T::from_bits(std::uint16_t(i));
    return v;
}

}  // namespace

TEST_CASE("each fast conversion path gives exactly the reference's bits")
{
    const auto features = cpu::detect_cpu_features();
    MESSAGE("CPU features: " << features.str());
    const std::vector<float> samples = all_samples();
    if (features.f16c) {
        same_bytes(cpu::f16c::f32_to_f16, cpu::reference::f32_to_f16, samples, "f16c f32 -> f16");
        same_bytes(cpu::f16c::f16_to_f32, cpu::reference::f16_to_f32, every_16_bit_value<Half>(), "f16c f16 -> f32");
    } else {
        MESSAGE("SKIPPED f16c paths: this CPU has no F16C");
    }
    if (features.avx512bf16) {
        same_bytes(cpu::avx512bf16::f32_to_bf16, cpu::reference::f32_to_bf16, samples, "avx512bf16 f32 -> bf16");
    } else {
        MESSAGE("SKIPPED avx512bf16 paths: this CPU has no AVX-512 BF16");
    }
    if (features.avx512f) {
        same_bytes(cpu::avx512::f32_to_bf16, cpu::reference::f32_to_bf16, samples, "avx512 f32 -> bf16");
        same_bytes(cpu::avx512::bf16_to_f32, cpu::reference::bf16_to_f32, every_16_bit_value<BFloat16>(), "avx512 bf16 -> f32");
    } else {
        MESSAGE("SKIPPED avx512 bf16 paths: this CPU has no AVX-512");
    }
    if (features.avx2) {
        same_bytes(cpu::avx2::f32_to_bf16, cpu::reference::f32_to_bf16, samples, "avx2 f32 -> bf16");
        same_bytes(cpu::avx2::bf16_to_f32, cpu::reference::bf16_to_f32, every_16_bit_value<BFloat16>(), "avx2 bf16 -> f32");
    } else {
        MESSAGE("SKIPPED avx2 bf16 paths: this CPU has no AVX2");
    }
    // The portable bit-level paths, on every CPU.
    same_bytes(cpu::bits::f32_to_f16, cpu::reference::f32_to_f16, samples, "bits f32 -> f16");
    same_bytes(cpu::bits::f16_to_f32, cpu::reference::f16_to_f32, every_16_bit_value<Half>(), "bits f16 -> f32");
    same_bytes(cpu::bits::f32_to_bf16, cpu::reference::f32_to_bf16, samples, "bits f32 -> bf16");
    same_bytes(cpu::bits::bf16_to_f32, cpu::reference::bf16_to_f32, every_16_bit_value<BFloat16>(), "bits bf16 -> f32");
    // The dispatching entry points, whatever they chose, too.
    same_bytes(cpu::f32_to_f16, cpu::reference::f32_to_f16, samples, "dispatched f32 -> f16");
    same_bytes(cpu::f32_to_bf16, cpu::reference::f32_to_bf16, samples, "dispatched f32 -> bf16");
}

TEST_CASE("convert() past the grain size (split between threads) gives the reference's bits on 1 and 2 threads")
{
    std::mt19937 rng(5);
    std::normal_distribution<float> normal(0.0f, 1000.0f);
    std::vector<float> x(100000);
    for (float& v : x) v = normal(rng);
    std::vector<BFloat16> expected_bf16(x.size()), got_bf16(x.size());
    std::vector<Half> expected_f16(x.size()), got_f16(x.size());
    cpu::reference::f32_to_bf16(x.data(), expected_bf16.data(), std::int64_t(x.size()));
    cpu::reference::f32_to_f16(x.data(), expected_f16.data(), std::int64_t(x.size()));
    const int threads = get_num_threads();
    for (int t : {1, 2}) {
        CAPTURE(t);
        set_num_threads(t);
        CHECK(cpu::convert(x.data(), DType::f32, got_bf16.data(), DType::bf16, std::int64_t(x.size())) == -1);
        CHECK(cpu::convert(x.data(), DType::f32, got_f16.data(), DType::f16, std::int64_t(x.size())) == -1);
        CHECK(std::memcmp(got_bf16.data(), expected_bf16.data(), x.size() * sizeof(BFloat16)) == 0);
        CHECK(std::memcmp(got_f16.data(), expected_f16.data(), x.size() * sizeof(Half)) == 0);
        std::vector<float> back(x.size()), expected_back(x.size());
        cpu::convert(got_bf16.data(), DType::bf16, back.data(), DType::f32, std::int64_t(x.size()));
        cpu::reference::bf16_to_f32(got_bf16.data(), expected_back.data(), std::int64_t(x.size()));
        CHECK(back == expected_back);
    }
    set_num_threads(threads);
}

TEST_CASE("f64 goes to f16 and bf16 with a single rounding, not through f32")
{
    // 1 + 2^-11 + 2^-40 lies just above the f16 tie between 1 and 1 + 2^-10. Through f32 the 2^-40
    // would be lost first and the tie would round down to 1.
    const double x = 1.0 + 0x1p-11 + 0x1p-40;
    Half h;
    CHECK(cpu::convert(&x, DType::f64, &h, DType::f16, 1) == -1);
    CHECK(h.bits == 0x3c01);
    CHECK(Half(float(x)).bits == 0x3c00);  // what double rounding would have given
    BFloat16 b;
    const double y = 1.0 + 0x1p-8 + 0x1p-40;
    cpu::convert(&y, DType::f64, &b, DType::bf16, 1);
    CHECK(b.bits == 0x3f81);
}

TEST_CASE("integers round once into every float dtype")
{
    const std::int64_t big = (std::int64_t{1} << 62) + (std::int64_t{1} << 54) + 1;  // just above a bf16 tie
    BFloat16 b;
    cpu::convert(&big, DType::i64, &b, DType::bf16, 1);
    CHECK(b.bits == 0x5e81);
    const std::int64_t values[] = {0, -1, 65504, 65520, std::numeric_limits<std::int64_t>::min()};
    Half h[5];
    cpu::convert(values, DType::i64, h, DType::f16, 5);
    CHECK(h[0].bits == 0x0000);
    CHECK(h[1].bits == 0xbc00);
    CHECK(h[2].bits == 0x7bff);
    CHECK(h[3].bits == 0x7c00);
    CHECK(h[4].bits == 0xfc00);
}

TEST_CASE("floats go to i64 by truncation, and values without an i64 are reported")
{
    const double in[] = {2.7, -2.7, -0.5, 9.2e18, -9223372036854775808.0};
    std::int64_t out[5];
    CHECK(cpu::convert(in, DType::f64, out, DType::i64, 5) == -1);
    CHECK(out[0] == 2);
    CHECK(out[1] == -2);
    CHECK(out[2] == 0);
    CHECK(out[3] == 9200000000000000000);
    CHECK(out[4] == std::numeric_limits<std::int64_t>::min());
    const float bad[] = {1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f};
    CHECK(cpu::convert(bad, DType::f32, out, DType::i64, 3) == 1);
    const double too_big[] = {9223372036854775808.0};  // 2^63
    CHECK(cpu::convert(too_big, DType::f64, out, DType::i64, 1) == 0);
    const Half inf = Half::from_bits(0x7c00);
    CHECK(cpu::convert(&inf, DType::f16, out, DType::i64, 1) == 0);
}

TEST_CASE("bool conversions: nonzero (NaN too) is true, true is 1")
{
    const float in[] = {0.0f, -0.0f, 0.5f, std::numeric_limits<float>::quiet_NaN()};
    bool out[4];
    cpu::convert(in, DType::f32, out, DType::boolean, 4);
    CHECK_FALSE(out[0]);
    CHECK_FALSE(out[1]);
    CHECK(out[2]);
    CHECK(out[3]);
    const bool flags[] = {true, false};
    BFloat16 b[2];
    cpu::convert(flags, DType::boolean, b, DType::bf16, 2);
    CHECK(float(b[0]) == 1.0f);
    CHECK(float(b[1]) == 0.0f);
}

TEST_CASE("bool masks convert to 0 and 1 in every dtype (the branch-free path)")
{
    const std::uint64_t seed = 31;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    bool mask[1000];
    for (bool& m : mask) m = rng() % 2 == 0;
    for (DType to : kComputeDTypes) {
        CAPTURE(to);
        unsigned char out[1000 * 8];
        CHECK(cpu::convert(mask, DType::boolean, out, to, 1000) == -1);
        // Element by element against the value each dtype should hold: 1 or 0, read back as double.
        std::int64_t wrong = 0;
        visit_dtype(to, [&](auto tag) {
            using T = decltype(tag);
            const T* values = reinterpret_cast<const T*>(out);
            for (int i = 0; i < 1000; ++i) wrong += double(values[i]) != (mask[i] ? 1.0 : 0.0);
        });
        CHECK(wrong == 0);
    }
}

TEST_CASE("every pair of dtypes converts, and converting to a wider float and back is exact")
{
    const double values[] = {0.0, 1.0, -2.5, 3.0, 0.125, -96.0};
    for (DType from : {DType::f64, DType::f32, DType::f16, DType::bf16}) {
        // Values already in `from` (they are all exact in every float dtype).
        unsigned char src[6 * 8], wide[6 * 8], back[6 * 8];
        cpu::convert(values, DType::f64, src, from, 6);
        for (DType to : kComputeDTypes) {
            CAPTURE(from);
            CAPTURE(to);
            if (to == DType::i64 || to == DType::boolean) {
                CHECK(cpu::convert(src, from, wide, to, 6) == -1);
                continue;
            }
            cpu::convert(src, from, wide, to, 6);
            cpu::convert(wide, to, back, from, 6);
            CHECK(std::memcmp(src, back, std::size_t(6 * dtype_size(from))) == 0);
        }
    }
}
