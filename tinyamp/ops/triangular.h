#pragma once
/// \file
/// The triangles of a matrix, as torch.tril and torch.triu: what a causal attention mask is
/// made of.
///
/// Both act on the last two dims of a tensor of any dtype (bool included) with at least 2 dims,
/// keep one triangle and set the rest to 0 (false for bool). \p diagonal moves the border: 0 is
/// the main diagonal, positive goes above it, negative below. Element (i, j) is on the kept side
/// of tril when j - i <= diagonal, of triu when j - i >= diagonal. The gradient is the same
/// triangle of the incoming gradient. Neither is in an autocast list: they run in their input's
/// dtype, as in PyTorch.
///
/// \code
///     Tensor allowed = tril(ones({T, T}, boolean));       // true where key j <= query i
///     Tensor future  = triu(ones({T, T}, boolean), 1);    // true where j > i: what causal attention hides
///     Tensor scores2 = masked_fill(scores, future, -INFINITY);
/// \endcode

#include <cstdint>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// The lower triangle of the last two dims of \p x (j - i <= diagonal kept), the rest 0, in x's
/// dtype (torch.tril). Fewer than 2 dims is a shape Error.
Tensor tril(const Tensor& x, std::int64_t diagonal = 0);
/// The upper triangle of the last two dims of \p x (j - i >= diagonal kept), the rest 0, in x's
/// dtype (torch.triu). Fewer than 2 dims is a shape Error.
Tensor triu(const Tensor& x, std::int64_t diagonal = 0);

}  // namespace tinyamp
