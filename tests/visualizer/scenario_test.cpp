// The visualizer's live scenarios: presets, the trace of a step, the table, the scaler, training.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "visualizer/scenarios/scenario.h"

using namespace tinyamp;
using viz::Scenario;
using viz::ScenarioOptions;
using viz::StepRecord;

namespace {

int count_cache(const trace::Trace& trace, trace::CacheEvent cache)
{
    int n = 0;
    for (const trace::Event& e : trace.events()) n += e.cache == cache;
    return n;
}

// Index of the first forward event named `op` at or after `from`, or -1.
int find_forward(const trace::Trace& trace, const std::string& op, int from = 0)
{
    const auto& events = trace.events();
    for (int i = from; i < int(events.size()); ++i)
        if (events[std::size_t(i)].phase == trace::Phase::forward && events[std::size_t(i)].op == op) return i;
    return -1;
}

double mean_loss(const std::vector<StepRecord>& history, std::size_t first, std::size_t count)
{
    double total = 0;
    for (std::size_t i = first; i < first + count; ++i) total += history[i].loss;
    return total / double(count);
}

std::string error_of(const ScenarioOptions& options)
{
    try {
        Scenario::validate(options);
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::value);
        return e.message();
    }
    return "";
}

}  // namespace

TEST_SUITE_BEGIN("scenario");

TEST_CASE("scenario: FP8 runs every Linear through fp8_linear, its casts noted, and delayed scaling's history grows each step")
{
    Scenario s(Scenario::preset("mlp-fp8-delayed"));
    CHECK(s.summary() == "mlp, autocast off (f32), Linear layers in FP8 (delayed scaling), no GradScaler, step 1");
    auto fp8_events = [&] {
        std::vector<const trace::Event*> found;
        for (const trace::Event& e : s.trace().events())
            if (e.op == "fp8_linear" && e.phase == trace::Phase::forward) found.push_back(&e);
        return found;
    };
    REQUIRE(fp8_events().size() == 3);  // the MLP's three Linear layers
    CHECK(find_forward(s.trace(), "linear") == -1);
    const trace::ScaledCast& input = fp8_events()[0]->scaled_casts.at(0);
    CHECK(input.role == "input");
    CHECK(input.dtype == f8e4m3fn);
    CHECK(input.recipe == "delayed");
    CHECK(input.amax_history.size() == 16);
    CHECK(input.scale == 1.0);  // the first step: no history yet
    s.step(3);
    const trace::ScaledCast& later = fp8_events()[0]->scaled_casts.at(0);
    CHECK(later.scale > 1.0);  // pixels <= 1: the scale grows towards 448 / amax
    CHECK(std::count_if(later.amax_history.begin(), later.amax_history.end(), [](float a) { return a > 0; }) == 4);
    std::set<DType> gradient_formats;
    for (const trace::Event& e : s.trace().events())
        if (e.phase == trace::Phase::backward)
            for (const trace::ScaledCast& c : e.scaled_casts) gradient_formats.insert(c.dtype);
    CHECK(gradient_formats == std::set<DType>{f8e5m2});
    CHECK(std::isfinite(s.history().back().loss));

    Scenario mx(Scenario::preset("mlp-mxfp8"));
    const trace::ScaledCast& blocks = mx.trace().events()[std::size_t(find_forward(mx.trace(), "fp8_linear"))].scaled_casts.at(0);
    CHECK(blocks.recipe == "mxfp8");
    CHECK(blocks.blocks_per_row == 2);  // 64 pixels in blocks of 32
    CHECK_FALSE(blocks.block_scale_exponents.empty());

    ScenarioOptions wrong = Scenario::preset("mlp-fp8-delayed");
    wrong.fp8 = "nvfp4";
    CHECK(error_of(wrong).find("unknown fp8 recipe 'nvfp4': choose current, delayed or mxfp8") != std::string::npos);
    wrong.fp8 = "current";
    CHECK(error_of(wrong).empty());
}

TEST_CASE("scenario: the presets and their names")
{
    CHECK(Scenario::names() == std::vector<std::string>{"mlp-bf16", "mlp-f16-scaler", "mlp-f16", "mlp-f32", "cnn-bf16", "deep-bf16",
                                                        "mlp-fp8-delayed", "mlp-mxfp8"});
    for (const std::string& name : Scenario::names()) CHECK_NOTHROW(Scenario::validate(Scenario::preset(name)));

    const ScenarioOptions scaler = Scenario::preset("mlp-f16-scaler");
    CHECK(scaler.dtype == f16);
    CHECK(scaler.scaler);
    CHECK(scaler.table == amp::PolicyTable::cuda());
    CHECK_FALSE(Scenario::preset("mlp-f16").scaler);
    CHECK_FALSE(Scenario::preset("mlp-f32").autocast);
    CHECK(Scenario::preset("deep-bf16").micro_batches == 1);

    try {
        Scenario::preset("mlp-f8");
        FAIL("an unknown preset was accepted");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::value);
        CHECK(e.message().find("'mlp-f8'") != std::string::npos);
        for (const std::string& name : Scenario::names()) CHECK(e.message().find(name) != std::string::npos);
    }
}

TEST_CASE("scenario: the summary line")
{
    Scenario s(Scenario::preset("mlp-bf16"));
    s.step(2);
    CHECK(s.summary() == "mlp, autocast bf16 (cpu table), cast cache on, no GradScaler, step 3");
    CHECK(Scenario(Scenario::preset("mlp-f32")).summary() == "mlp, autocast off (f32), no GradScaler, step 1");

    ScenarioOptions edited = Scenario::preset("mlp-f16-scaler");
    edited.table.set("linear", amp::CastPolicy::fp32);
    edited.cache_enabled = false;
    // linear in f32 leaves nothing in f16 to overflow: the scale stays at 2^24.
    CHECK(Scenario(edited).summary() == "mlp, autocast f16 (cuda table, edited), cast cache off, GradScaler at 2^24, step 1");
    // As the preset is, the first step overflows and the scale halves.
    CHECK(Scenario(Scenario::preset("mlp-f16-scaler")).summary() ==
          "mlp, autocast f16 (cuda table), cast cache on, GradScaler at 2^23, step 1");
}

TEST_CASE("scenario: the cast cache serves the second micro-batch when it is on, never when it is off")
{
    ScenarioOptions options = Scenario::preset("mlp-bf16");
    REQUIRE(options.micro_batches == 2);
    const Scenario on(options);
    const trace::Trace& trace = on.trace();
    // The first forward pass ends with its loss; the second pass starts after it.
    const int first_loss = find_forward(trace, "cross_entropy");
    REQUIRE(first_loss > 0);
    REQUIRE(find_forward(trace, "cross_entropy", first_loss + 1) > first_loss);
    // The weights and biases of the 3 Linear layers are cast once, then served from the cache.
    CHECK(count_cache(trace, trace::CacheEvent::stored) == 6);
    CHECK(count_cache(trace, trace::CacheEvent::hit) == 6);
    for (int i = 0; i < int(trace.events().size()); ++i) {
        const trace::CacheEvent cache = trace.events()[std::size_t(i)].cache;
        if (cache == trace::CacheEvent::stored) CHECK(i < first_loss);
        if (cache == trace::CacheEvent::hit) CHECK(i > first_loss);
    }

    options.cache_enabled = false;
    const Scenario off(options);
    CHECK(count_cache(off.trace(), trace::CacheEvent::hit) == 0);
    CHECK(count_cache(off.trace(), trace::CacheEvent::stored) == 0);
    // Without the cache every forward pass casts the weights again.
    int casts_on = 0, casts_off = 0;
    for (const trace::Event& e : trace.events()) casts_on += e.is_cast && e.cache != trace::CacheEvent::hit;
    for (const trace::Event& e : off.trace().events()) casts_off += e.is_cast;
    CHECK(casts_off == casts_on + 6);
}

TEST_CASE("scenario: the trace holds the forward pass, scale() and backward, not the optimizer")
{
    const Scenario s(Scenario::preset("mlp-f16-scaler"));
    const auto& events = s.trace().events();
    REQUIRE_FALSE(events.empty());
    CHECK(find_forward(s.trace(), "linear") >= 0);
    // scale() is the last forward op: loss * scale; then only backward events follow.
    const int last_forward = int(std::distance(events.begin(), std::find_if(events.begin(), events.end(), [](const trace::Event& e) {
                                                  return e.phase == trace::Phase::backward;
                                              }))) - 1;
    REQUIRE(last_forward > 0);
    CHECK(events[std::size_t(last_forward)].op == "mul");
    for (std::size_t i = std::size_t(last_forward) + 1; i < events.size(); ++i) CHECK(events[i].phase == trace::Phase::backward);
}

TEST_CASE("scenario: moving linear to fp32 in the table runs it in f32")
{
    ScenarioOptions options = Scenario::preset("mlp-bf16");
    const Scenario before(options);
    const int linear = find_forward(before.trace(), "linear");
    REQUIRE(linear >= 0);
    CHECK(before.trace().events()[std::size_t(linear)].outputs.at(0).dtype == bf16);

    options.table.set("linear", amp::CastPolicy::fp32);
    Scenario after(Scenario::preset("mlp-bf16"));
    after.reset(options);  // what the GUI does after an edit
    int linears = 0;
    for (const trace::Event& e : after.trace().events()) {
        CHECK_FALSE(e.is_cast);  // the inputs are f32 already: nothing to cast
        if (e.phase != trace::Phase::forward || e.op != "linear") continue;
        ++linears;
        CHECK(e.policy == "fp32");
        for (const trace::TensorInfo& t : e.inputs) CHECK(t.dtype == f32);
        CHECK(e.outputs.at(0).dtype == f32);
    }
    CHECK(linears == 6);  // 3 layers, 2 micro-batches
}

TEST_CASE("scenario: f32 (autocast off) has no casts and no 16-bit tensor")
{
    const Scenario s(Scenario::preset("mlp-f32"));
    for (const trace::Event& e : s.trace().events()) {
        CHECK_FALSE(e.is_cast);
        CHECK(e.policy.empty());
        for (const auto* side : {&e.inputs, &e.outputs})
            for (const trace::TensorInfo& t : *side) CHECK((t.dtype == f32 || t.dtype == i64));
    }
}

TEST_CASE("scenario: f16 with a GradScaler from 2^24 skips and halves, then grows every 5 clean steps")
{
    Scenario s(Scenario::preset("mlp-f16-scaler"));
    s.step(24);
    const std::vector<StepRecord>& h = s.history();
    REQUIRE(h.size() == 25);
    // PyTorch's rule: an overflow halves the scale and restarts the count; the 5th clean step in a
    // row doubles it.
    double scale = 16777216.0;
    int clean = 0, skipped = 0, grown = 0;
    for (const StepRecord& r : h) {
        if (r.skipped) {
            scale *= 0.5;
            clean = 0;
            ++skipped;
        } else if (++clean == 5) {
            scale *= 2;
            clean = 0;
            ++grown;
        }
        CHECK(r.scale == scale);
    }
    CHECK(h[0].skipped);
    CHECK(h[1].skipped);
    CHECK(skipped >= 3);
    CHECK(grown >= 1);
    CHECK_FALSE(h.back().skipped);
    for (const StepRecord& r : h) CHECK(std::isfinite(r.loss));  // recorded unscaled: the loss, not loss * scale
    CHECK(h.back().loss < 3.0);
}

TEST_CASE("scenario: without a scaler the scale is 1 and no step is skipped")
{
    Scenario s(Scenario::preset("mlp-f16"));
    s.step(3);
    for (const StepRecord& r : s.history()) {
        CHECK(r.scale == 1.0);
        CHECK_FALSE(r.skipped);
    }
}

TEST_CASE("scenario: mlp-bf16 learns over 30 steps")
{
    Scenario s(Scenario::preset("mlp-bf16"));
    s.step(29);
    const std::vector<StepRecord>& h = s.history();
    REQUIRE(h.size() == 30);
    for (std::size_t i = 0; i < h.size(); ++i) CHECK(h[i].step == std::int64_t(i) + 1);
    const double first = mean_loss(h, 0, 5), last = mean_loss(h, 25, 5);
    MESSAGE("mean loss of steps 1-5: ", first, ", of steps 26-30: ", last);
    // About ln 10 = 2.30 at the start; with lr 0.05 from small weights the descent takes off after
    // some 20 steps (about 1.7 at step 30, under 0.5 by step 50).
    CHECK(first > 2.0);
    CHECK(last < 0.85 * first);
}

TEST_CASE("scenario: the same seed gives the same losses, another seed other ones")
{
    for (const char* name : {"mlp-bf16", "cnn-bf16"}) {
        CAPTURE(name);
        ScenarioOptions options = Scenario::preset(name);
        Scenario a(options), b(options);
        a.step(4);
        b.step(4);
        options.seed = 7;
        Scenario c(options);
        c.step(4);
        for (std::size_t i = 0; i < 5; ++i) CHECK(a.history()[i].loss == b.history()[i].loss);
        CHECK(a.history()[4].loss != c.history()[4].loss);
        CHECK(a.trace().events().size() == b.trace().events().size());
    }
}

TEST_CASE("scenario: bad options are rejected with how to fix them, and the old scenario is kept")
{
    const ScenarioOptions good = Scenario::preset("mlp-bf16");
    auto with = [&](auto change) {
        ScenarioOptions o = good;
        change(o);
        return o;
    };
    const std::vector<std::pair<ScenarioOptions, std::string>> bad = {
        {with([](ScenarioOptions& o) { o.dtype = f32; }), "choose f16 or bf16, or turn autocast off"},
        {with([](ScenarioOptions& o) { o.micro_batches = 0; }), "micro_batches must be >= 1"},
        {with([](ScenarioOptions& o) { o.batch_size = 3; o.micro_batches = 4; }), "raise batch_size or lower micro_batches"},
        {with([](ScenarioOptions& o) { o.lr = 0; }), "lr must be a finite number > 0"},
        {with([](ScenarioOptions& o) { o.lr = -0.1; }), "lr must be a finite number > 0"},
        {with([](ScenarioOptions& o) { o.model = "rnn"; }), "unknown model 'rnn': choose mlp, cnn or deep"},
        {with([](ScenarioOptions& o) { o.batch_size = 100000; }), "is larger than the training set"},
    };
    for (const auto& [options, text] : bad) CHECK(error_of(options).find(text) != std::string::npos);
    CHECK(error_of(with([](ScenarioOptions& o) { o.dtype = f32; o.autocast = false; })).empty());  // f32 is fine with autocast off

    Scenario s(good), twin(good);
    s.step(2);
    twin.step(3);
    const std::size_t events = s.trace().events().size();
    for (const auto& [options, text] : bad) {
        CAPTURE(text);
        CHECK_THROWS_AS(s.reset(options), Error);
        CHECK_THROWS_AS(Scenario{options}, Error);
        CHECK(s.options().model == "mlp");
        CHECK(s.options().lr == good.lr);
        CHECK(s.history().size() == 3);
        CHECK(s.trace().events().size() == events);
    }
    // The model, optimizer and data order were kept too: the next step is the twin's.
    s.step();
    CHECK(s.history().back().loss == twin.history().back().loss);
    CHECK(s.summary() == "mlp, autocast bf16 (cpu table), cast cache on, no GradScaler, step 4");
}

TEST_CASE("scenario: the deep model's bf16 step is a graph of about 200 nodes")
{
    const Scenario s(Scenario::preset("deep-bf16"));
    // Graph nodes (trace_graph.h): one per event and one per tensor that no event made.
    std::set<std::uint64_t> made, outside;
    for (const trace::Event& e : s.trace().events())
        for (const trace::TensorInfo& t : e.outputs) made.insert(t.id);
    for (const trace::Event& e : s.trace().events())
        for (const trace::TensorInfo& t : e.inputs)
            if (!made.contains(t.id)) outside.insert(t.id);
    const std::size_t events = s.trace().events().size();
    MESSAGE("deep-bf16: ", events, " events + ", outside.size(), " outside tensors = ", events + outside.size(), " nodes");
    CHECK(events >= 150);  // 163 measured
    CHECK(events <= 175);
    CHECK(events + outside.size() >= 185);  // 198 measured
    CHECK(events + outside.size() <= 215);
    CHECK(std::isfinite(s.history().back().loss));
}

TEST_SUITE_END();
