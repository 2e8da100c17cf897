// The scaling recipes of scaling_recipe.h, rule by rule. Every expected value is worked out by hand
// in the comment next to it, from the formula the rule's documentation states.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/support/expect_error.h"
#include "tinyamp/values/scaling_recipe.h"

namespace amp = tinyamp::amp;
namespace mf = tinyamp::minifloat;
using amp::AmaxComputeAlgo;
using amp::ScaleCalculationMode;
using tinyamp::ErrorKind;
using tinyamp::test::error_message;

namespace {

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kFloatMax = std::numeric_limits<float>::max();

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("scaling_recipe: the recipes' defaults, names and formats")
{
    const amp::DelayedScaling delayed;
    CHECK(delayed.margin == 0);
    CHECK(delayed.fp8_format == amp::Fp8Format::HYBRID);
    CHECK(delayed.amax_history_len == 1024);
    CHECK(delayed.amax_compute_algo == AmaxComputeAlgo::max);
    CHECK(amp::Float8CurrentScaling{}.fp8_format == amp::Fp8Format::HYBRID);
    CHECK(amp::NVFP4BlockScaling{}.block_size == 16);
    const auto mxfp8 = amp::MXBlockScaling::mxfp8();
    CHECK(mxfp8.element == &mf::f8e4m3fn);
    CHECK(mxfp8.block_size == 32);
    CHECK(mxfp8.scale_mode == ScaleCalculationMode::floor);
    const auto mxfp4 = amp::MXBlockScaling::mxfp4(ScaleCalculationMode::rceil);
    CHECK(mxfp4.element == &mf::f4e2m1);
    CHECK(mxfp4.block_size == 32);
    CHECK(mxfp4.scale_mode == ScaleCalculationMode::rceil);

    CHECK(std::string(amp::recipe_name(amp::Float8CurrentScaling{})) == "current");
    CHECK(std::string(amp::recipe_name(delayed)) == "delayed");
    CHECK(std::string(amp::recipe_name(mxfp8)) == "mxfp8");
    CHECK(std::string(amp::recipe_name(mxfp4)) == "mxfp4");
    CHECK(std::string(amp::recipe_name(amp::NVFP4BlockScaling{})) == "nvfp4");

    // HYBRID: E4M3 forward, E5M2 gradients; E4M3: E4M3 both ways.
    CHECK(&amp::forward_format(amp::Fp8Format::HYBRID) == &mf::f8e4m3fn);
    CHECK(&amp::backward_format(amp::Fp8Format::HYBRID) == &mf::f8e5m2);
    CHECK(&amp::forward_format(amp::Fp8Format::E4M3) == &mf::f8e4m3fn);
    CHECK(&amp::backward_format(amp::Fp8Format::E4M3) == &mf::f8e4m3fn);
    CHECK(std::string(amp::fp8_format_name(amp::Fp8Format::HYBRID)) == "HYBRID");
}

TEST_CASE("scaling_recipe: current scale is fmt_max / max(amax, 1e-12) (torchao)")
{
    CHECK(amp::current_scale(448.0f, mf::f8e4m3fn) == 1.0f);    // 448 / 448
    CHECK(amp::current_scale(1.0f, mf::f8e4m3fn) == 448.0f);    // 448 / 1
    CHECK(amp::current_scale(2.0f, mf::f8e4m3fn) == 224.0f);    // 448 / 2
    CHECK(amp::current_scale(1.0f, mf::f8e5m2) == 57344.0f);    // E5M2's max / 1
    CHECK(amp::current_scale(114688.0f, mf::f8e5m2) == 0.5f);   // 57344 / (2 * 57344)
    // amax 0 is clamped to 1e-12: 448 / 1e-12 = 4.48e14, rounded once to f32.
    CHECK(amp::current_scale(0.0f, mf::f8e4m3fn) == float(448.0 / 1e-12));
    CHECK(amp::current_scale(1e-13f, mf::f8e4m3fn) == amp::current_scale(0.0f, mf::f8e4m3fn));
    CHECK(amp::current_scale(kInf, mf::f8e4m3fn) == 0.0f);      // 448 / inf
    CHECK(std::isnan(amp::current_scale(kNaN, mf::f8e4m3fn)));  // torch.clamp keeps NaN
}

TEST_CASE("scaling_recipe: amax history of length 1 holds the last step only")
{
    amp::AmaxHistory history(1);
    CHECK(history.values() == std::vector<float>{0.0f});
    history.push(3.0f);
    CHECK(history.values() == std::vector<float>{3.0f});
    history.push(5.0f);
    CHECK(history.values() == std::vector<float>{5.0f});
    history.push(2.0f);  // 5 is gone: max and most_recent agree
    CHECK(history.amax(AmaxComputeAlgo::max) == 2.0f);
    CHECK(history.amax(AmaxComputeAlgo::most_recent) == 2.0f);
}

TEST_CASE("scaling_recipe: amax history of length 4 rolls as Transformer Engine's")
{
    // TE's buffer after each step's write, slot 0 newest, slots 1..3 oldest to newest:
    //   push 7: [7, 0, 0, 0]
    //   push 2: roll [7,0,0,0] -> [0,0,0,7], write -> [2, 0, 0, 7]
    //   push 3: roll -> [0,0,7,2],   write -> [3, 0, 7, 2]
    //   push 4: roll -> [0,7,2,3],   write -> [4, 7, 2, 3]
    //   push 1: roll -> [7,2,3,4], slot 0 zeroed (7 dropped), write -> [1, 2, 3, 4]
    amp::AmaxHistory history(4);
    CHECK(history.length() == 4);
    history.push(7.0f);
    CHECK(history.values() == std::vector<float>{7, 0, 0, 0});
    history.push(2.0f);
    CHECK(history.values() == std::vector<float>{2, 0, 0, 7});
    history.push(3.0f);
    CHECK(history.values() == std::vector<float>{3, 0, 7, 2});
    history.push(4.0f);
    CHECK(history.values() == std::vector<float>{4, 7, 2, 3});
    CHECK(history.amax(AmaxComputeAlgo::max) == 7.0f);  // 7 is still in the window of 4 steps
    CHECK(history.amax(AmaxComputeAlgo::most_recent) == 4.0f);
    history.push(1.0f);
    CHECK(history.values() == std::vector<float>{1, 2, 3, 4});
    CHECK(history.amax(AmaxComputeAlgo::max) == 4.0f);  // 7 has left the window
    CHECK(history.amax(AmaxComputeAlgo::most_recent) == 1.0f);
    CHECK(amp::AmaxHistory().length() == 1024);
}

TEST_CASE("scaling_recipe: a NaN amax is skipped by the history's max, an inf is kept")
{
    amp::AmaxHistory history(2);
    history.push(2.0f);
    history.push(kNaN);  // [NaN, 2]: fmaxf(0, NaN) = 0, fmaxf(0, 2) = 2
    CHECK(history.amax(AmaxComputeAlgo::max) == 2.0f);
    CHECK(std::isnan(history.amax(AmaxComputeAlgo::most_recent)));
    history.push(kInf);  // [inf, NaN]
    CHECK(history.amax(AmaxComputeAlgo::max) == kInf);
}

TEST_CASE("scaling_recipe: delayed scale, margin, and the skips on amax 0, inf and NaN")
{
    // (448 * 2^-margin) / amax
    CHECK(amp::delayed_scale(1.0f, 448.0f, mf::f8e4m3fn, 0) == 1.0f);
    CHECK(amp::delayed_scale(1.0f, 2.0f, mf::f8e4m3fn, 0) == 224.0f);
    CHECK(amp::delayed_scale(1.0f, 2.0f, mf::f8e4m3fn, 1) == 112.0f);  // 224 / 2
    CHECK(amp::delayed_scale(1.0f, 2.0f, mf::f8e4m3fn, 2) == 56.0f);   // 224 / 4
    // HYBRID's gradients: E5M2, 57344 / 2.
    CHECK(amp::delayed_scale(1.0f, 2.0f, amp::backward_format(amp::Fp8Format::HYBRID), 0) == 28672.0f);
    // No usable amax: the previous scale stays, whatever the margin.
    for (int margin : {0, 1, 2}) {
        CAPTURE(margin);
        CHECK(amp::delayed_scale(3.5f, 0.0f, mf::f8e4m3fn, margin) == 3.5f);
        CHECK(amp::delayed_scale(3.5f, kInf, mf::f8e4m3fn, margin) == 3.5f);
        CHECK(amp::delayed_scale(3.5f, kNaN, mf::f8e4m3fn, margin) == 3.5f);
    }
    // 448 / 1e-38 = 4.48e40 is past f32: TE gives FLT_MAX (and so for an inf previous scale).
    CHECK(amp::delayed_scale(1.0f, 1e-38f, mf::f8e4m3fn, 0) == kFloatMax);
    CHECK(amp::delayed_scale(kInf, 0.0f, mf::f8e4m3fn, 0) == kFloatMax);
}

TEST_CASE("scaling_recipe: delayed scaling over steps: a spike holds the scale down for L steps")
{
    // L = 4, max, E4M3, margin 0. Amaxes 1, 1, 100, 1, 1, 1, 1: the scale is 448 / (largest amax
    // of the last 4 steps): 448, 448, 4.48 (steps 3..6 see the 100), then 448 again at step 7.
    const amp::DelayedScaling recipe{0, amp::Fp8Format::E4M3, 4, AmaxComputeAlgo::max};
    amp::AmaxHistory history(recipe.amax_history_len);
    const float amaxes[] = {1, 1, 100, 1, 1, 1, 1};
    const float expected[] = {448, 448, 4.48f, 4.48f, 4.48f, 4.48f, 448};
    float scale = 1.0f;
    for (int step = 0; step < 7; ++step) {
        CAPTURE(step);
        history.push(amaxes[step]);
        scale = amp::delayed_scale(scale, history.amax(recipe.amax_compute_algo),
                                   amp::forward_format(recipe.fp8_format), recipe.margin);
        CHECK(scale == expected[step]);
    }
}

TEST_CASE("scaling_recipe: MX block scale, FLOOR vs RCEIL, E4M3 elements")
{
    // code = exponent + 127. FLOOR: floor(log2 amax) - 8. RCEIL: ceil(log2(amax / 448)).
    struct Case {
        float amax;
        int floor_code, rceil_code;
    };
    const Case cases[] = {
        {448.0f, 127, 127},     // 448 = 1.75 * 2^8: 8 - 8 = 0; 448 / 448 = 2^0
        {449.0f, 127, 128},     // floor: 0 (449 then saturates to 448); 449 / 448 > 1: up to 2^1
        {1.0f, 119, 119},       // 0 - 8 = -8; 1 / 448 = 2^-8.81, up to 2^-8
        {7.0f, 121, 121},       // 2 - 8 = -6; 7 / 448 = 2^-6 exactly
        {7.5f, 121, 122},       // 2 - 8 = -6 (7.5 * 64 = 480 saturates); 7.5 / 448 = 2^-5.9, up to 2^-5
        {240.0f, 126, 127},     // 7 - 8 = -1 (240 * 2 = 480 saturates); 240 / 448 = 2^-0.9, up to 2^0
        {0.0f, 0, 0},           // no exponent: clamped to -127
        {0x1p-118f, 1, 1},      // -118 - 8 = -126; 2^-118 / 448 = 2^-126.8, up to 2^-126
        {0x1p-120f, 0, 0},      // -128 and -128.8: clamped to -127
        {0x1p-130f, 0, 0},      // an f32 subnormal: clamped
        {kFloatMax, 246, 247},  // 127 - 8 = 119; FLT_MAX / 448 = 2^119.19, up to 2^120
        {kInf, 247, 254},       // torchao: inf's exponent field reads 128, 128 - 8; log2(inf) clamped to 127
    };
    for (const Case& c : cases) {
        CAPTURE(c.amax);
        CHECK(amp::mx_block_scale(c.amax, mf::f8e4m3fn, ScaleCalculationMode::floor) == c.floor_code);
        CHECK(amp::mx_block_scale(c.amax, mf::f8e4m3fn, ScaleCalculationMode::rceil) == c.rceil_code);
    }
    CHECK(amp::mx_block_scale(kNaN, mf::f8e4m3fn, ScaleCalculationMode::floor) == 0xFF);
    CHECK(amp::mx_block_scale(kNaN, mf::f8e4m3fn, ScaleCalculationMode::rceil) == 0xFF);
    // RCEIL's ceiling is exact: the f32 just above 448 gives 448/448 rounded to 1 + 2^-23, up to 2^1.
    CHECK(amp::mx_block_scale(std::nextafter(448.0f, kInf), mf::f8e4m3fn, ScaleCalculationMode::rceil) == 128);
    // E5M2 elements: emax 15. 57344 = 1.75 * 2^15: 127 both; 1: -15 + 127 = 112 (1/57344 = 2^-15.8).
    CHECK(amp::mx_block_scale(57344.0f, mf::f8e5m2, ScaleCalculationMode::floor) == 127);
    CHECK(amp::mx_block_scale(57344.0f, mf::f8e5m2, ScaleCalculationMode::rceil) == 127);
    CHECK(amp::mx_block_scale(1.0f, mf::f8e5m2, ScaleCalculationMode::floor) == 112);
    CHECK(amp::mx_block_scale(1.0f, mf::f8e5m2, ScaleCalculationMode::rceil) == 112);
}

TEST_CASE("scaling_recipe: MX block scale, FLOOR vs RCEIL, E2M1 elements")
{
    // FLOOR: floor(log2 amax) - 2 (6 = 1.5 * 2^2). RCEIL: ceil(log2(amax / 6)).
    struct Case {
        float amax;
        int floor_code, rceil_code;
    };
    const Case cases[] = {
        {6.0f, 127, 127},       // 2 - 2 = 0; 6 / 6 = 2^0
        {7.0f, 127, 128},       // 0 (7 saturates to 6); 7 / 6 > 1: up to 2^1
        {4.0f, 127, 127},       // 0; 4 / 6 = 2^-0.58, up to 2^0
        {3.0f, 126, 126},       // 1 - 2 = -1; 3 / 6 = 2^-1
        {1.0f, 125, 125},       // 0 - 2 = -2; 1 / 6 = 2^-2.58, up to 2^-2
        {0.0f, 0, 0},           // clamped
        {0x1p-130f, 0, 0},      // clamped
        {kFloatMax, 252, 253},  // 127 - 2 = 125; FLT_MAX / 6 = 2^125.4, up to 2^126
        {kInf, 253, 254},       // 128 - 2 = 126; log2(inf) clamped to 127
    };
    for (const Case& c : cases) {
        CAPTURE(c.amax);
        CHECK(amp::mx_block_scale(c.amax, mf::f4e2m1, ScaleCalculationMode::floor) == c.floor_code);
        CHECK(amp::mx_block_scale(c.amax, mf::f4e2m1, ScaleCalculationMode::rceil) == c.rceil_code);
    }
    CHECK(amp::mx_block_scale(kNaN, mf::f4e2m1, ScaleCalculationMode::rceil) == 0xFF);
}

TEST_CASE("scaling_recipe: NVFP4 tensor and block scales")
{
    // Tensor scale: amax / (448 * 6) = amax / 2688; 1 where that is not a positive finite f32.
    CHECK(amp::nvfp4_tensor_scale(2688.0f) == 1.0f);
    CHECK(amp::nvfp4_tensor_scale(10752.0f) == 4.0f);  // 4 * 2688
    CHECK(amp::nvfp4_tensor_scale(1.0f) == 1.0f / 2688.0f);
    CHECK(amp::nvfp4_tensor_scale(0.0f) == 1.0f);
    CHECK(amp::nvfp4_tensor_scale(kInf) == 1.0f);
    CHECK(amp::nvfp4_tensor_scale(kNaN) == 1.0f);

    // Block scale: E4M3 of clamp((amax / 6) / tensor_scale, 2^-6, 448).
    const auto block_value = [](float amax, float tensor_scale) {
        return mf::decode(mf::f8e4m3fn, amp::nvfp4_block_scale(amax, tensor_scale));
    };
    CHECK(amp::nvfp4_block_scale(6.0f, 1.0f) == 0x38);  // 1.0 = 1.000 * 2^(7 - 7): 0 0111 000
    CHECK(block_value(6.0f, 0.5f) == 2.0);               // (6 / 6) / 0.5
    CHECK(block_value(7.0f, 1.0f) == 1.125);             // 7/6 = 1.1667: nearer 1.125 than 1.25
    CHECK(amp::nvfp4_block_scale(2688.0f, 1.0f) == 0x7E);  // 448 = E4M3's max code
    CHECK(amp::nvfp4_block_scale(3000.0f, 1.0f) == 0x7E);  // 500 clamped to 448
    CHECK(amp::nvfp4_block_scale(0.0f, 1.0f) == 0x08);     // clamped up to 2^-6: 0 0001 000
    CHECK(block_value(0.01f, 1.0f) == 0x1p-6);            // 0.00167 clamped up to 2^-6
    CHECK(mf::is_nan(mf::f8e4m3fn, amp::nvfp4_block_scale(kNaN, 1.0f)));
    // With the tensor scale of the tensor's amax, the block holding that amax gets 448.
    CHECK(block_value(1000.0f, amp::nvfp4_tensor_scale(1000.0f)) == 448.0);
}

TEST_CASE("scaling_recipe: bad arguments give errors naming the value")
{
    amp::DelayedScaling delayed;
    delayed.margin = -1;
    std::string msg = error_message([&] { amp::validate(delayed); }, ErrorKind::value);
    CHECK(contains(msg, "margin"));
    CHECK(contains(msg, "-1"));
    delayed.margin = 0;
    delayed.amax_history_len = 0;
    msg = error_message([&] { amp::validate(delayed); }, ErrorKind::value);
    CHECK(contains(msg, "amax_history_len"));
    CHECK(contains(msg, "got 0"));
    msg = error_message([] { amp::AmaxHistory history(0); }, ErrorKind::value);
    CHECK(contains(msg, "got 0"));

    amp::MXBlockScaling mx;
    mx.block_size = 0;
    msg = error_message([&] { amp::validate(mx); }, ErrorKind::value);
    CHECK(contains(msg, "block_size"));
    mx = amp::MXBlockScaling::mxfp8();
    mx.element = &mf::e8m0;
    msg = error_message([&] { amp::validate(mx); }, ErrorKind::dtype);
    CHECK(contains(msg, "e8m0"));
    msg = error_message([] { amp::validate(amp::NVFP4BlockScaling{-3}); }, ErrorKind::value);
    CHECK(contains(msg, "-3"));
    CHECK_NOTHROW(amp::validate(amp::MXBlockScaling::mxfp4()));

    msg = error_message([] { amp::current_scale(1.0f, mf::f4e2m1); }, ErrorKind::dtype);
    CHECK(contains(msg, "f4e2m1"));
    msg = error_message([] { amp::delayed_scale(1.0f, 1.0f, mf::f8e4m3fn, -2); }, ErrorKind::value);
    CHECK(contains(msg, "-2"));
    msg = error_message([] { amp::mx_block_scale(-1.0f, mf::f8e4m3fn, ScaleCalculationMode::floor); },
                        ErrorKind::value);
    CHECK(contains(msg, "-1"));
    msg = error_message([] { amp::mx_block_scale(1.0f, mf::e8m0, ScaleCalculationMode::floor); }, ErrorKind::dtype);
    CHECK(contains(msg, "e8m0"));
    msg = error_message([] { amp::nvfp4_block_scale(1.0f, 0.0f); }, ErrorKind::value);
    CHECK(contains(msg, "tensor scale"));
}
