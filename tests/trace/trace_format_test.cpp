// Events and traces as text, one line per event.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include <tinyamp/tinyamp.h>
#include <tinyamp/trace/trace.h>

using namespace tinyamp;
using trace::Event;
using trace::TensorInfo;

namespace {

TensorInfo info(DType dtype, Shape shape, std::string name = "")
{
    TensorInfo t;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.name = std::move(name);
    return t;
}

std::string text_of(const auto& printable)
{
    std::ostringstream out;
    out << printable;
    return out.str();
}

}  // namespace

TEST_CASE("an op event prints as one line: seq, phase, op, inputs, outputs and the autocast rule")
{
    Event e;
    e.seq = 3;
    e.op = "matmul";
    e.inputs = {info(bf16, {4, 3}), info(bf16, {3, 2})};
    e.outputs = {info(bf16, {4, 2})};
    e.policy = "lower_precision_fp";
    CHECK(text_of(e) == "#3 forward matmul(bf16 [4, 3], bf16 [3, 2]) -> bf16 [4, 2]  [lower_precision_fp]");
}

TEST_CASE("a cast event prints its tensor's name and the cache outcome")
{
    Event e;
    e.seq = 1;
    e.op = "to";
    e.is_cast = true;
    e.cache = trace::CacheEvent::hit;
    e.inputs = {info(f32, {4, 3}, "w1")};
    e.outputs = {info(bf16, {4, 3})};
    e.policy = "lower_precision_fp";
    CHECK(text_of(e) == "#1 forward to(w1 f32 [4, 3]) -> bf16 [4, 3]  (autocast cast)  cache hit  [lower_precision_fp]");
}

TEST_CASE("a trace prints one line per event")
{
    trace::Trace t;
    Event relu;
    relu.op = "relu";
    relu.inputs = {info(f32, {2})};
    relu.outputs = {info(f32, {2})};
    t.add(relu);
    Event backward;
    backward.phase = trace::Phase::backward;
    backward.op = "AccumulateGrad";
    backward.inputs = {info(f32, {})};
    t.add(backward);
    CHECK(text_of(t) == "#1 forward relu(f32 [2]) -> f32 [2]\n#2 backward AccumulateGrad(f32 []) -> nothing\n");
}
