// Trace to Graphviz DOT: the text is parsed for what a student must see (fills by dtype, casts
// and cache hits, leaf tensors, edges, clusters, legend), and `dot -Tsvg` must accept it.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <tinyamp/tinyamp.h>
#include <tinyamp/trace/trace.h>
#include <tinyamp/trace/trace_graph.h>

#include "tests/support/recorded_traces.h"

using namespace tinyamp;
using trace::Event;
using trace::TensorInfo;
using trace::Trace;

namespace {

TensorInfo info(std::uint64_t id, DType dtype, Shape shape, std::string name = "", bool is_leaf = false)
{
    TensorInfo t;
    t.id = id;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.name = std::move(name);
    t.is_leaf = is_leaf;
    return t;
}

Event event(trace::Phase phase, std::string op, std::vector<TensorInfo> inputs, std::vector<TensorInfo> outputs)
{
    Event e;
    e.phase = phase;
    e.op = std::move(op);
    e.inputs = std::move(inputs);
    e.outputs = std::move(outputs);
    e.device_type = "cpu";
    return e;
}

Event cast(const TensorInfo& from, const TensorInfo& to, trace::CacheEvent cache)
{
    Event e = event(trace::Phase::forward, "to", {from}, {to});
    e.is_cast = true;
    e.cache = cache;
    e.policy = "lower_precision_fp";
    return e;
}

// What autocast makes of `sum(x @ w1 @ ...)`-like code, by hand: w1 is cast once (stored in the
// cast cache) and reused (a cache hit), then a backward pass brings an f32 gradient to w1.
//   e1 cast w1   e2 cast x   e3 matmul   e4 cast w1 (hit)   e5 matmul   e6 sum
//   e7 sum backward   e8 matmul backward   e9 to backward   e10 AccumulateGrad
Trace autocast_trace()
{
    using trace::Phase;
    const TensorInfo w1 = info(1, f32, {4, 3}, "w1", true);
    const TensorInfo w1_low = info(2, bf16, {4, 3});
    const TensorInfo x = info(3, f32, {2, 4}, "x", true);
    const TensorInfo x_low = info(4, bf16, {2, 4});
    Trace t;
    t.add(cast(w1, w1_low, trace::CacheEvent::stored));
    t.add(cast(x, x_low, trace::CacheEvent::none));
    Event mm = event(Phase::forward, "matmul", {x_low, w1_low}, {info(5, bf16, {2, 3})});
    mm.policy = "lower_precision_fp";
    t.add(mm);
    t.add(cast(w1, w1_low, trace::CacheEvent::hit));
    t.add(event(Phase::forward, "matmul", {x_low, w1_low}, {info(7, bf16, {2, 3})}));
    t.add(event(Phase::forward, "sum", {info(7, bf16, {2, 3})}, {info(8, f32, {})}));
    t.add(event(Phase::backward, "sum", {info(20, f32, {}, "gradient seed", true)}, {info(21, bf16, {2, 3})}));
    t.add(event(Phase::backward, "matmul", {info(21, bf16, {2, 3})}, {info(22, bf16, {4, 3})}));
    t.add(event(Phase::backward, "to", {info(22, bf16, {4, 3})}, {info(23, f32, {4, 3})}));
    t.add(event(Phase::backward, "AccumulateGrad", {info(23, f32, {4, 3})}, {info(24, f32, {4, 3}, "w1.grad")}));
    return t;
}

// The line that declares node `name` ("e3 [shape=box, ...];", indented by its cluster's depth),
// without its indent, or "" if there is none.
std::string node_line(const std::string& dot, const std::string& name)
{
    std::istringstream lines(dot);
    std::string line;
    const std::string start = name + " [";
    while (std::getline(lines, line)) {
        line.erase(0, line.find_first_not_of(' '));
        if (line.rfind(start, 0) == 0) return line;
    }
    return {};
}

int count_of(const std::string& text, const std::string& part)
{
    int n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

// The value of `key=` in a DOT attribute list: a quoted string (still escaped) or a bare word.
std::string attr(const std::string& line, const std::string& key)
{
    std::size_t at = line.find(std::string("[") + key + "=");
    if (at == std::string::npos) at = line.find(std::string(" ") + key + "=");
    if (at == std::string::npos) return std::string("<no ") + key + ">";
    std::size_t i = at + key.size() + 2;
    std::string value;
    if (line[i] != '"') {
        while (i < line.size() && line[i] != ',' && line[i] != ']') value += line[i++];
        return value;
    }
    for (++i; i < line.size() && line[i] != '"'; ++i) {
        if (line[i] == '\\') value += line[i++];
        value += line[i];
    }
    return value;
}

// The statements of cluster `name`, from its opening line to its closing brace.
std::string cluster(const std::string& dot, const std::string& name)
{
    const std::size_t begin = dot.find(std::string("subgraph cluster_") + name + " {");
    if (begin == std::string::npos) return {};
    return dot.substr(begin, dot.find("\n  }\n", begin) - begin);
}

bool has_edge(const std::string& dot, const std::string& from, const std::string& to, const std::string& label)
{
    std::istringstream lines(dot);
    std::string line;
    const std::string start = std::string("  ") + from + " -> " + to + " [";
    while (std::getline(lines, line))
        if (line.rfind(start, 0) == 0 && attr(line, "label") == label) return true;
    return false;
}

bool dot_on_path() { return std::system("command -v dot > /dev/null 2>&1") == 0; }

// Runs `dot -Tsvg` on `dot_text`; returns its exit status and puts the SVG in `svg`.
int render_svg(const std::string& dot_text, std::string& svg)
{
    const std::filesystem::path dir = std::filesystem::temp_directory_path();
    const std::string stem = std::string("tinyamp_trace_dot_test_") + std::to_string(::getpid());
    const std::filesystem::path in = dir / (stem + ".dot"), out = dir / (stem + ".svg");
    std::ofstream(in) << dot_text;
    const std::string command = std::string("dot -Tsvg '") + in.string() + "' -o '" + out.string() + "'";
    const int status = std::system(command.c_str());
    std::ifstream file(out);
    svg.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    std::filesystem::remove(in);
    std::filesystem::remove(out);
    return status;
}

void check_dot_accepts(const std::string& dot_text)
{
    if (!dot_on_path()) {
        MESSAGE("graphviz `dot` is not on PATH: skipping the dot -Tsvg check");
        return;
    }
    std::string svg;
    INFO(dot_text);
    CHECK(render_svg(dot_text, svg) == 0);
    CHECK(svg.find("<svg") != std::string::npos);
}

}  // namespace

TEST_CASE("DOT: op nodes are filled with their output dtype's color and labelled op, dtype, shape")
{
    const std::string dot = autocast_trace().to_dot();
    CHECK(dot.rfind("digraph", 0) == 0);
    const std::string matmul = node_line(dot, "e3");
    REQUIRE_FALSE(matmul.empty());
    CHECK(attr(matmul, "shape") == "box");
    CHECK(attr(matmul, "fillcolor") == trace::dtype_color(bf16).fill);
    CHECK(attr(matmul, "fontcolor") == trace::dtype_color(bf16).text);
    CHECK(attr(matmul, "label") == "matmul\\nbf16 [2, 3]\\nlower_precision_fp");
    const std::string sum = node_line(dot, "e6");
    CHECK(attr(sum, "fillcolor") == trace::dtype_color(f32).fill);
    CHECK(attr(sum, "label") == "sum\\nf32 []");
}

TEST_CASE("DOT: autocast casts are cds nodes labelled with both dtypes, and cache hits are dashed")
{
    const std::string dot = autocast_trace().to_dot();
    const std::string stored = node_line(dot, "e1");
    CHECK(attr(stored, "shape") == "cds");
    CHECK(attr(stored, "label").find("cast f32\u2192bf16") == 0);
    CHECK(attr(stored, "label").find("cache stored") != std::string::npos);
    CHECK(attr(stored, "style").find("dashed") == std::string::npos);
    CHECK(attr(stored, "fillcolor") == trace::dtype_color(bf16).fill);
    const std::string hit = node_line(dot, "e4");
    CHECK(attr(hit, "shape") == "cds");
    CHECK(attr(hit, "style") == "filled,dashed");
    CHECK(attr(hit, "label").find("cache hit") != std::string::npos);
    CHECK(attr(node_line(dot, "e2"), "label") == "cast f32\u2192bf16\\nbf16 [2, 4]");
}

TEST_CASE("DOT: leaf tensors are ellipses in their dtype's color, drawn once however often used")
{
    const std::string dot = autocast_trace().to_dot();
    const std::string w1 = node_line(dot, "t1");
    CHECK(attr(w1, "shape") == "ellipse");
    CHECK(attr(w1, "fillcolor") == trace::dtype_color(f32).fill);
    CHECK(attr(w1, "label") == "w1\\nf32 [4, 3]");
    CHECK(count_of(dot, "    t1 [") == 1);
    CHECK(attr(node_line(dot, "t3"), "label") == "x\\nf32 [2, 4]");
    // Tensors made by events are edges, not nodes of their own.
    CHECK(node_line(dot, "t2").empty());
    CHECK(node_line(dot, "t5").empty());
}

TEST_CASE("DOT: edges run from each tensor's producer to its consumer, labelled dtype and shape")
{
    const std::string dot = autocast_trace().to_dot();
    CHECK(has_edge(dot, "t1", "e1", "f32 [4, 3]"));
    CHECK(has_edge(dot, "t1", "e4", "f32 [4, 3]"));
    CHECK(has_edge(dot, "t3", "e2", "f32 [2, 4]"));
    CHECK(has_edge(dot, "e2", "e3", "bf16 [2, 4]"));
    CHECK(has_edge(dot, "e1", "e3", "bf16 [4, 3]"));
    CHECK(has_edge(dot, "e4", "e5", "bf16 [4, 3]"));  // after the hit, the cached tensor comes from e4
    CHECK_FALSE(has_edge(dot, "e1", "e5", "bf16 [4, 3]"));
    CHECK(has_edge(dot, "e5", "e6", "bf16 [2, 3]"));
    CHECK(has_edge(dot, "t20", "e7", "f32 []"));
    CHECK(has_edge(dot, "e7", "e8", "bf16 [2, 3]"));
    CHECK(has_edge(dot, "e8", "e9", "bf16 [4, 3]"));
    CHECK(has_edge(dot, "e9", "e10", "f32 [4, 3]"));
    // 12 inputs, 12 edges (the legend's invisible ordering edges aside)
    CHECK(count_of(dot, " -> ") - count_of(dot, "style=invis") == 12);
}

TEST_CASE("DOT: forward and backward events sit in their own clusters, backward with its gradient dtypes")
{
    const std::string dot = autocast_trace().to_dot();
    const std::string forward = cluster(dot, "forward"), backward = cluster(dot, "backward");
    REQUIRE_FALSE(forward.empty());
    REQUIRE_FALSE(backward.empty());
    CHECK(backward.find("label=\"backward\"") != std::string::npos);
    for (int seq = 1; seq <= 10; ++seq) {
        const std::string node = std::string("    e") + std::to_string(seq) + " [";
        INFO(node);
        CHECK((seq <= 6 ? forward : backward).find(node) != std::string::npos);
        CHECK((seq <= 6 ? backward : forward).find(node) == std::string::npos);
    }
    CHECK(backward.find("    t20 [") != std::string::npos);
    const std::string matmul_bw = node_line(dot, "e8");
    CHECK(attr(matmul_bw, "label") == "matmul\\ngrad bf16 [4, 3]");
    CHECK(attr(matmul_bw, "fillcolor") == trace::dtype_color(bf16).fill);
    const std::string accumulate = node_line(dot, "e10");
    CHECK(attr(accumulate, "label") == "AccumulateGrad\\nw1.grad f32 [4, 3]");
    CHECK(attr(accumulate, "fillcolor") == trace::dtype_color(f32).fill);
}

TEST_CASE("DOT: the legend has one swatch per dtype that appears, plus the cast and cache hit keys")
{
    const std::string dot = autocast_trace().to_dot();
    const std::string legend = cluster(dot, "legend");
    REQUIRE_FALSE(legend.empty());
    for (DType d : kAllDTypes) {
        const std::string swatch = std::string("legend_") + dtype_name(d);
        INFO(swatch);
        const bool appears = d == f32 || d == bf16;
        CHECK((legend.find(std::string("    ") + swatch + " [") != std::string::npos) == appears);
        if (appears) {
            CHECK(attr(node_line(dot, swatch), "fillcolor") == trace::dtype_color(d).fill);
            CHECK(attr(node_line(dot, swatch), "label") == dtype_name(d));
        }
    }
    CHECK(attr(node_line(dot, "legend_cast"), "shape") == "cds");
    CHECK(attr(node_line(dot, "legend_cache_hit"), "style") == "filled,dashed");

    // Without casts or hits, those keys are left out.
    Trace plain;
    plain.add(event(trace::Phase::forward, "relu", {info(1, f16, {3}, "h", true)}, {info(2, f16, {3})}));
    const std::string plain_dot = plain.to_dot();
    CHECK_FALSE(node_line(plain_dot, "legend_f16").empty());
    CHECK(node_line(plain_dot, "legend_f32").empty());
    CHECK(node_line(plain_dot, "legend_cast").empty());
    CHECK(node_line(plain_dot, "legend_cache_hit").empty());
}

TEST_CASE("DOT: names with quotes and backslashes are escaped")
{
    Trace t;
    Event e = event(trace::Phase::forward, "relu", {info(1, f32, {2}, "my \"w\" \\ 1", true)}, {info(2, f32, {2})});
    e.why = "a \"why\" line";
    t.add(e);
    const std::string dot = t.to_dot();
    CHECK(attr(node_line(dot, "t1"), "label") == "my \\\"w\\\" \\\\ 1\\nf32 [2]");
    CHECK(attr(node_line(dot, "e1"), "tooltip") == "a \\\"why\\\" line");
    check_dot_accepts(dot);
}

TEST_CASE("DOT: a tensor made before the recording started is drawn dashed")
{
    Trace t;
    t.add(event(trace::Phase::forward, "relu", {info(9, f32, {2})}, {info(10, f32, {2})}));
    const std::string line = node_line(t.to_dot(), "t9");
    CHECK(attr(line, "style") == "filled,dashed");
    CHECK(attr(line, "label") == "tensor #9\\nf32 [2]\\nmade before the trace");
}

TEST_CASE("dot -Tsvg accepts the DOT of a hand-built trace and of an empty one")
{
    check_dot_accepts(autocast_trace().to_dot());
    check_dot_accepts(Trace().to_dot());
}

TEST_CASE("dot -Tsvg accepts the DOT of a recorded forward and backward pass")
{
    Generator gen(11);
    const Tensor x = randn({4, 3}, f32, gen);
    x.set_name("x");
    const Tensor w1 = randn({5, 3}, f32, gen), w2 = randn({2, 5}, f32, gen);
    w1.requires_grad_().set_name("w1");
    w2.requires_grad_().set_name("w2");
    Trace t;
    {
        trace::TraceRecorder record(t);
        cross_entropy(linear(relu(linear(x, w1)), w2), tensor({0, 1, 1, 0}, {4}, i64)).backward();
    }
    const std::string dot = t.to_dot();
    CHECK_FALSE(cluster(dot, "backward").empty());
    CHECK_FALSE(node_line(dot, "legend_f32").empty());
    check_dot_accepts(dot);
}

TEST_CASE("the DOT of an MLP step under bf16 autocast shows the casts and the dtype colors, and dot renders it")
{
    Generator gen(12);
    const Tensor x = randn({4, 3}, f32, gen).set_name("x");
    const Tensor w1 = randn({5, 3}, f32, gen).requires_grad_().set_name("w1");
    const Tensor w2 = randn({2, 5}, f32, gen).requires_grad_().set_name("w2");
    Trace t;
    {
        trace::TraceRecorder record(t);
        Tensor loss;
        {
            amp::autocast region("cpu");
            loss = cross_entropy(linear(relu(linear(x, w1)), w2), tensor({0, 1, 1, 0}, {4}, i64));
        }
        loss.backward();
    }
    const std::string dot = t.to_dot();
    // Casts: x, w1 and w2 to bf16 (the weights stored in the cache), and the logits back to f32.
    int cds = 0, stored = 0;
    std::istringstream lines(dot);
    for (std::string line; std::getline(lines, line);) {
        if (line.find("shape=cds") != std::string::npos && line.find("legend") == std::string::npos) ++cds;
        if (line.find("cache stored") != std::string::npos) ++stored;
    }
    CHECK(cds == 4);
    CHECK(stored == 2);
    CHECK(dot.find("cast f32\u2192bf16") != std::string::npos);
    CHECK(dot.find("cast bf16\u2192f32") != std::string::npos);
    // Both linear ops filled bf16 orange; the loss f32 blue; both in the legend.
    CHECK(dot.find(trace::dtype_color(bf16).fill) != std::string::npos);
    CHECK(dot.find(trace::dtype_color(f32).fill) != std::string::npos);
    CHECK_FALSE(node_line(dot, "legend_bf16").empty());
    CHECK_FALSE(node_line(dot, "legend_f32").empty());
    CHECK_FALSE(node_line(dot, "legend_cast").empty());
    CHECK_FALSE(cluster(dot, "backward").empty());
    check_dot_accepts(dot);
}

TEST_CASE("DOT grouped by module: clusters nested as the modules are, labelled with path and type")
{
    const test::NestedModulesStep step;
    const std::string dot = trace::to_dot(step.trace, {.module_clusters = true});
    // Forward and backward clusters of module 0 (index 0), and 2.0 (index 3) inside 2 (index 2).
    CHECK(dot.find("subgraph cluster_m0f {") != std::string::npos);
    CHECK(dot.find("subgraph cluster_m0b {") != std::string::npos);
    CHECK(dot.find("label=\"0 \u00b7 Linear\";") != std::string::npos);
    const std::size_t outer = dot.find("subgraph cluster_m2f {"), inner = dot.find("subgraph cluster_m3f {");
    REQUIRE(outer != std::string::npos);
    REQUIRE(inner != std::string::npos);
    CHECK(outer < inner);
    CHECK(dot.find("label=\"2.0 \u00b7 Linear\";") != std::string::npos);
    CHECK(dot.find("newrank") == std::string::npos);  // nothing collapsed: no rank constraints
    // The same nodes and edges as without clusters: only the grouping differs.
    const trace::TraceGraph plain = trace::build_graph(step.trace);
    for (const trace::GraphNode& node : plain.nodes) CHECK_MESSAGE(!node_line(dot, node.name).empty(), node.name);
    CHECK(Trace().to_dot() == trace::to_dot(Trace(), {.module_clusters = true}));
    check_dot_accepts(dot);
}

TEST_CASE("DOT with collapsed modules: one box3d node per module and phase, forward and backward on one rank")
{
    const test::NestedModulesStep step;
    const std::string dot = trace::to_dot(step.trace, {.collapsed = {"0", "1", "2"}, .module_clusters = true});
    const std::string box = node_line(dot, "m0f");
    CHECK(box.find("shape=box3d") != std::string::npos);
    CHECK(box.find("fillcolor=\"" + std::string(trace::dtype_color(bf16).fill) + "\"") != std::string::npos);
    CHECK(box.find("label=\"0 \u00b7 Linear\\nbf16 [2, 3]\\n4 events, 3 casts\"") != std::string::npos);
    CHECK(dot.find("newrank=true") != std::string::npos);
    for (const char* pair : {"{rank=same; m0f; m0b;}", "{rank=same; m1f; m1b;}", "{rank=same; m2f; m2b;}"}) CHECK(dot.find(pair) != std::string::npos);
    CHECK(dot.find("cluster_m3f") == std::string::npos);  // 2.0 is inside 2's box
    CHECK(dot.find("legend_module") != std::string::npos);
    check_dot_accepts(dot);
}
