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
#include "lessons/support/trace_queries.h"

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

// A forward op of the trace is `op` (the nth of that name), ran with `policy` and gave `dtype`.
bool op_is(const lesson::Events& ops, const std::string& op, DType dtype, const std::string& policy, std::size_t nth = 0)
{
    const trace::Event* e = lesson::first_event(ops, op, nth);
    return e && lesson::output_dtype(*e) == dtype && e->policy == policy;
}

void print_ops(const lesson::Events& ops)
{
    for (const trace::Event* e : ops) std::printf("   %-14s -> %-4s  %s\n", e->op.c_str(), dtype_name(lesson::output_dtype(*e)), e->why.c_str());
}

void step_region_dtype(lesson::Lesson& L, Generator& gen)
{
    L.step("amp::autocast(\"cpu\"): bf16 by default, f16 on request");
    L.expect("linear(x, w) with f32 x and w is f32 outside a region, bf16 inside autocast(\"cpu\") (the CPU\n"
             "default, as torch.autocast(\"cpu\")), and f16 inside autocast(\"cpu\", {.dtype = f16}). Asking for f32\n"
             "(to turn AMP \"off\" by dtype) is not a CPU autocast dtype: PyTorch's warning, and the region is disabled.");
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
    std::vector<std::string> warnings;
    bool f32_region_enabled = true;
    DType in_f32 = bf16;
    {
        const WarningHandler previous = set_warning_handler([&](const std::string& w) { warnings.push_back(w); });
        amp::autocast region("cpu", {.dtype = f32});
        set_warning_handler(previous);
        f32_region_enabled = region.enabled();
        in_f32 = linear(x0, w0).dtype();
    }
    for (std::string w : warnings) {
        for (std::size_t at = w.find('\n'); at != std::string::npos; at = w.find('\n', at + 1)) w.insert(at + 1, "     ");
        std::printf("   autocast(\"cpu\", {.dtype = f32}) warns:\n     \"%s\"\n", w.c_str());
    }
    std::printf("   ... and the region is %s: linear gives %s\n", f32_region_enabled ? "enabled" : "disabled", dtype_name(in_f32));
    L.check(warnings.size() == 1 && warnings[0].rfind("In CPU autocast, but the target dtype is not supported. Disabling autocast.", 0) == 0 &&
                !f32_region_enabled && in_f32 == f32,
            "autocast(\"cpu\", f32) gives PyTorch's warning and a disabled region (to turn autocast off, write .enabled = false)");
}

// The model and the batch of step 2, which step 4 runs again under the CUDA table.
struct Example {
    Model m;
    Tensor x, labels;
};

Example step_model_op_by_op(lesson::Lesson& L, Generator& gen)
{
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
    const lesson::Events cpu_ops = lesson::forward_ops(cpu_trace);
    print_ops(cpu_ops);
    const lesson::Events casts = lesson::casts(cpu_trace);
    const std::size_t cached = lesson::count_cache(casts, trace::CacheEvent::stored);
    std::printf("   %zu casts, %zu of them stored in the cast cache; loss %s %s, w1.grad %s\n", casts.size(), cached,
                dtype_name(out.loss.dtype()), lesson::fmt(out.loss.item()).c_str(), dtype_name(m.w1.grad().dtype()));
    L.check(op_is(cpu_ops, "linear", bf16, "lower_precision_fp", 0) && op_is(cpu_ops, "linear", bf16, "lower_precision_fp", 1),
            "both linears ran in bf16 (lower_precision_fp)");
    L.check(op_is(cpu_ops, "relu", bf16, "not listed") && op_is(cpu_ops, "layer_norm", bf16, "not listed") &&
                op_is(cpu_ops, "softmax", bf16, "not listed"),
            "relu, layer_norm and softmax are not listed on the CPU and stay bf16");
    L.check(op_is(cpu_ops, "cross_entropy", f32, "fp32") && out.loss.dtype() == f32, "cross_entropy is fp32: the loss is f32");
    L.check(cached == 4 && casts.size() == 6, "6 casts: x and the 4 linear parameters to bf16 (the parameters cached), the logits back to f32");
    L.check(m.w1.grad().dtype() == f32 && m.ln_w.grad().dtype() == f32, "the gradients of the f32 weights are f32");
    L.write_graph("cpu_autocast_graph", cpu_trace,
                  "The model under autocast(\"cpu\"): orange ops ran in bf16, blue in f32; arrow-shaped nodes are autocast's "
                  "casts (the weights' marked 'cache stored'). Only cross_entropy goes back to f32.");
    return {m, x, labels};
}

void step_why(lesson::Lesson& L)
{
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
}

// The two built-in tables side by side: each op either table lists, with its policy in each
// ("" where a table does not list it). Lab 05.2 asks one table about one op instead.
struct PolicyRow {
    std::string op, cpu, cuda;
};

std::vector<PolicyRow> side_by_side(const amp::PolicyTable& cpu, const amp::PolicyTable& cuda)
{
    std::map<std::string, PolicyRow> rows;
    for (const auto& [op, p] : cpu.entries()) rows[op].cpu = amp::policy_name(p);
    for (const auto& [op, p] : cuda.entries()) rows[op].cuda = amp::policy_name(p);
    std::vector<PolicyRow> all;
    for (auto& [op, row] : rows) {
        row.op = op;
        all.push_back(row);
    }
    return all;
}

// Returns how many ops the two tables treat differently.
int step_cuda_table(lesson::Lesson& L, const Example& ex)
{
    L.step("The CUDA table: f16 by default, and more ops forced to f32");
    L.expect("Ops whose policy differs between the two built-in tables: exp, log, pow, layer_norm are fp32 on\n"
             "CUDA only; softmax, log_softmax, sum are fp32_set_opt_dtype (f32 result, inputs untouched);\n"
             "binary_cross_entropy is banned on CUDA but fp32 on the CPU; cat and stack are promote on the CPU only.\n"
             "Emulating the CUDA region on the CPU (f16 + the cuda table), layer_norm and softmax now give f32.");
    const amp::PolicyTable cpu = amp::PolicyTable::cpu(), cuda = amp::PolicyTable::cuda();
    int differ = 0;
    auto shown = [](const std::string& policy) { return policy.empty() ? "not listed" : policy.c_str(); };
    std::printf("   %-34s %-20s %s\n", "op", "cpu", "cuda");
    for (const PolicyRow& row : side_by_side(cpu, cuda)) {
        if (row.cpu == row.cuda) continue;
        ++differ;
        std::printf("   %-34s %-20s %s\n", row.op.c_str(), shown(row.cpu), shown(row.cuda));
    }
    std::printf("   (%d ops differ; the matmul family and the other losses agree)\n", differ);
    L.check(cuda.lookup("layer_norm") == amp::CastPolicy::fp32 && !cpu.lookup("layer_norm") &&
                cuda.lookup("softmax") == amp::CastPolicy::fp32_set_opt_dtype && !cpu.lookup("softmax"),
            "layer_norm is fp32 and softmax fp32_set_opt_dtype on CUDA; neither is listed on the CPU");
    L.check(cuda.lookup("binary_cross_entropy") == amp::CastPolicy::banned && cpu.lookup("binary_cross_entropy") == amp::CastPolicy::fp32,
            "binary_cross_entropy: banned on CUDA, fp32 on the CPU");

    trace::Trace cuda_trace;
    {
        trace::TraceRecorder recorder(cuda_trace);
        amp::autocast region("cpu", {.dtype = f16, .table = std::make_shared<const amp::PolicyTable>(cuda)});
        forward(ex.m, ex.x, ex.labels);
    }
    const lesson::Events cuda_ops = lesson::forward_ops(cuda_trace);
    print_ops(cuda_ops);
    L.check(op_is(cuda_ops, "linear", f16, "lower_precision_fp", 0) && op_is(cuda_ops, "relu", f16, "not listed"),
            "emulated CUDA: linear runs in f16, relu follows it");
    L.check(op_is(cuda_ops, "layer_norm", f32, "fp32") && op_is(cuda_ops, "softmax", f32, "fp32_set_opt_dtype"),
            "emulated CUDA: layer_norm and softmax give f32");
    L.check(op_is(cuda_ops, "linear", f16, "lower_precision_fp", 1), "the second linear casts layer_norm's f32 output back to f16");
    return differ;
}

void run(lesson::Lesson& L)
{
    L.say("autocast does not change your model: the parameters stay f32. It changes what each op does\n"
          "with its inputs, by name, from a policy table (PyTorch's lists in aten/src/ATen/autocast_mode.cpp).");
    Generator gen(0);
    step_region_dtype(L, gen);
    const Example ex = step_model_op_by_op(L, gen);
    step_why(L);
    const int differ = step_cuda_table(L, ex);
    L.key_result("autocast(\"cpu\"): linear bf16; relu, layer_norm, softmax follow their input (bf16); cross_entropy f32");
    L.key_result("why: exp(12) is inf in f16; a bf16 running sum of 1000 ones stops at 256 (f32-accumulated sum: 1000)");
    L.key_result(std::to_string(differ) + " ops differ between the tables: on CUDA (f16) layer_norm/exp/log/pow are fp32, "
                                          "softmax/sum fp32_set_opt_dtype");
}

const lesson::Registration registered{{5, "autocast_policy", "The autocast policy: which ops go low, which stay f32",
                                       "lower_precision_fp / fp32 / not listed: which ops run in bf16 and why", run}};

}  // namespace
