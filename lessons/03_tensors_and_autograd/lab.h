#pragma once
// Lab 03: tensors and autograd. Write these in lab.cpp; check them with:  scripts/lab check 03
#include <functional>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab03 {

/// A function of one tensor that returns a one-element tensor (a loss).
using ScalarFn = std::function<Tensor(const Tensor&)>;

/// d fn(x) / dx computed by autograd: a tensor shaped like x, in x's dtype. `x` itself is left
/// as it was (it need not require grad, and its .grad is not touched).
Tensor gradient_of(const ScalarFn& fn, const Tensor& x);

/// The same derivative by central differences, (fn(x + h e_i) - fn(x - h e_i)) / 2h for every
/// element i, computed in f64 whatever x's dtype: an f64 tensor shaped like x. `x` is left as it was.
Tensor numeric_gradient(const ScalarFn& fn, const Tensor& x, double h = 1e-6);

/// The names of the graph nodes from t's grad_fn back to a leaf, following at each node the first
/// input that has a gradient edge: {"mul", "add", "AccumulateGrad"} for (x + 1) * 2 with x a leaf
/// that requires grad. Empty for a leaf.
std::vector<std::string> grad_fn_chain(const Tensor& t);

}  // namespace tinyamp::lab03
