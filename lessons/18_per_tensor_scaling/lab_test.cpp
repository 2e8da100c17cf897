// Lab 18's checks. Run them with:  scripts/lab check 18
#include <memory>
#include <string>
#include <vector>

#include "lessons/18_per_tensor_scaling/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab18;
using tinyamp::lesson::approx;

namespace {

// How many backward passes went through a RegionProbe, and how many of them ran while an
// fp8_autocast region was open.
int probe_backwards = 0;
int probe_backwards_in_fp8_region = 0;

// The identity, whose backward notes whether an fp8_autocast region is open while it runs. The
// gradients are the same either way (fp8_linear's backward uses the recipe its forward saved), so
// this is how the checks see where fp8_train_step calls backward().
struct RegionProbeFunction : Function<RegionProbeFunction> {
    static constexpr const char* name = "region_probe";
    static Tensor forward(Context&, const Tensor& x) { return x.clone(); }
    static std::vector<Tensor> backward(Context&, const Tensor& grad)
    {
        ++probe_backwards;
        if (amp::is_fp8_autocast_enabled()) ++probe_backwards_in_fp8_region;
        return {grad};
    }
};

// A layer that applies RegionProbeFunction: the model's output passes through it unchanged.
struct RegionProbe : nn::Module {
    Tensor forward(const Tensor& x) override { return RegionProbeFunction::apply(x); }
    std::string type_name() const override { return "RegionProbe"; }
};

}  // namespace

TEST_SUITE("lab18")
{
    TEST_CASE("lab 18.1: delayed_scales starts at 1, follows a step late, and a spike holds the scale down for L steps")
    {
        LAB_CHECK("step 3 is a spike: it is cast with the old scale 448 (it saturates), then 448 / 100 holds for 3 steps "
                  "(mistake: using this step's amax for this step's scale)",
                  delayed_scales({1, 1, 100, 1, 1, 1, 1}, 3) == approx({1, 448, 448, 4.48, 4.48, 4.48, 448}));
        LAB_CHECK("a history of 1 forgets the spike at once",
                  delayed_scales({1, 1, 100, 1, 1}, 1) == approx({1, 448, 448, 4.48, 448}));
        LAB_CHECK("margin 1 halves every scale after the first",
                  delayed_scales({2, 2, 2}, 4, 1) == approx({1, 112, 112}));
        LAB_CHECK("an amax of 0 (an all-zero tensor) keeps the previous scale",
                  delayed_scales({0, 2, 2}, 4) == approx({1, 1, 224}));

        // One operand of a layer under a recipe (HYBRID unless it says E4M3).
        const amp::DelayedScaling hybrid{.amax_history_len = 4};
        LAB_CHECK("a forward operand (input, weight) is E4M3 under HYBRID: 448 / 2",
                  delayed_scales({2, 2, 2}, hybrid, false) == approx({1, 224, 224}));
        LAB_CHECK("a gradient under HYBRID is E5M2: its scale puts the amax on 57344, so 57344 / 2 = 28672 (mistake: "
                  "hard-coding E4M3 for the gradients)",
                  delayed_scales({2, 2, 2}, hybrid, true) == approx({1, 28672, 28672}));
        LAB_CHECK("under the E4M3 recipe a gradient is E4M3 too: 448 / 2",
                  delayed_scales({2, 2, 2}, amp::DelayedScaling{.fp8_format = amp::Fp8Format::E4M3, .amax_history_len = 4}, true) ==
                      approx({1, 224, 224}));
        LAB_CHECK("the recipe's margin 1 halves and its history of 1 forgets the spike at once: E5M2's 57344 / 2 / 1, / 100, / 1",
                  delayed_scales({1, 100, 1, 1}, amp::DelayedScaling{.margin = 1, .amax_history_len = 1}, true) ==
                      approx({1, 28672, 286.72, 28672}));
        const amp::DelayedScaling most_recent{.amax_history_len = 4, .amax_compute_algo = amp::AmaxComputeAlgo::most_recent};
        LAB_CHECK("the recipe's most_recent uses the newest amax, not the largest of the history: the spike is forgotten at once",
                  delayed_scales({1, 100, 1, 1}, most_recent, false) == approx({1, 448, 4.48, 448}));
    }

    TEST_CASE("lab 18.2: flushed_share counts the nonzero values the E4M3 cast turns into 0")
    {
        const Tensor x = tensor({1.0, 0.001, 0.0001, 0.0}, {4}, f32);
        LAB_CHECK("at scale 1, 0.0001 (below 2^-10) becomes 0 and 0.001 rounds up to 2^-9: 1 of the 3 nonzero values; the 0 "
                  "was 0 before the cast (mistake: counting values that were already 0 as flushed)",
                  flushed_share(x, 1.0) == doctest::Approx(1.0 / 3));
        LAB_CHECK("scaled up by 100, all three nonzero values survive: the scale multiplies x before the cast",
                  flushed_share(x, 100.0) == 0.0);
        LAB_CHECK("a scale far too small (0.001): only 1 survives, 2 of the 3 become 0",
                  flushed_share(x, 0.001) == doctest::Approx(2.0 / 3));
        LAB_CHECK("no nonzero value: the share is 0 (mistake: counting values that were already 0 as flushed)",
                  flushed_share(zeros({3}), 1.0) == 0.0);
        LAB_CHECK("1000 saturates at 448: that is not flushing",
                  flushed_share(tensor({1000.0, 1.0}, {2}, f32), 1.0) == 0.0);
    }

    TEST_CASE("lab 18.3: fp8_train_step trains a small MLP in FP8, with delayed histories in its Linear layers")
    {
        manual_seed(0);
        auto fc1 = std::make_shared<nn::Linear>(16, 32), fc2 = std::make_shared<nn::Linear>(32, 4);
        nn::Sequential model;
        model.push_back(fc1);
        model.emplace_back<nn::ReLU>();
        model.push_back(fc2);
        model.emplace_back<RegionProbe>();  // the identity; its backward notes whether an fp8_autocast region is open
        probe_backwards = probe_backwards_in_fp8_region = 0;
        optim::SGD optimizer(model.parameters(), {.lr = 0.1, .momentum = 0.9});
        Generator gen(0);
        const Tensor x = randn({32, 16}, f32, gen);
        const Tensor y = tensor({0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}, {32}, i64);
        const amp::DelayedScaling recipe{.amax_history_len = 8};
        const double first = fp8_train_step(model, optimizer, x, y, recipe);
        {
            const bool made_fp8_state = fc1->fp8_state != nullptr;
            CAPTURE(made_fp8_state);
            LAB_REQUIRE("the forward ran with FP8 on: the Linear ran fp8_linear with the delayed recipe and made its fp8_state",
                        made_fp8_state);
        }
        LAB_CHECK("the layer's histories have the recipe's length, 8 (mistake: ignoring the recipe argument)",
                  fc1->fp8_state->input.history.length() == 8);
        LAB_CHECK("the step's amax of the input was recorded", fc1->fp8_state->input.history.values()[0] > 0.0f);
        LAB_CHECK("and the next step's scale computed from it", fc1->fp8_state->input.scale != 1.0f);
        LAB_CHECK("HYBRID casts the gradients to E5M2: the gradient's next scale puts its amax on 57344",
                  fc1->fp8_state->grad_output.scale ==
                      doctest::Approx(57344.0 / double(fc1->fp8_state->grad_output.history.values()[0])));
        LAB_CHECK("f32 master weights get f32 gradients", fc1->weight.grad().dtype() == f32);
        LAB_REQUIRE("the step ran backward once", probe_backwards == 1);
        LAB_CHECK("loss.backward() runs after the fp8_autocast region has ended: only the forward belongs inside it, as "
                  "Transformer Engine requires (mistake: calling backward() inside the fp8_autocast region)",
                  probe_backwards_in_fp8_region == 0);
        double last = first;
        for (int step = 0; step < 30; ++step) last = fp8_train_step(model, optimizer, x, y, recipe);
        LAB_CHECK("the untrained loss is about ln 4 = 1.39", first > 1.0);
        LAB_CHECK("31 FP8 steps on one batch fit it: the loss more than halves", last < 0.5 * first);
        const bool fp8_still_on = amp::is_fp8_autocast_enabled();
        CAPTURE(fp8_still_on);
        LAB_CHECK("the FP8 region ended with the step", !fp8_still_on);
    }
}
