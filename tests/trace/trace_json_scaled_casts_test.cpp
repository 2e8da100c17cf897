// Trace JSON versions 4 and 5: the FP8/FP4 casts an op made (Event::scaled_casts) round-trip exactly,
// are left out of events without any, are refused in older versions, and are read as strictly as
// every other field, each error naming its place.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include <tinyamp/tinyamp.h>
#include <tinyamp/trace/trace.h>

#include "tests/support/expect_error.h"
#include "tests/support/trace_json_checks.h"

using namespace tinyamp;
using trace::Event;
using trace::ScaledCast;
using trace::Trace;

namespace {

ScaledCast delayed_cast()
{
    ScaledCast c;
    c.role = "input";
    c.dtype = f8e4m3fn;
    c.recipe = "delayed";
    c.shape = {4, 64};
    c.amax = 1.0 / 3;  // every bit must survive
    c.scale = 448.0 / 3;
    c.saturated_share = 0.125;
    c.flushed_share = 0.0625;
    c.amax_history = {0.5f, 0.0f, 0.25f};
    c.log2_histogram.assign(61, 0);
    c.log2_histogram[40] = 200;
    c.log2_histogram[48] = 50;
    c.zeros = 6;
    return c;
}

ScaledCast mx_cast()
{
    ScaledCast c;
    c.role = "weight (transposed)";
    c.dtype = f4e2m1x2;
    c.recipe = "mxfp4";
    c.shape = {2, 64};
    c.amax = 3.5;
    c.blocks_per_row = 2;
    c.block_scale_exponents = {-127, -3, 0, 127};
    c.log2_histogram = {1, 2, 3};
    return c;
}

// A relu without casts, then an fp8_linear with two.
Trace fp8_trace()
{
    Trace t;
    Event relu;
    relu.op = "relu";
    t.add(relu);
    Event linear;
    linear.op = "fp8_linear";
    linear.module = "0";
    linear.module_types = "Linear";
    linear.scaled_casts = {delayed_cast(), mx_cast()};
    t.add(linear);
    return t;
}

void check_same_cast(const ScaledCast& a, const ScaledCast& b)
{
    CHECK(a.role == b.role);
    CHECK(a.dtype == b.dtype);
    CHECK(a.recipe == b.recipe);
    CHECK(a.shape == b.shape);
    CHECK((a.amax == b.amax || (std::isnan(a.amax) && std::isnan(b.amax))));
    CHECK(a.scale == b.scale);
    CHECK(a.saturated_share == b.saturated_share);
    CHECK(a.flushed_share == b.flushed_share);
    REQUIRE(a.amax_history.size() == b.amax_history.size());
    for (std::size_t i = 0; i < a.amax_history.size(); ++i)
        CHECK((a.amax_history[i] == b.amax_history[i] || (std::isnan(a.amax_history[i]) && std::isnan(b.amax_history[i]))));
    CHECK(a.blocks_per_row == b.blocks_per_row);
    CHECK(a.block_scale_exponents == b.block_scale_exponents);
    CHECK(a.log2_histogram == b.log2_histogram);
    CHECK(a.zeros == b.zeros);
}

// fp8_trace()'s JSON with the first occurrence of `from` replaced by `to`.
std::string broken(const std::string& from, const std::string& to)
{
    return test::replace_first(fp8_trace().to_json(), from, to);
}

}  // namespace

TEST_CASE("to_json writes an event's scaled casts, and leaves the field out of events without any")
{
    const std::string text = fp8_trace().to_json();
    CHECK(text.find("\"version\": 5") != std::string::npos);
    const std::size_t casts = text.find("\"scaled_casts\": [");
    REQUIRE(casts != std::string::npos);
    CHECK(casts > text.find("\"op\": \"fp8_linear\""));  // not in the relu's event
    CHECK(text.find("\"scaled_casts\"", casts + 1) == std::string::npos);
    CHECK(text.find("\"dtype\": \"f8e4m3fn\"") != std::string::npos);
    CHECK(text.find("\"recipe\": \"mxfp4\"") != std::string::npos);
    CHECK(text.find("\"block_scale_exponents\": [\n") != std::string::npos);
}

TEST_CASE("from_json reads scaled casts back exactly, inf and NaN amaxes too")
{
    Trace original = fp8_trace();
    const Trace back = Trace::from_json(original.to_json());
    REQUIRE(back.events().size() == 2);
    CHECK(back.events()[0].scaled_casts.empty());
    REQUIRE(back.events()[1].scaled_casts.size() == 2);
    check_same_cast(back.events()[1].scaled_casts[0], original.events()[1].scaled_casts[0]);
    check_same_cast(back.events()[1].scaled_casts[1], original.events()[1].scaled_casts[1]);
    CHECK(back.to_json() == original.to_json());

    Event overflowed;
    overflowed.op = "fp8_linear";
    overflowed.scaled_casts = {delayed_cast()};
    overflowed.scaled_casts[0].amax = std::numeric_limits<double>::infinity();
    overflowed.scaled_casts[0].amax_history = {std::numeric_limits<float>::quiet_NaN(), 1.0f};
    Trace t;
    t.add(overflowed);
    const std::string text = t.to_json();
    CHECK(text.find("\"amax\": \"inf\"") != std::string::npos);
    const Trace again = Trace::from_json(text);
    check_same_cast(again.events().at(0).scaled_casts.at(0), overflowed.scaled_casts[0]);
    CHECK(again.to_json() == text);

    // Current scaling of an inf amax gives scale 0, of a NaN amax NaN: both round-trip too.
    for (double scale : {0.0, std::numeric_limits<double>::quiet_NaN()}) {
        Event odd;
        odd.op = "fp8_linear";
        odd.scaled_casts = {delayed_cast()};
        odd.scaled_casts[0].scale = scale;
        Trace one;
        one.add(odd);
        const Trace read = Trace::from_json(one.to_json());
        const double got = read.events().at(0).scaled_casts.at(0).scale;
        CHECK((std::isnan(scale) ? std::isnan(got) : got == scale));
    }
}

TEST_CASE("from_json round-trips a recorded fp8_linear step: delayed and MXFP8 casts, forward and backward")
{
    Generator gen(5);
    const Tensor x = randn({4, 64}, f32, gen).requires_grad_();
    const Tensor w = mul(randn({8, 64}, f32, gen), 0.1).requires_grad_();
    Trace t;
    {
        trace::TraceRecorder record(t);
        amp::DelayedScaling recipe;
        recipe.amax_history_len = 4;
        sum(fp8_linear(x, w, Tensor(), recipe, std::make_shared<Fp8LinearState>(4))).backward();
        fp8_linear(x.detach(), w.detach(), Tensor(), amp::MXBlockScaling::mxfp8());
    }
    std::size_t casts = 0;
    for (const Event& e : t.events()) casts += e.scaled_casts.size();
    CHECK(casts >= 5);  // forward: input, weight; backward: grad_output; MX: input, weight
    const Trace back = Trace::from_json(t.to_json());
    REQUIRE(back.events().size() == t.events().size());
    for (std::size_t i = 0; i < t.events().size(); ++i) {
        REQUIRE(back.events()[i].scaled_casts.size() == t.events()[i].scaled_casts.size());
        for (std::size_t k = 0; k < t.events()[i].scaled_casts.size(); ++k)
            check_same_cast(back.events()[i].scaled_casts[k], t.events()[i].scaled_casts[k]);
    }
    CHECK(back.to_json() == t.to_json());
}

TEST_CASE("from_json refuses scaled casts in versions before 4, and an empty list")
{
    std::string v3 = fp8_trace().to_json();
    v3.replace(v3.find("\"version\": 5"), 12, "\"version\": 3");
    test::check_json_rejected(v3, {"events[1].scaled_casts: unknown field"});
    test::check_json_rejected(broken("\"scaled_casts\": [", "\"scaled_casts\": [], \"x\": ["), {"events[1].x: unknown field"});
    std::string empty_list = Trace::from_json(fp8_trace().to_json()).to_json();
    empty_list.replace(empty_list.find("\"module_types\": \"\""), 18, "\"module_types\": \"\", \"scaled_casts\": []");
    test::check_json_rejected(empty_list, {"events[0].scaled_casts", "an empty list"});
}

TEST_CASE("from_json names the scaled cast and field that is wrong")
{
    const std::string first = "events[1].scaled_casts[0]", second = "events[1].scaled_casts[1]";
    test::check_json_rejected(broken("\"role\": \"input\",", ""), {(first + ".role: missing").c_str()});
    test::check_json_rejected(broken("\"role\": \"input\"", "\"rol\": \"input\""), {(first + ".rol: unknown field").c_str()});
    test::check_json_rejected(broken("\"dtype\": \"f8e4m3fn\"", "\"dtype\": \"bf16\""), {(first + ".dtype").c_str(), "f8e4m3fn, f8e5m2 or f4e2m1x2"});
    test::check_json_rejected(broken("\"dtype\": \"f8e4m3fn\"", "\"dtype\": \"f9\""), {(first + ".dtype").c_str(), "f9"});
    test::check_json_rejected(broken("\"shape\": [\n", "\"shape\": [\n 1,\n"), {(first + ".shape").c_str(), "3 dimensions"});
    test::check_json_rejected(broken("\"amax\": 0.3333", "\"amax\": -0.3333"), {(first + ".amax").c_str(), "outside"});
    test::check_json_rejected(broken("\"amax\": 0.3333333333333333", "\"amax\": \"big\""), {(first + ".amax").c_str(), "found \"big\""});
    test::check_json_rejected(broken("\"scale\": 149.33333333333334", "\"scale\": -1"), {(first + ".scale").c_str(), "outside"});
    test::check_json_rejected(broken("\"saturated_share\": 0.125", "\"saturated_share\": 1.125"), {(first + ".saturated_share").c_str(), "outside [0, 1]"});
    test::check_json_rejected(broken("\"flushed_share\": 0.0625", "\"flushed_share\": true"), {(first + ".flushed_share").c_str(), "expected a number"});
    test::check_json_rejected(broken("\"amax_history\": [\n", "\"amax_history\": [\n \"lots\",\n"),
                   {(first + ".amax_history[0]").c_str(), "\"inf\" or \"nan\", found \"lots\""});
    test::check_json_rejected(broken("\"blocks_per_row\": 2", "\"blocks_per_row\": -2"), {(second + ".blocks_per_row").c_str(), "outside"});
    test::check_json_rejected(broken("\"blocks_per_row\": 2", "\"blocks_per_row\": 0"), {(second + ".block_scale_exponents").c_str(), "blocks_per_row is 0"});
    test::check_json_rejected(broken("-127,", "-128,"), {(second + ".block_scale_exponents[0]").c_str(), "outside [-127, 127]"});
    test::check_json_rejected(broken("\"log2_histogram\": [\n", "\"log2_histogram\": [\n -1,\n"), {(first + ".log2_histogram[0]").c_str(), "outside [0, "});
    test::check_json_rejected(broken("\"zeros\": 6", "\"zeros\": 6.5"), {(first + ".zeros").c_str(), "expected an integer"});
}
