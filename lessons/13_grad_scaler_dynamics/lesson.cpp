// Lesson 13: GradScaler's dynamics. amp::GradScaler (as torch.amp.GradScaler) does lesson 12's
// loss scaling by itself and picks S on the fly: halve it after an overflow (and skip that step),
// double it after growth_interval clean steps. A short training run shows both, step by step.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"
#include "lessons/support/models.h"

using namespace tinyamp;

namespace {

// The loss of one batch under f16 autocast (the weights stay f32; the matmuls run in f16).
Tensor f16_loss(const lesson::Mlp& m, const data::Batch& batch)
{
    amp::autocast region("cpu", {.dtype = f16});
    return cross_entropy(m(batch.features), batch.labels);
}

// What the lesson records of each iteration of the training run.
struct Iteration {
    double scale_used = 0;  // get_scale() when the loss was scaled
    double loss = 0;
    bool stepped = false;   // scaler.step's answer
    bool weights_kept = false;  // the weights after step() are bit for bit those before it
    double scale_after = 0;     // get_scale() after update()
};

// PyTorch's _amp_update_scale_, replayed from the recorded overflow flags alone: halve and reset
// the tracker on an overflow; otherwise count, and double on reaching the interval.
std::vector<double> replay(double init_scale, std::int64_t interval, const std::vector<Iteration>& run)
{
    std::vector<double> scales;
    double scale = init_scale;
    std::int64_t tracker = 0;
    for (const Iteration& it : run) {
        if (!it.stepped) {
            scale *= 0.5;
            tracker = 0;
        } else if (++tracker == interval) {
            scale *= 2.0;
            tracker = 0;
        }
        scales.push_back(scale);
    }
    return scales;
}

std::string pow2(double scale) { return "2^" + lesson::fmt(std::log2(scale)); }

constexpr std::int64_t kInterval = 5;
constexpr int kIterations = 80;

// An MLP 2-64-64-3 for the spirals, with plain f32 tensors as its (master) weights.
lesson::Mlp make_mlp(Generator& gen) { return lesson::Mlp({2, 64, 64, 3}, gen, {.named = false}); }

// What steps 1, 2, 4 and 5 share: the spirals, the model with its optimizer, and one scaler.
struct Training {
    data::Dataset spirals = data::make_spirals(128, 3, 0.2, 0);
    data::DataLoader loader{spirals, 64, /*shuffle=*/true, /*drop_last=*/true, /*seed=*/0};
    Generator gen{0};
    lesson::Mlp model = make_mlp(gen);
    optim::SGD opt{model.params(), {.lr = 0.1, .momentum = 0.9}};
    amp::GradScaler scaler{"cpu", {.growth_interval = kInterval}};
};

// The training run of step 2, iteration by iteration, and how often the scale grew and backed off.
struct RunRecord {
    std::vector<Iteration> iterations;
    int growths = 0, skipped = 0;
};

void step_one_iteration(lesson::Lesson& L, Training& t)
{
    const lesson::Mlp& model = t.model;
    amp::GradScaler& scaler = t.scaler;
    L.step("One iteration, call by call");
    L.say("The loop of every f16 AMP program: forward under autocast, then\n"
          "  scaler.scale(loss).backward();  scaler.step(opt);  scaler.update();");
    L.expect("Before the first scale() the scale is init_scale, 65536 = 2^16 (made lazily). scale(loss)\n"
             "is loss * 65536 exactly (a power of two), and the gradients of the f32 weights are f32.");
    const double initial = scaler.get_scale();
    const data::Batch first = t.loader.batch(0);
    const Tensor loss0 = f16_loss(model, first);
    const Tensor scaled0 = scaler.scale(loss0);
    scaled0.backward();
    std::printf("   get_scale() %.0f; loss %.6f; scale(loss) %.6f = loss * %.0f; w1.grad dtype %s\n", initial, loss0.item(), scaled0.item(),
                scaled0.item() / loss0.item(), dtype_name(model.weight(1).grad().dtype()));
    L.check(initial == 65536.0, "the default init_scale is 65536 = 2^16");
    L.check(scaled0.item() == loss0.item() * 65536.0, "scale(loss) is loss * 65536, exactly");
    t.opt.zero_grad();  // this iteration was only for looking; the run below starts afresh
}

// Trains `iterations` iterations of the AMP loop and records what each did.
std::vector<Iteration> train_and_record(Training& t, int iterations)
{
    std::vector<Iteration> run;
    while (int(run.size()) < iterations)
        for (const data::Batch& batch : t.loader) {
            if (int(run.size()) == iterations) break;
            Iteration it;
            t.opt.zero_grad();
            const Tensor loss = f16_loss(t.model, batch);
            it.scale_used = t.scaler.get_scale();
            it.loss = loss.item();
            t.scaler.scale(loss).backward();
            const std::vector<double> before = t.model.snapshot();
            it.stepped = t.scaler.step(t.opt);
            it.weights_kept = t.model.snapshot() == before;
            t.scaler.update();
            it.scale_after = t.scaler.get_scale();
            run.push_back(it);
        }
    return run;
}

void write_scale_plot(lesson::Lesson& L, const std::vector<Iteration>& run)
{
    // The scale each iteration used, as a staircase (each value holds until the next update), on a
    // log2 axis; the skipped iterations as red vertical marks.
    lesson::Series staircase{"loss scale used", {}, {}, "#3c78dc", false};
    std::vector<lesson::Mark> skip_marks;
    for (std::size_t i = 0; i < run.size(); ++i) {
        const double x = double(i + 1);
        staircase.x.insert(staircase.x.end(), {x, x + 1});
        staircase.y.insert(staircase.y.end(), 2, std::log2(run[i].scale_used));
        if (!run[i].stepped) skip_marks.push_back({x + 0.5, skip_marks.empty() ? "skipped (inf/NaN)" : "", "#d62728"});
    }
    L.write_plot("loss_scale",
                 lesson::LinePlot{"GradScaler's loss scale over a training run (growth_interval 5)",
                                  "iteration",
                                  "log2 of the loss scale (16 = 65536)",
                                  false,
                                  {staircase},
                                  skip_marks,
                                  {{16, "init_scale 2^16", "#888888"}}},
                 "The scale doubles after 5 clean steps and halves after each overflow; red: the skipped steps.");
}

RunRecord step_training_run(lesson::Lesson& L, Training& t)
{
    const amp::GradScaler& scaler = t.scaler;
    L.step("A training run with growth_interval = 5");
    L.say("SGD (lr 0.1, momentum 0.9) on 3 spirals, batches of 64, f16 autocast, GradScaler with\n"
          "init_scale 65536 and growth_interval 5 (PyTorch's default is 2000: too slow to watch).");
    L.expect("The scale climbs x2 after every 5 clean steps until a step overflows; that step is skipped\n"
             "(its weights stay exactly as they were) and the scale halves. So it saws up and down around\n"
             "the largest S the gradients allow, and the loss still falls.");
    const std::vector<Iteration> run = train_and_record(t, kIterations);
    int skipped = 0, growths = 0, kept_when_skipped = 0;
    std::string timeline;
    for (std::size_t i = 0; i < run.size(); ++i) {
        const Iteration& it = run[i];
        if (!it.stepped) {
            ++skipped;
            if (it.weights_kept) ++kept_when_skipped;
        }
        if (it.scale_after > it.scale_used) ++growths;
        timeline += !it.stepped ? 'x' : it.scale_after > it.scale_used ? '^' : '.';
    }
    std::printf("   per iteration (. stepped, ^ stepped and grew the scale, x skipped and halved it):\n   %s\n", timeline.c_str());
    for (std::size_t i = 0; i < run.size(); ++i)
        if (!run[i].stepped || i < 2)
            std::printf("   iteration %2zu: scale %-8s loss %-7s %s, scale after update %s\n", i + 1, pow2(run[i].scale_used).c_str(),
                        lesson::fmt(run[i].loss).c_str(), run[i].stepped ? "stepped" : "SKIPPED", pow2(run[i].scale_after).c_str());
    double first_loss = 0, last_loss = 0;
    for (int i = 0; i < 10; ++i) {
        first_loss += run[std::size_t(i)].loss / 10;
        last_loss += run[run.size() - 1 - std::size_t(i)].loss / 10;
    }
    std::printf("   %d growths, %d skipped steps, final scale %s; mean loss of the first 10 iterations %s, of the last 10 %s\n", growths,
                skipped, pow2(scaler.get_scale()).c_str(), lesson::fmt(first_loss).c_str(), lesson::fmt(last_loss).c_str());
    L.check(growths >= 2 && skipped >= 2, "the scale both grew and backed off, more than once each");
    L.check(kept_when_skipped == skipped, "every skipped step left the weights bit for bit as they were");
    const std::vector<double> replayed = replay(65536.0, kInterval, run);
    bool replay_matches = true;
    for (std::size_t i = 0; i < run.size(); ++i) replay_matches = replay_matches && replayed[i] == run[i].scale_after;
    // scaler.history() (one entry per update(), for plots) must tell the same story.
    bool history_matches = scaler.history().size() == run.size();
    for (std::size_t i = 0; history_matches && i < run.size(); ++i)
        history_matches = scaler.history()[i].scale == run[i].scale_after && scaler.history()[i].skipped == !run[i].stepped;
    L.check(replay_matches && history_matches,
            "the update rule replayed from the skip flags alone gives every recorded scale (and scaler.history() agrees)");
    L.check(last_loss < 0.8 * first_loss, "the loss falls by more than 20 % in spite of the skipped steps");

    write_scale_plot(L, run);
    return {run, growths, skipped};
}

void step_scheduler(lesson::Lesson& L, const data::DataLoader& loader, const RunRecord& record)
{
    L.step("Skipped steps and the learning-rate scheduler");
    L.say("PyTorch programs often step a scheduler every iteration right after scaler.step(opt). With an\n"
          "init_scale too large for the first gradients, the first steps are skipped; the scheduler moves on.");
    L.expect("Starting at init_scale 2^24 the first iterations overflow, one after another (2^24, 2^23, ...),\n"
             "until the scale is small enough. Meanwhile StepLR (gamma 0.9 per iteration) has lowered the lr\n"
             "each time, while the optimizer has not stepped once (it has no momentum buffer yet). The\n"
             "scheduler's first step() notices and warns, once, as PyTorch's does.");
    {
        Generator gen2(0);
        const lesson::Mlp fresh = make_mlp(gen2);
        optim::SGD opt2(fresh.params(), {.lr = 0.1, .momentum = 0.9});
        optim::StepLR scheduler(opt2, /*step_size=*/1, /*gamma=*/0.9);
        amp::GradScaler big("cpu", {.init_scale = std::ldexp(1.0, 24), .growth_interval = kInterval});
        int leading_skips = 0, stepped_so_far = 0;
        bool buffer_after_first = true;
        double lr_after_first = 0, first_stepped_scale = 0;
        std::vector<std::string> scheduler_warnings;
        const WarningHandler previous = set_warning_handler([&](const std::string& w) { scheduler_warnings.push_back(w); });
        for (int i = 0; i < 12; ++i) {
            opt2.zero_grad();
            const double used = big.get_scale();
            big.scale(f16_loss(fresh, loader.batch(i % loader.size()))).backward();
            const bool took = big.step(opt2);
            big.update();
            scheduler.step();
            if (took && ++stepped_so_far == 1) first_stepped_scale = used;
            if (stepped_so_far == 0) ++leading_skips;
            if (i == 0) {
                buffer_after_first = opt2.momentum_buffer(fresh.weight(1)).defined();
                lr_after_first = scheduler.get_last_lr()[0];
            }
            if (i < 8) std::printf("   iteration %d: scale %-5s %s; scheduler.step() -> lr %s\n", i + 1, pow2(used).c_str(),
                                   took ? "stepped" : "SKIPPED", lesson::fmt(scheduler.get_last_lr()[0]).c_str());
        }
        set_warning_handler(previous);
        std::printf("   the first %d iterations were skipped; the optimizer's first step came after %d scheduler steps\n", leading_skips,
                    leading_skips);
        for (const std::string& w : scheduler_warnings) std::printf("   warning: \"%s\"\n", w.c_str());
        L.check(scheduler_warnings.size() == 1 &&
                    scheduler_warnings[0].rfind("Detected call of `lr_scheduler.step()` before `optimizer.step()`", 0) == 0,
                "the scheduler warned once: lr_scheduler.step() before optimizer.step()");
        L.check(leading_skips >= 2 && first_stepped_scale == std::ldexp(1.0, 24 - leading_skips),
                "the first iterations (at least 2) were skipped, each halving the scale");
        L.check(!buffer_after_first && lr_after_first < 0.1, "after iteration 1 the lr had moved but the optimizer had not stepped");
    }
    int fell = 0;
    for (const Iteration& it : record.iterations)
        if (it.scale_after < it.scale_used) ++fell;
    std::printf("   back in the run of step 2: get_scale() fell across update() in %d iterations; %d were skipped\n", fell, record.skipped);
    L.check(fell == record.skipped, "get_scale() falls across update() exactly on the skipped iterations");
    L.say("That warning is PyTorch's \"Detected call of `lr_scheduler.step()` before `optimizer.step()`\": the\n"
          "scheduler checks, on its first step(), whether optimizer.step() has ever run. Here it is harmless (a few\n"
          "lr values of the schedule go by unused). To tell a skipped step, compare get_scale() before and after\n"
          "update(), or look at what scaler.step() returned (tinyamp returns whether it stepped).");
}

void step_unscale_before_clip(lesson::Lesson& L, Training& t)
{
    const lesson::Mlp& model = t.model;
    optim::SGD& opt = t.opt;
    amp::GradScaler& scaler = t.scaler;
    L.step("unscale_ before clip_grad_norm_");
    L.expect("Right after backward the gradients are S times too large, so is their norm. unscale_(opt)\n"
             "divides them by S; clip then sees the true norm. A second unscale_ before update() is an error.");
    opt.zero_grad();
    const double s_now = scaler.get_scale();
    scaler.scale(f16_loss(model, t.loader.batch(1))).backward();
    const double scaled_norm = optim::clip_grad_norm_(model.params(), 1e30);  // max_norm huge: only measures
    scaler.unscale_(opt);
    const double true_norm = optim::clip_grad_norm_(model.params(), 1.0);
    std::string second_unscale;
    try {
        scaler.unscale_(opt);
    } catch (const Error& e) {
        second_unscale = e.what();
    }
    const bool stepped = scaler.step(opt);  // uses the found_inf of the unscale_ above; does not unscale again
    scaler.update();
    std::printf("   scale %s: norm of the scaled gradients %s, after unscale_ %s (ratio %s)\n", pow2(s_now).c_str(),
                lesson::fmt(scaled_norm).c_str(), lesson::fmt(true_norm).c_str(), lesson::fmt(scaled_norm / true_norm).c_str());
    std::printf("   a second unscale_: \"%s\"\n", second_unscale.c_str());
    L.check(std::abs(scaled_norm / true_norm / s_now - 1) < 1e-4, "the norm before unscale_ is S times the true norm");
    L.check(second_unscale.find("unscale_() has already been called on this optimizer since the last update().") != std::string::npos,
            "a second unscale_ is refused with PyTorch's message");
    L.check(stepped == std::isfinite(true_norm), "step() after unscale_ steps exactly when the gradients were finite");
}

void step_f16_model(lesson::Lesson& L, const data::DataLoader& loader)
{
    L.step("The model cast to f16 instead of kept in f32");
    L.say("Autocast keeps the weights in f32 (the master weights) and runs the matmuls in f16. A common mistake\n"
          "is to convert the model itself to f16 (model.half() in PyTorch) and add a GradScaler: a leaf's .grad has\n"
          "the leaf's dtype, so the gradients are f16. Divided by S in f16 the small ones would fall below f16's\n"
          "range again, which is what the scale was for, and the step would update f16 weights (lesson 4).");
    L.expect("With f16 parameters, scaler.step(opt) (which unscales first) raises PyTorch's \"Attempting to\n"
             "unscale FP16 gradients.\" and leaves the weights as they were. The same model with f32 weights under\n"
             "f16 autocast steps. bf16 parameters are not refused: only f16 is.");
    const data::Batch batch = loader.batch(0);
    // The same weights three ways: f16 leaves, f32 leaves (autocast's way), bf16 leaves.
    Generator gen(3);
    const lesson::Mlp master = make_mlp(gen);
    auto converted = [&](DType dtype) {
        std::vector<Tensor> params;
        for (const Tensor& p : master.params()) params.push_back(p.detach().to(dtype).requires_grad_());
        return lesson::Mlp(params);
    };
    const lesson::Mlp half = converted(f16), bfloat = converted(bf16);
    // One scaled iteration: scale(loss).backward(), then step(); whether it stepped, or its error.
    struct Outcome {
        bool stepped = false;
        std::string error;
    };
    auto one_step = [](const lesson::Mlp& model, const Tensor& loss) {
        optim::SGD opt(model.params(), {.lr = 0.1});
        amp::GradScaler scaler("cpu");
        scaler.scale(loss).backward();
        Outcome outcome;
        try {
            outcome.stepped = scaler.step(opt);
        } catch (const Error& e) {
            outcome.error = e.message();
        }
        return outcome;
    };
    auto report = [](const char* what, const lesson::Mlp& model, const Outcome& o) {
        std::printf("   %-36s w1 %-4s w1.grad %-4s scaler.step(opt): %s\n", what, dtype_name(model.weight(1).dtype()),
                    dtype_name(model.weight(1).grad().dtype()), o.error.empty() ? (o.stepped ? "stepped" : "skipped") : ("\"" + o.error + "\"").c_str());
    };
    const std::vector<double> before = half.snapshot();
    const Outcome f16_params = one_step(half, cross_entropy(half(batch.features.to(f16)), batch.labels));
    const Outcome f32_params = one_step(master, f16_loss(master, batch));
    const Outcome bf16_params = one_step(bfloat, cross_entropy(bfloat(batch.features.to(bf16)), batch.labels));
    report("f16 parameters:", half, f16_params);
    report("f32 parameters under f16 autocast:", master, f32_params);
    report("bf16 parameters:", bfloat, bf16_params);
    L.check(f16_params.error == "Attempting to unscale FP16 gradients." && half.snapshot() == before,
            "f16 parameters: step() refuses with PyTorch's message and the weights are untouched");
    L.check(f32_params.stepped && master.weight(1).grad().dtype() == f32, "f32 master weights under f16 autocast: f32 gradients, and it steps");
    L.check(bf16_params.stepped, "bf16 parameters are not refused: the check is for f16 only");
    L.say("The fix is autocast's design: keep the parameters f32 and let the region cast them for each op.");
}

void step_saving(lesson::Lesson& L, const amp::GradScaler& scaler)
{
    L.step("Saving the scaler, and the scaler that quietly does nothing");
    L.expect("state_dict() has PyTorch's 5 keys; a new scaler loaded from it carries on with the same scale\n"
             "and growth tracker. GradScaler's device is \"cuda\" unless told: made on a machine without a GPU it\n"
             "warns and disables itself (get_scale() is 1, no scaling at all).");
    const std::map<std::string, double> sd = scaler.state_dict();
    for (const auto& [key, value] : sd) std::printf("   %-16s %.9g\n", key.c_str(), value);
    amp::GradScaler resumed("cpu");
    resumed.load_state_dict(sd);
    L.check(sd.size() == 5 && resumed.get_scale() == scaler.get_scale() && resumed.get_growth_tracker() == scaler.get_growth_tracker() &&
                resumed.get_growth_interval() == kInterval,
            "state_dict has 5 keys, and a scaler loaded from it has the same scale, tracker and interval");
    if (cuda_device_count() == 0) {
        std::vector<std::string> warnings;
        const WarningHandler previous = set_warning_handler([&](const std::string& w) { warnings.push_back(w); });
        amp::GradScaler gpu_default;  // device "cuda", as torch.amp.GradScaler()
        set_warning_handler(previous);
        for (const std::string& w : warnings) std::printf("   warning: \"%s\"\n", w.c_str());
        std::printf("   GradScaler(): is_enabled %s, get_scale() %s\n", gpu_default.is_enabled() ? "true" : "false",
                    lesson::fmt(gpu_default.get_scale()).c_str());
        L.check(warnings.size() == 1 && warnings[0] == "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling." &&
                    !gpu_default.is_enabled() && gpu_default.get_scale() == 1.0,
                "GradScaler() without a GPU gives PyTorch's warning and disables itself: get_scale() is 1");
    } else {
        std::printf("   (a GPU is present: GradScaler() is enabled here; the warning shows on CPU-only machines)\n");
    }

}

void run(lesson::Lesson& L)
{
    Training t;
    step_one_iteration(L, t);
    const RunRecord record = step_training_run(L, t);
    step_scheduler(L, t.loader, record);
    step_unscale_before_clip(L, t);
    step_f16_model(L, t.loader);
    step_saving(L, t.scaler);
    L.key_result("80 iterations, growth_interval 5: " + std::to_string(record.growths) + " growths, " + std::to_string(record.skipped) +
                 " skipped steps (weights untouched), final scale " + pow2(t.scaler.get_scale()));
    L.key_result("the scale sequence is exactly the update rule replayed from the skips (x0.5 on inf, x2 after 5 clean steps)");
}

const lesson::Registration registered{{13, "grad_scaler_dynamics", "GradScaler dynamics",
                                       "dynamic loss scaling: skip and halve on inf, double after growth_interval clean steps", run}};

}  // namespace
