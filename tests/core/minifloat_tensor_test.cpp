// Tensors of the FP8/FP4 dtypes: made, converted, read, printed, viewed and copied like any
// tensor; counted by the allocator at one byte an element; refused by ops that compute.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <utility>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

TEST_CASE("an f32 tensor goes to f8e4m3fn and back: values rounded to E4M3, 448 the most, one byte each")
{
    const Tensor x = tensor({0.3, -1.0, 3.1415926, 500.0, 0.0005, -1e9}, {2, 3});
    const Tensor q = x.to(f8e4m3fn);
    CHECK(q.dtype() == f8e4m3fn);
    CHECK(q.shape() == Shape{2, 3});
    CHECK(q.nbytes() == 6);
    const std::vector<double> back = q.to(f32).to_vector();
    // E4M3 keeps 3 fraction bits: 0.3 -> 0.3125, pi -> 3.25; 500 and -1e9 saturate to +-448;
    // 0.0005 is below half the smallest subnormal 2^-9 (0.00098): 0.
    CHECK(back == std::vector<double>{0.3125, -1.0, 3.25, 448.0, 0.0, -448.0});
    CHECK(q.at({0, 2}) == 3.25);
    CHECK(x.to(f8e5m2).to(f32).to_vector()[3] == 512.0);  // E5M2 reaches 57344, with 2 fraction bits
}

TEST_CASE("factories and set() round values into FP8 once, E8M0 refuses 0")
{
    const Tensor ones8 = ones({4}, f8e5m2);
    CHECK(ones8.to_vector() == std::vector<double>(4, 1.0));
    const Tensor z = zeros({3}, f8e4m3fn);
    CHECK(z.to_vector() == std::vector<double>(3, 0.0));
    const Tensor s = full({2}, 0.25, e8m0);
    CHECK(s.to_vector() == std::vector<double>(2, 0.25));
    const std::string message = error_message([] { zeros({2}, e8m0); }, ErrorKind::value);
    CHECK(message.find("e8m0") != std::string::npos);
    Tensor t = zeros({2}, f8e4m3fn);
    t.set({1}, 17.0);  // between 16 and 18: the tie goes to the even code, 16
    CHECK(t.at({1}) == 16.0);
    CHECK_THROWS_AS(rand({2}, f8e4m3fn), Error);  // random values are made in a float dtype, then converted
}

TEST_CASE("FP8 tensors print their values and dtype")
{
    const std::string text = tensor({1.0, -0.5, 448.0}).to(f8e4m3fn).to_string();
    CHECK(text.find("f8e4m3fn") != std::string::npos);
    CHECK(text.find("448") != std::string::npos);
    CHECK(text.find("-0.5") != std::string::npos);
}

TEST_CASE("views and copies keep FP8 codes untouched")
{
    const Tensor q = tensor({1, 2, 3, 4, 5, 6}, {2, 3}).to(f8e4m3fn);
    const Tensor t = q.t();
    CHECK(t.dtype() == f8e4m3fn);
    CHECK(t.at({2, 1}) == 6.0);
    CHECK(t.contiguous().to(f32).to_vector() == std::vector<double>{1, 4, 2, 5, 3, 6});
    CHECK(q.reshape({3, 2}).at({2, 1}) == 6.0);
    CHECK(q.slice(1, 1, 3).clone().to_vector() == std::vector<double>{2, 3, 5, 6});
    CHECK(q.to(f8e5m2).to_vector() == std::vector<double>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("ops that compute refuse FP8 tensors with one message that says to convert first")
{
    const Tensor q = ones({2, 2}, f8e4m3fn);
    const Tensor f = ones({2, 2});
    for (const auto& [name, run] : std::vector<std::pair<std::string, std::function<void()>>>{
             {"add", [&] { add(q, f); }},
             {"matmul", [&] { matmul(f, q); }},
             {"relu", [&] { relu(q); }},
             {"sum", [&] { sum(q); }}}) {
        CAPTURE(name);
        const std::string message = error_message(run, ErrorKind::dtype);
        CHECK(message.find("f8e4m3fn") != std::string::npos);
        CHECK(message.find(".to(f32)") != std::string::npos);
    }
    CHECK_THROWS_AS(q.requires_grad_(true), Error);  // codes have no gradient: keep an f32 master copy
}

TEST_CASE("the allocator counts FP8 and FP4 tensors at one byte an element")
{
    const MemoryStats before = memory_stats();
    {
        const Tensor a = zeros({1000}, f8e4m3fn);
        const Tensor b = empty({16, 8}, f4e2m1x2);  // 16 x 16 FP4 values in 128 bytes
        const Tensor s = ones({10}, e8m0);
        const MemoryStats during = memory_stats();
        CHECK(during[f8e4m3fn].live_bytes - before[f8e4m3fn].live_bytes == 1000);
        CHECK(during[f4e2m1x2].live_bytes - before[f4e2m1x2].live_bytes == 128);
        CHECK(during[e8m0].live_bytes - before[e8m0].live_bytes == 10);
        CHECK(during.to_string().find("f8e4m3fn") != std::string::npos);
    }
    CHECK(memory_stats()[f8e4m3fn].live_bytes == before[f8e4m3fn].live_bytes);
}

TEST_CASE("an f4e2m1x2 tensor cannot be converted element by element")
{
    const Tensor packed = empty({4}, f4e2m1x2);
    const std::string message = error_message([&] { packed.to(f32); }, ErrorKind::dtype);
    CHECK(message.find("two FP4 values") != std::string::npos);
}

TEST_CASE("an f4e2m1x2 tensor prints each byte as its two FP4 values, low nibble first")
{
    const Tensor fp4 = empty({2}, f4e2m1x2);
    auto* bytes = static_cast<std::uint8_t*>(fp4.data_ptr());
    bytes[0] = minifloat::pack_fp4x2(0x2, 0xF);  // 1.0 and -6
    bytes[1] = minifloat::pack_fp4x2(0x1, 0x0);  // 0.5 and 0
    const std::string text = fp4.to_string();
    CHECK(text.find("1|-6") != std::string::npos);
    CHECK(text.find("0.5|0") != std::string::npos);
    CHECK(text.find("f4e2m1x2") != std::string::npos);
}
