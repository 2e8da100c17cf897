// The visualizer's scenarios: presets, the trace of a step, the table, the scaler, training; the recorded ddp-bf16.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/support/expect_error.h"
#include "training/gpt_model.h"
#include "visualizer/model/camera.h"
#include "visualizer/model/inspector.h"
#include "visualizer/model/module_view.h"
#include "visualizer/model/node_face.h"
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

// The events named `op` in `phase`, in trace order (autocast's casts are "to": never these).
std::vector<const trace::Event*> events_named(const trace::Trace& trace, const std::string& op,
                                              trace::Phase phase = trace::Phase::forward)
{
    std::vector<const trace::Event*> found;
    for (const trace::Event& e : trace.events())
        if (e.phase == phase && e.op == op && !e.is_cast) found.push_back(&e);
    return found;
}

const std::vector<std::int64_t> kHeads = {2, 2, 12, 8};  // gpt's q, k, v and attention output: [B, heads, T, head_dim]

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
                                                        "mlp-fp8-delayed", "mlp-mxfp8", "gpt", "gpt-composite", "ddp-bf16"});
    for (const std::string& name : Scenario::names()) CHECK_NOTHROW(Scenario::validate(Scenario::preset(name)));

    const ScenarioOptions scaler = Scenario::preset("mlp-f16-scaler");
    CHECK(scaler.dtype == f16);
    CHECK(scaler.scaler);
    CHECK(scaler.table == amp::PolicyTable::cuda());
    CHECK_FALSE(Scenario::preset("mlp-f16").scaler);
    CHECK_FALSE(Scenario::preset("mlp-f32").autocast);
    CHECK(Scenario::preset("deep-bf16").micro_batches == 1);
    const ScenarioOptions gpt = Scenario::preset("gpt"), composite = Scenario::preset("gpt-composite");
    CHECK(gpt.model == "gpt");
    CHECK(gpt.fused_attention);
    CHECK_FALSE(composite.fused_attention);
    CHECK(gpt.dtype == f16);
    CHECK(gpt.scaler);
    CHECK(gpt.table == amp::PolicyTable::cpu());
    CHECK(composite.context == gpt.context);

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

TEST_CASE("scenario: mlp-f16-scaler's first step overflows, and the inspector says so first, where it began and that the step is skipped")
{
    const Scenario s(Scenario::preset("mlp-f16-scaler"));
    REQUIRE(s.history().back().skipped);
    const viz::StepContext step{.loss_scaled = true, .step_skipped = s.history().back().skipped};
    const viz::ModuleView view = viz::build_module_view(s.trace(), viz::default_collapsed(trace::build_graph(s.trace())));
    // The last Linear's backward, the first layer the gradient reaches: every value it hands on is inf.
    const int last_linear = view.graph.find("m4b");
    REQUIRE(last_linear >= 0);
    const viz::NodeDetails nan = viz::inspect(s.trace(), view.graph, last_linear, step);
    CHECK(nan.headline == "every value is inf: the scaled gradient overflowed f16 at the cast's backward (to, #38), so GradScaler skips this step");
    CHECK(nan.value_range == "no finite values");
    // The cast's backward turned the loss's f32 gradient (times 2^24) into f16: there it began.
    const viz::NodeDetails origin = viz::inspect(s.trace(), view.graph, view.graph.find("e38"), step);
    CHECK(origin.headline == "16 of 160 values are inf: the scaled gradient overflowed f16 here, so GradScaler skips this step");
}

TEST_CASE("scenario: each opens on its lesson's node, which the first view at 1280x800 shows, no node under the legend or the minimap")
{
    // The graph's canvas in a 1280x800 window (the panels take the rest of its width), a legend as
    // large as any scenario's, and under it the minimap as the app sizes it (10.7 em, 15 px).
    const viz::Vec2 canvas{620, 700};
    const viz::Rect area{{0, 0}, canvas}, legend{{7.5f, 7.5f}, {198, 170}};
    // A made-up font of 0.48 em a character: the readable zooms come out near those DejaVu Sans
    // gives the app (0.81 for the f32 and FP8 graphs to 1.05 for mlp-bf16's).
    const viz::MeasureText measure = [](const std::string& line) {
        return 0.48f * float(std::count_if(line.begin(), line.end(), [](char c) { return (c & 0xC0) != 0x80; }));
    };
    for (const std::string& name : Scenario::names()) {
        CAPTURE(name);
        const Scenario s(Scenario::preset(name));
        const viz::Opening opening = Scenario::opening(name);
        CHECK(opening.position == "end");
        // As tinyamp-viz does: the layers folded, less the one that hides the node selected.
        std::set<std::string> collapsed = viz::default_collapsed(trace::build_graph(s.trace()));
        collapsed.erase(viz::module_hiding(s.trace(), viz::build_module_view(s.trace(), collapsed).graph, opening.select));
        const viz::ModuleView view = viz::build_module_view(s.trace(), collapsed);
        const int node = viz::find_node(s.trace(), view.graph, opening.select);
        REQUIRE(node >= 0);

        const viz::Rect drawing = viz::drawing_bounds(view.layout);
        const viz::Minimap map = viz::make_minimap(drawing, {160.5f, std::min(160.5f, canvas.y / 3)});
        const viz::Rect minimap{{7.5f, legend.max.y + 7.5f}, {7.5f + map.size.x + 7.5f, legend.max.y + 7.5f + map.size.y + 7.5f}};
        const float readable = viz::readable_zoom(view.layout, view.graph, measure, viz::FaceStyle{});
        const std::optional<viz::Camera> camera = viz::first_view_showing(view.layout, node, canvas, {legend, minimap}, readable);
        REQUIRE(camera);
        const auto shown = [&](int i) {
            const viz::Rect box = viz::node_bounds(view.layout.nodes[std::size_t(i)]);
            return viz::Rect{camera->to_canvas(box.min), camera->to_canvas(box.max)};
        };
        CHECK(viz::contains(area, shown(node)));
        const bool minimap_shown = !viz::contains(viz::visible_region(*camera, canvas), drawing);
        std::set<trace::Phase> passes;
        for (int i = 0; i < int(view.graph.nodes.size()); ++i) {
            if (!viz::overlaps(shown(i), area)) continue;
            CHECK_FALSE(viz::overlaps(shown(i), legend));
            CHECK_FALSE((minimap_shown && viz::overlaps(shown(i), minimap)));
            if (viz::contains(area, shown(i))) passes.insert(view.graph.nodes[std::size_t(i)].phase);
        }

        if (name == "mlp-f16-scaler") {  // the overflow: every value of the gradient the view is about is inf
            const viz::StepContext step{.loss_scaled = true, .step_skipped = s.history().back().skipped};
            CHECK(viz::inspect(s.trace(), view.graph, node, step).value_range == "no finite values");
            CHECK(passes.count(trace::Phase::backward) == 1);
        }
        if (name == "deep-bf16") {  // forward and backward side by side, neither cut at the sides
            CHECK(passes.size() == 2);
            for (int i = 0; i < int(view.graph.nodes.size()); ++i)
                if (shown(i).max.y > 0 && shown(i).min.y < canvas.y) {
                    CHECK(shown(i).min.x >= 0);
                    CHECK(shown(i).max.x <= canvas.x);
                }
        }
    }
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
    for (const char* name : {"mlp-bf16", "cnn-bf16", "gpt"}) {
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
        {with([](ScenarioOptions& o) { o.model = "rnn"; }), "unknown model 'rnn': choose mlp, cnn, deep or gpt"},
        {with([](ScenarioOptions& o) { o.model = "gpt"; o.context = 1; }), "context 1 is out of range: the GPT scenario takes 2 to 64"},
        {with([](ScenarioOptions& o) { o.model = "gpt"; o.context = 65; }), "context 65 is out of range"},
        {with([](ScenarioOptions& o) { o.model = "gpt"; o.qkv_init_std = -1; }), "qkv_init_std must be 0 (the model's 0.02) or a finite std > 0, got -1"},
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

TEST_CASE("scenario: gpt under f16 autocast: c_attn, the attention, c_proj and the MLP in f16, LayerNorm and the residual stream in f32")
{
    const Scenario s(Scenario::preset("gpt"));
    CHECK(s.summary() == "gpt (fused attention, context 12), autocast f16 (cpu table), cast cache on, GradScaler at 2^16, step 1");
    const trace::Trace& trace = s.trace();

    // The embeddings are on neither list: they look rows up in their f32 weights.
    const auto embeddings = events_named(trace, "embedding");
    REQUIRE(embeddings.size() == 2);
    CHECK(embeddings[0]->module == "wte");  // the tokens first, then the positions, as nanoGPT's forward
    CHECK(embeddings[1]->module == "wpe");
    for (const trace::Event* e : embeddings) {
        CHECK(e->policy == "not listed");
        CHECK(e->outputs.at(0).dtype == f32);
    }

    // Every Linear is lower_precision_fp: its input and f32 weights are cast to f16 first.
    std::vector<std::string> linear_modules;
    for (const trace::Event* e : events_named(trace, "linear")) {
        linear_modules.push_back(e->module);
        CHECK(e->policy == "lower_precision_fp");
        for (const trace::TensorInfo& t : e->inputs) CHECK(t.dtype == f16);
        CHECK(e->outputs.at(0).dtype == f16);
    }
    CHECK(linear_modules == std::vector<std::string>{"0.attn.c_attn", "0.attn.c_proj", "0.c_fc", "0.c_proj", "lm_head"});
    CHECK(events_named(trace, "linear")[0]->outputs.at(0).shape == std::vector<std::int64_t>{2, 12, 48});  // q, k, v of 16 each

    // The attention: one op, lower_precision_fp on both of PyTorch's lists; q, k and v (views of
    // c_attn's f16 output) go in, and its output is f16 too. Its logits never show: they stay f32
    // inside the op.
    const auto attention = events_named(trace, "scaled_dot_product_attention");
    REQUIRE(attention.size() == 1);
    const trace::Event& a = *attention[0];
    CHECK(a.module == "0.attn");
    CHECK(a.module_types == "Block.CausalSelfAttention");
    CHECK(a.policy == "lower_precision_fp");
    CHECK(a.why.find("lower_precision_fp") != std::string::npos);
    REQUIRE(a.inputs.size() == 3);
    for (const trace::TensorInfo& t : a.inputs) {
        CHECK(t.dtype == f16);
        CHECK(t.shape == kHeads);
    }
    const trace::TensorInfo& out = a.outputs.at(0);
    CHECK(out.dtype == f16);
    CHECK(out.shape == kHeads);
    // Its values, as the inspector draws them against f16's range: small (weights of std 0.02),
    // finite, nothing lost to f16.
    REQUIRE(out.has_stats);
    CHECK(out.stats.max_abs > 0);
    CHECK(out.stats.max_abs < 1);
    CHECK(out.stats.infs == 0);
    CHECK(out.stats.nans == 0);
    CHECK(out.stats.f16_underflow == 0);

    // layer_norm: PyTorch's CPU autocast list does not name it (its CUDA list has it on fp32), so
    // it runs in its input's dtype. That is f32: ln_1 reads the f32 embeddings, and ln_2 and ln_f
    // the residual stream, which stays f32 because add(f32 stream, f16 sub-layer output) promotes.
    const auto norms = events_named(trace, "layer_norm");
    REQUIRE(norms.size() == 3);
    CHECK(norms[0]->module == "0.ln_1");
    CHECK(norms[1]->module == "0.ln_2");
    CHECK(norms[2]->module == "ln_f");
    for (const trace::Event* e : norms) {
        CHECK(e->policy == "not listed");
        for (const trace::TensorInfo& t : e->inputs) CHECK(t.dtype == f32);
        CHECK(e->outputs.at(0).dtype == f32);
    }
    const auto adds = events_named(trace, "add");
    REQUIRE(adds.size() == 3);  // the embeddings' sum, then the block's two residual adds
    for (const trace::Event* e : {adds[1], adds[2]}) {
        CHECK(e->module == "0");
        CHECK(e->module_types == "Block");
        CHECK(e->inputs.at(0).dtype == f32);
        CHECK(e->inputs.at(1).dtype == f16);
        CHECK(e->outputs.at(0).dtype == f32);
    }
    // GELU is on neither list: it runs in the f16 that c_fc gave it.
    const auto gelu = events_named(trace, "gelu");
    REQUIRE(gelu.size() == 1);
    CHECK(gelu[0]->outputs.at(0).dtype == f16);
    // cross_entropy is fp32: the f16 logits are cast up just before it.
    const int loss = find_forward(trace, "cross_entropy");
    REQUIRE(loss > 0);
    CHECK(trace.events()[std::size_t(loss)].policy == "fp32");
    CHECK(trace.events()[std::size_t(loss - 1)].is_cast);
    CHECK(trace.events()[std::size_t(loss - 1)].inputs.at(0).dtype == f16);
    CHECK(trace.events()[std::size_t(loss)].inputs.at(0).dtype == f32);

    // Backward: each op in the dtypes its forward ran in; the casts' backward turns the weights'
    // gradients into f32 for their .grad.
    const auto attention_backward = events_named(trace, "scaled_dot_product_attention", trace::Phase::backward);
    REQUIRE(attention_backward.size() == 1);
    REQUIRE(attention_backward[0]->outputs.size() == 3);  // the gradients of q, k and v
    for (const trace::TensorInfo& t : attention_backward[0]->outputs) {
        CHECK(t.dtype == f16);
        CHECK(t.shape == kHeads);
    }
    CHECK(events_named(trace, "linear", trace::Phase::backward).size() == 5);
    for (const trace::Event* e : events_named(trace, "linear", trace::Phase::backward))
        for (const trace::TensorInfo& t : e->outputs) CHECK(t.dtype == f16);
    for (const trace::Event* e : events_named(trace, "layer_norm", trace::Phase::backward))
        for (const trace::TensorInfo& t : e->outputs) CHECK(t.dtype == f32);
    const auto accumulate = events_named(trace, "AccumulateGrad", trace::Phase::backward);
    CHECK(accumulate.size() == 17);  // every parameter: 2 embeddings, 3 LayerNorms x 2, 4 Linears x 2, lm_head's weight
    for (const trace::Event* e : accumulate) CHECK(e->outputs.at(0).dtype == f32);
}

TEST_CASE("scenario: gpt's GradScaler lifts the attention's gradients out of f16's subnormals")
{
    // The gradient of q, the first output of the attention's backward (what the inspector shows).
    const auto q_gradient = [](const Scenario& s) {
        return events_named(s.trace(), "scaled_dot_product_attention", trace::Phase::backward).at(0)->outputs.at(0).stats;
    };
    constexpr double kF16SmallestNormal = 6.103515625e-05;  // 2^-14
    ScenarioOptions options = Scenario::preset("gpt");
    const Scenario scaled(options);
    options.scaler = false;
    const Scenario unscaled(options);
    const trace::ValueStats with = q_gradient(scaled), without = q_gradient(unscaled);
    // The share of its finite non-zero values in f16's subnormal binades (below 2^-14).
    const auto subnormal_share = [](const trace::ValueStats& v) {
        std::int64_t below = 0, all = 0;
        for (std::size_t i = 0; i < v.log2_abs.counts.size(); ++i) {
            all += v.log2_abs.counts[i];
            if (v.log2_abs.lowest_exponent + int(i) < -14) below += v.log2_abs.counts[i];
        }
        return all == 0 ? 0.0 : double(below) / double(all);
    };
    MESSAGE("q's gradient, |x| from ", with.min_abs, " to ", with.max_abs, " (", with.zeros, " zeros, ", subnormal_share(with),
            " subnormal) with the scaler at 2^16, from ", without.min_abs, " to ", without.max_abs, " (", without.zeros, " zeros, ",
            subnormal_share(without), " subnormal) without");
    // Without the scaler every value is below f16's smallest normal: a subnormal, with fewer
    // significant bits the smaller it is. At 2^16 almost all are normal.
    CHECK(without.max_abs < kF16SmallestNormal);
    CHECK(subnormal_share(without) == 1.0);
    CHECK(subnormal_share(with) < 0.02);
    CHECK(with.max_abs > 0.1);
    // The first position of each sequence attends to itself alone: its q has no gradient (1/12
    // of the rows are 0 in both). Without the scaler f16 flushes more to 0.
    CHECK(with.zeros >= 1.0 / 12 - 1e-9);
    CHECK(without.zeros > with.zeros);
}

TEST_CASE("scenario: gpt-composite runs the attention as matmul, mul, masked_fill, softmax, matmul, each an f16 op, the CUDA list puts softmax in f32")
{
    // The attention's own ops (its views and transposes aside), "op dtype" in order.
    const auto attention_ops = [](const trace::Trace& trace) {
        std::vector<std::string> ops;
        for (const trace::Event& e : trace.events()) {
            if (e.phase != trace::Phase::forward || e.module != "0.attn") continue;
            if (e.op == "slice" || e.op == "view" || e.op == "transpose" || e.op == "reshape") continue;
            ops.push_back(std::string(e.is_cast ? "cast" : e.op) + " " + dtype_name(e.outputs.at(0).dtype));
        }
        return ops;
    };
    ScenarioOptions options = Scenario::preset("gpt-composite");
    const Scenario cpu(options);
    CHECK(cpu.summary() == "gpt (composite attention, context 12), autocast f16 (cpu table), cast cache on, GradScaler at 2^16, step 1");
    CHECK(events_named(cpu.trace(), "scaled_dot_product_attention").empty());
    // PyTorch's CPU list: matmul is lower_precision_fp; mul, masked_fill and softmax are on no
    // list and run in their f16 inputs' dtype. The causal mask is a bool triu.
    CHECK(attention_ops(cpu.trace()) == std::vector<std::string>{"matmul f16", "mul f16", "triu bool", "masked_fill f16", "softmax f16", "matmul f16"});
    const trace::Event& logits = *events_named(cpu.trace(), "matmul").at(0);
    CHECK(logits.policy == "lower_precision_fp");
    CHECK(logits.outputs.at(0).shape == std::vector<std::int64_t>{2, 2, 12, 12});  // [B, heads, T, T]: stored in f16
    CHECK(events_named(cpu.trace(), "softmax").at(0)->policy == "not listed");
    // The same model and batch as gpt: the same loss, to f16's precision.
    CHECK(cpu.history().at(0).loss == doctest::Approx(Scenario(Scenario::preset("gpt")).history().at(0).loss).epsilon(1e-3));

    // PyTorch's CUDA list: softmax is fp32_set_opt_dtype (f32 out), so the probabilities are
    // cast back down for the second matmul; layer_norm is fp32 (its input is f32 already: no cast).
    options.table = amp::PolicyTable::cuda();
    const Scenario cuda(options);
    CHECK(attention_ops(cuda.trace()) ==
          std::vector<std::string>{"matmul f16", "mul f16", "triu bool", "masked_fill f16", "softmax f32", "cast f16", "matmul f16"});
    CHECK(events_named(cuda.trace(), "softmax").at(0)->policy == "fp32_set_opt_dtype");
    int norms = 0;
    for (int i = find_forward(cuda.trace(), "layer_norm"); i >= 0; i = find_forward(cuda.trace(), "layer_norm", i + 1)) {
        ++norms;
        const trace::Event& e = cuda.trace().events()[std::size_t(i)];
        CHECK(e.policy == "fp32");
        CHECK(e.outputs.at(0).dtype == f32);
        CHECK_FALSE(cuda.trace().events()[std::size_t(i - 1)].is_cast);
    }
    CHECK(norms == 3);
}

TEST_CASE("scenario: gpt's attention logits overflow f16 in the composite attention only (qkv_init_std 24)")
{
    // c_attn's std 24 instead of 0.02: the logits q k^T grow with its square, past f16's 65504.
    ScenarioOptions options = Scenario::preset("gpt-composite");
    options.qkv_init_std = 24;
    const Scenario composite(options);
    const trace::ValueStats logits = events_named(composite.trace(), "matmul").at(0)->outputs.at(0).stats;
    const trace::ValueStats probabilities = events_named(composite.trace(), "softmax").at(0)->outputs.at(0).stats;
    MESSAGE("composite: logits in f16 up to ", logits.max_abs, ", ", logits.infs, " of them inf; softmax ", probabilities.nans, " NaN");
    CHECK(logits.infs > 0);         // rounded to f16: inf
    CHECK(probabilities.nans > 0);  // inf - inf in the softmax's row max
    CHECK(std::isnan(composite.history().at(0).loss));
    CHECK(composite.history().at(0).skipped);  // the GradScaler finds the NaN gradients and skips the step

    options.fused_attention = true;  // the same weights and batch through the fused op: logits in f32
    const Scenario fused(options);
    const trace::ValueStats out = events_named(fused.trace(), "scaled_dot_product_attention").at(0)->outputs.at(0).stats;
    CHECK(out.infs == 0);
    CHECK(out.nans == 0);
    CHECK(std::isfinite(fused.history().at(0).loss));
    CHECK_FALSE(fused.history().at(0).skipped);
}

TEST_CASE("scenario: gpt learns over 30 steps, in either attention")
{
    for (const std::string name : {"gpt", "gpt-composite"}) {
        CAPTURE(name);
        Scenario s(Scenario::preset(name));
        s.step(29);
        const std::vector<StepRecord>& h = s.history();
        REQUIRE(h.size() == 30);
        const double first = mean_loss(h, 0, 5), last = mean_loss(h, 25, 5);
        MESSAGE(name, ": mean loss of steps 1-5: ", first, ", of steps 26-30: ", last);
        // From ln 62 = 4.13 (62 characters, equally likely) to about 3.0 (measured: 3.88 and 2.98).
        CHECK(h[0].loss == doctest::Approx(std::log(62.0)).epsilon(0.01));
        CHECK(last < 0.85 * first);
        for (const StepRecord& r : h) CHECK_FALSE(r.skipped);
    }
}

TEST_CASE("scenario: gpt_scenario_logits is train::Gpt::forward with the block framed as module 0")
{
    manual_seed(1);
    train::Gpt gpt(train::GptConfig{.vocab_size = 62, .block_size = 12, .n_layer = 1, .n_head = 2, .n_embd = 16});
    const Tensor idx = arange(24).reshape({2, 12});
    const Tensor difference = sub(gpt.forward(idx), viz::gpt_scenario_logits(gpt, idx));
    CHECK(max(mul(difference, difference)).item() == 0.0);

    trace::Trace trace;
    {
        trace::TraceRecorder recorder(trace);
        (void)viz::gpt_scenario_logits(gpt, idx);
    }
    const auto attention = events_named(trace, "scaled_dot_product_attention");
    REQUIRE(attention.size() == 1);
    CHECK(attention[0]->module == "0.attn");  // "0": the prefix of the block's parameters ("0.attn.c_attn.weight")
}

TEST_SUITE_END();

TEST_CASE("scenario: ddp-bf16 shows rank 0's recorded DistributedDataParallel step, its gradients leaving in bf16, bucket by bucket")
{
    const Scenario s(Scenario::preset("ddp-bf16"));
    CHECK(s.options().recorded == "ddp_bf16_trace.json");
    CHECK(s.summary() == "recorded: ddp_bf16_trace.json, rank 0 of 2, 3 collectives");
    CHECK(s.history().empty());
    const trace::Trace& trace = s.trace();
    // The digits MLP in f32: its 5 layers and the loss forward, their backward, 6 AccumulateGrad.
    CHECK(events_named(trace, "linear").size() == 3);
    CHECK(events_named(trace, "AccumulateGrad", trace::Phase::backward).size() == 6);
    const std::vector<const trace::Event*> all_reduces = events_named(trace, "all_reduce", trace::Phase::backward);
    REQUIRE(all_reduces.size() == 3);  // 3 buckets of at most 64 KiB, the largest weight alone
    std::int64_t bytes = 0;
    std::set<std::uint64_t> written;  // the .grad tensors AccumulateGrad wrote before each all_reduce
    for (const trace::Event& e : trace.events()) {
        if (e.op == "AccumulateGrad")
            for (const trace::TensorInfo& t : e.outputs) written.insert(t.id);
        if (!e.collective) continue;
        CAPTURE(e.seq);
        CHECK(e.collective->dtype == bf16);
        CHECK(e.collective->rank == 0);
        CHECK(e.collective->world_size == 2);
        bytes += e.collective->bytes;
        for (const trace::TensorInfo& t : e.inputs) {
            CHECK(t.dtype == f32);
            CHECK(written.count(t.id) == 1);
        }
    }
    // Every gradient element once, 2 bytes each: 64x256 + 256 + 256x256 + 256 + 256x10 + 10.
    CHECK(bytes == 2 * 85002);
    // The graph: a collective node each, filled bf16, in backward; the scenario opens on the first.
    const trace::TraceGraph graph = trace::build_graph(trace);
    int collectives = 0;
    for (const trace::GraphNode& n : graph.nodes)
        if (n.kind == trace::NodeKind::collective) {
            ++collectives;
            CHECK(n.dtype == bf16);
            CHECK(n.phase == trace::Phase::backward);
        }
    CHECK(collectives == 3);
    CHECK(Scenario::opening("ddp-bf16").select == "backward:all_reduce");
    CHECK(viz::find_node(trace, graph, "backward:all_reduce") == graph.node_of_event(std::size_t(all_reduces[0] - trace.events().data())));
}

TEST_CASE("scenario: a recorded scenario takes no steps, and a missing recording is refused naming its file")
{
    Scenario s(Scenario::preset("ddp-bf16"));
    s.step(0);
    const std::string refused = test::error_message([&] { s.step(1); }, ErrorKind::state);
    CHECK(refused.find("recorded elsewhere (ddp_bf16_trace.json)") != std::string::npos);
    ScenarioOptions missing = Scenario::preset("ddp-bf16");
    missing.recorded = "no_such_trace.json";
    const std::string message = test::error_message([&] { Scenario::validate(missing); }, ErrorKind::io);
    CHECK(message.find("no_such_trace.json") != std::string::npos);
}
