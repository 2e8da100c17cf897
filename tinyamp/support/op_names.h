#pragma once
/// \file
/// The names of the ops a policy table's rows may name: every built-in op's `name` (listed
/// here; `dispatch<Op>` refuses to compile an op that is missing), and the user Functions a
/// program uses (each registers its name when its class is instantiated: ops/function.h).
/// PolicyTable::set checks each row against them, so a misspelt row fails when the table is
/// built or loaded, naming the nearest op, instead of never matching.
#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace tinyamp {

/// tinyamp's built-in ops, sorted.
inline constexpr std::string_view kBuiltinOps[] = {
    "_amp_foreach_non_finite_check_and_unscale_", "_amp_update_scale_", "add", "addmm", "argmax", "batch_norm",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "bmm", "cat", "clone", "col2im", "conv2d",
    "count_nonzero", "cross_entropy", "div", "embedding", "embedding_backward", "eq", "erf", "exp", "expand", "fp8_linear", "ge",
    "gelu", "gelu_backward", "gt", "im2col", "layer_norm", "le", "linear", "log", "log_softmax", "lt", "masked_fill", "matmul", "max",
    "mean", "mm", "mse_loss", "mul", "ne", "neg", "nll_loss", "permute", "pow", "relu", "reshape",
    "scaled_dot_product_attention", "scaled_mm", "select", "sigmoid", "slice", "slice_backward", "softmax", "sqrt",
    "squeeze", "stack", "sub", "sum", "tanh", "threshold_backward", "to", "to_device", "to_float8", "transpose", "tril", "triu", "unsqueeze",
    "view", "where",
};

static_assert(std::is_sorted(std::begin(kBuiltinOps), std::end(kBuiltinOps)), "kBuiltinOps is searched by bisection: keep it sorted");

/// Whether `name` is one of kBuiltinOps (usable in a static_assert).
constexpr bool is_builtin_op(std::string_view name) { return std::binary_search(std::begin(kBuiltinOps), std::end(kBuiltinOps), name); }

/// Adds a user Function's name to the ops a policy table may name; returns true.
bool register_op_name(std::string_view name);
/// A built-in op or a registered user Function.
bool is_known_op(std::string_view name);
/// Every name is_known_op() accepts, sorted.
std::vector<std::string> known_op_names();
/// The known op closest to `name` by edit distance (a typo's likely meaning).
std::string nearest_op(std::string_view name);

}  // namespace tinyamp
