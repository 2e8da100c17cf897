// The scaling recipes' rules. Each function says, next to its code, which line of Transformer
// Engine or torchao it follows, and where tinyamp differs on purpose.
#include "tinyamp/values/scaling_recipe.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "tinyamp/support/error.h"
#include "tinyamp/values/bit_cast.h"

namespace tinyamp::amp {

namespace {

bool is_fp8_format(const minifloat::Format& f) { return &f == &minifloat::f8e4m3fn || &f == &minifloat::f8e5m2; }

bool is_mx_element_format(const minifloat::Format& f) { return is_fp8_format(f) || &f == &minifloat::f4e2m1; }

void check_fp8_format(const minifloat::Format& f, const char* rule)
{
    TINYAMP_CHECK(is_fp8_format(f), dtype, rule, " scales for an FP8 format (f8e4m3fn or f8e5m2), got ", f.name);
}

void check_mx_element(const minifloat::Format* f, const char* what)
{
    TINYAMP_CHECK(f != nullptr && is_mx_element_format(*f), dtype, what,
                  " expects an MX element format (f8e4m3fn, f8e5m2 or f4e2m1), got ", f ? f->name : "null");
}

// An amax is a largest |x|: negative means the caller passed something else. NaN passes (it is a
// case each rule handles).
void check_amax(float amax, const char* rule)
{
    TINYAMP_CHECK(!(amax < 0.0f), value, rule, " expects an amax >= 0 (a largest absolute value), got ", amax);
}

void check_block_size(int block_size, const char* recipe)
{
    TINYAMP_CHECK(block_size > 0, value, recipe, " block_size must be positive, got ", block_size);
}

void check_margin(int margin)
{
    TINYAMP_CHECK(margin >= 0, value, "delayed scaling's margin must be >= 0, got ", margin);
}

void check_history_length(int length)
{
    TINYAMP_CHECK(length >= 1, value, "delayed scaling's amax_history_len must be >= 1, got ", length);
}

// The exponent of the element format's largest value: 8 for E4M3 (448 = 1.75 * 2^8), 15 for E5M2,
// 2 for E2M1 (6 = 1.5 * 2^2). torchao calls it F8E4M3_MAX_POW2 and so on.
int emax_of(const minifloat::Format& element) { return std::ilogb(element.max); }

}  // namespace

const minifloat::Format& forward_format(Fp8Format) { return minifloat::f8e4m3fn; }

const minifloat::Format& backward_format(Fp8Format format)
{
    return format == Fp8Format::HYBRID ? minifloat::f8e5m2 : minifloat::f8e4m3fn;
}

const char* fp8_format_name(Fp8Format format) { return format == Fp8Format::HYBRID ? "HYBRID" : "E4M3"; }

MXBlockScaling MXBlockScaling::mxfp8(ScaleCalculationMode mode) { return {&minifloat::f8e4m3fn, 32, mode}; }

MXBlockScaling MXBlockScaling::mxfp4(ScaleCalculationMode mode) { return {&minifloat::f4e2m1, 32, mode}; }

const char* recipe_name(const ScalingRecipe& recipe)
{
    if (std::holds_alternative<Float8CurrentScaling>(recipe)) return "current";
    if (std::holds_alternative<DelayedScaling>(recipe)) return "delayed";
    if (const auto* mx = std::get_if<MXBlockScaling>(&recipe)) return mx->element && mx->element->bits == 4 ? "mxfp4" : "mxfp8";
    return "nvfp4";
}

void validate(const ScalingRecipe& recipe)
{
    if (const auto* delayed = std::get_if<DelayedScaling>(&recipe)) {
        check_margin(delayed->margin);
        check_history_length(delayed->amax_history_len);
    } else if (const auto* mx = std::get_if<MXBlockScaling>(&recipe)) {
        check_mx_element(mx->element, "MXBlockScaling");
        check_block_size(mx->block_size, "MXBlockScaling");
    } else if (const auto* nvfp4 = std::get_if<NVFP4BlockScaling>(&recipe)) {
        check_block_size(nvfp4->block_size, "NVFP4BlockScaling");
    }
}

float current_scale(float amax, const minifloat::Format& format)
{
    check_fp8_format(format, "current_scale");
    check_amax(amax, "current_scale");
    // torchao: amax.to(float64); finfo.max / torch.clamp(amax, min=EPS); .to(float32).
    // torch.clamp keeps a NaN, which std::max would not promise: so NaN is its own case.
    const double amax64 = amax;
    if (std::isnan(amax64)) return std::numeric_limits<float>::quiet_NaN();
    return float(format.max / std::max(amax64, kCurrentScalingEps));
}

AmaxHistory::AmaxHistory(int length)
{
    check_history_length(length);
    values_.assign(std::size_t(length), 0.0f);
}

void AmaxHistory::push(float amax)
{
    // TE's roll: torch.roll(history, -1) (slot i + 1 to slot i, slot 0 to the end), then
    // history[0] = 0; then the new step's amax goes in slot 0. With L = 1 the roll does nothing.
    std::rotate(values_.begin(), values_.begin() + 1, values_.end());
    values_[0] = amax;
}

float AmaxHistory::amax(AmaxComputeAlgo algo) const
{
    if (algo == AmaxComputeAlgo::most_recent) return values_[0];
    // TE's kernel starts from 0 and takes fmaxf over the slots: fmaxf returns the other operand
    // when one is NaN, so a NaN step is skipped here, and an inf stays for L steps.
    float amax = 0.0f;
    for (float v : values_) amax = std::fmax(amax, v);
    return amax;
}

float delayed_scale(float previous_scale, float amax, const minifloat::Format& format, int margin)
{
    check_fp8_format(format, "delayed_scale");
    check_margin(margin);
    check_amax(amax, "delayed_scale");
    // TE (delayed_scaling.cu): scaled_max = fp8_max * std::pow(2.f, -margin), in f32; the
    // issue's (fmt_max / amax) / 2^margin is the same number (dividing by a power of two is exact).
    const float scaled_max = float(format.max) * std::exp2(-float(margin));
    float scale = std::isfinite(amax) && amax > 0.0f ? scaled_max / amax : previous_scale;
    // TE: "When the amax is too tiny that the scale becoming infinite in FP32, we set the scale
    // to the max value of FP32".
    if (std::isinf(scale)) scale = std::numeric_limits<float>::max();
    return scale;
}

std::uint8_t mx_block_scale(float block_amax, const minifloat::Format& element, ScaleCalculationMode mode)
{
    check_mx_element(&element, "mx_block_scale");
    check_amax(block_amax, "mx_block_scale");
    if (std::isnan(block_amax)) return 0xFF;  // torchao: torch.where(isnan(max_abs), 255, ...)
    constexpr int kBias = 127;               // E8M0: code = exponent + 127
    int exponent;
    if (mode == ScaleCalculationMode::floor) {
        // torchao reads amax's f32 exponent field and unbiases it: floor(log2 amax) for a normal
        // amax, -127 for 0 and the f32 subnormals, 128 for inf.
        const int field = int((tinyamp::bit_cast<std::uint32_t>(block_amax) >> 23) & 0xFF);
        exponent = (field - kBias) - emax_of(element);
    } else {
        // torchao: descale = max_abs / max_pos (f32), exponent = ceil(log2(descale)). torchao takes
        // the f32 log2, which can round 2^k * (1 + 2^-23) down to k; tinyamp takes the exact
        // ceiling, as NVIDIA's cvt.rp (round toward +inf) to ue8m0 does.
        const float descale = block_amax / float(element.max);
        if (descale == 0.0f) {
            exponent = -kBias;  // log2(0) = -inf, clamped below
        } else if (std::isinf(descale)) {
            exponent = kBias;   // log2(inf) = inf, clamped below
        } else {
            int e;  // descale = m * 2^e, 0.5 <= m < 1, subnormals included
            const float m = std::frexp(descale, &e);
            exponent = m == 0.5f ? e - 1 : e;  // a power of two is its own ceiling
        }
    }
    // torchao clamps FLOOR's exponent to [-127, 128] ("add one to positive range to capture NaNs"),
    // but no amax reaches 128 there (inf gives 128 - emax_elem); RCEIL clamps to [-127, 127].
    exponent = std::clamp(exponent, -kBias, kBias);
    return std::uint8_t(exponent + kBias);
}

float nvfp4_tensor_scale(float tensor_amax)
{
    check_amax(tensor_amax, "nvfp4_tensor_scale");
    // torchao: amax.to(float32) / (F8E4M3_MAX * F4_E2M1_MAX). torchao does not guard amax 0 (the
    // block scales would divide by 0); TE's compute_global_encode_scaling_factor_FP4 returns 1
    // for amax 0 and for an inf amax. tinyamp returns 1 for every amax whose scale is not a
    // positive finite f32.
    const float scale = tensor_amax / float(minifloat::f8e4m3fn.max * minifloat::f4e2m1.max);
    return std::isfinite(scale) && scale > 0.0f ? scale : 1.0f;
}

std::uint8_t nvfp4_block_scale(float block_amax, float tensor_scale)
{
    check_amax(block_amax, "nvfp4_block_scale");
    TINYAMP_CHECK(std::isfinite(tensor_scale) && tensor_scale > 0.0f, value,
                  "nvfp4_block_scale expects a positive finite tensor scale, got ", tensor_scale);
    // torchao: block_scale = max_abs / F4_E2M1_MAX; scaled = block_scale / per_tensor_scale;
    // clamp(scaled, min=E4M3_EPS, max=F8E4M3_MAX).to(float8_e4m3fn). All in f32.
    const float scaled = (block_amax / float(minifloat::f4e2m1.max)) / tensor_scale;
    if (std::isnan(scaled)) return minifloat::nan_code(minifloat::f8e4m3fn, false);
    const float clamped = std::clamp(scaled, kNvfp4MinBlockScale, float(minifloat::f8e4m3fn.max));
    return minifloat::encode(minifloat::f8e4m3fn, clamped, minifloat::Overflow::saturate);
}

void DelayedScalingState::update(float amax, const minifloat::Format& format, const DelayedScaling& recipe)
{
    history.push(amax);
    scale = delayed_scale(scale, history.amax(recipe.amax_compute_algo), format, recipe.margin);
}

}  // namespace tinyamp::amp
