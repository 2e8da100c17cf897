// Lesson 9: nested autocast regions. An `enabled = false` sub-region turns autocast off for a
// stretch of code inside an f16 region; ops there run in their inputs' dtypes, so you cast the
// inputs yourself. The worked example: attention scores q k^T that overflow f16 (NaN after
// softmax), fixed by computing them in an f32 island.
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>

#include "lessons/support/lesson.h"
#include "lessons/support/trace_queries.h"

using namespace tinyamp;

namespace {

constexpr std::int64_t kTokens = 8;
constexpr std::int64_t kHeadDim = 64;

// What autocast would do to matmul(f32, f32) right here, and the thread's state.
struct Here {
    bool enabled;
    DType dtype;
    DType matmul_out;
};
Here look_here()
{
    const Tensor a = ones({2, 2});
    return {amp::is_autocast_enabled(DeviceType::cpu), amp::get_autocast_dtype(DeviceType::cpu), matmul(a, a).dtype()};
}
void print_here(const char* where, const Here& h)
{
    std::printf("   %-36s autocast %-3s  autocast dtype %-4s  matmul(f32, f32) -> %s\n", where, h.enabled ? "on" : "off",
                dtype_name(h.dtype), dtype_name(h.matmul_out));
}

// The attention inputs: 8 tokens of 32 features, projected to 64-wide queries/keys and values.
// Queries and keys share one projection (a tied head), so each token's score with itself is
// |q|^2, about 64 * 40^2 = 1e5: above f16's 65504.
struct Inputs {
    Tensor x, w_qk, w_v;
};
Inputs make_inputs()
{
    Generator gen(0);
    Inputs in;
    in.x = randn({kTokens, 32}, f32, gen).set_name("x");
    in.w_qk = mul(randn({kHeadDim, 32}, f32, gen), 7.0).requires_grad_().set_name("w_qk");
    in.w_v = mul(randn({kHeadDim, 32}, f32, gen), 0.2).requires_grad_().set_name("w_v");
    return in;
}

// softmax(q k^T / sqrt(d)) v, with the scores in whatever dtype q and k have.
Tensor attend(const Tensor& q, const Tensor& k, const Tensor& v)
{
    const Tensor scores = mul(matmul(q, k.t()), 1.0 / std::sqrt(double(kHeadDim)));
    return matmul(softmax(scores, -1), v);
}

// Largest |x - y| over the elements, in f64.
double max_abs_diff(const Tensor& x, const Tensor& y)
{
    const std::vector<double> a = x.to_vector(), b = y.to_vector();
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
    return worst;
}

// Rows of a [T, d] tensor that hold a NaN.
int nan_rows(const Tensor& t)
{
    int rows = 0;
    for (std::int64_t i = 0; i < t.size(0); ++i)
        if (trace::compute_stats(t.select(0, i)).nans > 0) ++rows;
    return rows;
}

void step_nesting(lesson::Lesson& L)
{
    L.step("Regions nest, and each exit restores the state outside");
    L.expect("Outside any region autocast is off and matmul stays f32. In an f16 region it runs in f16.\n"
             "In an enabled=false sub-region autocast is off again (f32 in, f32 out). A nested region given\n"
             "no dtype inherits the outer f16, not the CPU default bf16. Each exit restores the state outside.\n"
             "The state belongs to a thread: a thread started inside the region sees autocast off.");
    const Here before = look_here();
    print_here("before any region", before);
    Here outer, disabled, inherited, after_inner, other_thread, other_thread_region;
    std::size_t cached_outer = 0, cached_in_disabled = 0, cached_after_disabled = 0;
    const Tensor w = ones({2, 2}).requires_grad_();  // a parameter: its f16 cast goes in the cast cache
    {
        amp::autocast region("cpu", {.dtype = f16});
        outer = look_here();
        print_here("autocast(\"cpu\", {.dtype = f16})", outer);
        (void)linear(ones({1, 2}), w);
        cached_outer = amp::autocast_cache_size();
        {
            amp::autocast off("cpu", {.enabled = false});
            disabled = look_here();
            print_here("  inside {.enabled = false}", disabled);
            cached_in_disabled = amp::autocast_cache_size();
        }
        cached_after_disabled = amp::autocast_cache_size();
        {
            amp::autocast again("cpu");
            inherited = look_here();
            print_here("  inside autocast(\"cpu\"), no dtype", inherited);
        }
        after_inner = look_here();
        print_here("  back in the outer region", after_inner);
        // PyTorch's DataParallel runs forward in threads of its own: the region around the call
        // does not reach them, and the fix is a region inside forward.
        std::thread worker([&] {
            other_thread = look_here();
            amp::autocast region_there("cpu", {.dtype = f16});
            other_thread_region = look_here();
        });
        worker.join();
        print_here("  a std::thread started here", other_thread);
        print_here("  ... with its own f16 region", other_thread_region);
    }
    const Here after_outer = look_here();
    print_here("after the outer region", after_outer);
    std::printf("   cast cache: %zu entry in the region, %zu inside the disabled sub-region, %zu after it, %zu after the outer exit\n",
                cached_outer, cached_in_disabled, cached_after_disabled, amp::autocast_cache_size());
    L.check(!before.enabled && before.matmul_out == f32 && outer.enabled && outer.matmul_out == f16,
            "matmul gives f32 before any region and f16 in the f16 region");
    L.check(!disabled.enabled && disabled.matmul_out == f32, "in the enabled=false sub-region autocast is off: matmul of f32 inputs gives f32");
    L.check(inherited.dtype == f16 && inherited.matmul_out == f16, "a nested region with no dtype inherits f16 (not the CPU default bf16)");
    L.check(after_inner.enabled && after_inner.matmul_out == f16 && !after_outer.enabled && after_outer.dtype == bf16,
            "each exit restores the state outside: f16 after a sub-region, off (default bf16) after the outer region");
    L.check(cached_outer == 1 && cached_after_disabled == 1 && amp::autocast_cache_size() == 0,
            "the disabled sub-region counts in the nesting: the cache is cleared only by the outermost exit");
    L.check(!other_thread.enabled && other_thread.matmul_out == f32 && other_thread_region.matmul_out == f16,
            "autocast is per thread: another thread sees it off (f32) until it opens a region of its own");
}

void step_disabled_is_not_f32(lesson::Lesson& L)
{
    L.step("Disabled is not f32: ops run in their inputs' dtypes");
    L.expect("A tensor made in the f16 region stays f16 in the sub-region, and ops on it run in f16.\n"
             "An op mixing it with an f32 tensor is an error (PyTorch: \"expected ... same dtype\"), since\n"
             "nothing casts any more. Cast it yourself with .to(f32).");
    DType island_f16 = f32, island_cast = f16;
    std::string mix_error;
    {
        amp::autocast region("cpu", {.dtype = f16});
        const Tensor h = matmul(ones({2, 2}), ones({2, 2}));  // f16: made by the region
        {
            amp::autocast off("cpu", {.enabled = false});
            island_f16 = matmul(h, h).dtype();
            try {
                (void)matmul(h, ones({2, 2}));
            } catch (const Error& e) {
                mix_error = e.what();
            }
            island_cast = matmul(h.to(f32), ones({2, 2})).dtype();
        }
    }
    std::printf("   matmul(h f16, h f16)          -> %s\n", dtype_name(island_f16));
    std::printf("   matmul(h f16, w f32)          -> error: %s\n", mix_error.substr(0, mix_error.find(';')).c_str());
    std::printf("   matmul(h.to(f32), w f32)      -> %s\n", dtype_name(island_cast));
    L.check(island_f16 == f16, "inside the sub-region an op on f16 inputs still runs in f16");
    L.check(!mix_error.empty(), "mixing f16 and f32 in one matmul inside the sub-region throws");
    L.check(island_cast == f32, "after .to(f32) the op runs in f32");
}

// What step 3 found: the f32 reference and how the f16 attention failed.
struct NaiveAttention {
    Tensor ref;                  // the f32 output
    double largest_score = 0;    // in f32
    double inf_scores = 0;       // how many f16 scores are inf
    std::int64_t scores = 0;     // of how many
    int nan_rows = 0;            // output rows holding NaN
};

NaiveAttention step_f16_attention(lesson::Lesson& L, const Inputs& in)
{
    L.step("An f16 region turns attention scores into inf, then NaN");
    L.expect("Each token's score with itself is |q|^2, about 1e5 here, above f16's largest 65504. In f16 that\n"
             "score is inf; softmax subtracts the row's max (inf - inf = NaN), so the whole row, and the\n"
             "output row it weights, is NaN. The same computation in f32 is fine.");
    Tensor ref, ref_scores;
    {
        NoGradGuard no_grad;
        const Tensor q = linear(in.x, in.w_qk), v = linear(in.x, in.w_v);
        ref_scores = matmul(q, q.t());
        ref = attend(q, q, v);
    }
    Tensor naive, naive_scores;
    {
        amp::autocast region("cpu", {.dtype = f16});
        const Tensor q = linear(in.x, in.w_qk), v = linear(in.x, in.w_v);
        naive_scores = matmul(q, q.t());
        naive = attend(q, q, v);
    }
    const trace::ValueStats ref_stats = trace::compute_stats(ref_scores);
    const trace::ValueStats f16_stats = trace::compute_stats(naive_scores);
    const int bad_rows = nan_rows(naive);
    std::printf("   f32 scores q k^T: largest |score| %s (f16 max is 65504)\n", lesson::fmt(ref_stats.max_abs).c_str());
    std::printf("   f16 scores q k^T: %s %% of them inf (%s of %lld)\n", lesson::fmt(100 * f16_stats.infs).c_str(),
                lesson::fmt(f16_stats.infs * double(naive_scores.numel())).c_str(), static_cast<long long>(naive_scores.numel()));
    std::printf("   output (%s): %d of %lld rows hold NaN; the f32 output has %s NaN\n", dtype_name(naive.dtype()), bad_rows,
                static_cast<long long>(kTokens), lesson::fmt(trace::compute_stats(ref).nans).c_str());
    L.check(ref_stats.max_abs > 65504.0, "in f32 some scores exceed f16's largest number 65504");
    L.check(naive_scores.dtype() == f16 && f16_stats.infs > 0 && bad_rows > 0, "in f16 those scores are inf, and softmax turns them into NaN output rows");
    L.check(trace::compute_stats(ref).nans == 0 && trace::compute_stats(ref).infs == 0, "the f32 output is finite");
    return {ref, ref_stats.max_abs, f16_stats.infs * double(naive_scores.numel()), naive_scores.numel(), bad_rows};
}

// Returns the largest |fixed - f32| of the output.
double step_f32_island(lesson::Lesson& L, const Inputs& in, const Tensor& ref)
{
    L.step("The fix: an f32 island for the scores and the softmax");
    L.expect("Inside an enabled=false sub-region, q.to(f32) @ k.to(f32)^T and the softmax run in f32, so the\n"
             "1e5 scores are fine. Back in the region, probs @ v is a matmul again: autocast casts the f32\n"
             "probabilities to f16 by itself. The output is f16, has no NaN, and matches f32 to f16's precision.");
    trace::Trace recorded;
    Tensor fixed, probs;
    {
        trace::TraceRecorder recorder(recorded);
        amp::autocast region("cpu", {.dtype = f16});
        const Tensor q = linear(in.x, in.w_qk).set_name("q"), v = linear(in.x, in.w_v).set_name("v");
        {
            amp::autocast off("cpu", {.enabled = false});
            const Tensor q32 = q.to(f32);
            probs = softmax(mul(matmul(q32, q32.t()), 1.0 / std::sqrt(double(kHeadDim))), -1);
        }
        fixed = matmul(probs, v);
    }
    const double err = max_abs_diff(fixed, ref);
    const double ref_max = trace::compute_stats(ref).max_abs;
    int island_ops = 0, island_f32 = 0, region_f16 = 0;
    for (const trace::Event* op : lesson::forward_ops(recorded)) {
        const trace::Event& e = *op;
        const bool off = e.policy.empty();
        island_ops += off ? 1 : 0;
        island_f32 += off && !e.outputs.empty() && e.outputs[0].dtype == f32 ? 1 : 0;
        region_f16 += !off && !e.outputs.empty() && e.outputs[0].dtype == f16 ? 1 : 0;
        std::printf("   %-10s %-22s -> %-4s %s\n", e.op.c_str(), off ? "(autocast off)" : ("[" + e.policy + "]").c_str(),
                    e.outputs.empty() ? "" : dtype_name(e.outputs[0].dtype), off ? "island" : "");
    }
    std::printf("   output %s, %s NaN; largest |fixed - f32| = %s (outputs up to %s)\n", dtype_name(fixed.dtype()),
                lesson::fmt(trace::compute_stats(fixed).nans).c_str(), lesson::fmt(err).c_str(), lesson::fmt(ref_max).c_str());
    L.check(probs.dtype() == f32 && fixed.dtype() == f16, "the probabilities made in the island are f32; back in the region, probs @ v runs in f16");
    L.check(trace::compute_stats(fixed).nans == 0 && trace::compute_stats(fixed).infs == 0, "the fixed output has no NaN or inf");
    L.check(err <= 4 * traits(f16).eps * ref_max, "the fixed output matches f32 within a few f16 eps (relative to its size)");
    L.check(island_ops >= 3 && island_ops == island_f32, "the trace shows the island's ops (matmul, mul, softmax) ran with autocast off, in f32");
    L.write_graph("fixed_attention", recorded,
                  "The fixed attention under an f16 region: the projections run in f16 (weights cast once and cached), the scores "
                  "and softmax in an f32 island (autocast off), and probs @ v back in f16.");
    return err;
}

void step_summary(lesson::Lesson& L, const NaiveAttention& naive, double err)
{
    L.step("Summary");
    L.say("A sub-region with enabled=false is how you keep one numerically touchy piece in f32 (PyTorch issue\n"
          "#40497: NaN in attention under AMP). Disabling does not cast anything: cast its inputs with .to(f32).");
    L.key_result("f16 attention: q k^T reaches " + lesson::fmt(naive.largest_score) + " (> 65504): " + lesson::fmt(naive.inf_scores) +
                 " of " + std::to_string(naive.scores) + " scores inf, " + std::to_string(naive.nan_rows) + " of " + std::to_string(kTokens) + " output rows NaN");
    L.key_result("an enabled=false island on .to(f32) inputs: no NaN, f16 output within " + lesson::fmt(err) + " of f32");
}

void run(lesson::Lesson& L)
{
    L.say("torch.autocast regions nest. The innermost one decides; leaving it restores the one outside.\n"
          "The most useful nesting is a sub-region with enabled=false: an f32 island inside an f16 region.");
    step_nesting(L);
    step_disabled_is_not_f32(L);
    const Inputs in = make_inputs();  // the attention of steps 3 and 4
    const NaiveAttention naive = step_f16_attention(L, in);
    const double err = step_f32_island(L, in, naive.ref);
    step_summary(L, naive, err);
}

const lesson::Registration registered{{9, "nested_regions", "Nested regions: an f32 island in an f16 region",
                                       "nested autocast regions and enabled=false sub-regions", run}};

}  // namespace
