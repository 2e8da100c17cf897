#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {

using Values = std::vector<double>;
constexpr double kInf = std::numeric_limits<double>::infinity();


// A fresh, contiguous tensor with no autograd flags: what every factory returns.
void check_fresh(const Tensor& t, const Shape& shape, DType dtype)
{
    CHECK(t.defined());
    CHECK(t.shape() == shape);
    CHECK(t.strides() == contiguous_strides(shape));
    CHECK(t.storage_offset() == 0);
    CHECK(t.is_contiguous());
    CHECK(t.dtype() == dtype);
    CHECK(t.device() == Device::cpu());
    CHECK(t.storage()->nbytes() == numel(shape) * dtype_size(dtype));
    CHECK_FALSE(t.requires_grad());
    CHECK(t.name().empty());
}

}  // namespace

TEST_CASE("tensor(values, shape, dtype): row-major values rounded to the dtype")
{
    const Tensor t = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, i64);
    check_fresh(t, {2, 3}, i64);
    CHECK(t.at({0, 0}) == 1);
    CHECK(t.at({0, 2}) == 3);
    CHECK(t.at({1, 0}) == 4);
    CHECK(t.at({1, 2}) == 6);

    const Tensor f = tensor({0.5, -1.25, 3.0, 1e-3}, {2, 2});  // f32 by default
    check_fresh(f, {2, 2}, f32);
    CHECK(f.to_vector() == Values{0.5, -1.25, 3.0, double(1e-3f)});

    // 0.1 has no exact binary value: each dtype stores its own nearest one.
    CHECK(tensor({0.1}, {1}, f64).item() == 0.1);
    CHECK(tensor({0.1}, {1}, f32).item() == 0.100000001490116119384765625);
    CHECK(tensor({0.1}, {1}, f16).item() == 0.0999755859375);
    CHECK(tensor({0.1}, {1}, bf16).item() == 0.10009765625);
    CHECK(tensor({2.9, -2.9}, {2}, i64).to_vector() == Values{2, -2});  // truncated toward zero
    CHECK(tensor({0.0, -3.0, 0.5}, {3}, boolean).to_vector() == Values{0, 1, 1});
    CHECK(tensor({70000.0}, {1}, f16).item() == kInf);  // above f16's max (65504)

    check_fresh(tensor({}, Shape{0}), {0}, f32);
    check_fresh(tensor({}, {2, 0, 3}, bf16), {2, 0, 3}, bf16);
    check_fresh(tensor({4.5}, Shape{}), {}, f32);  // Shape{}: a bare {} would pick tensor({...}, DType)
}

TEST_CASE("tensor(values, shape): the number of values must fill the shape")
{
    CHECK(error_message([] { tensor({1, 2, 3, 4, 5}, {2, 3}); }, ErrorKind::shape) ==
          "tensor(): 5 values do not fill shape [2, 3], which holds 6; pass as many values as the shape holds");
    CHECK(error_message([] { tensor({1, 2}, Shape{}); }, ErrorKind::shape) ==
          "tensor(): 2 values do not fill shape [], which holds 1; pass as many values as the shape holds");
    CHECK(error_message([] { tensor({1, 2}, {-1, 2}); }, ErrorKind::shape) ==
          "shape [-1, 2] has a negative size; sizes must be >= 0");
}

TEST_CASE("tensor(values, shape, i64): NaN, inf and out-of-range values are refused")
{
    CHECK(error_message([] { tensor({1.0, std::nan("")}, {2}, i64); }, ErrorKind::value) ==
          "value nan (element 1) has no i64 value; use finite numbers within the range of i64 or another dtype");
    CHECK(error_message([] { tensor({-kInf}, {1}, i64); }, ErrorKind::value) ==
          "value -inf (element 0) has no i64 value; use finite numbers within the range of i64 or another dtype");
    CHECK(error_message([] { tensor({0, 0, 1e19}, {3}, i64); }, ErrorKind::value) ==
          "value 1e+19 (element 2) has no i64 value; use finite numbers within the range of i64 or another dtype");
    // Float dtypes take them: NaN stays NaN, inf stays inf.
    const Tensor f = tensor({std::nan(""), kInf}, {2}, f16);
    CHECK(std::isnan(f.at({0})));
    CHECK(f.at({1}) == kInf);
}

TEST_CASE("tensor({...}): a 1-D tensor of the values")
{
    const Tensor t = tensor({1.0, 2.5, -3.0});
    check_fresh(t, {3}, f32);
    CHECK(t.to_vector() == Values{1.0, 2.5, -3.0});

    const Tensor h = tensor({1.0, 1.0 + 1e-4, 65504.0}, f16);
    check_fresh(h, {3}, f16);
    CHECK(h.to_vector() == Values{1.0, 1.0, 65504.0});

    check_fresh(tensor({}), {0}, f32);
}

TEST_CASE("scalar_tensor: a 0-D tensor holding one value")
{
    const Tensor s = scalar_tensor(2.5);
    check_fresh(s, {}, f32);
    CHECK(s.dim() == 0);
    CHECK(s.numel() == 1);
    CHECK(s.item() == 2.5);
    CHECK(s.at({}) == 2.5);
    CHECK(scalar_tensor(3.7, i64).item() == 3);
    CHECK(scalar_tensor(1.0 / 3.0, f64).item() == 1.0 / 3.0);
    CHECK(scalar_tensor(65520.0, f16).item() == kInf);  // halfway to the next binade rounds to inf
    CHECK(scalar_tensor(-2.0, boolean).item() == 1.0);
}

TEST_CASE("zeros, ones, full, empty")
{
    const Tensor z = zeros({2, 3});
    check_fresh(z, {2, 3}, f32);
    CHECK(z.to_vector() == Values(6, 0.0));

    const Tensor o = ones({4}, bf16);
    check_fresh(o, {4}, bf16);
    CHECK(o.to_vector() == Values(4, 1.0));

    const Tensor f = full({2, 2}, 0.1, f16);
    check_fresh(f, {2, 2}, f16);
    CHECK(f.to_vector() == Values(4, 0.0999755859375));
    CHECK(full({3}, 2.9, i64).to_vector() == Values{2, 2, 2});
    CHECK(full({2}, -0.5, boolean).to_vector() == Values{1, 1});
    CHECK(full({1}, -0.0, f32).item() == 0.0);
    CHECK(std::signbit(full({1}, -0.0, f32).item()));  // -0 kept

    const Tensor s = zeros({});
    check_fresh(s, {}, f32);
    CHECK(s.item() == 0.0);
    check_fresh(ones({3, 0}, i64), {3, 0}, i64);

    const Tensor e = empty({2, 3}, bf16);
    check_fresh(e, {2, 3}, bf16);
    CHECK(e.nbytes() == 12);

    CHECK(error_message([] { zeros({2, -1}); }, ErrorKind::shape) == "shape [2, -1] has a negative size; sizes must be >= 0");
    CHECK(error_message([] { empty({-3}); }, ErrorKind::shape) == "shape [-3] has a negative size; sizes must be >= 0");
    CHECK(error_message([] { full({2}, std::nan(""), i64); }, ErrorKind::value).find("value nan (element 0) has no i64 value") == 0);
}

TEST_CASE("zeros_like, ones_like, full_like: same shape, dtype and device, but new contiguous storage")
{
    Generator g(11);
    const Tensor x = randn({2, 3}, f16, g).t();  // shape [3, 2], not contiguous
    REQUIRE_FALSE(x.is_contiguous());

    const Tensor z = zeros_like(x);
    check_fresh(z, {3, 2}, f16);
    CHECK_FALSE(z.shares_storage_with(x));
    CHECK(z.to_vector() == Values(6, 0.0));

    const Tensor o = ones_like(x);
    check_fresh(o, {3, 2}, f16);
    CHECK(o.to_vector() == Values(6, 1.0));

    const Tensor f = full_like(x, 7.3);
    check_fresh(f, {3, 2}, f16);
    CHECK(f.to_vector() == Values(6, 7.30078125));  // 7.3 in f16

    CHECK(full_like(arange(3), 2.5).to_vector() == Values{2, 2, 2});  // i64 like arange
    CHECK(full_like(arange(3), 2.5).dtype() == i64);
}

TEST_CASE("arange(end): 0, 1, ..., end-1 as i64")
{
    const Tensor a = arange(5);
    check_fresh(a, {5}, i64);
    CHECK(a.to_vector() == Values{0, 1, 2, 3, 4});
    check_fresh(arange(0), {0}, i64);
    CHECK(arange(4, f16).dtype() == f16);
    CHECK(arange(4, f16).to_vector() == Values{0, 1, 2, 3});
    // Integers above 2048 are not all f16 values: 2049 rounds to 2048 (ties to even).
    const Tensor big = arange(2051, f16);
    CHECK(big.at({2048}) == 2048);
    CHECK(big.at({2049}) == 2048);
    CHECK(big.at({2050}) == 2050);

    CHECK(error_message([] { arange(-1); }, ErrorKind::value) == "arange(-1): end must be >= 0");
}

TEST_CASE("arange(start, end, step): the count is ceil((end - start) / step)")
{
    const Tensor a = arange(0, 10, 3);
    check_fresh(a, {4}, f32);
    CHECK(a.to_vector() == Values{0, 3, 6, 9});
    CHECK(arange(2.5, 5.0).to_vector() == Values{2.5, 3.5, 4.5});
    CHECK(arange(1, 0, -0.25).to_vector() == Values{1.0, 0.75, 0.5, 0.25});
    CHECK(arange(-3, 3, 2).to_vector() == Values{-3, -1, 1});
    CHECK(arange(0.0, 1.0, 0.1).numel() == 10);
    CHECK(arange(0.0, 1.0, 0.1).at({3}) == double(0.3f));
    CHECK(arange(5, 5).numel() == 0);
    CHECK(arange(5, 5, -1).numel() == 0);
    CHECK(arange(0.0, 3.0, 1.0, i64).dtype() == i64);
    CHECK(arange(0.0, 3.0, 1.0, i64).to_vector() == Values{0, 1, 2});
    CHECK(arange(0.0, 4.0, 1.0, f64).to_vector() == Values{0, 1, 2, 3});

    CHECK(error_message([] { arange(0, 5, 0); }, ErrorKind::value) ==
          "arange(0, 5, 0): start and end must be finite and step finite and non-zero");
    CHECK(error_message([] { arange(0, kInf); }, ErrorKind::value) ==
          "arange(0, inf, 1): start and end must be finite and step finite and non-zero");
    CHECK(error_message([] { arange(0, 5, -1); }, ErrorKind::value) ==
          "arange(0, 5, -1): step goes the wrong way (from start it never reaches end); flip its sign");
    CHECK(error_message([] { arange(5, 0); }, ErrorKind::value) ==
          "arange(5, 0, 1): step goes the wrong way (from start it never reaches end); flip its sign");
}

TEST_CASE("rand: uniform, 0 <= x < 1, in every float dtype, and exactly representable there")
{
    for (DType d : {f64, f32, f16, bf16}) {
        INFO("dtype ", std::string(dtype_name(d)));
        Generator g(100);
        const Tensor r = rand({20000}, d, g);
        check_fresh(r, {20000}, d);
        const Values v = r.to_vector();
        const double lo = *std::min_element(v.begin(), v.end());
        const double hi = *std::max_element(v.begin(), v.end());
        const double mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
        CHECK(lo >= 0.0);
        CHECK(hi < 1.0);
        CHECK(std::abs(mean - 0.5) < 0.01);  // standard error 0.002
        // Each value is k * 2^-(mantissa bits + 1): exact in the dtype, so rounding never reaches 1.
        const double scale = std::ldexp(1.0, traits(d).mantissa_bits + 1);
        for (double x : v) REQUIRE(x * scale == std::floor(x * scale));
    }
}

TEST_CASE("rand in f16 and bf16 reaches the largest value below 1, but never 1")
{
    Generator g(8);
    const Values h = rand({100000}, f16, g).to_vector();
    CHECK(*std::max_element(h.begin(), h.end()) == 1.0 - 0x1p-11);  // 0.99951171875
    CHECK(*std::min_element(h.begin(), h.end()) == 0.0);
    const Values b = rand({100000}, bf16, g).to_vector();
    CHECK(*std::max_element(b.begin(), b.end()) == 1.0 - 0x1p-8);  // 0.99609375
    CHECK(*std::min_element(b.begin(), b.end()) == 0.0);
    CHECK(std::count(b.begin(), b.end(), 1.0) == 0);
}

TEST_CASE("randn: standard normal")
{
    Generator g(2024);
    const Tensor r = randn({10000}, f32, g);
    check_fresh(r, {10000}, f32);
    const Values v = r.to_vector();
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
    double sq = 0;
    for (double x : v) sq += (x - mean) * (x - mean);
    const double std_dev = std::sqrt(sq / double(v.size() - 1));
    CAPTURE(mean);
    CAPTURE(std_dev);
    CHECK(std::abs(mean) < 0.04);  // standard error 0.01
    CHECK(std::abs(std_dev - 1.0) < 0.03);
    const auto beyond_2 = std::count_if(v.begin(), v.end(), [](double x) { return std::abs(x) > 2.0; });
    CHECK(beyond_2 > 350);  // expected 455 (4.55%)
    CHECK(beyond_2 < 560);

    for (DType d : {f64, f16, bf16}) {
        INFO("dtype ", std::string(dtype_name(d)));
        const Tensor x = randn({500}, d, g);
        check_fresh(x, {500}, d);
        for (double e : x.to_vector()) REQUIRE(std::isfinite(e));
    }
}

TEST_CASE("rand and randn: the same seed gives identical tensors, different seeds different ones")
{
    Generator a(77), b(77), c(78);
    CHECK(rand({3, 4}, f32, a).to_vector() == rand({3, 4}, f32, b).to_vector());
    CHECK(randn({3, 4}, bf16, a).to_vector() == randn({3, 4}, bf16, b).to_vector());
    a.manual_seed(77);
    c.manual_seed(78);
    CHECK(rand({3, 4}, f32, a).to_vector() != rand({3, 4}, f32, c).to_vector());
    CHECK(randn({3, 4}, f32, a).to_vector() != randn({3, 4}, f32, c).to_vector());
    // One seed, two draws: the second continues the sequence.
    Generator d(5);
    CHECK(rand({8}, f64, d).to_vector() != rand({8}, f64, d).to_vector());
}

TEST_CASE("rand and randn only make floating point tensors")
{
    CHECK(error_message([] { rand({2}, i64); }, ErrorKind::dtype) == "rand() makes floating point values, not i64; pick f32, f64, f16 or bf16");
    CHECK(error_message([] { randn({2}, boolean); }, ErrorKind::dtype) ==
          "randn() makes floating point values, not bool; pick f32, f64, f16 or bf16");
    CHECK(error_message([] { rand({-2}); }, ErrorKind::shape) == "shape [-2] has a negative size; sizes must be >= 0");
}

TEST_CASE("tensor(values, {}) means shape {} (a scalar), never a value-initialized dtype")
{
    const Tensor s = tensor({4.5}, {});
    CHECK(s.dim() == 0);
    CHECK(s.dtype() == f32);
    CHECK(s.item() == 4.5);
    CHECK_THROWS_AS(tensor({1.0, 2.0}, {}), Error);  // two values do not fill a scalar
    CHECK(tensor({1.0, 2.0}, f16).dtype() == f16);   // the 1-D form with a dtype still works
}

TEST_CASE("arange refuses ranges with absurd element counts")
{
    try {
        arange(0.0, 1e300, 1.0);
        FAIL("arange(0, 1e300) did not throw");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::value);
        CHECK(std::string(e.what()).find("use a larger step") != std::string::npos);
    }
}
