#pragma once
/// \file
/// gradcheck: compares the gradients backward computes with central differences, in f64.
///
/// For a function f of tensors and a fixed random direction v shaped like f's output, the
/// analytical side is the gradient of sum(f(x) * v) from backward(); the numerical side is
///
///     (sum(f(x + eps e_i) * v) - sum(f(x - eps e_i) * v)) / (2 eps)
///
/// for every element i of every input that requires grad. They must agree to
/// atol + rtol * |numerical|.

#include <functional>
#include <string>
#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// What gradcheck() found.
struct GradcheckResult {
    bool ok = false;     ///< every compared element agreed
    std::string report;  ///< what was compared, and the first mismatches if any
};

/// The step, tolerances and seed of gradcheck() (eps as in torch.autograd.gradcheck; the
/// tolerances are tighter than PyTorch's 1e-5 and 1e-3).
struct GradcheckOptions {
    double eps = 1e-6;   ///< the finite-difference step
    double atol = 1e-6;  ///< absolute tolerance
    double rtol = 1e-4;  ///< relative tolerance, times |numerical|
    std::uint64_t seed = 0;  ///< for the direction v
};

/// Checks the gradients of `fn` at `inputs`, as torch.autograd.gradcheck does but along one
/// random direction v. The inputs with requires_grad are checked and must be f64 (else
/// Error(dtype)); `fn` must be deterministic and return a floating tensor (else Error(dtype)).
/// The caller's tensors and their .grad are left alone: gradcheck works on copies.
GradcheckResult gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& fn, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options = {});

}  // namespace tinyamp
