// A trace as JSON, and back. The format (version 5):
//   {"version": 5, "events": [{"seq": 1, "phase": "forward", "op": "to", "is_cast": true,
//     "inputs": [{"id": 7, "dtype": "f32", "shape": [4, 3], "name": "w1", "is_leaf": true,
//                 "requires_grad": true, "has_stats": false}],
//     "outputs": [{..., "has_stats": true, "stats": {"min_abs": ..., "max_abs": ..., ...,
//                  "log2_abs": {"lowest_exponent": -3, "counts": [2, 0, 5]}}}],
//     "device_type": "cpu", "policy": "lower_precision_fp", "why": "...", "cache": "stored",
//     "module": "4.attn", "module_types": "Block.Attention"}]}
// "log2_abs" is the histogram of floor(log2|x|) over the finite non-zero values: counts[i] values
// in [2^(e+i), 2^(e+i+1)), e = lowest_exponent; the first and last counts are non-zero, and an
// empty histogram is {"lowest_exponent": 0, "counts": []}. "module" is the dotted path of the
// nn::Module the op ran in ("" outside every module) and "module_types" the type names along it.
// An event whose op made FP8/FP4 casts inside (fp8_linear) has "scaled_casts" after
// "module_types", one object per trace::ScaledCast, in order; an event without casts leaves the
// field out (so a list is never empty, and a trace without FP8 reads as version 3 wrote it, but
// for its version number):
//   "scaled_casts": [{"role": "input", "dtype": "f8e4m3fn", "recipe": "delayed", "shape": [32, 64],
//     "amax": 1.0, "scale": 448.0, "saturated_share": 0.0, "flushed_share": 0.002,
//     "amax_history": [1.0, 0.0, ...], "blocks_per_row": 0, "block_scale_exponents": [],
//     "log2_histogram": [0, ..., 12, 40, 0], "zeros": 3}]
// "dtype" is f8e4m3fn, f8e5m2 or f4e2m1x2; "shape" is the [rows, K] matrix cast; "amax" and the
// "amax_history" entries are numbers >= 0, or "inf" / "nan" (JSON has no such numbers);
// "block_scale_exponents" (MX) are log2 of the E8M0 block scales, -127..127, empty when
// "blocks_per_row" is 0; "log2_histogram"[i] counts floor(log2|x * scale|) = -40 + i
// (ScaledCast::kHistogramLowest), "zeros" the elements that were 0.
// A collective's event (tinyamp::distributed; "op" is the collective's name) has "collective"
// last, left out of every other event (trace::Collective):
//   "collective": {"reduce_op": "SUM", "dtype": "bf16", "bytes": 2580, "world_size": 2, "rank": 0, "root": -1}
// "reduce_op" is "SUM", "MAX", "AVG" or "" (broadcast, all_gather); "dtype" the dtype the data
// travelled in; "bytes" >= 0 what this rank handed in; 0 <= "rank" < "world_size"; "root" the
// source rank of a broadcast (-1 <= root < world_size).
// Older versions are still read: version 4 has no "collective" (refused there as unknown),
// version 3 no "scaled_casts" either (refused there as unknown),
// version 2 neither "module" and "module_types" (they read as ""), version 1 neither those nor
// "log2_abs" (its histograms are empty).
// Reading is strict: every field must be there with the right type, unknown fields are refused
// (a typo such as "ouputs" would otherwise lose data silently), and each error names its place,
// e.g. "events[2].inputs[0].dtype".
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

#include "tinyamp/trace/recorder.h"

namespace tinyamp::trace {
namespace {

// ordered_json keeps fields in the order written here (seq, phase, op, ...), which reads better
// than alphabetical order.
using json = nlohmann::ordered_json;

constexpr int kFormatVersion = 5;
constexpr int kOldestReadableVersion = 1;  // version 1: no log2_abs histogram in "stats"

// ---------------------------------------------------------------- writing

json histogram_to_json(const Log2Histogram& h) { return {{"lowest_exponent", h.lowest_exponent}, {"counts", h.counts}}; }

json stats_to_json(const ValueStats& s)
{
    return {{"min_abs", s.min_abs},
            {"max_abs", s.max_abs},
            {"zeros", s.zeros},
            {"infs", s.infs},
            {"nans", s.nans},
            {"f16_underflow", s.f16_underflow},
            {"f16_overflow", s.f16_overflow},
            {"bf16_underflow", s.bf16_underflow},
            {"bf16_overflow", s.bf16_overflow},
            {"log2_abs", histogram_to_json(s.log2_abs)}};
}

json tensor_to_json(const TensorInfo& t)
{
    json j = {{"id", t.id},
              {"dtype", dtype_name(t.dtype)},
              {"shape", t.shape},
              {"name", t.name},
              {"is_leaf", t.is_leaf},
              {"requires_grad", t.requires_grad},
              {"has_stats", t.has_stats}};
    if (t.has_stats) j["stats"] = stats_to_json(t.stats);
    return j;
}

json tensors_to_json(const std::vector<TensorInfo>& tensors)
{
    json list = json::array();
    for (const TensorInfo& t : tensors) list.push_back(tensor_to_json(t));
    return list;
}

// amax values: a number, or "inf" / "nan", which JSON cannot write as numbers.
json amax_to_json(double amax)
{
    if (std::isnan(amax)) return "nan";
    if (std::isinf(amax)) return "inf";
    return amax;
}

json scaled_cast_to_json(const ScaledCast& c)
{
    json history = json::array();
    for (const float v : c.amax_history) history.push_back(amax_to_json(v));
    return {{"role", c.role},
            {"dtype", dtype_name(c.dtype)},
            {"recipe", c.recipe},
            {"shape", c.shape},
            {"amax", amax_to_json(c.amax)},
            {"scale", amax_to_json(c.scale)},  // current scaling of an inf/NaN amax gives 0/NaN
            {"saturated_share", c.saturated_share},
            {"flushed_share", c.flushed_share},
            {"amax_history", std::move(history)},
            {"blocks_per_row", c.blocks_per_row},
            {"block_scale_exponents", c.block_scale_exponents},
            {"log2_histogram", c.log2_histogram},
            {"zeros", c.zeros}};
}

json collective_to_json(const Collective& c)
{
    return {{"reduce_op", c.reduce_op},
            {"dtype", dtype_name(c.dtype)},
            {"bytes", c.bytes},
            {"world_size", c.world_size},
            {"rank", c.rank},
            {"root", c.root}};
}

json event_to_json(const Event& e)
{
    json j = {{"seq", e.seq},
            {"phase", phase_name(e.phase)},
            {"op", e.op},
            {"is_cast", e.is_cast},
            {"inputs", tensors_to_json(e.inputs)},
            {"outputs", tensors_to_json(e.outputs)},
            {"device_type", e.device_type},
            {"policy", e.policy},
            {"why", e.why},
            {"cache", cache_event_name(e.cache)},
            {"module", e.module},
            {"module_types", e.module_types}};
    if (!e.scaled_casts.empty()) {
        json casts = json::array();
        for (const ScaledCast& c : e.scaled_casts) casts.push_back(scaled_cast_to_json(c));
        j["scaled_casts"] = std::move(casts);
    }
    if (e.collective) j["collective"] = collective_to_json(*e.collective);
    return j;
}

// ---------------------------------------------------------------- reading

// Every reading error: Error(io) "trace JSON, at <where>: <what>" ("" is the whole document).
template <class... Parts>
[[noreturn]] void fail(const std::string& where, const Parts&... what)
{
    if (where.empty()) TINYAMP_FAIL(io, "trace JSON: ", what...);
    TINYAMP_FAIL(io, "trace JSON, at ", where, ": ", what...);
}

std::string at_key(const std::string& where, const std::string& key) { return where.empty() ? key : where + "." + key; }

std::string at_index(const std::string& where, std::size_t index)
{
    std::string path = where;
    path.append("[").append(std::to_string(index)).append("]");
    return path;
}

// An object whose keys are exactly `keys` (those in `optional` may be left out).
const json& object(const json& j, const std::string& where, std::initializer_list<const char*> keys,
                   std::initializer_list<const char*> optional = {})
{
    if (!j.is_object()) fail(where, "expected an object, found ", j.type_name());
    // Unknown fields first: for a misspelt "ouputs", that is the more useful message.
    for (const auto& [key, value] : j.items())
        if (std::find(keys.begin(), keys.end(), std::string_view(key)) == keys.end())
            fail(at_key(where, key), "unknown field");
    for (const char* key : keys)
        if (!j.contains(key) && std::find(optional.begin(), optional.end(), std::string_view(key)) == optional.end())
            fail(at_key(where, key), "missing");
    return j;
}

const json& array(const json& j, const std::string& where)
{
    if (!j.is_array()) fail(where, "expected an array, found ", j.type_name());
    return j;
}

bool read_bool(const json& j, const std::string& where)
{
    if (!j.is_boolean()) fail(where, "expected true or false, found ", j.type_name());
    return j.get<bool>();
}

std::string read_string(const json& j, const std::string& where)
{
    if (!j.is_string()) fail(where, "expected a string, found ", j.type_name());
    return j.get<std::string>();
}

std::uint64_t read_count(const json& j, const std::string& where)
{
    if (!j.is_number_unsigned()) fail(where, "expected a non-negative integer, found ", j.dump());
    return j.get<std::uint64_t>();
}

std::int64_t read_integer(const json& j, const std::string& where, std::int64_t low, std::int64_t high)
{
    if (!j.is_number_integer()) fail(where, "expected an integer, found ", j.dump());
    const bool in_range = j.is_number_unsigned()
                              ? (low <= 0 || j.get<std::uint64_t>() >= std::uint64_t(low)) && high >= 0 && j.get<std::uint64_t>() <= std::uint64_t(high)
                              : j.get<std::int64_t>() >= low && j.get<std::int64_t>() <= high;
    if (!in_range) fail(where, "value ", j.dump(), " is outside [", low, ", ", high, "]");
    return j.get<std::int64_t>();
}

double read_number(const json& j, const std::string& where, double low, double high)
{
    if (!j.is_number()) fail(where, "expected a number, found ", j.type_name());
    const double v = j.get<double>();
    if (!(v >= low && v <= high)) fail(where, "value ", j.dump(), " is outside [", low, ", ", high, "]");
    return v;
}

DType read_dtype(const json& j, const std::string& where)
{
    const std::string name = read_string(j, where);
    try {
        return parse_dtype(name);
    } catch (const Error& e) {
        fail(where, e.message());
    }
}

Log2Histogram histogram_from_json(const json& j, const std::string& where)
{
    object(j, where, {"lowest_exponent", "counts"});
    Log2Histogram h;
    h.lowest_exponent = int(read_integer(j["lowest_exponent"], at_key(where, "lowest_exponent"), Log2Histogram::kSmallestExponent,
                                         Log2Histogram::kLargestExponent));
    const std::string counts_at = at_key(where, "counts");
    const json& counts = array(j["counts"], counts_at);
    for (std::size_t i = 0; i < counts.size(); ++i)
        h.counts.push_back(read_integer(counts[i], at_index(counts_at, i), 0, std::numeric_limits<std::int64_t>::max()));
    // The writer's form, so that a histogram has one spelling: no empty binades at either end.
    if (h.counts.empty()) {
        if (h.lowest_exponent != 0)
            fail(at_key(where, "lowest_exponent"), "an empty histogram has lowest_exponent 0, found ", h.lowest_exponent);
        return h;
    }
    if (h.counts.front() == 0 || h.counts.back() == 0)
        fail(counts_at, "the first and last counts must be non-zero (the binades run from the lowest to the highest exponent present)");
    const std::int64_t highest = std::int64_t(h.lowest_exponent) + std::int64_t(h.counts.size()) - 1;
    if (highest > Log2Histogram::kLargestExponent)
        fail(counts_at, counts.size(), " binades from 2^", h.lowest_exponent, " reach 2^", highest, ", beyond the largest double exponent ",
             Log2Histogram::kLargestExponent);
    return h;
}

ValueStats stats_from_json(const json& j, const std::string& where, int version)
{
    if (version == 1)
        object(j, where, {"min_abs", "max_abs", "zeros", "infs", "nans", "f16_underflow", "f16_overflow", "bf16_underflow", "bf16_overflow"});
    else
        object(j, where,
               {"min_abs", "max_abs", "zeros", "infs", "nans", "f16_underflow", "f16_overflow", "bf16_underflow", "bf16_overflow", "log2_abs"});
    const double huge = std::numeric_limits<double>::max();
    auto magnitude = [&](const char* key) { return read_number(j[key], at_key(where, key), 0.0, huge); };
    auto share = [&](const char* key) { return read_number(j[key], at_key(where, key), 0.0, 1.0); };
    ValueStats s;
    s.min_abs = magnitude("min_abs");
    s.max_abs = magnitude("max_abs");
    s.zeros = share("zeros");
    s.infs = share("infs");
    s.nans = share("nans");
    s.f16_underflow = share("f16_underflow");
    s.f16_overflow = share("f16_overflow");
    s.bf16_underflow = share("bf16_underflow");
    s.bf16_overflow = share("bf16_overflow");
    if (version >= 2) s.log2_abs = histogram_from_json(j["log2_abs"], at_key(where, "log2_abs"));
    return s;
}

Shape read_shape(const json& j, const std::string& where)
{
    Shape shape;
    for (std::size_t d = 0; d < array(j, where).size(); ++d) {
        const std::uint64_t size = read_count(j[d], at_index(where, d));
        if (size > std::uint64_t(std::numeric_limits<std::int64_t>::max())) fail(at_index(where, d), "size ", size, " is too large");
        shape.push_back(std::int64_t(size));
    }
    return shape;
}

TensorInfo tensor_from_json(const json& j, const std::string& where, int version)
{
    object(j, where, {"id", "dtype", "shape", "name", "is_leaf", "requires_grad", "has_stats", "stats"}, {"stats"});
    TensorInfo t;
    t.id = read_count(j["id"], at_key(where, "id"));
    t.dtype = read_dtype(j["dtype"], at_key(where, "dtype"));
    t.shape = read_shape(j["shape"], at_key(where, "shape"));
    t.name = read_string(j["name"], at_key(where, "name"));
    t.is_leaf = read_bool(j["is_leaf"], at_key(where, "is_leaf"));
    t.requires_grad = read_bool(j["requires_grad"], at_key(where, "requires_grad"));
    t.has_stats = read_bool(j["has_stats"], at_key(where, "has_stats"));
    if (t.has_stats != j.contains("stats"))
        fail(at_key(where, "stats"), t.has_stats ? "missing (has_stats is true)" : "given but has_stats is false");
    if (t.has_stats) t.stats = stats_from_json(j["stats"], at_key(where, "stats"), version);
    return t;
}

std::vector<TensorInfo> tensors_from_json(const json& j, const std::string& where, int version)
{
    std::vector<TensorInfo> tensors;
    for (std::size_t i = 0; i < array(j, where).size(); ++i) tensors.push_back(tensor_from_json(j[i], at_index(where, i), version));
    return tensors;
}

Phase read_phase(const json& j, const std::string& where)
{
    const std::string name = read_string(j, where);
    if (name == "forward") return Phase::forward;
    if (name == "backward") return Phase::backward;
    fail(where, "unknown phase \"", name, "\" (expected \"forward\" or \"backward\")");
}

CacheEvent read_cache(const json& j, const std::string& where)
{
    const std::string name = read_string(j, where);
    for (CacheEvent c : {CacheEvent::none, CacheEvent::stored, CacheEvent::hit})
        if (name == cache_event_name(c)) return c;
    fail(where, "unknown cache event \"", name, "\" (expected \"none\", \"stored\" or \"hit\")");
}

// An amax as amax_to_json wrote it: a number >= 0, "inf" or "nan".
double read_amax(const json& j, const std::string& where)
{
    if (j.is_string()) {
        const std::string text = j.get<std::string>();
        if (text == "inf") return std::numeric_limits<double>::infinity();
        if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
        fail(where, "expected a number >= 0, \"inf\" or \"nan\", found \"", text, "\"");
    }
    return read_number(j, where, 0.0, std::numeric_limits<double>::max());
}

ScaledCast scaled_cast_from_json(const json& j, const std::string& where)
{
    object(j, where,
           {"role", "dtype", "recipe", "shape", "amax", "scale", "saturated_share", "flushed_share", "amax_history", "blocks_per_row",
            "block_scale_exponents", "log2_histogram", "zeros"});
    ScaledCast c;
    c.role = read_string(j["role"], at_key(where, "role"));
    c.dtype = read_dtype(j["dtype"], at_key(where, "dtype"));
    if (c.dtype != DType::f8e4m3fn && c.dtype != DType::f8e5m2 && c.dtype != DType::f4e2m1x2)
        fail(at_key(where, "dtype"), "a scaled cast's element dtype is f8e4m3fn, f8e5m2 or f4e2m1x2, found ", dtype_name(c.dtype));
    c.recipe = read_string(j["recipe"], at_key(where, "recipe"));
    c.shape = read_shape(j["shape"], at_key(where, "shape"));
    if (c.shape.size() != 2) fail(at_key(where, "shape"), "a scaled cast is of a [rows, K] matrix, found ", c.shape.size(), " dimensions");
    c.amax = read_amax(j["amax"], at_key(where, "amax"));
    c.scale = read_amax(j["scale"], at_key(where, "scale"));  // >= 0, or "inf"/"nan", as an amax
    c.saturated_share = read_number(j["saturated_share"], at_key(where, "saturated_share"), 0.0, 1.0);
    c.flushed_share = read_number(j["flushed_share"], at_key(where, "flushed_share"), 0.0, 1.0);
    const std::string history_at = at_key(where, "amax_history");
    const json& history = array(j["amax_history"], history_at);
    for (std::size_t i = 0; i < history.size(); ++i) c.amax_history.push_back(float(read_amax(history[i], at_index(history_at, i))));
    c.blocks_per_row = read_integer(j["blocks_per_row"], at_key(where, "blocks_per_row"), 0, std::numeric_limits<std::int64_t>::max());
    const std::string blocks_at = at_key(where, "block_scale_exponents");
    const json& blocks = array(j["block_scale_exponents"], blocks_at);
    if (blocks.size() > ScaledCast::kMaxBlockScales)
        fail(blocks_at, blocks.size(), " block scales, more than the ", ScaledCast::kMaxBlockScales, " a trace keeps");
    if (c.blocks_per_row == 0 && !blocks.empty()) fail(blocks_at, "given but blocks_per_row is 0 (a per-tensor scaled cast has no block scales)");
    for (std::size_t i = 0; i < blocks.size(); ++i)
        c.block_scale_exponents.push_back(std::int16_t(read_integer(blocks[i], at_index(blocks_at, i), -127, 127)));
    const std::string histogram_at = at_key(where, "log2_histogram");
    const json& histogram = array(j["log2_histogram"], histogram_at);
    // Its exponents, from kHistogramLowest on, stay those of doubles (as Log2Histogram's).
    const std::size_t most_bins = std::size_t(Log2Histogram::kLargestExponent - ScaledCast::kHistogramLowest + 1);
    if (histogram.size() > most_bins)
        fail(histogram_at, histogram.size(), " binades from 2^", ScaledCast::kHistogramLowest, " reach beyond the largest double exponent ",
             Log2Histogram::kLargestExponent);
    for (std::size_t i = 0; i < histogram.size(); ++i)
        c.log2_histogram.push_back(read_integer(histogram[i], at_index(histogram_at, i), 0, std::numeric_limits<std::int64_t>::max()));
    c.zeros = read_integer(j["zeros"], at_key(where, "zeros"), 0, std::numeric_limits<std::int64_t>::max());
    return c;
}

Collective collective_from_json(const json& j, const std::string& where)
{
    object(j, where, {"reduce_op", "dtype", "bytes", "world_size", "rank", "root"});
    Collective c;
    c.reduce_op = read_string(j["reduce_op"], at_key(where, "reduce_op"));
    if (c.reduce_op != "" && c.reduce_op != "SUM" && c.reduce_op != "MAX" && c.reduce_op != "AVG")
        fail(at_key(where, "reduce_op"), "unknown reduction \"", c.reduce_op, "\" (expected \"SUM\", \"MAX\", \"AVG\" or \"\")");
    c.dtype = read_dtype(j["dtype"], at_key(where, "dtype"));
    c.bytes = read_integer(j["bytes"], at_key(where, "bytes"), 0, std::numeric_limits<std::int64_t>::max());
    c.world_size = int(read_integer(j["world_size"], at_key(where, "world_size"), 1, std::numeric_limits<int>::max()));
    c.rank = int(read_integer(j["rank"], at_key(where, "rank"), 0, c.world_size - 1));
    c.root = int(read_integer(j["root"], at_key(where, "root"), -1, c.world_size - 1));
    return c;
}

Event event_from_json(const json& j, const std::string& where, int version)
{
    if (version >= 5)
        object(j, where,
               {"seq", "phase", "op", "is_cast", "inputs", "outputs", "device_type", "policy", "why", "cache", "module", "module_types",
                "scaled_casts", "collective"},
               {"scaled_casts", "collective"});
    else if (version >= 4)
        object(j, where,
               {"seq", "phase", "op", "is_cast", "inputs", "outputs", "device_type", "policy", "why", "cache", "module", "module_types",
                "scaled_casts"},
               {"scaled_casts"});
    else if (version >= 3)
        object(j, where, {"seq", "phase", "op", "is_cast", "inputs", "outputs", "device_type", "policy", "why", "cache", "module", "module_types"});
    else
        object(j, where, {"seq", "phase", "op", "is_cast", "inputs", "outputs", "device_type", "policy", "why", "cache"});
    Event e;
    e.seq = read_count(j["seq"], at_key(where, "seq"));
    e.phase = read_phase(j["phase"], at_key(where, "phase"));
    e.op = read_string(j["op"], at_key(where, "op"));
    e.is_cast = read_bool(j["is_cast"], at_key(where, "is_cast"));
    e.inputs = tensors_from_json(j["inputs"], at_key(where, "inputs"), version);
    e.outputs = tensors_from_json(j["outputs"], at_key(where, "outputs"), version);
    e.device_type = read_string(j["device_type"], at_key(where, "device_type"));
    e.policy = read_string(j["policy"], at_key(where, "policy"));
    e.why = read_string(j["why"], at_key(where, "why"));
    e.cache = read_cache(j["cache"], at_key(where, "cache"));
    if (version >= 3) {
        e.module = read_string(j["module"], at_key(where, "module"));
        e.module_types = read_string(j["module_types"], at_key(where, "module_types"));
    }
    if (j.contains("scaled_casts")) {
        const std::string casts_at = at_key(where, "scaled_casts");
        const json& casts = array(j["scaled_casts"], casts_at);
        // The writer leaves an empty list out, so that an event has one spelling.
        if (casts.empty()) fail(casts_at, "an empty list (an event without scaled casts leaves the field out)");
        for (std::size_t i = 0; i < casts.size(); ++i) e.scaled_casts.push_back(scaled_cast_from_json(casts[i], at_index(casts_at, i)));
    }
    if (j.contains("collective")) e.collective = collective_from_json(j["collective"], at_key(where, "collective"));
    return e;
}

}  // namespace

std::string Trace::to_json() const
{
    json events = json::array();
    for (const Event& e : events_) events.push_back(event_to_json(e));
    const json doc = {{"version", kFormatVersion}, {"events", std::move(events)}};
    // Names are the user's text: bytes that are not UTF-8 become U+FFFD rather than an exception.
    return doc.dump(2, ' ', false, json::error_handler_t::replace);
}

Trace Trace::from_json(const std::string& text)
{
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::exception& e) {
        fail("", "not valid JSON: ", e.what());
    }
    const json& top = object(doc, "", {"version", "events"});
    const json& version_field = top["version"];
    if (!version_field.is_number_integer() || version_field < kOldestReadableVersion || version_field > kFormatVersion)
        fail("version", "this reader knows versions ", kOldestReadableVersion, " to ", kFormatVersion, ", the file says ", version_field.dump());
    const int version = version_field.get<int>();

    Trace trace;
    const json& events = array(top["events"], "events");
    for (std::size_t i = 0; i < events.size(); ++i) {
        const std::string where = at_index("events", i);
        Event e = event_from_json(events[i], where, version);
        // seq numbers name the nodes of the DOT picture and order the events, so they must grow.
        const std::uint64_t previous = trace.events_.empty() ? 0 : trace.events_.back().seq;
        if (e.seq <= previous)
            fail(at_key(where, "seq"), "seq ", e.seq, " must be greater than the previous event's (", previous, ")");
        trace.events_.push_back(std::move(e));
    }
    return trace;
}

}  // namespace tinyamp::trace
