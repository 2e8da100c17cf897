#include "tinyamp/nn/embedding_layer.h"

#include <string>

#include "tinyamp/tensor/factories.h"
#include "tinyamp/ops/embedding.h"

namespace tinyamp::nn {

Embedding::Embedding(std::int64_t num, std::int64_t dim) : num_embeddings(num), embedding_dim(dim)
{
    TINYAMP_CHECK(num > 0 && dim > 0, value, "Embedding(", num, ", ", dim, "): num_embeddings and embedding_dim must be positive");
    weight = register_parameter("weight", randn({num, dim}, f32, default_generator()));
}

Tensor Embedding::forward(const Tensor& input) { return embedding(input, weight); }

std::string Embedding::extra_repr() const { return std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim); }

}  // namespace tinyamp::nn
