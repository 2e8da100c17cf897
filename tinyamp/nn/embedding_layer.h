#pragma once
/// \file
/// nn::Embedding: a lookup table of vectors, as torch.nn.Embedding.
///
/// \code
///     auto wte = std::make_shared<nn::Embedding>(65, 384);  // 65 characters, 384 numbers each
///     Tensor x = (*wte)(tokens);                            // tokens i64 [B, T] -> x [B, T, 384]
/// \endcode

#include <cstdint>

#include "tinyamp/nn/module.h"

namespace tinyamp::nn {

/// A table of num_embeddings vectors of size embedding_dim; the forward picks rows by index, as
/// torch.nn.Embedding.
///
/// The forward is the op tinyamp::embedding (ops/embedding.h): i64 indices in, rows of the weight
/// out, in the weight's dtype. embedding is in no autocast list, so under autocast the rows stay
/// f32 (the weight's dtype) and the next lower_precision_fp op casts them, as in PyTorch.
/// No padding_idx, max_norm or sparse gradient.
class Embedding : public Module {
public:
    /// weight [num_embeddings, embedding_dim] drawn from N(0, 1) in f32 with default_generator(),
    /// as PyTorch's init.normal_ (so manual_seed makes a model again). Error(value) unless both
    /// sizes are positive.
    Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim);

    /// embedding(input, weight): i64 indices of any shape to input.shape + [embedding_dim]. An
    /// index outside [0, num_embeddings) is an Error(index) that names it.
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "Embedding"; }
    /// "65, 384", as PyTorch prints Embedding(65, 384).
    std::string extra_repr() const override;

    const std::int64_t num_embeddings;  ///< the number of rows (the vocabulary size)
    const std::int64_t embedding_dim;   ///< the size of each row
    Tensor weight;  ///< [num_embeddings, embedding_dim]
};

}  // namespace tinyamp::nn
