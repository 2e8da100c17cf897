#pragma once
// Lab 16: device-generic mixed precision, the habits that make one loop run on the CPU and on a
// GPU. Write these in lab.cpp; check them with:  scripts/lab check 16
// Everything here runs (and is checked) on the CPU.
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab16 {

/// The device_type string amp::autocast and amp::GradScaler take for the device `t` lives on:
/// "cpu" or "cuda" (never "cuda:0": autocast is per device type, not per device).
std::string autocast_device_type(const Tensor& t);

/// The low dtype amp::autocast(device_type) picks when given none, as in PyTorch: f16 for "cuda",
/// bf16 for "cpu". Anything else is an error (tinyamp::Error).
DType default_low_dtype(const std::string& device_type);

/// Copies of `params` on `device`: new f32 leaves that require grad (the master weights of a model
/// moved to that device), with the same values and names, sharing no storage with the originals.
std::vector<Tensor> to_device(const std::vector<Tensor>& params, Device device);

/// One training step of the linear classifier logits = linear(features, params[0], params[1]) on
/// whatever device the tensors are on: autocast with that device's type and default low dtype,
/// cross_entropy, then scaler.scale(loss).backward(), scaler.step, scaler.update. Pass a disabled
/// scaler for bf16 (it then does a plain step). Returns the loss.
double train_step_on_device(const std::vector<Tensor>& params, optim::Optimizer& optimizer, amp::GradScaler& scaler,
                            const Tensor& features, const Tensor& labels);

}  // namespace tinyamp::lab16
