// Lab 18: per-tensor scaling, current vs delayed. Fill in each TODO; check with:  scripts/lab check 18
// Stuck? scripts/lab hint 18.1 gives a hint, a stronger one each time you ask.
#include "lessons/18_per_tensor_scaling/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab18 {

std::vector<double> delayed_scales(const std::vector<float>& amaxes, int history_len, int margin)
{
    // TODO(lab 18.1): return the scale each step casts one E4M3 tensor with under delayed scaling,
    // given the tensor's amax at each step (the rule is in lab.h and the README's table).
    // Example: amaxes {1, 1, 100, 1, 1, 1, 1} with history_len 3 give
    // {1, 448, 448, 4.48, 4.48, 4.48, 448}: the spike at step 3 is cast with the old scale.
    // BEGIN SOLUTION
    amp::AmaxHistory history(history_len);
    float scale = 1.0f;
    std::vector<double> used;
    for (float amax : amaxes) {
        used.push_back(scale);
        history.push(amax);
        scale = amp::delayed_scale(scale, history.amax(amp::AmaxComputeAlgo::max), minifloat::f8e4m3fn, margin);
    }
    return used;
    // END SOLUTION
}

std::vector<double> delayed_scales(const std::vector<float>& amaxes, const amp::DelayedScaling& recipe, bool gradient)
{
    // TODO(lab 18.1): the same replay for one operand of an FP8 layer, with everything taken from
    // `recipe`: its history length, margin and amax_compute_algo, and the format the operand is
    // cast to (lab.h). Example: a gradient's amaxes {2, 2, 2} under DelayedScaling{.amax_history_len
    // = 4} (HYBRID) give {1, 28672, 28672}, 57344 / 2; a forward operand's give {1, 224, 224}.
    // BEGIN SOLUTION
    const minifloat::Format& format = gradient ? amp::backward_format(recipe.fp8_format) : amp::forward_format(recipe.fp8_format);
    amp::DelayedScalingState state(recipe.amax_history_len);
    std::vector<double> used;
    for (float amax : amaxes) {
        used.push_back(state.scale);
        state.update(amax, format, recipe);
    }
    return used;
    // END SOLUTION
}

double flushed_share(const Tensor& x, double scale)
{
    // TODO(lab 18.2): return the share of the nonzero elements of x that become 0 when x * scale
    // is cast to E4M3 with to_float8 (0 when x has no nonzero element). Example: x = {1, 0.001,
    // 0.0001, 0} at scale 1 gives 1/3 (0.0001 is below 2^-10); at scale 100 it gives 0.
    // BEGIN SOLUTION
    const std::vector<double> before = x.to_vector();
    const std::vector<double> after = to_float8(x, scalar_tensor(scale), f8e4m3fn).to(f32).to_vector();
    double nonzero = 0, flushed = 0;
    for (std::size_t i = 0; i < before.size(); ++i)
        if (before[i] != 0) {
            ++nonzero;
            flushed += after[i] == 0 ? 1 : 0;
        }
    return nonzero == 0 ? 0 : flushed / nonzero;
    // END SOLUTION
}

double fp8_train_step(nn::Module& model, optim::Optimizer& optimizer, const Tensor& features, const Tensor& labels,
                      const amp::ScalingRecipe& recipe)
{
    // TODO(lab 18.3): one training step of `model` on (features, labels) with its Linear layers in
    // FP8 by `recipe`: the forward and the cross-entropy loss in FP8, the backward after the FP8
    // region has ended, then the optimizer's step (lab.h). Return the loss. Example: a 16-32-4
    // MLP on one batch of 32 starts near ln 4 = 1.39, and 31 steps more than halve it.
    // BEGIN SOLUTION
    optimizer.zero_grad();
    Tensor loss;
    {
        amp::fp8_autocast region(true, recipe);
        loss = cross_entropy(model(features), labels);
    }
    loss.backward();
    optimizer.step();
    return loss.item();
    // END SOLUTION
}

}  // namespace tinyamp::lab18
