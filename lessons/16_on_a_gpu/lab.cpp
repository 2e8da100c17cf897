// Lab 16: device-generic mixed precision. Fill in each TODO; check with:  build/lessons/lab_16
#include "lessons/16_on_a_gpu/lab.h"

#include "lessons/support/lab.h"

namespace tinyamp::lab16 {

std::string autocast_device_type(const Tensor& t)
{
    // TODO(lab 16.1): t.device().type() is DeviceType::cpu or DeviceType::cuda;
    // device_type_name(type) spells it as autocast wants it.
    // BEGIN SOLUTION
    return device_type_name(t.device().type());
    // END SOLUTION
}

DType default_low_dtype(const std::string& device_type)
{
    // TODO(lab 16.2): amp::parse_autocast_device_type(device_type) turns the string into a DeviceType
    // (and throws tinyamp::Error for anything but "cpu" and "cuda"); then cuda -> f16, cpu -> bf16.
    // BEGIN SOLUTION
    return amp::parse_autocast_device_type(device_type) == DeviceType::cuda ? f16 : bf16;
    // END SOLUTION
}

std::vector<Tensor> to_device(const std::vector<Tensor>& params, Device device)
{
    // TODO(lab 16.3): for each parameter p: p.detach() (cut it from any graph), .clone() (storage of
    // its own, even when it is already on `device`), .to(device), .requires_grad_() (a new leaf), and
    // .set_name(p.name()).
    // BEGIN SOLUTION
    std::vector<Tensor> moved;
    for (const Tensor& p : params) moved.push_back(p.detach().clone().to(device).requires_grad_().set_name(p.name()));
    return moved;
    // END SOLUTION
}

double train_step_on_device(const std::vector<Tensor>& params, optim::Optimizer& optimizer, amp::GradScaler& scaler,
                            const Tensor& features, const Tensor& labels)
{
    // TODO(lab 16.4): the device comes from the data: const std::string type = autocast_device_type(features);
    // then lab 14's step with amp::autocast region(type, {.dtype = default_low_dtype(type)}) around
    // loss = cross_entropy(linear(features, params[0], params[1]), labels).
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
