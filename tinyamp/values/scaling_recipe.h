#pragma once
/// \file
/// FP8 / MX scaling recipes as data, and the rules that turn an amax (a largest |x|) into a scale.
///
/// A narrow format holds values up to its max (448 for E4M3, 6 for E2M1); a tensor is multiplied
/// by a scale before the cast so that its largest value lands near that max. The recipes differ in
/// *which* amax they use and *how much* of the tensor shares one scale:
///   - Float8CurrentScaling (torchao "tensorwise"): this tensor's amax, one f32 scale;
///   - DelayedScaling (Transformer Engine): the amaxes of the last L steps (AmaxHistory), one f32
///     scale computed after the step and used at the next one;
///   - MXBlockScaling (OCP Microscaling): one power-of-two E8M0 scale per block of 32 values along
///     the reduction dimension (MXFP8: E4M3 elements, MXFP4: E2M1 elements);
///   - NVFP4BlockScaling: E2M1 elements, one E4M3 scale per block of 16, and one f32 tensor scale.
///
/// Everything here is plain data and pure functions on floats (no Tensor), so the kernels
/// (kernels/cpu/block_quantize.h) can use it. docs/number_formats.md, section "Scaling recipes",
/// states each rule as a formula and says which file of Transformer Engine or torchao it follows.

#include <cstdint>
#include <variant>
#include <vector>

#include "tinyamp/values/minifloat.h"

namespace tinyamp::amp {

/// Which FP8 formats a recipe uses (Transformer Engine's `recipe.Format`).
enum class Fp8Format : std::uint8_t {
    E4M3,    ///< E4M3 everywhere (forward and gradients)
    HYBRID,  ///< E4M3 in the forward pass (weights, activations), E5M2 for gradients (more range)
};

/// The format of forward-pass tensors (weights, activations): E4M3 for both Fp8Formats.
const minifloat::Format& forward_format(Fp8Format format);
/// The format of gradients: E4M3 for Fp8Format::E4M3, E5M2 for Fp8Format::HYBRID.
const minifloat::Format& backward_format(Fp8Format format);
/// "E4M3" or "HYBRID", as Transformer Engine names them.
const char* fp8_format_name(Fp8Format format);

/// Which amax of the history delayed scaling uses (Transformer Engine's `amax_compute_algo`).
enum class AmaxComputeAlgo : std::uint8_t {
    max,          ///< the largest amax of the last L steps (a NaN in the history is skipped, as fmaxf does)
    most_recent,  ///< the amax of the step just recorded
};

/// How an MX block's amax becomes its power-of-two scale (torchao's `ScaleCalculationMode`).
enum class ScaleCalculationMode : std::uint8_t {
    /// OCP MX v1.0 section 6.3: 2^(floor(log2 amax) - emax_elem). The block's largest value can
    /// land above the element max (up to almost 2x) and is then saturated.
    floor,
    /// NVIDIA (cuBLAS block quantization, PTX `cvt.rp.satfinite.ue8m0x2.f32`): the power of two
    /// amax / elem_max rounded up, so the largest value never passes the element max.
    rceil,
};

/// torchao's current ("tensorwise", dynamic) scaling: each tensor is scaled by its own amax,
/// computed just before the cast.
struct Float8CurrentScaling {
    Fp8Format fp8_format = Fp8Format::HYBRID;  ///< E4M3 forward; E5M2 (HYBRID) or E4M3 gradients
};

/// Transformer Engine's delayed scaling (`recipe.DelayedScaling`): the scale used at a step comes
/// from the amaxes recorded at earlier steps (AmaxHistory, delayed_scale()).
struct DelayedScaling {
    int margin = 0;                            ///< scale = (fmt_max / amax) / 2^margin; >= 0
    Fp8Format fp8_format = Fp8Format::HYBRID;  ///< E4M3 forward; E5M2 (HYBRID) or E4M3 gradients
    int amax_history_len = 1024;               ///< steps the history keeps (L); >= 1
    AmaxComputeAlgo amax_compute_algo = AmaxComputeAlgo::max;  ///< which amax of the history
};

/// OCP Microscaling (MX): blocks of `block_size` values along the reduction dimension share one
/// E8M0 (power-of-two) scale, from mx_block_scale().
struct MXBlockScaling {
    const minifloat::Format* element = &minifloat::f8e4m3fn;  ///< f8e4m3fn, f8e5m2 or f4e2m1
    int block_size = 32;                                      ///< values per scale; > 0
    ScaleCalculationMode scale_mode = ScaleCalculationMode::floor;  ///< how the E8M0 scale is chosen

    /// MXFP8: E4M3 elements, blocks of 32.
    static MXBlockScaling mxfp8(ScaleCalculationMode mode = ScaleCalculationMode::floor);
    /// MXFP4: E2M1 elements, blocks of 32.
    static MXBlockScaling mxfp4(ScaleCalculationMode mode = ScaleCalculationMode::floor);
};

/// NVIDIA's NVFP4: E2M1 elements in blocks of `block_size` (16), one E4M3 scale per block
/// (nvfp4_block_scale()) on top of one f32 scale per tensor (nvfp4_tensor_scale()).
struct NVFP4BlockScaling {
    int block_size = 16;  ///< values per E4M3 block scale; > 0
};

/// One of the four recipes.
using ScalingRecipe = std::variant<Float8CurrentScaling, DelayedScaling, MXBlockScaling, NVFP4BlockScaling>;

/// The recipe's name for traces: "current", "delayed", "mxfp8", "mxfp4" or "nvfp4".
const char* recipe_name(const ScalingRecipe& recipe);

/// Throws Error if a field is out of range: a negative margin or a history length below 1
/// (value), a block size that is not positive (value), an MX element format that is not one of
/// f8e4m3fn, f8e5m2, f4e2m1 (dtype). The message names the field and the bad value.
void validate(const ScalingRecipe& recipe);

/// Current scaling's rule, as torchao's `amax_to_scale` (torchao/float8/float8_utils.py):
/// fmt_max / max(amax, 1e-12), computed in double and rounded once to f32. amax 0 gives
/// fmt_max * 1e12; amax inf gives 0; a NaN amax gives NaN (torch.clamp keeps NaN).
/// \p format must be f8e4m3fn or f8e5m2 (Error(dtype) otherwise); a negative amax is Error(value).
float current_scale(float amax, const minifloat::Format& format);

/// The epsilon current_scale() clamps amax with (torchao's EPS).
inline constexpr double kCurrentScalingEps = 1e-12;

/// The amaxes of the last L steps, held as Transformer Engine holds them (see push()).
class AmaxHistory {
public:
    /// A history of \p length steps (>= 1; Error(value) naming the length otherwise), all 0.
    explicit AmaxHistory(int length = 1024);

    /// Records the amax of a new step. Transformer Engine's order
    /// (common/recipe/delayed_scaling.cu, pytorch/fp8.py): after each step the buffer is rolled
    /// by -1 (slot 0 moves to the end, slot i + 1 to slot i) and slot 0 is zeroed; the next step
    /// writes its amax in slot 0. push() does the roll and then the write, so after it the buffer
    /// is what TE's scale update reads: slot 0 the newest amax, slots 1 .. L-1 the older ones
    /// from oldest to newest, and the amax of L steps ago dropped.
    void push(float amax);

    /// The amax delayed_scale() uses: the largest of the L slots (max; a NaN slot is skipped, as
    /// TE's fmaxf does, while an inf stays until it leaves the window), or slot 0 (most_recent).
    float amax(AmaxComputeAlgo algo) const;

    /// The buffer in TE's order (see push()): [newest, oldest, ..., second newest].
    const std::vector<float>& values() const { return values_; }

    /// L, the number of slots.
    int length() const { return int(values_.size()); }

private:
    std::vector<float> values_;
};

/// Delayed scaling's rule, as Transformer Engine's scale update (common/recipe/delayed_scaling.cu;
/// pytorch/fp8.py `_default_sf_compute`): when \p amax is finite and > 0, the scale is
/// (fmt_max * 2^-margin) / amax (in f32, as TE's `scaled_max / amax`; the same value as
/// (fmt_max / amax) / 2^margin); otherwise (amax 0, inf or NaN) \p previous_scale is kept. A
/// result that is inf (amax too small for f32) becomes FLT_MAX, as in TE. \p format must be
/// f8e4m3fn or f8e5m2 (Error(dtype)); \p margin >= 0 and amax >= 0 (Error(value)).
float delayed_scale(float previous_scale, float amax, const minifloat::Format& format, int margin);

/// One tensor's delayed-scaling state (what Transformer Engine keeps in a layer's fp8_meta for
/// one operand): the scale the next cast uses, and the amax history it comes from.
struct DelayedScalingState {
    /// A history of \p history_length steps, all 0, and scale 1 (TE's start).
    explicit DelayedScalingState(int history_length = 1024) : history(history_length) {}
    AmaxHistory history;  ///< the amaxes of the last L casts
    float scale = 1.0f;   ///< multiplies the tensor before its next cast
    /// After a cast made with `scale`: records the tensor's \p amax in the history and computes
    /// the scale of the next cast, delayed_scale(scale, history.amax(algo), format, margin).
    void update(float amax, const minifloat::Format& format, const DelayedScaling& recipe);
};

/// The E8M0 code of an MX block's scale (the block's values are divided by 2^(code - 127)).
/// floor, as torchao's `to_mx` (torchao/prototype/mx_formats/mx_tensor.py): the exponent of amax
/// (its f32 exponent field: floor(log2 amax), -127 for 0 and f32 subnormals, 128 for inf) less
/// emax_elem (8 for E4M3, 15 for E5M2, 2 for E2M1). rceil, as torchao's `_to_mx_rceil` and
/// NVIDIA's hardware: ceil(log2(amax / elem_max)), with amax / elem_max in f32 and the ceiling
/// exact. Both clamp the exponent to [-127, 127] (codes 0 .. 254; amax 0 gives code 0); a NaN
/// amax gives 0xFF, E8M0's NaN. \p element must be f8e4m3fn, f8e5m2 or f4e2m1 (Error(dtype));
/// a negative amax is Error(value).
std::uint8_t mx_block_scale(float block_amax, const minifloat::Format& element, ScaleCalculationMode mode);

/// NVFP4's f32 tensor scale (a decode scale: values = codes * block scale * tensor scale), as
/// torchao's `per_tensor_amax_to_scale` (torchao/prototype/mx_formats/nvfp4_tensor.py):
/// amax / (448 * 6), so that the largest block's E4M3 scale can reach 448. Where that is not a
/// positive finite f32 (amax 0, inf, NaN, or below ~2e-42), 1, as Transformer Engine's
/// `compute_global_encode_scaling_factor_FP4` does. A negative amax is Error(value).
float nvfp4_tensor_scale(float tensor_amax);

/// The E4M3 code of an NVFP4 block's scale, as torchao's `nvfp4_quantize`: (block_amax / 6) /
/// tensor_scale in f32, clamped to [2^-6, 448] (E4M3's smallest normal and max), rounded to
/// nearest even. A NaN block amax gives E4M3's NaN code; amax 0 gives 2^-6. \p tensor_scale must
/// be positive and finite, and block_amax >= 0 (Error(value)).
std::uint8_t nvfp4_block_scale(float block_amax, float tensor_scale);

/// The smallest NVFP4 block scale (torchao's E4M3_EPS, E4M3's smallest normal, 2^-6).
inline constexpr float kNvfp4MinBlockScale = 0x1p-6f;

}  // namespace tinyamp::amp
