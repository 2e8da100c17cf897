#pragma once
/// \file
/// embedding: rows of a table picked by integer indices, as torch.nn.functional.embedding.
///
/// A language model's first layer: token i becomes row i of the weight. The forward copies rows
/// (no arithmetic, so no rounding: the output has the weight's dtype, bit for bit); the backward
/// adds each output row's gradient into the row it came from, giving a dense gradient shaped like
/// the weight. embedding is in no autocast list, so under autocast it runs in the weight's dtype
/// (an f32 weight gives f32 rows, which the next lower_precision_fp op casts), as in PyTorch.

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// Row input[...] of \p weight for every index of \p input, as torch.nn.functional.embedding(input,
/// weight) (PyTorch's argument order: indices first).
///
/// input: i64 indices of any shape (a dtype Error otherwise, with the fix .to(i64)), each in
/// [0, num_embeddings) (an index Error naming the first bad index, where it is, and the range);
/// weight: [num_embeddings, embedding_dim], floating point (shape or dtype Error otherwise). The
/// result is input.shape + [embedding_dim] in the weight's dtype. The gradient goes to the weight
/// only: rows picked several times add up their gradients (summed in f32 for f16/bf16 weights,
/// rounded once), rows never picked get 0. No padding_idx, max_norm or sparse gradient. CPU only
/// (a device Error for CUDA tensors, naming the fix .cpu()).
Tensor embedding(const Tensor& input, const Tensor& weight);

}  // namespace tinyamp
