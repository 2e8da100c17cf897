// Lesson 5: autocast's policy. Inside amp::autocast("cpu") (torch.autocast("cpu")), each op looks
// its name up in a policy table: matmul-like ops run in the low dtype (bf16 by default on the CPU),
// ops that need range or many accurate additions run in f32, and ops the table does not list run
// in whatever dtype their inputs have. The trace shows every decision with a one-line why.
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"

using namespace tinyamp;

namespace {

// The lesson's model: Linear(16, 32) -> ReLU -> LayerNorm(32) -> Linear(32, 4), cross-entropy
// loss, and softmax probabilities. All parameters are f32 (the master weights).
struct Model {
    Tensor w1, b1, ln_w, ln_b, w2, b2;
};

Model make_model(Generator& gen)
{
    Model m;
    m.w1 = mul(randn({32, 16}, f32, gen), 0.25).requires_grad_().set_name("w1");
    m.b1 = zeros({32}).requires_grad_().set_name("b1");
    m.ln_w = ones({32}).requires_grad_().set_name("ln_w");
    m.ln_b = zeros({32}).requires_grad_().set_name("ln_b");
    m.w2 = mul(randn({4, 32}, f32, gen), 0.2).requires_grad_().set_name("w2");
    m.b2 = zeros({4}).requires_grad_().set_name("b2");
    return m;
}

struct Outputs {
    Tensor probs, loss;
};

Outputs forward(const Model& m, const Tensor& x, const Tensor& labels)
{
    const Tensor h = layer_norm(relu(linear(x, m.w1, m.b1)), {32}, m.ln_w, m.ln_b);
    const Tensor logits = linear(h, m.w2, m.b2);
    return {softmax(logits, -1), cross_entropy(logits, labels)};
}

// The forward ops of a trace (no casts), each with the dtype of its output and its rule.
struct OpRow {
    std::string op, policy, why;
    DType out;
};

std::vector<OpRow> forward_ops(const trace::Trace& t)
{
    std::vector<OpRow> rows;
    for (const trace::Event& e : t.events())
        if (e.phase == trace::Phase::forward && !e.is_cast && !e.outputs.empty())
            rows.push_back({e.op, e.policy, e.why, e.outputs[0].dtype});
    return rows;
}

const OpRow* find_op(const std::vector<OpRow>& rows, const std::string& op, int nth = 0)
{
    for (const OpRow& r : rows)
        if (r.op == op && nth-- == 0) return &r;
    return nullptr;
}

bool op_is(const std::vector<OpRow>& rows, const std::string& op, DType dtype, const std::string& policy, int nth = 0)
{
    const OpRow* r = find_op(rows, op, nth);
    return r && r->out == dtype && r->policy == policy;
}

void print_ops(const std::vector<OpRow>& rows)
{
    for (const OpRow& r : rows) std::printf("   %-14s -> %-4s  %s\n", r.op.c_str(), dtype_name(r.out), r.why.c_str());
}

std::string policy_or_none(const amp::PolicyTable& t, const std::string& op)
{
    const auto p = t.lookup(op);
    return p ? amp::policy_name(*p) : "not listed";
}

void run(lesson::Lesson& L)
{
    L.say("autocast does not change your model: the parameters stay f32. It changes what each op does\n"
          "with its inputs, by name, from a policy table (PyTorch's lists in aten/src/ATen/autocast_mode.cpp).");

    L.step("amp::autocast(\"cpu\"): bf16 by default, f16 on request");
    L.expect("linear(x, w) with f32 x and w is f32 outside a region, bf16 inside autocast(\"cpu\") (the CPU\n"
             "default, as torch.autocast(\"cpu\")), and f16 inside autocast(\"cpu\", {.dtype = f16}).");
    Generator gen(0);
    const Tensor x0 = randn({2, 3}, f32, gen), w0 = randn({4, 3}, f32, gen);
    const DType outside = linear(x0, w0).dtype();
    DType in_default = f32, in_f16 = f32, region_dtype = f32;
    {
        amp::autocast region("cpu");
        region_dtype = region.dtype();
        in_default = linear(x0, w0).dtype();
    }
    {
        amp::autocast region("cpu", {.dtype = f16});
        in_f16 = linear(x0, w0).dtype();
    }
    std::printf("   outside: %s;  autocast(\"cpu\"): %s (region dtype %s);  autocast(\"cpu\", f16): %s;  w stays %s\n",
                dtype_name(outside), dtype_name(in_default), dtype_name(region_dtype), dtype_name(in_f16), dtype_name(w0.dtype()));
    L.check(outside == f32 && in_default == bf16 && in_f16 == f16, "linear gives f32 outside, bf16 in the default CPU region, f16 on request");
    L.check(region_dtype == bf16 && w0.dtype() == f32, "the CPU default is bf16, and the weight itself stays f32");

    L.step("A small model under autocast(\"cpu\"), op by op");
    L.expect("linear is lower_precision_fp: bf16 (its f32 weights cast once, 'cache stored'). relu, layer_norm\n"
             "and softmax are NOT in PyTorch's CPU list: they follow their input, bf16. cross_entropy is fp32\n"
             "on the CPU: its bf16 logits are cast back to f32. Backward is not autocast: gradients reach the\n"
             "f32 weights in f32 through the casts.");
    const Model m = make_model(gen);
    const Tensor x = randn({8, 16}, f32, gen).set_name("x");
    const Tensor labels = tensor({0, 1, 2, 3, 0, 1, 2, 3}, {8}, i64).set_name("labels");
    trace::Trace cpu_trace;
    Outputs out;
    {
        trace::TraceRecorder recorder(cpu_trace);
        {
            amp::autocast region("cpu");
            out = forward(m, x, labels);
        }
        out.loss.backward();
    }
    const std::vector<OpRow> cpu_ops = forward_ops(cpu_trace);
    print_ops(cpu_ops);
    int casts = 0, cached = 0;
    for (const trace::Event& e : cpu_trace.events()) {
        casts += e.is_cast ? 1 : 0;
        cached += e.cache == trace::CacheEvent::stored ? 1 : 0;
    }
    std::printf("   %d casts, %d of them stored in the cast cache; loss %s %s, w1.grad %s\n", casts, cached,
                dtype_name(out.loss.dtype()), lesson::fmt(out.loss.item()).c_str(), dtype_name(m.w1.grad().dtype()));
    L.check(op_is(cpu_ops, "linear", bf16, "lower_precision_fp", 0) && op_is(cpu_ops, "linear", bf16, "lower_precision_fp", 1),
            "both linears ran in bf16 (lower_precision_fp)");
    L.check(op_is(cpu_ops, "relu", bf16, "not listed") && op_is(cpu_ops, "layer_norm", bf16, "not listed") &&
                op_is(cpu_ops, "softmax", bf16, "not listed"),
            "relu, layer_norm and softmax are not listed on the CPU and stay bf16");
    L.check(op_is(cpu_ops, "cross_entropy", f32, "fp32") && out.loss.dtype() == f32, "cross_entropy is fp32: the loss is f32");
    L.check(cached == 4 && casts == 6, "6 casts: x and the 4 linear parameters to bf16 (the parameters cached), the logits back to f32");
    L.check(m.w1.grad().dtype() == f32 && m.ln_w.grad().dtype() == f32, "the gradients of the f32 weights are f32");
    L.write_graph("cpu_autocast_graph", cpu_trace,
                  "The model under autocast(\"cpu\"): orange ops ran in bf16, blue in f32; arrow-shaped nodes are autocast's "
                  "casts (the weights' marked 'cache stored'). Only cross_entropy goes back to f32.");

    L.step("Why: range, and rounding that accumulates");
    L.expect("Range: exp(12) = 162755 is past f16's 65504, so exp in f16 gives inf; in f32 it is fine.\n"
             "Accumulation: adding 1.0 a thousand times to a bf16 running sum stops at 256 (256 + 1 rounds back\n"
             "to 256). sum() and matmul on bf16 accumulate in f32 inside and round once, so they give 1000.");
    const double exp16 = exp(full({1}, 12.0, f16)).item();
    const double exp32 = exp(full({1}, 12.0, f32)).item();
    Tensor running = zeros({1}, bf16);
    const Tensor one = ones({1}, bf16);
    for (int i = 0; i < 1000; ++i) running = add(running, one);
    const double summed = sum(ones({1000}, bf16)).item();
    const double dot = matmul(ones({1000}, bf16), ones({1000}, bf16)).item();
    std::printf("   exp(12): f16 %s, f32 %s\n", lesson::fmt(exp16).c_str(), lesson::fmt(exp32).c_str());
    std::printf("   1000 x (+1) one add at a time in bf16: %s;  sum(ones(1000, bf16)): %s;  bf16 dot of ones: %s\n",
                lesson::fmt(running.item()).c_str(), lesson::fmt(summed).c_str(), lesson::fmt(dot).c_str());
    L.check(std::isinf(exp16) && std::abs(exp32 - 162754.79) < 0.1, "exp(12) overflows f16 but not f32");
    L.check(running.item() == 256.0, "a bf16 running sum of 1000 ones is stuck at 256");
    L.check(summed == 1000.0 && dot == 1000.0, "sum and matmul accumulate in f32: both give 1000 from bf16 inputs");
    L.say("So matmul/linear/conv are safe in 16 bits (one rounding per output, and the fast units), while exp,\n"
          "log, pow, norms, softmax, sums and losses either need f32's range or add up many terms. On CUDA,\n"
          "PyTorch sends those to f32. On the CPU its list sends only losses (and some linear algebra) to\n"
          "f32: softmax, layer_norm and sum keep bf16 inputs and outputs, and their kernels (tinyamp's too)\n"
          "compute in f32 inside and round once.");

    L.step("The CUDA table: f16 by default, and more ops forced to f32");
    L.expect("Ops whose policy differs between the two built-in tables: exp, log, pow, layer_norm are fp32 on\n"
             "CUDA only; softmax, log_softmax, sum are fp32_set_opt_dtype (f32 result, inputs untouched);\n"
             "binary_cross_entropy is banned on CUDA but fp32 on the CPU; cat and stack are promote on the CPU only.\n"
             "Emulating the CUDA region on the CPU (f16 + the cuda table), layer_norm and softmax now give f32.");
    const amp::PolicyTable cpu = amp::PolicyTable::cpu(), cuda = amp::PolicyTable::cuda();
    std::map<std::string, bool> ops;
    for (const auto& [op, p] : cpu.entries()) ops[op] = true;
    for (const auto& [op, p] : cuda.entries()) ops[op] = true;
    int differ = 0;
    std::printf("   %-34s %-20s %s\n", "op", "cpu", "cuda");
    for (const auto& [op, unused] : ops) {
        const std::string a = policy_or_none(cpu, op), b = policy_or_none(cuda, op);
        if (a == b) continue;
        ++differ;
        std::printf("   %-34s %-20s %s\n", op.c_str(), a.c_str(), b.c_str());
    }
    std::printf("   (%d ops differ; the matmul family and the other losses agree)\n", differ);
    L.check(policy_or_none(cuda, "layer_norm") == "fp32" && policy_or_none(cpu, "layer_norm") == "not listed" &&
                policy_or_none(cuda, "softmax") == "fp32_set_opt_dtype" && policy_or_none(cpu, "softmax") == "not listed",
            "layer_norm is fp32 and softmax fp32_set_opt_dtype on CUDA; neither is listed on the CPU");
    L.check(policy_or_none(cuda, "binary_cross_entropy") == "banned" && policy_or_none(cpu, "binary_cross_entropy") == "fp32",
            "binary_cross_entropy: banned on CUDA, fp32 on the CPU");

    trace::Trace cuda_trace;
    {
        trace::TraceRecorder recorder(cuda_trace);
        amp::autocast region("cpu", {.dtype = f16, .table = std::make_shared<const amp::PolicyTable>(cuda)});
        forward(m, x, labels);
    }
    const std::vector<OpRow> cuda_ops = forward_ops(cuda_trace);
    print_ops(cuda_ops);
    L.check(op_is(cuda_ops, "linear", f16, "lower_precision_fp", 0) && op_is(cuda_ops, "relu", f16, "not listed"),
            "emulated CUDA: linear runs in f16, relu follows it");
    L.check(op_is(cuda_ops, "layer_norm", f32, "fp32") && op_is(cuda_ops, "softmax", f32, "fp32_set_opt_dtype"),
            "emulated CUDA: layer_norm and softmax give f32");
    L.check(op_is(cuda_ops, "linear", f16, "lower_precision_fp", 1), "the second linear casts layer_norm's f32 output back to f16");

    L.key_result("autocast(\"cpu\"): linear bf16; relu, layer_norm, softmax follow their input (bf16); cross_entropy f32");
    L.key_result("why: exp(12) is inf in f16; a bf16 running sum of 1000 ones stops at 256 (f32-accumulated sum: 1000)");
    L.key_result(std::to_string(differ) + " ops differ between the tables: on CUDA (f16) layer_norm/exp/log/pow are fp32, "
                                          "softmax/sum fp32_set_opt_dtype");
}

const lesson::Registration registered{{5, "autocast_policy", "The autocast policy: which ops go low, which stay f32",
                                       "lower_precision_fp / fp32 / not listed: which ops run in bf16 and why", run}};

}  // namespace
