// embedding and its backward (embedding_backward, PyTorch's embedding_dense_backward): the
// forward copies rows, the backward scatter-adds gradient rows into a dense weight gradient.
// Both are ops, so the backward can be differentiated again: its own gradient is an embedding of
// the incoming gradient.
#include "tinyamp/ops/embedding.h"

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

// Where flat element `flat` of a tensor of `shape` is, as "[i, j, ...]".
std::string position_of(std::int64_t flat, const Shape& shape)
{
    std::vector<std::int64_t> index(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
        index[d] = flat % shape[d];
        flat /= shape[d];
    }
    std::string out = "[";
    for (std::size_t d = 0; d < index.size(); ++d) out += (d ? ", " : "") + std::to_string(index[d]);
    return out + "]";
}

// The indices, contiguous, each checked to be a row of a table with `rows` rows.
Tensor checked_indices(const char* op, const Tensor& input, std::int64_t rows)
{
    const Tensor indices = layout::contiguous(input);
    const std::int64_t* index = indices.data_ptr<std::int64_t>();
    const std::int64_t count = indices.numel();
    for (std::int64_t i = 0; i < count; ++i)
        TINYAMP_CHECK(index[i] >= 0 && index[i] < rows, index, op, ": index ", index[i], " at position ", position_of(i, input.shape()),
                      " of the input is out of range for a weight with ", rows, " rows (indices go from 0 to ", rows - 1,
                      "); make num_embeddings larger than the largest index (the vocabulary size), or fix the data");
    return indices;
}

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, std::int64_t num_weights);

struct EmbeddingOp {
    static constexpr const char* name = "embedding";
    struct Saved {
        std::int64_t num_weights = 0;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& input, const Tensor& weight)
    {
        require_cpu(name, {input, weight});
        // The indices first: with the arguments swapped, this is the message that says so.
        TINYAMP_CHECK(input.dtype() == DType::i64, dtype, name, ": the indices (the first argument, input) must be i64, but got ",
                      dtype_name(input.dtype()),
                      "; convert them with .to(i64) (the order is embedding(input, weight), as torch.nn.functional.embedding)");
        TINYAMP_CHECK(weight.dim() == 2, shape, "embedding: weight must be 2-D [num_embeddings, embedding_dim], but got shape ",
                      shape_str(weight.shape()), " (the order is embedding(input, weight), as torch.nn.functional.embedding)");
        TINYAMP_CHECK(is_floating_point(weight.dtype()), dtype, "embedding: weight must be floating point, but got ", dtype_name(weight.dtype()),
                      "; convert it with .to(f32)");
        const std::int64_t rows = weight.size(0), dim = weight.size(1);
        const Tensor indices = checked_indices(name, input, rows);
        ctx.save_for_backward({indices});
        ctx.saved.num_weights = rows;
        Shape shape = input.shape();
        shape.push_back(dim);
        Tensor out = empty(shape, weight.dtype());
        const Tensor table = layout::contiguous(weight);
        const auto row_bytes = std::size_t(dim * table.element_size());
        const auto* from = static_cast<const unsigned char*>(table.data_ptr());
        auto* to = static_cast<unsigned char*>(out.data_ptr());
        const std::int64_t* index = indices.data_ptr<std::int64_t>();
        const std::int64_t count = indices.numel();
        for (std::int64_t i = 0; i < count; ++i)
            if (row_bytes) std::memcpy(to + std::size_t(i) * row_bytes, from + std::size_t(index[i]) * row_bytes, row_bytes);
        return out;
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        return {Tensor(), embedding_backward(grad, ctx.saved_tensors()[0], ctx.saved.num_weights)};
    }
};

struct EmbeddingBackwardOp {
    static constexpr const char* name = "embedding_backward";
    static Tensor forward(Context& ctx, const Tensor& grad, const Tensor& indices, std::int64_t num_weights)
    {
        require_cpu(name, {grad, indices});
        ctx.save_for_backward({indices});
        const std::int64_t dim = grad.size(-1);
        // Summed in the compute type (f32 for f16/bf16), rounded once into the gradient's dtype.
        const DType dtype = grad.dtype();
        const DType sum_dtype = dtype == DType::f64 ? DType::f64 : DType::f32;
        Tensor total = zeros({num_weights, dim}, sum_dtype);
        const Tensor rows = layout::contiguous(layout::convert(grad, sum_dtype));
        const std::int64_t* index = indices.data_ptr<std::int64_t>();
        visit_float_dtype(sum_dtype, [&](auto tag) {
            using T = decltype(tag);
            if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
                const T* g = rows.data_ptr<T>();
                T* w = total.data_ptr<T>();
                const std::int64_t count = indices.numel();
                for (std::int64_t i = 0; i < count; ++i)
                    for (std::int64_t j = 0; j < dim; ++j) w[index[i] * dim + j] += g[i * dim + j];
            }
        });
        return layout::convert(total, dtype);
    }
    static std::vector<Tensor> backward(Context& ctx, const Tensor& grad) { return {embedding(ctx.saved_tensors()[0], grad), Tensor()}; }
};

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, std::int64_t num_weights)
{
    return dispatch<EmbeddingBackwardOp>(grad, indices, num_weights);
}

}  // namespace

Tensor embedding(const Tensor& input, const Tensor& weight) { return dispatch<EmbeddingOp>(input, weight); }

}  // namespace tinyamp
