// Lesson 7: backward runs in the dtypes the forward used. A bf16 linear gets a bf16 backward; the
// cast that autocast inserted has a backward that casts the gradient back, so f32 weights get an
// f32 .grad; and backward is never autocast, so wrapping it in a region changes nothing.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"
#include "lessons/support/models.h"
#include "lessons/support/trace_queries.h"

using namespace tinyamp;

namespace {

// A 4-16-3 MLP with f32 master weights, and a batch of 8 samples.
struct Setup {
    Generator gen{0};
    Tensor x = randn({8, 4}, f32, gen).set_name("x");
    Tensor labels = tensor({0, 1, 2, 0, 1, 2, 0, 1}, {8}, i64).set_name("labels");
    lesson::Mlp mlp{{4, 16, 3}, gen, {.weight_std = {0.5, 0.25}}};

    Tensor loss() const { return cross_entropy(mlp(x), labels); }
    const std::vector<Tensor>& params() const { return mlp.params(); }
};

// "linear -> bf16, bf16, bf16": a backward event's op and the dtypes of the gradients it passed on.
std::string grads_line(const trace::Event& e)
{
    std::string line = e.op + " ->";
    for (std::size_t i = 0; i < e.outputs.size(); ++i) {
        line += (i ? ", " : " ");
        if (!e.outputs[i].name.empty()) line += e.outputs[i].name + " ";
        line += dtype_name(e.outputs[i].dtype);
    }
    return line;
}

std::vector<std::string> backward_lines(const trace::Trace& trace)
{
    std::vector<std::string> lines;
    for (const trace::Event* e : lesson::backward_events(trace)) lines.push_back(grads_line(*e));
    return lines;
}

// Returns the trace of the step, forward and backward.
trace::Trace step_backward_dtypes(lesson::Lesson& L, const Setup& s)
{
    L.step("Forward under bf16 autocast, backward outside the region");
    L.expect("Each backward op runs in the dtype its forward ran in: the two linears and relu ran in bf16, so\n"
             "their backward passes on bf16 gradients; cross_entropy ran in f32 and passes on an f32 gradient,\n"
             "which its input cast's backward (to) turns back into bf16 for the bf16 logits. The four weight\n"
             "casts f32->bf16 have backwards that cast bf16 gradients up to f32, so all four .grad are f32.");
    trace::Trace recorded;
    {
        trace::TraceRecorder recorder(recorded);
        Tensor loss;
        {
            amp::autocast region("cpu");
            loss = s.loss();
        }
        loss.backward();
    }
    L.say("The backward events, as 'node(gradient received) -> gradients passed on':");
    for (const trace::Event* e : lesson::backward_events(recorded)) std::cout << "   " << *e << '\n';
    L.check(lesson::gradient_dtypes(recorded, "linear") == std::set<DType>{bf16} && lesson::gradient_dtypes(recorded, "relu") == std::set<DType>{bf16},
            "the backward of both linears and of relu passes on bf16 gradients only");
    L.check(lesson::gradient_dtypes(recorded, "cross_entropy") == std::set<DType>{f32}, "cross_entropy's backward passes on an f32 gradient");
    L.check(lesson::backward_casts(recorded, f32, bf16).size() == 1, "one backward cast turns that f32 gradient into bf16 (the logits' cast)");
    L.check(lesson::backward_casts(recorded, bf16, f32).size() == 4, "four backward casts turn bf16 gradients into f32 (w1, b1, w2, b2)");
    bool all_f32 = true;
    for (const Tensor& p : s.params()) all_f32 = all_f32 && p.grad().defined() && p.grad().dtype() == f32;
    L.check(all_f32, "w1.grad, b1.grad, w2.grad and b2.grad are f32, like the weights");
    int x_grads = 0;
    for (const trace::Event* e : lesson::backward_events(recorded))
        for (const trace::TensorInfo& g : e->outputs) x_grads += g.name == "x.grad" ? 1 : 0;
    L.check(x_grads == 0 && !s.x.grad().defined(), "x does not require grad: its cast has no backward and x gets no .grad");
    L.write_graph("mlp_step", recorded,
                  "One step of the MLP: forward under bf16 autocast (left), backward (right). Orange is bf16, blue f32; a "
                  "backward node has the color of the gradients it passes on: bf16 where the forward ran in bf16, f32 after "
                  "the backward of each weight's cast.");
    L.key_result("under bf16 autocast, the linears' and relu's backward ran in bf16; 4 backward casts bf16->f32 gave f32 .grad to all 4 weights");
    return recorded;
}

void step_backward_in_region(lesson::Lesson& L, const Setup& s, const trace::Trace& recorded)
{
    L.step("backward() inside the region: nothing changes");
    L.expect("tinyamp's engine turns autocast off for backward, whatever region backward() is called in, so\n"
             "the backward events and the gradients, bit for bit, are the same as in step 1. This is the\n"
             "behaviour PyTorch documents: backward ops run in the dtypes autocast chose for their forward ops.");
    const Setup again;
    trace::Trace inside;
    {
        trace::TraceRecorder recorder(inside);
        amp::autocast region("cpu");
        again.loss().backward();
    }
    const bool same_events = backward_lines(inside) == backward_lines(recorded);
    bool same_grads = true;
    for (std::size_t i = 0; i < s.params().size(); ++i) same_grads = same_grads && again.params()[i].grad().to_vector() == s.params()[i].grad().to_vector();
    std::printf("   backward events identical: %s; gradients bit-identical: %s\n", same_events ? "yes" : "no", same_grads ? "yes" : "no");
    L.check(same_events, "the backward events and their gradient dtypes are the same");
    L.check(same_grads, "w1.grad, b1.grad, w2.grad, b2.grad are bit-identical");
    L.say("PyTorch's advice: wrap only the forward pass and the loss in autocast; backward under autocast is\n"
          "not recommended. The state is per thread, and backward may run on threads that do not carry the\n"
          "region's dtype (PyTorch issues 125186 and 132715 are about exactly that going wrong). A custom\n"
          "Function whose backward must see the forward's autocast state uses custom_bwd (lesson 10).");
    L.key_result("backward() inside the region: same events, bit-identical gradients (backward is never autocast)");
}

void step_grad_through_bf16(lesson::Lesson& L, const Setup& s)
{
    L.step("An f32 .grad that went through bf16");
    L.expect("The weights' gradients are stored in f32, but they were computed by bf16 matmuls from bf16\n"
             "activation gradients: they carry bf16's 8 significant bits. Compared with the same step in plain\n"
             "f32 they differ by a fraction of a percent, about bf16's eps (0.0078) or less.");
    const Setup plain;
    plain.loss().backward();
    const double rel_w1 = lesson::relative_difference(s.mlp.weight(1).grad(), plain.mlp.weight(1).grad());
    const double rel_w2 = lesson::relative_difference(s.mlp.weight(2).grad(), plain.mlp.weight(2).grad());
    std::printf("   |grad_autocast - grad_f32| / |grad_f32|:  w1 %s   w2 %s\n", lesson::fmt(rel_w1).c_str(), lesson::fmt(rel_w2).c_str());
    L.check(rel_w1 > 1e-5 && rel_w2 > 1e-5, "the autocast gradients differ from the f32 ones (they passed through bf16)");
    L.check(rel_w1 < 2 * traits(bf16).eps && rel_w2 < 2 * traits(bf16).eps, "by less than 2 bf16 eps (0.016), relative");
    L.say("In f16 those intermediate gradients would have f16's range too: that is where small gradients\n"
          "underflow to zero, the subject of lessons 11 to 13.");

    L.key_result("autocast w1.grad vs f32 w1.grad: relative difference " + lesson::fmt(rel_w1) + " (bf16 eps 0.0078)");
}

void run(lesson::Lesson& L)
{
    L.say("Autocast decides dtypes in the forward pass only. This lesson follows the gradients back through\n"
          "the graph that forward built and reads, from the trace, the dtype of every gradient.");
    const Setup s;  // the MLP and batch every step uses
    const trace::Trace recorded = step_backward_dtypes(L, s);
    step_backward_in_region(L, s, recorded);
    step_grad_through_bf16(L, s);
}

const lesson::Registration registered{{7, "backward_dtypes", "Backward dtypes: gradients follow the forward",
                                       "backward runs in the forward's dtypes; casts bring gradients back to f32", run}};

}  // namespace
