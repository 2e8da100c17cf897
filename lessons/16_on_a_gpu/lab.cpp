// Lab 16: device-generic mixed precision. Fill in each TODO; check with:  scripts/lab check 16
// Stuck? scripts/lab hint 16.1 gives a hint, a stronger one each time you ask.
#include "lessons/16_on_a_gpu/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab16 {

std::string autocast_device_type(const Tensor& t)
{
    // TODO(lab 16.1): return the device type of the device `t` lives on, spelled as amp::autocast
    // and amp::GradScaler take it: "cpu" or "cuda", never a device such as "cuda:0". Example: a CPU
    // tensor, its f16 copy and its transpose all give "cpu"; a tensor on GPU 0 gives "cuda".
    // BEGIN SOLUTION
    return device_type_name(t.device().type());
    // END SOLUTION
}

DType default_low_dtype(const std::string& device_type)
{
    // TODO(lab 16.2): return the low dtype amp::autocast(device_type) uses when given none: f16 for
    // "cuda", bf16 for "cpu"; throw tinyamp::Error for any other string. Example: "cpu" gives bf16;
    // "tpu" and "cuda:0" (a device, not a device type) throw.
    // BEGIN SOLUTION
    return amp::parse_autocast_device_type(device_type) == DeviceType::cuda ? f16 : bf16;
    // END SOLUTION
}

std::vector<Tensor> to_device(const std::vector<Tensor>& params, Device device)
{
    // TODO(lab 16.3): return copies of the f32 `params` on `device`: new leaf tensors that require
    // grad, with the same values and names, sharing no storage with the originals (even when they
    // are already on `device`). Example: a named f32 weight w and the result b of mul(ones({2}), 0.5),
    // moved to Device::cpu(), give two leaves that require grad, the first named "w", with w's values
    // in storage of its own.
    // BEGIN SOLUTION
    std::vector<Tensor> moved;
    for (const Tensor& p : params) moved.push_back(p.detach().clone().to(device).requires_grad_().set_name(p.name()));
    return moved;
    // END SOLUTION
}

double train_step_on_device(const std::vector<Tensor>& params, optim::Optimizer& optimizer, amp::GradScaler& scaler,
                            const Tensor& features, const Tensor& labels)
{
    // TODO(lab 16.4): one AMP training step (lab 14's) of the classifier
    // logits = linear(features, params[0], params[1]) with cross-entropy loss, under autocast for the
    // device type the features live on and that type's default low dtype; return the loss. Example:
    // on the CPU the trace shows linear in bf16 and cross_entropy in f32, and 20 steps with lr 0.5
    // halve the loss of a linearly separable batch.
    // BEGIN SOLUTION
    const std::string type = autocast_device_type(features);
    optimizer.zero_grad();
    Tensor loss;
    {
        amp::autocast region(type, {.dtype = default_low_dtype(type)});
        loss = cross_entropy(linear(features, params[0], params[1]), labels);
    }
    scaler.scale(loss).backward();
    scaler.step(optimizer);
    scaler.update();
    return loss.item();
    // END SOLUTION
}

}  // namespace tinyamp::lab16
