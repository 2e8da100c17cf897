// tril and triu: a bool [rows, cols] pattern of the kept triangle, made on the host, and `where`
// to keep x's elements there (so they run on every device where has a kernel). Backward is the
// same triangle of the gradient.
#include "tinyamp/ops/triangular.h"

#include <vector>

#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/elementwise.h"

namespace tinyamp {
namespace {

enum class Triangle { lower, upper };

// True where (i, j) of a [rows, cols] matrix is kept, on `device`.
Tensor kept_triangle(std::int64_t rows, std::int64_t cols, std::int64_t diagonal, Triangle triangle, Device device)
{
    Tensor keep = empty({rows, cols}, DType::boolean);
    bool* out = keep.data_ptr<bool>();
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j)
            out[i * cols + j] = triangle == Triangle::lower ? j - i <= diagonal : j - i >= diagonal;
    return layout::to_device(keep, device);
}

template <Triangle Which, const char* Name>
struct TriangleOp {
    static constexpr const char* name = Name;
    struct Saved {
        std::int64_t diagonal = 0;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, std::int64_t diagonal)
    {
        TINYAMP_CHECK(x.dim() >= 2, shape, name, ": needs a tensor with at least 2 dimensions (a matrix, or a stack of them), but got shape ",
                      shape_str(x.shape()), "; unsqueeze a vector first");
        ctx.saved.diagonal = diagonal;
        const Tensor keep = kept_triangle(x.size(-2), x.size(-1), diagonal, Which, x.device());
        return where(keep, x, scalar_tensor(0.0, x.dtype()));  // zero of x's dtype: the result keeps it
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        const std::int64_t diagonal = ctx.saved.diagonal;
        return {Which == Triangle::lower ? tril(grad, diagonal) : triu(grad, diagonal)};
    }
};
constexpr char kTril[] = "tril", kTriu[] = "triu";
using TrilOp = TriangleOp<Triangle::lower, kTril>;
using TriuOp = TriangleOp<Triangle::upper, kTriu>;

}  // namespace

Tensor tril(const Tensor& x, std::int64_t diagonal) { return dispatch<TrilOp>(x, diagonal); }
Tensor triu(const Tensor& x, std::int64_t diagonal) { return dispatch<TriuOp>(x, diagonal); }

}  // namespace tinyamp
