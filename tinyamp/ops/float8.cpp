// FP8/MX ops: scaled_mm and to_float8 (no gradient), and fp8_linear, whose forward casts its
// operands with a scaling recipe and whose backward casts the output gradient, each cast noted
// in the trace (what lessons 17-19 and the visualizer show).
#include "tinyamp/ops/float8.h"

#include <cmath>
#include <variant>

#include "kernels/cpu/block_quantize.h"
#include "kernels/cpu/minifloat_convert.h"
#include "kernels/cpu/scaled_mm.h"
#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/dispatch/dispatch.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/ops/reduce.h"
#include "tinyamp/ops/type_promotion.h"

namespace tinyamp {
namespace {

namespace mf = tinyamp::minifloat;
namespace cpu = tinyamp::kernels::cpu;

constexpr int kMxBlock = 32;  // the block size scaled_mm's e8m0 scales stand for (OCP MX)

// ---------------------------------------------------------------- one operand, cast

// A [rows, k] matrix cast for the product: its codes, and its per-tensor or per-block scales.
struct Cast {
    Tensor codes;          // [rows, k] FP8, or [rows, k/2] f4e2m1x2
    Tensor block_scales;   // MX: e8m0, NVFP4: f8e4m3fn [rows, blocks]; undefined for per-tensor scaling
    float scale = 1.0f;    // multiplied in before the cast (1 for MX; 1 / the tensor scale for NVFP4)
    const mf::Format* format = nullptr;
    const mf::Format* block_format = nullptr;  // of block_scales
    int block_size = 0;

    cpu::ScaledOperand operand() const
    {
        cpu::ScaledOperand op;
        op.codes = static_cast<const std::uint8_t*>(codes.data_ptr());
        op.format = format;
        op.tensor_scale_inv = 1.0f / scale;
        if (block_scales.defined()) {
            op.block_scales = static_cast<const std::uint8_t*>(block_scales.data_ptr());
            op.block_scale_format = block_format;
            op.block_size = block_size;
        }
        return op;
    }
};

// How one operand is cast: its format, and either a tensor scale (current: from its amax, which
// cast_rows reads anyway; delayed: the state's, updated after the cast) or block scales.
struct CastPlan {
    const char* role;
    const char* recipe;
    const mf::Format* format;
    bool current = false;                              // per-tensor: scale = fmt_max / the tensor's amax
    float scale = 1.0f;                                // per-tensor otherwise (delayed)
    amp::DelayedScalingState* delayed = nullptr;       // delayed: update after the cast
    const amp::DelayedScaling* delayed_recipe = nullptr;
    const amp::MXBlockScaling* mx = nullptr;           // MX: block scales instead
    const amp::NVFP4BlockScaling* nvfp4 = nullptr;     // NVFP4: E4M3 block scales and a tensor scale
};

// What the trace keeps of one cast (trace::ScaledCast).
void note_cast(const CastPlan& plan, const Tensor& x, const Cast& cast, float amax, std::int64_t saturated, std::int64_t flushed)
{
    trace::ScaledCast note;
    note.role = plan.role;
    note.dtype = minifloat_dtype(*plan.format);
    note.recipe = plan.recipe;
    note.shape = x.shape();
    note.amax = amax;
    note.scale = cast.scale;
    const std::int64_t rows = x.size(0), k = x.size(1);
    const float* data = static_cast<const float*>(x.data_ptr());
    note.log2_histogram.assign(61, 0);
    const std::uint8_t* scales = cast.block_scales.defined() ? static_cast<const std::uint8_t*>(cast.block_scales.data_ptr()) : nullptr;
    cpu::log2_histogram(data, rows, k, cast.scale, scales, cast.block_format, cast.block_size, trace::ScaledCast::kHistogramLowest,
                        note.log2_histogram.data(), int(note.log2_histogram.size()), note.zeros);
    const std::int64_t numel = rows * k, nonzero = numel - note.zeros;
    note.saturated_share = numel ? double(saturated) / double(numel) : 0.0;
    note.flushed_share = nonzero ? double(flushed) / double(nonzero) : 0.0;
    if (plan.delayed) note.amax_history = plan.delayed->history.values();
    if (scales) {
        note.blocks_per_row = cast.block_scales.size(1);
        const std::int64_t kept = std::min<std::int64_t>(cast.block_scales.numel(), trace::ScaledCast::kMaxBlockScales);
        for (std::int64_t i = 0; i < kept; ++i)
            note.block_scale_exponents.push_back(std::int16_t(std::ilogb(mf::decode(*cast.block_format, scales[i]))));
    }
    trace::note_scaled_cast(std::move(note));
}

// Casts x, an f32 contiguous [rows, k] matrix, as the plan says.
Cast cast_rows(const Tensor& x, const CastPlan& plan)
{
    const std::int64_t rows = x.size(0), k = x.size(1);
    const float* data = static_cast<const float*>(x.data_ptr());
    const float amax = cpu::tensor_amax(data, rows * k);
    Cast cast;
    cast.format = plan.format;
    std::int64_t saturated = 0, flushed = 0;
    if (plan.mx || plan.nvfp4) {
        cast.block_size = plan.mx ? plan.mx->block_size : plan.nvfp4->block_size;
        cast.block_format = plan.mx ? &mf::e8m0 : &mf::f8e4m3fn;
        cast.codes = empty({rows, cpu::code_bytes_per_row(*plan.format, k)}, minifloat_dtype(*plan.format));
        cast.block_scales = empty({rows, cpu::blocks_per_row(k, cast.block_size)}, minifloat_dtype(*cast.block_format));
        auto* codes = static_cast<std::uint8_t*>(cast.codes.data_ptr());
        auto* scales = static_cast<std::uint8_t*>(cast.block_scales.data_ptr());
        cpu::BlockQuantizeCounts counts;
        if (plan.mx) {
            counts = cpu::mx_quantize(data, rows, k, *plan.mx, codes, scales);
        } else {
            // NVFP4's tensor scale is a decode scale (values = codes * block scale * it).
            const float tensor_scale = amp::nvfp4_tensor_scale(amax);
            counts = cpu::nvfp4_quantize(data, rows, k, *plan.nvfp4, tensor_scale, codes, scales);
            cast.scale = 1.0f / tensor_scale;
        }
        saturated = counts.saturated;
        flushed = counts.flushed;
    } else {
        cast.scale = plan.current ? amp::current_scale(amax, *plan.format) : plan.scale;
        cast.codes = empty({rows, k}, minifloat_dtype(*plan.format));
        const cpu::QuantizeCounts counts = cpu::quantize_f32(*plan.format, data, cast.scale, static_cast<std::uint8_t*>(cast.codes.data_ptr()),
                                                             rows * k, mf::Overflow::saturate);
        saturated = counts.saturated;
        flushed = counts.flushed;
        if (plan.delayed) plan.delayed->update(amax, *plan.format, *plan.delayed_recipe);
    }
    if (trace::current()) note_cast(plan, x, cast, amax, saturated, flushed);
    return cast;
}

// a [m, k] times b [n, k] transposed, from their casts, into f32 [m, n].
Tensor product(const Cast& a, const Cast& b, std::int64_t m, std::int64_t n, std::int64_t k)
{
    Tensor out = empty({m, n}, DType::f32);
    cpu::scaled_mm(a.operand(), b.operand(), static_cast<float*>(out.data_ptr()), m, n, k);
    return out;
}

// x as an f32 contiguous [rows, cols] matrix (a copy only where needed).
Tensor f32_matrix(const Tensor& x, std::int64_t rows, std::int64_t cols)
{
    return layout::contiguous(layout::reshape(layout::convert(x, DType::f32), {rows, cols}));
}

Tensor transposed(const Tensor& m) { return layout::contiguous(layout::t(m)); }

// FP4 packs two values a byte along the reduction dimension, so an odd one gets a column of
// zeros, which adds nothing to the product (nor to a block's amax). \p cols is the padded width.
Tensor padded_to(const Tensor& m, std::int64_t cols)
{
    if (m.size(1) == cols) return m;
    Tensor out = zeros({m.size(0), cols}, DType::f32);
    layout::copy_into(layout::narrow(out, 1, 0, m.size(1)), m);
    return out;
}

// The reduction width a product of casts in \p format uses: \p k, or k + 1 for FP4 and odd k.
std::int64_t packed_width(const mf::Format& format, std::int64_t k) { return format.bits == 4 && k % 2 ? k + 1 : k; }

// ---------------------------------------------------------------- fp8_linear

// How fp8_linear casts, decided once per call from the recipe.
struct Fp8Config {
    amp::ScalingRecipe recipe;
    std::shared_ptr<Fp8LinearState> state;

    const char* name() const { return amp::recipe_name(recipe); }
    const amp::MXBlockScaling* mx() const { return std::get_if<amp::MXBlockScaling>(&recipe); }
    const amp::NVFP4BlockScaling* nvfp4() const { return std::get_if<amp::NVFP4BlockScaling>(&recipe); }
    bool blocks() const { return mx() || nvfp4(); }  // scales per block along the reduction dimension
    const amp::DelayedScaling* delayed() const { return std::get_if<amp::DelayedScaling>(&recipe); }
    amp::Fp8Format fp8_format() const
    {
        if (const auto* d = delayed()) return d->fp8_format;
        return std::get<amp::Float8CurrentScaling>(recipe).fp8_format;
    }
    const mf::Format& forward_format() const
    {
        return mx() ? *mx()->element : nvfp4() ? mf::f4e2m1 : amp::forward_format(fp8_format());
    }
    const mf::Format& backward_format() const
    {
        return mx() ? *mx()->element : nvfp4() ? mf::f4e2m1 : amp::backward_format(fp8_format());
    }

    // The plan for one operand: current or delayed per-tensor scaling, or the block recipe.
    CastPlan plan(const char* role, const mf::Format& format, amp::DelayedScalingState* delayed_state) const
    {
        CastPlan p{role, name(), &format};
        if (mx()) {
            p.mx = mx();
        } else if (nvfp4()) {
            p.nvfp4 = nvfp4();
        } else if (delayed()) {
            p.scale = delayed_state->scale;
            p.delayed = delayed_state;
            p.delayed_recipe = delayed();
        } else {
            p.current = true;
        }
        return p;
    }
};

struct Fp8LinearOp {
    static constexpr const char* name = "fp8_linear";
    struct Saved {
        Fp8Config config;
        Shape x_shape;
        DType x_dtype = DType::f32;
        float x_scale = 1, w_scale = 1;  ///< per-tensor recipes: the scales of the saved codes
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& x, const Tensor& weight, const Tensor& bias, const Fp8Config& config)
    {
        require_cpu(name, {x, weight, bias});
        TINYAMP_CHECK(is_floating_point(x.dtype()) && weight.dtype() == DType::f32 && (!bias.defined() || bias.dtype() == DType::f32),
                      dtype, "fp8_linear: x must be a float tensor and weight and bias f32 (the master weights), got x ",
                      dtype_name(x.dtype()), ", weight ", dtype_name(weight.dtype()));
        TINYAMP_CHECK(weight.dim() == 2 && x.dim() >= 1 && x.size(-1) == weight.size(1), shape, "fp8_linear: x of shape ",
                      shape_str(x.shape()), " does not fit weight of shape ", shape_str(weight.shape()),
                      ": weight must be [out_features, in_features] and x's last dimension in_features");
        TINYAMP_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)), shape, "fp8_linear: bias of shape ",
                      shape_str(bias.shape()), " must be [", weight.size(0), "] (one per output feature)");
        const std::int64_t k = weight.size(1), n = weight.size(0), m = k ? x.numel() / k : 0;
        const std::int64_t kp = packed_width(config.forward_format(), k);
        const Tensor x2 = f32_matrix(x, m, k), w2 = layout::contiguous(weight);
        Fp8LinearState* state = config.state.get();
        const Cast cx = cast_rows(padded_to(x2, kp), config.plan("input", config.forward_format(), state ? &state->input : nullptr));
        const Cast cw = cast_rows(padded_to(w2, kp), config.plan("weight", config.forward_format(), state ? &state->weight : nullptr));
        Tensor out = product(cx, cw, m, n, kp);
        if (bias.defined()) out = add(out, bias);

        // Per-tensor casts commute with transposing, so backward reuses the codes (1 byte an
        // element saved, as torchao saves them); MX and NVFP4 blocks run along K here and along
        // another dimension there, so they keep the f32 tensors and cast again.
        if (config.blocks()) {
            ctx.save_for_backward({x2, w2});
        } else {
            ctx.save_for_backward({cx.codes, cw.codes});
            ctx.saved.x_scale = cx.scale;
            ctx.saved.w_scale = cw.scale;
        }
        ctx.saved.config = config;
        ctx.saved.x_shape = x.shape();
        ctx.saved.x_dtype = x.dtype();
        Shape shape = x.shape();
        shape.back() = n;
        return layout::view(out, shape);
    }

    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        const Fp8Config& config = ctx.saved.config;
        const Shape& x_shape = ctx.saved.x_shape;
        const Tensor& a = ctx.saved_tensors()[0];  // x: f32 [m, k] (MX) or codes
        const Tensor& b = ctx.saved_tensors()[1];  // weight: f32 [n, k] (MX) or codes
        const std::int64_t m = a.size(0), k = a.size(1), n = b.size(0);  // per-tensor codes are FP8: one a byte
        const Tensor g = f32_matrix(grad, m, n);
        Fp8LinearState* state = config.state.get();
        const mf::Format& gf = config.backward_format();
        const std::int64_t np = packed_width(gf, n), mp = packed_width(gf, m);
        const Cast cg = cast_rows(padded_to(g, np), config.plan("grad_output", gf, state ? &state->grad_output : nullptr));

        Tensor grad_x, grad_w;
        if (config.blocks()) {
            // Blocks along the new reduction dimension: n for grad_x, m for grad_w.
            CastPlan plan_w = config.plan("weight (transposed)", config.forward_format(), nullptr);
            grad_x = product(cg, cast_rows(padded_to(transposed(b), np), plan_w), m, k, np);
            CastPlan plan_g = config.plan("grad_output (transposed)", gf, nullptr);
            CastPlan plan_x = config.plan("input (transposed)", config.forward_format(), nullptr);
            // Named, so that every compiler casts (and the trace lists) the input before grad_output:
            // as arguments of product() their order was the compiler's (GCC: right to left, Clang,
            // the web build's: left to right), and the traces differed.
            const Cast x_t = cast_rows(padded_to(transposed(a), mp), plan_x);
            const Cast g_t = cast_rows(padded_to(transposed(g), mp), plan_g);
            grad_w = product(g_t, x_t, n, k, mp);
        } else {
            // The forward's codes, transposed (the same codes a cast of the transpose would give).
            const auto reuse = [&](const Tensor& codes, float scale) {
                Cast c;
                c.codes = transposed(codes);
                c.scale = scale;
                c.format = &minifloat_format(codes.dtype());
                return c;
            };
            Cast g_t = reuse(cg.codes, cg.scale);
            grad_x = product(cg, reuse(b, ctx.saved.w_scale), m, k, n);
            grad_w = product(g_t, reuse(a, ctx.saved.x_scale), n, k, m);
        }
        const Tensor grad_b = ctx.needs_input_grad(2) ? sum(g, {0}) : Tensor();
        return {ctx.needs_input_grad(0) ? grad_x.reshape(x_shape).to(ctx.saved.x_dtype) : Tensor(),
                ctx.needs_input_grad(1) ? grad_w : Tensor(), grad_b};
    }
};

// ---------------------------------------------------------------- scaled_mm, to_float8

void check_code_matrix(const Tensor& t, const char* what)
{
    TINYAMP_CHECK(t.dim() == 2 && (t.dtype() == DType::f8e4m3fn || t.dtype() == DType::f8e5m2 || t.dtype() == DType::f4e2m1x2), dtype,
                  "scaled_mm: ", what, " must be a 2-D f8e4m3fn, f8e5m2 or f4e2m1x2 tensor of codes, got ", dtype_name(t.dtype()), " of shape ",
                  shape_str(t.shape()), "; cast with to_float8 (or .to(f8e4m3fn)) first");
}

// One operand's scale: 0-d f32 (the dequantization factor) or MX e8m0 blocks [rows, ceil(k/32)].
void attach_scale(cpu::ScaledOperand& op, const Tensor& scale, std::int64_t rows, std::int64_t k, const char* what)
{
    if (scale.dtype() == DType::f32 && scale.numel() == 1) {
        op.tensor_scale_inv = float(scale.item());
        return;
    }
    const std::int64_t blocks = (k + kMxBlock - 1) / kMxBlock;
    TINYAMP_CHECK(scale.dtype() == DType::e8m0 && scale.dim() == 2 && scale.size(0) == rows && scale.size(1) == blocks, shape, "scaled_mm: ",
                  what, " must be a one-element f32 tensor (per-tensor scaling) or e8m0 block scales of shape [", rows, ", ", blocks,
                  "] (MX: one per 32 values along K), got ", dtype_name(scale.dtype()), " of shape ", shape_str(scale.shape()));
    op.block_scales = static_cast<const std::uint8_t*>(scale.data_ptr());
    op.block_scale_format = &mf::e8m0;
    op.block_size = kMxBlock;
}

struct ScaledMmOp {
    static constexpr const char* name = "scaled_mm";
    static constexpr bool takes_minifloat = true;
    static Tensor forward(Context&, const Tensor& a, const Tensor& b, const Tensor& scale_a, const Tensor& scale_b, DType out_dtype)
    {
        require_cpu(name, {a, b, scale_a, scale_b});
        check_code_matrix(a, "a");
        check_code_matrix(b, "b");
        TINYAMP_CHECK(out_dtype == DType::f32 || out_dtype == DType::bf16 || out_dtype == DType::f16, dtype,
                      "scaled_mm: out_dtype must be f32, bf16 or f16, got ", dtype_name(out_dtype));
        const int per_byte = traits(a.dtype()).values_per_element;
        const std::int64_t m = a.size(0), k = a.size(1) * per_byte, n = b.size(1);
        TINYAMP_CHECK(b.dtype() != DType::f4e2m1x2 || a.dtype() == DType::f4e2m1x2, dtype, "scaled_mm: a is ", dtype_name(a.dtype()),
                      " and b f4e2m1x2: FP4 multiplies FP4 only");
        TINYAMP_CHECK(b.size(0) * traits(b.dtype()).values_per_element == k, shape, "scaled_mm: a of shape ", shape_str(a.shape()),
                      " and b of shape ", shape_str(b.shape()), " do not fit: b must be [K, N] with K = ", k);
        // b's transpose, [n, k] row-major, is what the kernel reads (torch asks for a column-major b).
        const Tensor bt = layout::contiguous(layout::t(b));
        const Tensor ac = layout::contiguous(a);
        cpu::ScaledOperand opa, opb;
        opa.codes = static_cast<const std::uint8_t*>(ac.data_ptr());
        opa.format = &minifloat_format(a.dtype());
        opb.codes = static_cast<const std::uint8_t*>(bt.data_ptr());
        opb.format = &minifloat_format(b.dtype());
        const Tensor sa = layout::contiguous(scale_a), sb = layout::contiguous(scale_b);
        attach_scale(opa, sa, m, k, "scale_a");
        attach_scale(opb, sb, n, k, "scale_b");
        Tensor out = empty({m, n}, DType::f32);
        cpu::scaled_mm(opa, opb, static_cast<float*>(out.data_ptr()), m, n, k);
        return layout::convert(out, out_dtype);
    }
};

struct ToFloat8Op {
    static constexpr const char* name = "to_float8";
    static Tensor forward(Context&, const Tensor& x, const Tensor& scale, DType dtype)
    {
        require_cpu(name, {x, scale});
        TINYAMP_CHECK(dtype == DType::f8e4m3fn || dtype == DType::f8e5m2, dtype, "to_float8: dtype must be f8e4m3fn or f8e5m2, got ",
                      dtype_name(dtype), " (MX and FP4 casts are made by fp8_linear with an MX recipe)");
        TINYAMP_CHECK(scale.numel() == 1 && is_floating_point(scale.dtype()), shape,
                      "to_float8: scale must be a one-element float tensor, got ", dtype_name(scale.dtype()), " of shape ", shape_str(scale.shape()));
        const Tensor x32 = layout::contiguous(layout::convert(x, DType::f32));
        Tensor out = empty(x.shape(), dtype);
        cpu::quantize_f32(minifloat_format(dtype), static_cast<const float*>(x32.data_ptr()), float(scale.item()),
                          static_cast<std::uint8_t*>(out.data_ptr()), x.numel(), mf::Overflow::saturate);
        return out;
    }
};

}  // namespace

Tensor scaled_mm(const Tensor& a, const Tensor& b, const Tensor& scale_a, const Tensor& scale_b, DType out_dtype)
{
    return dispatch<ScaledMmOp>(a, b, scale_a, scale_b, out_dtype);
}

Tensor to_float8(const Tensor& x, const Tensor& scale, DType dtype) { return dispatch<ToFloat8Op>(x, scale, dtype); }

Tensor ScaledTensor::dequantize() const { return mul(data.to(DType::f32), scale_inv); }

ScaledTensor to_scaled(const Tensor& x, DType dtype)
{
    TINYAMP_CHECK(dtype == DType::f8e4m3fn || dtype == DType::f8e5m2, dtype, "to_scaled: dtype must be f8e4m3fn or f8e5m2, got ",
                  dtype_name(dtype));
    const Tensor x32 = layout::contiguous(layout::convert(x, DType::f32));
    const float scale = amp::current_scale(cpu::tensor_amax(static_cast<const float*>(x32.data_ptr()), x32.numel()), minifloat_format(dtype));
    return {to_float8(x32, scalar_tensor(scale), dtype), scalar_tensor(1.0 / double(scale))};  // x32: converted once
}

Tensor scaled_mm(const ScaledTensor& a, const ScaledTensor& b, DType out_dtype)
{
    return scaled_mm(a.data, b.data, a.scale_inv, b.scale_inv, out_dtype);
}

Tensor fp8_linear(const Tensor& x, const Tensor& weight, const Tensor& bias, const amp::ScalingRecipe& recipe,
                  const std::shared_ptr<Fp8LinearState>& state)
{
    amp::validate(recipe);
    TINYAMP_CHECK(!std::holds_alternative<amp::DelayedScaling>(recipe) || state, value,
                  "fp8_linear: delayed scaling keeps an amax history per layer; pass an Fp8LinearState (nn::Linear keeps one under "
                  "amp::fp8_autocast)");
    if (const auto* d = std::get_if<amp::DelayedScaling>(&recipe))
        TINYAMP_CHECK(state->input.history.length() == d->amax_history_len, value, "fp8_linear: the state's amax history holds ",
                      state->input.history.length(), " steps but the recipe asks for ", d->amax_history_len,
                      "; make the state with Fp8LinearState(recipe.amax_history_len)");
    return dispatch<Fp8LinearOp>(x, weight, bias, Fp8Config{recipe, state});
}

}  // namespace tinyamp
