// Trace to JSON and back: an exact round trip, and strict reading that names what is wrong and where.
#include <doctest/doctest.h>

#include <string>

#include <tinyamp/tinyamp.h>
#include <tinyamp/trace/trace.h>

#include "tests/support/expect_error.h"
#include "tests/support/trace_json_checks.h"

using namespace tinyamp;
using trace::Event;
using trace::TensorInfo;
using trace::Trace;

namespace {

TensorInfo info(std::uint64_t id, DType dtype, Shape shape, std::string name = "")
{
    TensorInfo t;
    t.id = id;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.name = std::move(name);
    return t;
}

TensorInfo with_stats(TensorInfo t)
{
    t.is_leaf = false;
    t.has_stats = true;
    t.stats.min_abs = 1.0 / 3;  // not a short decimal: the round trip must keep every bit
    t.stats.max_abs = 65504;
    t.stats.zeros = 0.25;
    t.stats.infs = 0;
    t.stats.nans = 0.125;
    t.stats.f16_underflow = 0.1;
    t.stats.f16_overflow = 0.2;
    t.stats.bf16_underflow = 0.3;
    t.stats.bf16_overflow = 0.4;
    t.stats.log2_abs.lowest_exponent = -3;
    t.stats.log2_abs.counts = {2, 0, 5};
    return t;
}

// A forward cast (stored in the cast cache), a matmul, and a backward step, with a name that
// needs escaping.
Trace sample_trace()
{
    Trace t;
    Event cast;
    cast.op = "to";
    cast.is_cast = true;
    TensorInfo w = info(7, f32, {4, 3}, "w \"one\" \u2192");
    w.requires_grad = true;
    cast.inputs = {w};
    cast.outputs = {with_stats(info(8, bf16, {4, 3}))};
    cast.device_type = "cpu";
    cast.policy = "lower_precision_fp";
    cast.why = "matmul is lower_precision_fp on cpu \u2192 cast w f32\u2192bf16";
    cast.cache = trace::CacheEvent::stored;
    t.add(cast);

    Event mm;
    mm.op = "matmul";
    mm.inputs = {info(9, bf16, {2, 4}), info(8, bf16, {4, 3})};
    mm.outputs = {with_stats(info(10, bf16, {2, 3}))};
    mm.device_type = "cpu";
    mm.policy = "lower_precision_fp";
    mm.module = "4.attn";
    mm.module_types = "Block.Attention";
    t.add(mm);

    Event bw;
    bw.phase = trace::Phase::backward;
    bw.op = "AccumulateGrad";
    bw.inputs = {info(11, f32, {})};
    bw.outputs = {with_stats(info(12, f32, {4, 3}, "w.grad"))};
    bw.device_type = "cpu";
    t.add(bw);
    return t;
}

void check_same_tensor(const TensorInfo& a, const TensorInfo& b)
{
    CHECK(a.id == b.id);
    CHECK(a.dtype == b.dtype);
    CHECK(a.shape == b.shape);
    CHECK(a.name == b.name);
    CHECK(a.is_leaf == b.is_leaf);
    CHECK(a.requires_grad == b.requires_grad);
    CHECK(a.has_stats == b.has_stats);
    CHECK(a.stats.min_abs == b.stats.min_abs);
    CHECK(a.stats.max_abs == b.stats.max_abs);
    CHECK(a.stats.zeros == b.stats.zeros);
    CHECK(a.stats.infs == b.stats.infs);
    CHECK(a.stats.nans == b.stats.nans);
    CHECK(a.stats.f16_underflow == b.stats.f16_underflow);
    CHECK(a.stats.f16_overflow == b.stats.f16_overflow);
    CHECK(a.stats.bf16_underflow == b.stats.bf16_underflow);
    CHECK(a.stats.bf16_overflow == b.stats.bf16_overflow);
    CHECK(a.stats.log2_abs.lowest_exponent == b.stats.log2_abs.lowest_exponent);
    CHECK(a.stats.log2_abs.counts == b.stats.log2_abs.counts);
}

void check_same_event(const Event& a, const Event& b)
{
    INFO("event " << a.seq);
    CHECK(a.seq == b.seq);
    CHECK(a.phase == b.phase);
    CHECK(a.op == b.op);
    CHECK(a.is_cast == b.is_cast);
    CHECK(a.device_type == b.device_type);
    CHECK(a.policy == b.policy);
    CHECK(a.why == b.why);
    CHECK(a.cache == b.cache);
    CHECK(a.module == b.module);
    CHECK(a.module_types == b.module_types);
    REQUIRE(a.inputs.size() == b.inputs.size());
    for (std::size_t i = 0; i < a.inputs.size(); ++i) check_same_tensor(a.inputs[i], b.inputs[i]);
    REQUIRE(a.outputs.size() == b.outputs.size());
    for (std::size_t i = 0; i < a.outputs.size(); ++i) check_same_tensor(a.outputs[i], b.outputs[i]);
}

// The sample trace's JSON with the first occurrence of `from` replaced by `to`.
std::string broken(const std::string& from, const std::string& to)
{
    return test::replace_first(sample_trace().to_json(), from, to);
}

// The sample trace's JSON with the first shape array after `anchor` replaced by `shape`.
std::string broken_shape_after(const std::string& anchor, const std::string& shape)
{
    std::string text = sample_trace().to_json();
    const std::size_t begin = text.find("\"shape\": [", text.find(anchor));
    REQUIRE(begin != std::string::npos);
    const std::size_t end = text.find(']', begin);
    return text.replace(begin, end + 1 - begin, std::string("\"shape\": ").append(shape));
}

}  // namespace

TEST_CASE("to_json writes version 5 with every field, dtypes as names and shapes as arrays")
{
    const std::string text = sample_trace().to_json();
    CHECK(text.find("\"version\": 5") != std::string::npos);
    CHECK(text.find("scaled_casts") == std::string::npos);  // no event made any: the field is left out
    CHECK(text.find("\"module\": \"4.attn\"") != std::string::npos);
    CHECK(text.find("\"module_types\": \"Block.Attention\"") != std::string::npos);
    CHECK(text.find("\"module\": \"\"") != std::string::npos);  // the events outside every module
    CHECK(text.find("\"log2_abs\": {") != std::string::npos);
    CHECK(text.find("\"lowest_exponent\": -3") != std::string::npos);
    CHECK(text.find("\"dtype\": \"bf16\"") != std::string::npos);
    CHECK(text.find("\"phase\": \"backward\"") != std::string::npos);
    CHECK(text.find("\"cache\": \"stored\"") != std::string::npos);
    CHECK(text.find("\"f16_underflow\": 0.1") != std::string::npos);
    CHECK(text.find("\"seq\": 3") != std::string::npos);
    CHECK(Trace().to_json().find("\"events\": []") != std::string::npos);
}

TEST_CASE("from_json reads back exactly what to_json wrote")
{
    const Trace original = sample_trace();
    const Trace back = Trace::from_json(original.to_json());
    REQUIRE(back.events().size() == original.events().size());
    for (std::size_t i = 0; i < back.events().size(); ++i) check_same_event(back.events()[i], original.events()[i]);
    CHECK(back.to_json() == original.to_json());
}

TEST_CASE("to_json writes a name that is not UTF-8 with replacement characters")
{
    Trace t;
    Event e;
    e.op = "relu";
    e.inputs = {info(1, f32, {2}, "w\xff")};
    t.add(e);
    const Trace back = Trace::from_json(t.to_json());
    CHECK(back.events().at(0).inputs.at(0).name == "w\uFFFD");
}

TEST_CASE("a trace read from JSON goes on numbering after its last event")
{
    Trace t = Trace::from_json(broken("\"seq\": 3", "\"seq\": 30"));
    t.add(Event{});
    CHECK(t.events().back().seq == 31);
}

TEST_CASE("from_json round-trips a real recorded backward pass")
{
    const Tensor w = tensor({1.0, -2.0, 3.0});
    w.requires_grad_().set_name("w");
    const Tensor loss = sum(mul(w, w));
    Trace t;
    {
        trace::TraceRecorder record(t);
        loss.backward();
    }
    REQUIRE_FALSE(t.events().empty());
    CHECK(Trace::from_json(t.to_json()).to_json() == t.to_json());
}

TEST_CASE("from_json rejects text that is not JSON, or not a trace")
{
    test::check_json_rejected("{\"version\": 1, \"events\": [", {"not valid JSON"});
    test::check_json_rejected("", {"not valid JSON"});
    test::check_json_rejected("[1, 2]", {"expected an object, found array"});
    test::check_json_rejected("{\"events\": []}", {"version: missing"});
    test::check_json_rejected("{\"version\": 6, \"events\": []}", {"version", "knows versions 1 to 5", "says 6"});
    test::check_json_rejected("{\"version\": 0, \"events\": []}", {"version", "says 0"});
    test::check_json_rejected("{\"version\": \"2\", \"events\": []}", {"version", "says \"2\""});
    test::check_json_rejected("{\"version\": 1, \"events\": {}}", {"events: expected an array"});
    test::check_json_rejected("{\"version\": 1, \"events\": [], \"extra\": 0}", {"extra: unknown field"});
    CHECK(Trace::from_json("{\"version\": 1, \"events\": []}").events().empty());
    CHECK(Trace::from_json("{\"version\": 2, \"events\": []}").events().empty());
    CHECK(Trace::from_json("{\"version\": 3, \"events\": []}").events().empty());
    CHECK(Trace::from_json("{\"version\": 4, \"events\": []}").events().empty());
    CHECK(Trace::from_json("{\"version\": 5, \"events\": []}").events().empty());
}

TEST_CASE("from_json names the event and field that is wrong")
{
    test::check_json_rejected(broken("\"op\": \"to\",", ""), {"events[0].op: missing"});
    test::check_json_rejected(broken("\"outputs\"", "\"ouputs\""), {"events[0].ouputs: unknown field"});
    test::check_json_rejected(broken("\"op\": \"matmul\"", "\"op\": 5"), {"events[1].op: expected a string, found number"});
    test::check_json_rejected(broken("\"is_cast\": true", "\"is_cast\": \"yes\""), {"events[0].is_cast: expected true or false"});
    test::check_json_rejected(broken("\"phase\": \"backward\"", "\"phase\": \"sideways\""), {"events[2].phase", "sideways"});
    test::check_json_rejected(broken("\"cache\": \"stored\"", "\"cache\": \"kept\""), {"events[0].cache", "kept"});
    test::check_json_rejected(broken("\"seq\": 2", "\"seq\": 1"), {"events[1].seq", "must be greater"});
    test::check_json_rejected(broken("\"seq\": 1", "\"seq\": -1"), {"events[0].seq: expected a non-negative integer, found -1"});
}

TEST_CASE("from_json names the tensor and field that is wrong")
{
    test::check_json_rejected(broken("\"dtype\": \"bf16\"", "\"dtype\": \"f8\""), {"events[0].outputs[0].dtype", "f8"});
    test::check_json_rejected(broken("\"id\": 9", "\"id\": \"nine\""), {"events[1].inputs[0].id: expected a non-negative integer"});
    test::check_json_rejected(broken_shape_after("\"id\": 9", "[2, -4]"), {"events[1].inputs[0].shape[1]", "-4"});
    test::check_json_rejected(broken_shape_after("\"id\": 9", "8"), {"events[1].inputs[0].shape: expected an array"});
    test::check_json_rejected(broken("\"name\": \"w.grad\",", ""), {"events[2].outputs[0].name: missing"});
}

TEST_CASE("from_json checks stats: present exactly when has_stats, shares within 0 and 1")
{
    test::check_json_rejected(broken("\"zeros\": 0.25", "\"zeros\": 1.5"), {"events[0].outputs[0].stats.zeros", "outside [0, 1]"});
    test::check_json_rejected(broken("\"max_abs\": 65504.0", "\"max_abs\": -1"), {"events[0].outputs[0].stats.max_abs", "outside"});
    test::check_json_rejected(broken("\"nans\": 0.125,", ""), {"events[0].outputs[0].stats.nans: missing"});
    test::check_json_rejected(broken("\"has_stats\": true", "\"has_stats\": false"), {"events[0].outputs[0].stats: given but has_stats is false"});
    test::check_json_rejected(broken("\"has_stats\": false", "\"has_stats\": true"), {"events[0].inputs[0].stats: missing (has_stats is true)"});
}

namespace {

// `text` with every "log2_abs" field (and the comma before it) taken out.
// The JSON without the version 3 fields "module" and "module_types", as version 2 wrote it.
std::string without_modules(std::string text)
{
    for (std::size_t at = text.find("\"module\""); at != std::string::npos; at = text.find("\"module\"")) {
        const std::size_t comma = text.rfind(',', at), end = text.find('\n', text.find("\"module_types\"", at));
        text.erase(comma, end - comma);
    }
    return text;
}

std::string without_histograms(std::string text)
{
    for (std::size_t at = text.find("\"log2_abs\""); at != std::string::npos; at = text.find("\"log2_abs\"")) {
        const std::size_t comma = text.rfind(',', at), end = text.find('}', at);
        text.erase(comma, end + 1 - comma);
    }
    return text;
}

// A version 1 file as tinyamp wrote it before the histogram: stats without "log2_abs".
std::string version_1_trace(const std::string& extra_stats_field = "")
{
    return std::string(R"({"version": 1, "events": [{"seq": 1, "phase": "forward", "op": "relu", "is_cast": false,
      "inputs": [{"id": 1, "dtype": "f32", "shape": [2], "name": "h", "is_leaf": true, "requires_grad": false,
                  "has_stats": false}],
      "outputs": [{"id": 2, "dtype": "f32", "shape": [2], "name": "", "is_leaf": false, "requires_grad": false,
                   "has_stats": true, "stats": {"min_abs": 0.5, "max_abs": 2.0, "zeros": 0.0, "infs": 0.0, "nans": 0.0,
                   "f16_underflow": 0.0, "f16_overflow": 0.0, "bf16_underflow": 0.0, "bf16_overflow": 0.0)")
        .append(extra_stats_field)
        .append(R"(}}],
      "device_type": "cpu", "policy": "", "why": "relu ran with autocast off", "cache": "none"}]})");
}

}  // namespace

TEST_CASE("from_json still reads version 1 files: their histograms are empty")
{
    const Trace t = Trace::from_json(version_1_trace());
    REQUIRE(t.events().size() == 1);
    const TensorInfo& out = t.events()[0].outputs.at(0);
    CHECK(out.has_stats);
    CHECK(out.stats.max_abs == 2.0);
    CHECK(out.stats.log2_abs.counts.empty());
    CHECK(out.stats.log2_abs.lowest_exponent == 0);
    // Written again, it is version 5 with an empty histogram, which reads back the same.
    const std::string again = t.to_json();
    CHECK(again.find("\"version\": 5") != std::string::npos);
    CHECK(again.find("\"counts\": []") != std::string::npos);
    CHECK(Trace::from_json(again).to_json() == again);
    // The sample trace as version 1 wrote it: the same events, no histograms.
    std::string sample_v1 = without_histograms(without_modules(sample_trace().to_json()));
    sample_v1.replace(sample_v1.find("\"version\": 5"), 12, "\"version\": 1");
    const Trace back = Trace::from_json(sample_v1);
    REQUIRE(back.events().size() == 3);
    CHECK(back.events()[1].outputs.at(0).stats.f16_overflow == 0.2);
    CHECK(back.events()[1].outputs.at(0).stats.log2_abs.counts.empty());
    // A version 1 file has no histogram to give: one there is an unknown field, as any other.
    test::check_json_rejected(version_1_trace(R"(, "log2_abs": {"lowest_exponent": 0, "counts": []})"),
                   {"events[0].outputs[0].stats.log2_abs: unknown field"});
}

TEST_CASE("from_json reads version 2 files, which have no module fields (they read as \"\"), a version 2 file with them is refused")
{
    std::string v2 = without_modules(sample_trace().to_json());
    v2.replace(v2.find("\"version\": 5"), 12, "\"version\": 2");
    const Trace back = Trace::from_json(v2);
    REQUIRE(back.events().size() == 3);
    CHECK(back.events()[1].op == "matmul");
    CHECK(back.events()[1].module.empty());
    CHECK(back.events()[1].module_types.empty());
    // A version 3 or 4 file must have them; a version 2 file must not.
    test::check_json_rejected(without_modules(sample_trace().to_json()), {"events[0].module: missing"});
    std::string v2_with_module = sample_trace().to_json();
    v2_with_module.replace(v2_with_module.find("\"version\": 5"), 12, "\"version\": 2");
    test::check_json_rejected(v2_with_module, {"events[0].module: unknown field"});
    test::check_json_rejected(broken("\"module\": \"4.attn\"", "\"module\": 4"), {"events[1].module", "expected a string"});
}

TEST_CASE("from_json checks the version 2 histogram: present, integer counts >= 0, no empty ends, exponents of doubles")
{
    const std::string at = "events[0].outputs[0].stats.log2_abs";
    test::check_json_rejected(without_histograms(sample_trace().to_json()), {"events[0].outputs[0].stats.log2_abs: missing"});
    test::check_json_rejected(broken("\"counts\": [", "\"counts\": [-1, "), {(at + ".counts[0]").c_str(), "-1", "outside [0, "});
    test::check_json_rejected(broken("\"counts\": [", "\"counts\": [\"two\", "), {(at + ".counts[0]").c_str(), "expected an integer, found \"two\""});
    test::check_json_rejected(broken("\"counts\": [", "\"counts\": [1.5, "), {(at + ".counts[0]").c_str(), "expected an integer, found 1.5"});
    test::check_json_rejected(broken("\"counts\": [", "\"counts\": {}, \"x\": ["), {(at + ".x: unknown field").c_str()});
    test::check_json_rejected(broken("\"counts\": [", "\"counts\": 3, \"x\": ["), {(at + ".x: unknown field").c_str()});
    test::check_json_rejected(broken("\"lowest_exponent\": -3", "\"lowest_exponent\": \"-3\""),
                   {(at + ".lowest_exponent").c_str(), "expected an integer"});
    test::check_json_rejected(broken("\"lowest_exponent\": -3", "\"lowest_exponent\": -2000"), {(at + ".lowest_exponent").c_str(), "outside [-1074, 1023]"});
    test::check_json_rejected(broken("\"lowest_exponent\": -3", "\"lowest_exponent\": 1022"), {(at + ".counts").c_str(), "beyond the largest"});
    test::check_json_rejected(broken("\"lowest_exponent\": -3,", ""), {(at + ".lowest_exponent: missing").c_str()});
    test::check_json_rejected(broken("\"counts\": [", "\"counts\": [0, "), {(at + ".counts").c_str(), "first and last counts must be non-zero"});
}
