// Scaled dot-product attention: the fused op (SdpaOp) and the composition of ops it is checked
// against. In f32 (also for f16/bf16 inputs) without a mask, forward and backward run the CPU
// attention kernel (kernels/cpu/attention_kernel.h: the batch's problems split between threads,
// the logits never stored for the whole batch; attention_on_kernel.h: the inputs read in place).
// Otherwise the fused forward runs two GEMMs (gemm_into) in the compute type with the mask and
// the softmax between them, one row of logits at a time, and its backward is written with ops in
// the compute type. Both backwards recompute
// the probabilities from the saved log-sum-exp of each row, as FlashAttention's does.
#include "tinyamp/ops/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tinyamp/support/grad_mode.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/attention_on_kernel.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/ops/matmul.h"
#include "tinyamp/ops/reduce.h"
#include "tinyamp/ops/softmax.h"
#include "tinyamp/ops/triangular.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The sizes of one attention call, after its arguments were checked.
struct AttentionShape {
    Shape batch;  // the broadcast leading dims of query, key and value
    std::int64_t L, S, E, Ev;
    Shape with(std::int64_t rows, std::int64_t cols) const
    {
        Shape shape = batch;
        shape.push_back(rows);
        shape.push_back(cols);
        return shape;
    }
    Shape logits() const { return with(L, S); }
};

// PyTorch's argument rules, with errors that say what to change. Both implementations check
// the same way, so they refuse the same calls.
AttentionShape check_attention(const char* op, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, double dropout_p,
                               bool is_causal)
{
    TINYAMP_CHECK(q.defined() && k.defined() && v.defined(), state, op, ": query, key and value must be defined tensors");
    detail::check_same_float_dtype(op, "query, key and value", {q, k, v});
    TINYAMP_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2, shape, op,
                  ": query, key and value need at least 2 dimensions ([..., L, E], [..., S, E], [..., S, Ev]), but got shapes ",
                  shape_str(q.shape()), ", ", shape_str(k.shape()), " and ", shape_str(v.shape()));
    TINYAMP_CHECK(q.size(-1) == k.size(-1), shape, op, ": query ", shape_str(q.shape()), " and key ", shape_str(k.shape()),
                  " must have the same last dimension E (", q.size(-1), " vs ", k.size(-1), ")");
    TINYAMP_CHECK(k.size(-2) == v.size(-2), shape, op, ": key ", shape_str(k.shape()), " and value ", shape_str(v.shape()),
                  " must have the same number of keys S in their second to last dimension (", k.size(-2), " vs ", v.size(-2), ")");
    const Shape qb = detail::batch_dims(q), kb = detail::batch_dims(k), vb = detail::batch_dims(v);
    TINYAMP_CHECK(broadcastable(qb, kb) && broadcastable(broadcast_shapes(qb, kb), vb), shape, op, ": the batch dimensions of query ",
                  shape_str(q.shape()), ", key ", shape_str(k.shape()), " and value ", shape_str(v.shape()),
                  " do not broadcast (sizes must be equal, or one of them 1)");
    TINYAMP_CHECK(dropout_p == 0.0, value, op, ": dropout_p = ", dropout_p,
                  " is not supported (tinyamp's attention has no dropout); pass 0.0, or put nn::Dropout after the attention");
    TINYAMP_CHECK(!(is_causal && mask.defined()), value, op,
                  ": an explicit attn_mask should not be set when is_causal is true, as in PyTorch; pass one of them (for both, "
                  "combine your mask with tril(ones({L, S}, boolean)) into one attn_mask)");
    const AttentionShape s{broadcast_shapes(broadcast_shapes(qb, kb), vb), q.size(-2), k.size(-2), q.size(-1), v.size(-1)};
    if (mask.defined()) {
        const DType d = mask.dtype();
        TINYAMP_CHECK(d == DType::boolean || d == DType::f32 || d == q.dtype(), dtype, op,
                      ": attn_mask must be bool (true = take part) or a float mask in f32 or the query's dtype ", dtype_name(q.dtype()),
                      ", but got ", dtype_name(d), "; build a bool one with a comparison, or convert it with .to(", dtype_name(q.dtype()), ")");
        const Shape logits = s.logits();
        const bool fits = mask.dim() <= std::int64_t(logits.size()) && broadcastable(mask.shape(), logits) &&
                          broadcast_shapes(mask.shape(), logits) == logits;
        TINYAMP_CHECK(fits, shape, op, ": attn_mask of shape ", shape_str(mask.shape()), " does not broadcast to the logits' shape ",
                      shape_str(logits), " ([batch..., L, S])");
    }
    return s;
}

double scale_or_default(const Tensor& q, std::optional<double> scale) { return scale.value_or(1.0 / std::sqrt(double(q.size(-1)))); }

// scale · q·kᵀ with the mask applied, written with ops in the dtype of q and k: the reference's
// first half, and the fused op's backward (in the compute type) where it recomputes the logits.
Tensor masked_logits(const Tensor& q, const Tensor& k, const Tensor& mask, bool is_causal, double scale)
{
    Tensor logits = mul(matmul(q, k.transpose(-2, -1)), scale);
    if (mask.defined()) logits = mask.dtype() == DType::boolean ? where(mask, logits, -kInf) : add(logits, mask.to(logits.dtype()));
    if (is_causal) logits = masked_fill(logits, triu(ones({q.size(-2), k.size(-2)}, DType::boolean, q.device()), 1), -kInf);
    return logits;
}

// In place, each row of `p` [count, L, S] (the scaled logits) becomes its softmax after the mask,
// and `lse` [count, L] gets the row's log-sum-exp. `mask` is undefined or a [count, L, S] view
// (bool, or in C). A row whose every logit is -inf (every key masked) becomes zeros and gets
// lse = +inf, so that exp(logit - lse) = 0 there when backward recomputes the probabilities.
template <class C>
void masked_softmax_rows(Tensor& p, Tensor& lse, const Tensor& mask, bool is_causal, std::int64_t count, std::int64_t L, std::int64_t S)
{
    constexpr C inf = std::numeric_limits<C>::infinity();
    C* logits = p.data_ptr<C>();
    C* row_lse = lse.data_ptr<C>();
    const bool bool_mask = mask.defined() && mask.dtype() == DType::boolean;
    const std::int64_t bs = mask.defined() ? mask.stride(0) : 0, rs = mask.defined() ? mask.stride(1) : 0, cs = mask.defined() ? mask.stride(2) : 0;
    for (std::int64_t b = 0; b < count; ++b)
        for (std::int64_t i = 0; i < L; ++i) {
            C* row = logits + (b * L + i) * S;
            if (bool_mask) {
                const bool* m = mask.data_ptr<bool>() + b * bs + i * rs;
                for (std::int64_t j = 0; j < S; ++j)
                    if (!m[j * cs]) row[j] = -inf;
            } else if (mask.defined()) {
                const C* m = mask.data_ptr<C>() + b * bs + i * rs;
                for (std::int64_t j = 0; j < S; ++j) row[j] += m[j * cs];
            }
            if (is_causal)
                for (std::int64_t j = i + 1; j < S; ++j) row[j] = -inf;
            C max = -inf;
            bool all_masked = true;  // a NaN is not masked: it makes the row NaN, as in softmax
            for (std::int64_t j = 0; j < S; ++j) {
                max = std::max(max, row[j]);
                all_masked = all_masked && row[j] == -inf;
            }
            if (all_masked) {
                std::fill(row, row + S, C(0));
                row_lse[b * L + i] = inf;
                continue;
            }
            C total = 0;
            for (std::int64_t j = 0; j < S; ++j) total += row[j] = std::exp(row[j] - max);
            for (std::int64_t j = 0; j < S; ++j) row[j] /= total;
            row_lse[b * L + i] = max + std::log(total);
        }
}

struct SdpaOp {
    static constexpr const char* name = "scaled_dot_product_attention";
    struct Saved {
        double scale = 1;
        bool is_causal = false;
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, double dropout_p, bool is_causal,
                          std::optional<double> scale)
    {
        const AttentionShape s = check_attention(name, q, k, v, mask, dropout_p, is_causal);
        for (const Tensor& t : {q, k, v, mask})
            TINYAMP_CHECK(!t.defined() || t.device().is_cpu(), device, name, " (the fused op) has no CUDA kernel yet, and got a tensor on ",
                          t.device(), "; move the tensors with .cpu(), or call scaled_dot_product_attention_reference, which is made of ops");
        const double factor = scale_or_default(q, scale);
        // The compute type: f32 for f16/bf16 (and f32), f64 for f64. Converting up is exact.
        const DType c = q.dtype() == DType::f64 ? DType::f64 : DType::f32;
        ctx.saved.scale = factor;
        ctx.saved.is_causal = is_causal;
        if (detail::attention_kernel_applies(q, k, v, mask)) {
            auto [out, lse] = detail::attention_kernel_forward(q, k, v, factor, is_causal);  // f16/bf16 rounded once, inside
            ctx.save_for_backward({q, k, v, mask, lse});
            return out;
        }
        const Tensor kc = layout::convert(k, c);
        const Shape logits_shape = s.logits();
        Tensor p = empty(logits_shape, c);
        detail::gemm_into(layout::convert(q, c), layout::transpose(kc, -2, -1), p, factor);
        Tensor lse = empty(Shape(logits_shape.begin(), logits_shape.end() - 1), c);
        const std::int64_t count = numel(s.batch);
        Tensor mask_stack;
        if (mask.defined())
            mask_stack = detail::as_stack(layout::expand(mask.dtype() == DType::boolean ? mask : layout::convert(mask, c), logits_shape), s.batch);
        if (c == DType::f64)
            masked_softmax_rows<double>(p, lse, mask_stack, is_causal, count, s.L, s.S);
        else
            masked_softmax_rows<float>(p, lse, mask_stack, is_causal, count, s.L, s.S);
        Tensor out = empty(s.with(s.L, s.Ev), c);
        detail::gemm_into(p, layout::convert(v, c), out);
        ctx.save_for_backward({q, k, v, mask, lse});
        return layout::convert(out, q.dtype());  // the one rounding of f16/bf16
    }

    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        const std::vector<Tensor>& saved = ctx.saved_tensors();
        const Tensor &q = saved[0], &k = saved[1], &v = saved[2], &mask = saved[3], &lse = saved[4];
        const double scale = ctx.saved.scale;
        const DType c = lse.dtype();
        // The kernel, unless backward itself is being recorded (create_graph: the ops below can be
        // differentiated again, the kernel cannot).
        if (detail::attention_kernel_applies(q, k, v, mask) && !is_grad_enabled()) {
            std::vector<Tensor> grads = detail::attention_kernel_backward(q, k, v, lse, grad, scale, ctx.saved.is_causal);
            grads.emplace_back();  // no mask, no gradient for it
            return grads;
        }
        const Tensor qc = q.to(c), kc = k.to(c), vc = v.to(c), g = grad.to(c);
        // The probabilities again, exp(logit - lse): 0 where masked (exp(-inf)) and in rows with
        // every key masked (lse = +inf there).
        const Tensor p = exp(sub(masked_logits(qc, kc, mask, ctx.saved.is_causal, scale), lse.unsqueeze(-1)));
        Tensor grad_q, grad_k, grad_v, grad_mask;
        if (ctx.needs_input_grad(2)) grad_v = sum_to(matmul(p.transpose(-2, -1), g), v.shape()).to(v.dtype());
        if (ctx.needs_input_grad(0) || ctx.needs_input_grad(1) || ctx.needs_input_grad(3)) {
            // Through the softmax, as SoftmaxOp's backward: d_logits = p * (dp - sum(dp * p)).
            const Tensor dp = matmul(g, vc.transpose(-2, -1));
            const Tensor d_logits = mul(p, sub(dp, sum(mul(dp, p), {-1}, true)));
            if (ctx.needs_input_grad(3)) grad_mask = sum_to(d_logits, mask.shape()).to(mask.dtype());
            const Tensor d_scores = mul(d_logits, scale);
            if (ctx.needs_input_grad(0)) grad_q = sum_to(matmul(d_scores, kc), q.shape()).to(q.dtype());
            if (ctx.needs_input_grad(1)) grad_k = sum_to(matmul(d_scores.transpose(-2, -1), qc), k.shape()).to(k.dtype());
        }
        return {grad_q, grad_k, grad_v, grad_mask};
    }
};

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& attn_mask, double dropout_p,
                                    bool is_causal, std::optional<double> scale)
{
    return dispatch<SdpaOp>(query, key, value, attn_mask, dropout_p, is_causal, scale);
}

Tensor scaled_dot_product_attention_reference(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& attn_mask,
                                              double dropout_p, bool is_causal, std::optional<double> scale)
{
    check_attention("scaled_dot_product_attention_reference", query, key, value, attn_mask, dropout_p, is_causal);
    const Tensor logits = masked_logits(query, key, attn_mask, is_causal, scale_or_default(query, scale));
    return matmul(softmax(logits, -1), value);
}

}  // namespace tinyamp
