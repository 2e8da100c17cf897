#pragma once
// gradcheck: compares the gradients backward computes with central differences, in f64.
//
// For a function f of tensors and a fixed random direction v shaped like f's output, the
// analytical side is the gradient of sum(f(x) * v) from backward(); the numerical side is
//   (sum(f(x + eps e_i) * v) - sum(f(x - eps e_i) * v)) / (2 eps)  for every element i of every
// input that requires grad. They must agree to atol + rtol * |numerical|.

#include <functional>
#include <string>
#include <vector>

#include "tinyamp/core/tensor.h"

namespace tinyamp {

struct GradcheckResult {
    bool ok = false;
    std::string report;  ///< what was compared, and the first mismatches if any
};

struct GradcheckOptions {
    double eps = 1e-6;
    double atol = 1e-6;
    double rtol = 1e-4;
    std::uint64_t seed = 0;  ///< for the direction v
};

/// `inputs` must be f64; those with requires_grad are checked. `fn` must be deterministic.
GradcheckResult gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& fn, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options = {});

}  // namespace tinyamp
