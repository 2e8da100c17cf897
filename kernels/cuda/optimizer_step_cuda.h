#pragma once
// One optimizer step on the GPU: the rule of kernels/optimizer_rules.h applied to every element
// of a parameter, its gradient and its state, in place, by one kernel launch. The CPU applies the
// same rule in a loop (tinyamp/optim/update_loop.h), so both devices do the same arithmetic.
// Without this, a GPU parameter would be copied to the host, updated there and copied back at
// every step.

#include <cstdint>

#include "kernels/optimizer_rules.h"

namespace tinyamp::kernels::cuda {

/// rule(w[i], g[i], s0[i], s1[i]) for i < n, all contiguous on `device`; s0 and s1 may be null
/// where the rule does not use them (SGD without momentum; SGD's second state).
void optimizer_step(const SgdRule<float>& rule, float* w, const float* g, float* s0, float* s1, std::int64_t n, int device);
void optimizer_step(const SgdRule<double>& rule, double* w, const double* g, double* s0, double* s1, std::int64_t n, int device);
void optimizer_step(const AdamRule<float>& rule, float* w, const float* g, float* s0, float* s1, std::int64_t n, int device);
void optimizer_step(const AdamRule<double>& rule, double* w, const double* g, double* s0, double* s1, std::int64_t n, int device);

}  // namespace tinyamp::kernels::cuda
