// scaled_mm (kernels/cpu/scaled_mm.h) and its reference against an f64 sum of the exactly decoded
// products, for per-tensor FP8 (E4M3 x E4M3, E4M3 x E5M2), MX (E4M3 and E2M1 elements, e8m0
// scales, blocks of 32, a partial last block) and NVFP4 (E2M1, e4m3 scales, blocks of 16, and a
// tensor scale), shapes from 1 x 1 x 1 to a few hundred; exact sums bit for bit; the error cases.
//
// The bound. Each operand value is an f32 (scaled_mm.h says how it is computed; the test computes
// it independently, exactly in f64 and rounded once). A dot product of length K computed in f32
// in any order, with or without FMA, is within gamma(K) * sum |a_k * b_k| of the exact sum, where
// gamma(K) = K u / (1 - K u) and u = 2^-24 (Higham, Accuracy and Stability of Numerical
// Algorithms, 3.1); products that underflow into f32 subnormals add at most 2^-150 each, hence
// the absolute term K * 2^-149. Fast and reference must each be within it, so within twice it of
// one another.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/scaled_mm.h"
#include "tinyamp/support/error.h"
#include "tinyamp/values/fp4_packing.h"

using namespace tinyamp;
namespace cpu = tinyamp::kernels::cpu;
namespace mf = tinyamp::minifloat;

namespace {

// An operand's codes and scales, owned, with a ScaledOperand pointing at them.
struct Operand {
    std::vector<std::uint8_t> codes, block_scales;
    std::vector<double> values;  // [rows, k]: the exact value of each element, rounded once to f32
    cpu::ScaledOperand op;
};

// A random finite code of an element format (NaN and inf codes redrawn).
std::uint8_t random_element(const mf::Format& f, std::mt19937_64& rng)
{
    for (;;) {
        const auto code = std::uint8_t(rng() & ((1u << f.bits) - 1));
        if (std::isfinite(mf::decode(f, code))) return code;
    }
}

// A random positive block scale: e8m0 within 2^-8 .. 2^8, or a positive finite e4m3 (subnormals included).
std::uint8_t random_block_scale(const mf::Format& f, std::mt19937_64& rng)
{
    if (&f == &mf::e8m0) return std::uint8_t(127 - 8 + int(rng() % 17));
    return std::uint8_t(1 + rng() % mf::f8e4m3fn.max_code);
}

Operand make_operand(const mf::Format& format, std::int64_t rows, std::int64_t k, float tensor_scale_inv, const mf::Format* block_format,
                     int block_size, std::mt19937_64& rng)
{
    Operand x;
    const bool f4 = &format == &mf::f4e2m1;
    const std::int64_t blocks = block_format != nullptr ? (k + block_size - 1) / block_size : 0;
    std::vector<std::uint8_t> elements(std::size_t(rows * k));
    for (auto& c : elements) c = random_element(format, rng);
    if (f4) {
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t i = 0; i < k; i += 2)
                x.codes.push_back(mf::pack_fp4x2(elements[std::size_t(r * k + i)], elements[std::size_t(r * k + i + 1)]));
    } else {
        x.codes = elements;
    }
    for (std::int64_t i = 0; i < rows * blocks; ++i) x.block_scales.push_back(random_block_scale(*block_format, rng));
    x.values.resize(std::size_t(rows * k));
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t i = 0; i < k; ++i) {
            double v = mf::decode(format, elements[std::size_t(r * k + i)]);
            if (block_format != nullptr) v *= mf::decode(*block_format, x.block_scales[std::size_t(r * blocks + i / block_size)]);
            x.values[std::size_t(r * k + i)] = double(float(v * double(tensor_scale_inv)));  // exact in f64, then one rounding
        }
    x.op.codes = x.codes.empty() ? nullptr : x.codes.data();
    x.op.format = &format;
    x.op.tensor_scale_inv = tensor_scale_inv;
    x.op.block_scales = block_format != nullptr ? x.block_scales.data() : nullptr;
    x.op.block_scale_format = block_format;
    x.op.block_size = block_format != nullptr ? block_size : 0;
    return x;
}

struct Config {
    const char* name;
    const mf::Format* a_format;
    const mf::Format* b_format;
    float a_scale_inv, b_scale_inv;
    const mf::Format* block_format;  // nullptr: per-tensor only
    int block_size;
};

// Both implementations on one random product, each against the f64 sum within the bound above.
void check_product(const Config& c, std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t seed)
{
    INFO(std::string(c.name) << " m " << m << " n " << n << " k " << k << " seed " << seed);
    std::mt19937_64 rng(seed);
    const Operand a = make_operand(*c.a_format, m, k, c.a_scale_inv, c.block_format, c.block_size, rng);
    const Operand b = make_operand(*c.b_format, n, k, c.b_scale_inv, c.block_format, c.block_size, rng);
    std::vector<float> fast(std::size_t(m * n) + 1, -3.0f), slow(std::size_t(m * n) + 1, -3.0f);
    cpu::scaled_mm(a.op, b.op, fast.data(), m, n, k);
    cpu::scaled_mm_reference(a.op, b.op, slow.data(), m, n, k);
    CHECK(fast.back() == -3.0f);  // nothing written past m * n
    const double u = std::ldexp(1.0, -24);
    const double gamma = double(k) * u / (1 - double(k) * u);
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            double exact = 0, magnitude = 0;
            for (std::int64_t p = 0; p < k; ++p) {
                const double product = a.values[std::size_t(i * k + p)] * b.values[std::size_t(j * k + p)];  // exact in f64
                exact += product;
                magnitude += std::fabs(product);
            }
            const double bound = gamma * magnitude + double(k) * std::ldexp(1.0, -149);
            const auto at = std::size_t(i * n + j);
            CAPTURE(i);
            CAPTURE(j);
            REQUIRE(std::fabs(double(slow[at]) - exact) <= bound);
            REQUIRE(std::fabs(double(fast[at]) - exact) <= bound);
            REQUIRE(std::fabs(double(fast[at]) - double(slow[at])) <= 2 * bound);
        }
}

struct Shape {
    std::int64_t m, n, k;
};

const std::vector<Shape> kShapes = {{1, 1, 1}, {1, 1, 2}, {3, 5, 7}, {2, 9, 16}, {17, 33, 40}, {64, 64, 96}, {130, 70, 64}, {257, 129, 200}};

// Runs `fn` and returns the message of the tinyamp::Error it throws ("" if none).
std::string error_of(const std::function<void()>& fn)
{
    try {
        fn();
    } catch (const Error& e) {
        return e.message();
    }
    return "";
}

}  // namespace

TEST_CASE("scaled_mm: per-tensor FP8 (E4M3 x E4M3, E4M3 x E5M2) within the f32 bound of the exact sum")
{
    const Config configs[] = {{"e4m3 x e4m3", &mf::f8e4m3fn, &mf::f8e4m3fn, 1.0f / 448, 0.37f, nullptr, 0},
                              {"e4m3 x e5m2", &mf::f8e4m3fn, &mf::f8e5m2, 2.5f, 1.0f / 3, nullptr, 0},
                              {"e5m2 x e5m2, no scale", &mf::f8e5m2, &mf::f8e5m2, 1.0f, 1.0f, nullptr, 0}};
    std::uint64_t seed = 100;
    for (const Config& c : configs)
        for (const Shape& s : kShapes) check_product(c, s.m, s.n, s.k, seed++);
}

TEST_CASE("scaled_mm: MX (E4M3 and E2M1 elements, e8m0 scales, blocks of 32, a partial last block)")
{
    const Config configs[] = {{"mxfp8 e4m3", &mf::f8e4m3fn, &mf::f8e4m3fn, 1.0f, 1.0f, &mf::e8m0, 32},
                              {"mxfp8 e5m2 x e4m3", &mf::f8e5m2, &mf::f8e4m3fn, 1.0f, 1.0f, &mf::e8m0, 32},
                              {"mxfp4 e2m1", &mf::f4e2m1, &mf::f4e2m1, 1.0f, 1.0f, &mf::e8m0, 32}};
    std::uint64_t seed = 200;
    for (const Config& c : configs) {
        for (std::int64_t k : {32, 64, 96, 40, 2, 70}) check_product(c, 5, 7, k, seed++);
        check_product(c, 1, 1, 32, seed++);
        check_product(c, 130, 150, 96, seed++);
        check_product(c, 200, 64, 256, seed++);
    }
}

TEST_CASE("scaled_mm: NVFP4 (E2M1 elements, e4m3 scales, blocks of 16, and a tensor scale)")
{
    const Config c = {"nvfp4", &mf::f4e2m1, &mf::f4e2m1, 1.0f / (6 * 448.0f), 0.011f, &mf::f8e4m3fn, 16};
    std::uint64_t seed = 300;
    for (std::int64_t k : {16, 32, 48, 40, 2}) check_product(c, 6, 5, k, seed++);
    check_product(c, 1, 1, 16, seed++);
    check_product(c, 160, 96, 128, seed++);
}

TEST_CASE("scaled_mm: sums that are exact in f32 give the exact result, fast and reference alike")
{
    // E2M1 values are multiples of 1/2 up to 6: every product is a multiple of 1/4 up to 36 and
    // every partial sum over K <= 256 is below 2^14, so each f32 operation is exact, whatever the order.
    std::uint64_t seed = 400;
    for (const Shape& s : std::vector<Shape>{{1, 1, 2}, {7, 9, 30}, {100, 120, 256}}) {
        INFO("m " << s.m << " n " << s.n << " k " << s.k << " seed " << seed);
        std::mt19937_64 rng(seed++);
        const Operand a = make_operand(mf::f4e2m1, s.m, s.k, 1.0f, nullptr, 0, rng);
        const Operand b = make_operand(mf::f4e2m1, s.n, s.k, 1.0f, nullptr, 0, rng);
        std::vector<float> fast(std::size_t(s.m * s.n)), slow(std::size_t(s.m * s.n));
        cpu::scaled_mm(a.op, b.op, fast.data(), s.m, s.n, s.k);
        cpu::scaled_mm_reference(a.op, b.op, slow.data(), s.m, s.n, s.k);
        for (std::int64_t i = 0; i < s.m; ++i)
            for (std::int64_t j = 0; j < s.n; ++j) {
                double exact = 0;
                for (std::int64_t p = 0; p < s.k; ++p) exact += a.values[std::size_t(i * s.k + p)] * b.values[std::size_t(j * s.k + p)];
                REQUIRE(double(fast[std::size_t(i * s.n + j)]) == exact);
                REQUIRE(double(slow[std::size_t(i * s.n + j)]) == exact);
            }
    }
}

TEST_CASE("scaled_mm: empty products")
{
    std::mt19937_64 rng(500);
    const Operand a = make_operand(mf::f8e4m3fn, 3, 0, 1.0f, nullptr, 0, rng);
    const Operand b = make_operand(mf::f8e4m3fn, 2, 0, 1.0f, nullptr, 0, rng);
    std::vector<float> out(6, 5.0f);
    cpu::scaled_mm(a.op, b.op, out.data(), 3, 2, 0);
    for (float x : out) CHECK(x == 0.0f);  // K = 0: empty sums
    std::vector<float> slow(6, 5.0f);
    cpu::scaled_mm_reference(a.op, b.op, slow.data(), 3, 2, 0);
    for (float x : slow) CHECK(x == 0.0f);
    const Operand none = make_operand(mf::f8e4m3fn, 0, 4, 1.0f, nullptr, 0, rng);
    const Operand some = make_operand(mf::f8e4m3fn, 2, 4, 1.0f, nullptr, 0, rng);
    CHECK_NOTHROW(cpu::scaled_mm(none.op, some.op, nullptr, 0, 2, 4));  // M = 0: nothing to write
}

TEST_CASE("scaled_mm: invalid operands are refused with a message that says what to fix")
{
    std::mt19937_64 rng(600);
    const Operand good = make_operand(mf::f8e4m3fn, 2, 4, 1.0f, nullptr, 0, rng);
    const Operand mx = make_operand(mf::f8e4m3fn, 2, 64, 1.0f, &mf::e8m0, 32, rng);
    std::vector<float> out(4);
    using Mm = void (*)(const cpu::ScaledOperand&, const cpu::ScaledOperand&, float*, std::int64_t, std::int64_t, std::int64_t);
    for (Mm mm : {Mm(cpu::scaled_mm), Mm(cpu::scaled_mm_reference)}) {
        auto refused = [&](cpu::ScaledOperand a, std::int64_t k, const std::string& words) {
            const std::string message = error_of([&] { mm(a, good.op, out.data(), 2, 2, k); });
            INFO("message: " << message);
            CHECK(message.find(words) != std::string::npos);
        };
        cpu::ScaledOperand x = good.op;
        x.codes = nullptr;
        refused(x, 4, "operand a's codes are null");
        x = good.op;
        x.format = nullptr;
        refused(x, 4, "has no format");
        x.format = &mf::e8m0;
        refused(x, 4, "e8m0 is not an element format");
        x = good.op;
        x.format = &mf::f4e2m1;
        refused(x, 3, "K = 3 is odd");
        x = mx.op;
        x.block_size = 0;
        refused(x, 64, "has block_scales but block_size = 0");
        x = mx.op;
        x.block_scales = nullptr;
        refused(x, 64, "but no block_scales");
        x = mx.op;
        x.block_scale_format = &mf::f8e5m2;
        refused(x, 64, "block_scale_format is f8e5m2");
        x = mx.op;
        x.block_scale_format = nullptr;
        refused(x, 64, "block_scale_format is null");
        const std::string no_out = error_of([&] { mm(good.op, good.op, nullptr, 2, 2, 4); });
        CHECK(no_out.find("out is null") != std::string::npos);
        const std::string negative = error_of([&] { mm(good.op, good.op, out.data(), 2, -1, 4); });
        CHECK(negative.find("must not be negative") != std::string::npos);
        // The operand that is wrong is named: b here.
        cpu::ScaledOperand bad_b = good.op;
        bad_b.codes = nullptr;
        const std::string b_message = error_of([&] { mm(good.op, bad_b, out.data(), 2, 2, 4); });
        CHECK(b_message.find("operand b's codes are null") != std::string::npos);
    }
}
