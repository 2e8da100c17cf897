// Lab 18: per-tensor scaling, current vs delayed. Fill in each TODO; check with:  build/lessons/lab_18
#include "lessons/18_per_tensor_scaling/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab18 {

std::vector<double> delayed_scales(const std::vector<float>& amaxes, int history_len, int margin)
{
    // TODO(lab 18.1): keep an amp::AmaxHistory history(history_len) and a float scale = 1. For each
    // amax: record the scale this step casts with, then history.push(amax) and
    // scale = amp::delayed_scale(scale, history.amax(amp::AmaxComputeAlgo::max), minifloat::f8e4m3fn, margin).
    // (amp::DelayedScalingState::update does the last two lines; write them once yourself.)
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

double flushed_share(const Tensor& x, double scale)
{
    // TODO(lab 18.2): codes = to_float8(x, scalar_tensor(scale), f8e4m3fn); codes.to(f32) gives the
    // values of the codes. Count the elements that are nonzero in x and 0 in the codes.
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
    // TODO(lab 18.3): optimizer.zero_grad(); in a block holding amp::fp8_autocast region(true, recipe),
    // loss = cross_entropy(model(features), labels); after the block loss.backward(); optimizer.step().
    // As with autocast, only the forward belongs in the region; fp8_linear's backward casts the
    // gradients itself.
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
