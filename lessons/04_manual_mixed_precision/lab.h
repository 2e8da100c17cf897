#pragma once
// Lab 04: mixed precision by hand. Write these in lab.cpp; check them with:  scripts/lab check 04
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab04 {

/// For each f32 master weight, a low-precision copy for the forward and backward: a new leaf of
/// `dtype` that requires grad, holding the master's values rounded to `dtype`, sharing no storage.
std::vector<Tensor> make_low_precision_copies(const std::vector<Tensor>& masters, DType dtype);

/// Moves the gradients from the copies to the masters: each master's .grad becomes its copy's
/// .grad converted to the master's dtype (f32), and the copy's .grad is cleared (set to none), so
/// the next backward does not add to it. A copy without a gradient leaves its master's .grad as it was.
void copy_grads_to_masters(const std::vector<Tensor>& copies, const std::vector<Tensor>& masters);

/// One SGD step on the masters, w = w - lr * w.grad, computed in f32 (masters without a gradient
/// are left alone); then every copy is refreshed from its master (rounded to the copy's dtype).
void master_sgd_step(const std::vector<Tensor>& masters, const std::vector<Tensor>& copies, double lr);

}  // namespace tinyamp::lab04
