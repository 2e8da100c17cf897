// Lesson 10: custom_fwd and custom_bwd. A user autograd Function (torch.autograd.Function) runs
// its forward in the current autocast state, and its backward with autocast off. CustomFwd /
// CustomBwd (torch.amp.custom_fwd / custom_bwd) let it replay the forward's state in backward,
// or run entirely in f32 (cast_inputs = f32) when its math needs f32.
#include <cmath>
#include <cstdio>
#include <string>

#include "lessons/support/lesson.h"

using namespace tinyamp;

namespace {

// What the last forward and backward of one of the ops below saw.
struct Seen {
    DType forward_input = f64;
    bool forward_autocast = false;
    bool backward_autocast = false;
    DType backward_autocast_dtype = f64;
};
Seen seen;

// softplus(x w^T) = log(1 + e^z), z = x w^T: a fused layer with its own backward, as a custom CUDA
// kernel would be. e^z overflows f16 (max 65504) for z above 11.09.
Tensor fused_forward(Context& ctx, const Tensor& x, const Tensor& w)
{
    seen.forward_input = x.dtype();
    seen.forward_autocast = amp::is_autocast_enabled(DeviceType::cpu);
    const Tensor z = matmul(x, w.t());  // under autocast this matmul is lower_precision_fp
    ctx.save_for_backward({x, w, z});
    return log(add(exp(z), 1.0));
}

// d softplus(z)/dz = sigmoid(z); dx = dz w, dw = dz^T x.
std::vector<Tensor> fused_backward(Context& ctx, const Tensor& grad)
{
    seen.backward_autocast = amp::is_autocast_enabled(DeviceType::cpu);
    seen.backward_autocast_dtype = amp::get_autocast_dtype(DeviceType::cpu);
    const std::vector<Tensor>& s = ctx.saved_tensors();
    const Tensor dz = mul(grad, sigmoid(s[2]));
    return {matmul(dz, s[1]), matmul(dz.t(), s[0])};
}

// 1) No declarations: forward in the caller's autocast state, backward with autocast off.
struct SoftplusLinear : Function<SoftplusLinear> {
    static constexpr const char* name = "softplus_linear";
    static Tensor forward(Context& ctx, const Tensor& x, const Tensor& w) { return fused_forward(ctx, x, w); }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return fused_backward(ctx, grad); }
};

// 2) custom_fwd + custom_bwd: backward runs in the autocast state forward ran in.
struct SoftplusLinearAmp : Function<SoftplusLinearAmp> {
    static constexpr const char* name = "softplus_linear_amp";
    static constexpr amp::CustomFwd custom_fwd{.device_type = DeviceType::cpu};
    static constexpr amp::CustomBwd custom_bwd{.device_type = DeviceType::cpu};
    static Tensor forward(Context& ctx, const Tensor& x, const Tensor& w) { return fused_forward(ctx, x, w); }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return fused_backward(ctx, grad); }
};

// 3) custom_fwd(cast_inputs = f32): inside a region, x and w arrive as f32 and autocast is off in
// forward and (through custom_bwd) in backward.
struct SoftplusLinearF32 : Function<SoftplusLinearF32> {
    static constexpr const char* name = "softplus_linear_f32";
    static constexpr amp::CustomFwd custom_fwd{.device_type = DeviceType::cpu, .cast_inputs = f32};
    static constexpr amp::CustomBwd custom_bwd{.device_type = DeviceType::cpu};
    static Tensor forward(Context& ctx, const Tensor& x, const Tensor& w) { return fused_forward(ctx, x, w); }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return fused_backward(ctx, grad); }
};

// A backward with a bug, to see gradcheck fail: it forgets the sigmoid(z) factor.
struct ForgotSigmoid : Function<ForgotSigmoid> {
    static constexpr const char* name = "forgot_sigmoid";
    static Tensor forward(Context& ctx, const Tensor& x, const Tensor& w) { return fused_forward(ctx, x, w); }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad)
    {
        const std::vector<Tensor>& s = ctx.saved_tensors();
        return {matmul(grad, s[1]), matmul(grad.t(), s[0])};
    }
};

// The inputs: x is an f16 activation (what an earlier layer of an f16 region hands on), w an f32
// parameter. z = x w^T has a spread of about 6, so a few z exceed 11.09.
struct Inputs {
    Tensor x, w;
};
Inputs make_inputs()
{
    Generator gen(0);
    return {randn({16, 8}, f32, gen).to(f16).requires_grad_().set_name("x"),
            mul(randn({4, 8}, f32, gen), 2.0).requires_grad_().set_name("w")};
}

void print_seen(const char* what, const Tensor& out)
{
    const trace::ValueStats st = trace::compute_stats(out);
    std::printf("   %s\n", what);
    std::printf("     forward saw x as %s with autocast %s -> output %s with %s inf of %lld\n", dtype_name(seen.forward_input),
                seen.forward_autocast ? "on" : "off", dtype_name(out.dtype()), lesson::fmt(st.infs * double(out.numel())).c_str(),
                static_cast<long long>(out.numel()));
}

void step_gradcheck(lesson::Lesson& L)
{
    L.step("The op, checked in f64");
    L.expect("softplus(x w^T) with a hand-written backward. gradcheck compares backward with central\n"
             "differences in f64 (no autocast: f64 is never cast) and should pass.");
    Generator gen(1);
    const Tensor x64 = randn({5, 3}, f64, gen).requires_grad_(), w64 = randn({2, 3}, f64, gen).requires_grad_();
    const GradcheckResult gc = gradcheck([](const std::vector<Tensor>& in) { return SoftplusLinear::apply(in[0], in[1]); }, {x64, w64});
    const GradcheckResult broken = gradcheck([](const std::vector<Tensor>& in) { return ForgotSigmoid::apply(in[0], in[1]); }, {x64, w64});
    std::printf("   gradcheck(softplus_linear): %s\n", gc.ok ? "ok" : gc.report.c_str());
    std::printf("   gradcheck(a backward that forgot the sigmoid): %s\n", broken.ok ? "ok" : "mismatch, as it should");
    L.check(gc.ok, "gradcheck passes in f64: the hand-written backward matches the numerical gradient");
    L.check(!broken.ok, "gradcheck catches a wrong backward (dz = grad, without sigmoid(z))");
}

// Returns how many of its outputs were inf.
double step_plain_function(lesson::Lesson& L, const Inputs& in)
{
    L.step("A plain Function in an f16 region");
    L.expect("Forward sees autocast on, so its matmul runs in f16, and e^z overflows for z > 11.09: some outputs\n"
             "are inf. Backward runs with autocast off, and matmul(dz f16, w f32) mixes dtypes: it throws\n"
             "(PyTorch issue #38487: \"expected scalar type Half but found Float\").");
    Tensor plain;
    {
        amp::autocast region("cpu", {.dtype = f16});
        plain = SoftplusLinear::apply(in.x, in.w);
    }
    print_seen("SoftplusLinear (no custom_fwd/custom_bwd):", plain);
    std::string backward_error;
    try {
        sum(plain).backward();
    } catch (const Error& e) {
        backward_error = e.what();
    }
    std::printf("     backward: %s\n", backward_error.empty() ? "ran" : ("error: " + backward_error.substr(0, backward_error.find(';'))).c_str());
    L.check(seen.forward_autocast && plain.dtype() == f16, "forward ran with autocast on and gave f16");
    L.check(trace::compute_stats(plain).infs > 0, "e^z overflowed f16: some outputs are inf");
    L.check(!seen.backward_autocast && !backward_error.empty(), "backward ran with autocast off and failed on the f16/f32 mix");
    return trace::compute_stats(plain).infs * double(plain.numel());
}

void step_custom_bwd(lesson::Lesson& L, const Inputs& in)
{
    L.step("custom_fwd + custom_bwd: backward replays forward's state");
    L.expect("Same forward (f16, the same inf). custom_bwd runs backward with autocast on and dtype f16, as\n"
             "forward had it, so matmul(dz, w) is cast to f16 and works. Each gradient reaches its input\n"
             "in that input's dtype: x.grad f16, w.grad f32.");
    in.x.set_grad(Tensor());
    in.w.set_grad(Tensor());
    Tensor replayed;
    {
        amp::autocast region("cpu", {.dtype = f16});
        replayed = SoftplusLinearAmp::apply(in.x, in.w);
    }
    print_seen("SoftplusLinearAmp (custom_fwd, custom_bwd):", replayed);
    sum(replayed).backward();  // outside the region: custom_bwd brings its state back
    std::printf("     backward saw autocast %s, dtype %s; x.grad %s, w.grad %s\n", seen.backward_autocast ? "on" : "off",
                dtype_name(seen.backward_autocast_dtype), dtype_name(in.x.grad().dtype()), dtype_name(in.w.grad().dtype()));
    L.check(seen.backward_autocast && seen.backward_autocast_dtype == f16, "custom_bwd ran backward with autocast on, in f16");
    L.check(in.x.grad().dtype() == f16 && in.w.grad().dtype() == f32, "x.grad is f16 and w.grad is f32, each its input's dtype");
    L.check(trace::compute_stats(replayed).infs > 0, "without cast_inputs the forward still overflows");
}

void step_cast_inputs_f32(lesson::Lesson& L, const Inputs& in)
{
    L.step("custom_fwd(cast_inputs = f32): the whole op in f32");
    L.expect("x arrives as f32 and autocast is off inside forward: z and e^z are f32, no inf, and the output\n"
             "(f32) equals the same op run in plain f32. Backward runs with autocast off and computes in f32;\n"
             "x.grad still arrives in x's dtype, f16.");
    in.x.set_grad(Tensor());
    in.w.set_grad(Tensor());
    trace::Trace recorded;
    Tensor safe;
    {
        trace::TraceRecorder recorder(recorded);
        {
            amp::autocast region("cpu", {.dtype = f16});
            safe = SoftplusLinearF32::apply(in.x, in.w);
        }
        sum(safe).backward();
    }
    print_seen("SoftplusLinearF32 (custom_fwd with cast_inputs = f32, custom_bwd):", safe);
    std::printf("     backward saw autocast %s; x.grad %s, w.grad %s\n", seen.backward_autocast ? "on" : "off",
                dtype_name(in.x.grad().dtype()), dtype_name(in.w.grad().dtype()));
    Tensor reference;
    {
        NoGradGuard no_grad;
        reference = SoftplusLinear::apply(in.x.to(f32), in.w);
    }
    const bool equal = safe.to_vector() == reference.to_vector();
    std::printf("     equal to the op on x.to(f32) outside autocast: %s\n", equal ? "yes, bit for bit" : "no");
    L.check(seen.forward_input == f32 && !seen.forward_autocast, "forward saw x as f32 with autocast off");
    L.check(safe.dtype() == f32 && trace::compute_stats(safe).infs == 0, "the output is f32 and has no inf");
    L.check(equal, "the output equals the plain f32 computation bit for bit");
    L.check(!seen.backward_autocast && in.x.grad().dtype() == f16 && in.w.grad().dtype() == f32,
            "backward ran with autocast off; x.grad f16, w.grad f32");
    L.write_graph("cast_inputs_f32", recorded,
                  "softplus_linear_f32 under an f16 region: one node, f16 x and f32 w in, f32 out (the casts happen inside the op), and "
                  "its backward, with each gradient back in its input's dtype.");
}

void step_summary(lesson::Lesson& L, double plain_infs)
{
    L.step("Summary");
    L.say("Declare custom_fwd/custom_bwd on every custom op you use under autocast. Add cast_inputs = f32 when\n"
          "its math needs f32 (exp, log, reductions) or its kernel takes only f32.");
    L.key_result("plain Function in f16: " + lesson::fmt(plain_infs) + " inf outputs of 64, and backward throws on the f16/f32 mix");
    L.key_result("custom_fwd(cast_inputs = f32): f32 output, 0 inf, bit-equal to f32; gradcheck in f64 passes");
}

void run(lesson::Lesson& L)
{
    L.say("A custom op is a Function with a forward and a backward (torch.autograd.Function). Under autocast\n"
          "its forward runs in the caller's state: the ops inside it are autocast like any others.");
    step_gradcheck(L);
    const Inputs in = make_inputs();  // x and w of steps 2 to 4
    const double plain_infs = step_plain_function(L, in);
    step_custom_bwd(L, in);
    step_cast_inputs_f32(L, in);
    step_summary(L, plain_infs);
}

const lesson::Registration registered{{10, "custom_functions", "Custom functions: custom_fwd and custom_bwd",
                                       "custom_fwd/custom_bwd and cast_inputs for user autograd Functions", run}};

}  // namespace
