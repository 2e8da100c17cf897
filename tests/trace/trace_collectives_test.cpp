// A collective's event (Event::collective, what tinyamp::distributed records; made by hand here,
// with no MPI): trace JSON version 5 round-trips it and refuses it in older versions or with
// wrong fields, the text line says it, and the graph draws it as a collective node filled with
// the dtype its data travelled in, a hexagon in DOT with the legend's key.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include <tinyamp/tinyamp.h>
#include <tinyamp/trace/trace.h>
#include <tinyamp/trace/trace_graph.h>

#include "tests/support/expect_error.h"
#include "tests/support/trace_json_checks.h"

using namespace tinyamp;
using trace::Event;
using trace::Trace;

namespace {

trace::TensorInfo gradient(std::uint64_t id, const char* name)
{
    trace::TensorInfo t;
    t.id = id;
    t.dtype = f32;
    t.shape = {3, 16};
    t.name = name;
    t.is_leaf = false;
    return t;
}

// An AccumulateGrad that wrote w.grad (id 7), then the bucket's all_reduce that sent it as bf16
// in backward and gave the average back (id 8), as DistributedDataParallel records on rank 1 of 2.
Trace ddp_trace()
{
    Trace t;
    Event accumulate;
    accumulate.phase = trace::Phase::backward;
    accumulate.op = "AccumulateGrad";
    accumulate.outputs = {gradient(7, "w.grad")};
    t.add(accumulate);
    Event reduce;
    reduce.phase = trace::Phase::backward;
    reduce.op = "all_reduce";
    reduce.inputs = {gradient(7, "w.grad")};
    reduce.outputs = {gradient(8, "w.grad")};
    reduce.device_type = "cpu";
    reduce.why = "all_reduce_gradients: 1 gradient (w) averaged over 2 ranks";
    reduce.collective = trace::Collective{.reduce_op = "SUM", .dtype = bf16, .bytes = 96, .world_size = 2, .rank = 1, .root = -1};
    t.add(reduce);
    return t;
}

// ddp_trace()'s JSON with the first occurrence of `from` replaced by `to`.
std::string broken(const std::string& from, const std::string& to)
{
    return test::replace_first(ddp_trace().to_json(), from, to);
}

}  // namespace

TEST_CASE("to_json writes a collective's event with its \"collective\", and no such field elsewhere, from_json reads it back")
{
    const std::string text = ddp_trace().to_json();
    CHECK(text.find("\"version\": 5") != std::string::npos);
    const std::size_t field = text.find("\"collective\": {");
    REQUIRE(field != std::string::npos);
    CHECK(field > text.find("\"op\": \"all_reduce\""));  // not in AccumulateGrad's event
    CHECK(text.find("\"collective\"", field + 1) == std::string::npos);
    const Trace back = Trace::from_json(text);
    REQUIRE(back.events().size() == 2);
    CHECK_FALSE(back.events()[0].collective);
    REQUIRE(back.events()[1].collective);
    const trace::Collective& c = *back.events()[1].collective;
    CHECK(c.reduce_op == "SUM");
    CHECK(c.dtype == bf16);
    CHECK(c.bytes == 96);
    CHECK(c.world_size == 2);
    CHECK(c.rank == 1);
    CHECK(c.root == -1);
    CHECK(back.events()[1].phase == trace::Phase::backward);
    CHECK(back.to_json() == text);
}

TEST_CASE("from_json refuses a collective in versions before 5, and names the collective's field that is wrong")
{
    std::string v4 = ddp_trace().to_json();
    v4.replace(v4.find("\"version\": 5"), 12, "\"version\": 4");
    test::check_json_rejected(v4, {"events[1].collective: unknown field"});
    const std::string at = "events[1].collective";
    test::check_json_rejected(broken("\"reduce_op\": \"SUM\",", ""), {(at + ".reduce_op: missing").c_str()});
    test::check_json_rejected(broken("\"reduce_op\": \"SUM\"", "\"reduce_op\": \"sum\""), {(at + ".reduce_op").c_str(), "unknown reduction \"sum\""});
    test::check_json_rejected(broken("\"dtype\": \"bf16\"", "\"dtype\": \"b16\""), {(at + ".dtype").c_str(), "b16"});
    test::check_json_rejected(broken("\"bytes\": 96", "\"bytes\": -96"), {(at + ".bytes").c_str(), "outside"});
    test::check_json_rejected(broken("\"world_size\": 2", "\"world_size\": 0"), {(at + ".world_size").c_str(), "outside"});
    test::check_json_rejected(broken("\"rank\": 1", "\"rank\": 2"), {(at + ".rank").c_str(), "outside [0, 1]"});
    test::check_json_rejected(broken("\"root\": -1", "\"root\": -2"), {(at + ".root").c_str(), "outside [-1, 1]"});
    test::check_json_rejected(broken("\"root\": -1", "\"root\": -1, \"hops\": 3"), {(at + ".hops: unknown field").c_str()});
    // A broadcast has no reduction and names its source.
    std::string broadcast = broken("\"reduce_op\": \"SUM\"", "\"reduce_op\": \"\"");
    broadcast.replace(broadcast.find("\"root\": -1"), 10, "\"root\": 0");
    const Trace read = Trace::from_json(broadcast);
    CHECK(read.events()[1].collective->reduce_op.empty());
    CHECK(read.events()[1].collective->root == 0);
}

TEST_CASE("a collective's text line and summary say how its data travelled")
{
    const Trace t = ddp_trace();
    std::ostringstream out;
    out << t.events()[1];
    CHECK(out.str() == "#2 backward all_reduce(w.grad f32 [3, 16]) -> w.grad f32 [3, 16]  (collective: SUM in bf16, 96 bytes, rank 1 of 2)");
    const trace::Collective broadcast{.dtype = f16, .bytes = 0, .world_size = 4, .rank = 3, .root = 0};
    CHECK(trace::collective_how(broadcast) == "from rank 0 in f16");
    CHECK(trace::collective_summary(broadcast) == "from rank 0 in f16, 0 bytes, rank 3 of 4");
    CHECK(trace::collective_how(trace::Collective{.dtype = f32}) == "in f32");
}

TEST_CASE("the graph draws a collective as its own kind of node, filled with the dtype it travelled in, fed by AccumulateGrad")
{
    const Trace t = ddp_trace();
    const trace::TraceGraph graph = trace::build_graph(t);
    const int node = graph.node_of_event(1);
    REQUIRE(node >= 0);
    const trace::GraphNode& n = graph.nodes[std::size_t(node)];
    CHECK(n.kind == trace::NodeKind::collective);
    CHECK(std::string(trace::node_kind_name(n.kind)) == "collective");
    CHECK(n.phase == trace::Phase::backward);
    CHECK(n.dtype == bf16);  // its gradients are f32: the fill is what travelled
    CHECK(n.label == std::vector<std::string>{"all_reduce", "SUM in bf16, 96 B", "back in f32"});
    CHECK(graph.has_collectives);
    CHECK(graph.dtypes == std::vector<DType>{f32, bf16});  // bf16 only travelled, but the legend lists it
    REQUIRE(graph.edges.size() == 1);  // from AccumulateGrad's .grad, no outside tensor node
    CHECK(graph.edges[0].from == graph.node_of_event(0));
    CHECK(graph.edges[0].to == node);
    CHECK(graph.nodes.size() == 2);

    // Larger amounts in KiB and MiB, to a tenth; no "back in" line when it came back as it went.
    for (const auto& [bytes, text] : std::vector<std::pair<std::int64_t, std::string>>{
             {1023, "1023 B"}, {1536, "1.5 KiB"}, {5652, "5.5 KiB"}, {131072, "128 KiB"}, {std::int64_t(3) << 20, "3 MiB"}}) {
        Event e = t.events()[1];
        e.collective->bytes = bytes;
        e.outputs[0].dtype = bf16;
        Trace one;
        one.add(e);
        CHECK(trace::build_graph(one).nodes.back().label == std::vector<std::string>{"all_reduce", "SUM in bf16, " + text});
    }

    const std::string dot = t.to_dot();
    CHECK(dot.find("e2 [shape=hexagon, style=\"filled\", fillcolor=\"" + std::string(trace::dtype_color(bf16).fill) + "\"") !=
          std::string::npos);
    CHECK(dot.find("label=\"all_reduce\\nSUM in bf16, 96 B\\nback in f32\", margin=\"0.11,0.11\"") != std::string::npos);  // room between the points
    CHECK(dot.find("legend_collective [shape=hexagon") != std::string::npos);
    CHECK(Trace().to_dot().find("legend_collective") == std::string::npos);
}
