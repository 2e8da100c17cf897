#pragma once
/// \file
/// Block quantization of a row-major f32 matrix x [rows, K] along K (the reduction dimension of a
/// matrix product), as MX (MXFP8, MXFP4) and NVFP4 store it: plain reference loops, one block at a
/// time, over raw buffers.
///
/// Layouts (what a GEMM reading them would expect):
///   - element codes: one byte per element for FP8 elements, [rows, K]; for f4e2m1 two per byte
///     along K, element j of a row in byte j / 2, low nibble first (fp4_packing.h), row stride
///     K / 2 bytes (K must be even);
///   - block scale codes: [rows, ceil(K / block_size)] row-major, one byte each (E8M0 for MX, E4M3
///     for NVFP4). A last block shorter than block_size is allowed: it is scaled by its own amax.
/// The value a code stands for is decode(element, code) * decode(scale format, block code), times
/// the tensor scale for NVFP4; the *_dequantize functions compute exactly that, in f32.
///
/// The rules choosing each block's scale are amp::mx_block_scale and amp::nvfp4_block_scale
/// (tinyamp/values/scaling_recipe.h); elements are divided by the block's scale and cast with
/// saturation (Overflow::saturate), as torchao's to_mx and nvfp4_quantize do.

#include <cstdint>

#include "tinyamp/values/scaling_recipe.h"

namespace tinyamp::kernels::cpu {

/// What a quantization lost, for the trace. Elements of a block whose scale is NaN (a NaN in the
/// block) are not counted: the whole block reads back as NaN.
struct BlockQuantizeCounts {
    /// Elements (inf included) whose scaled value rounds past the element format's max (beyond
    /// max + half a step there), so they are stored as +-max where rounding would go higher.
    std::int64_t saturated = 0;
    /// Nonzero elements stored as zero (too small for the element format at their block's scale).
    std::int64_t flushed = 0;
};

/// The largest |x| of \p n values (0 for none); NaN if one is NaN (as torch.amax).
float tensor_amax(const float* x, std::int64_t n);

/// Adds each nonzero finite x[r, j] * multiplier(r, j) to counts[floor(log2 |.|) - lowest]
/// (clamped to the first and last of \p bins), and counts the zeros in \p zeros: what the trace
/// shows against a format's range. The multiplier is \p scale, divided by the element's block
/// scale when \p block_scales is given (codes of \p block_format, E8M0 for MX or E4M3 for NVFP4,
/// [rows, ceil(k / block_size)]).
void log2_histogram(const float* x, std::int64_t rows, std::int64_t k, float scale, const std::uint8_t* block_scales,
                    const minifloat::Format* block_format, int block_size, int lowest, std::int64_t* counts, int bins,
                    std::int64_t& zeros);

/// The number of blocks per row: ceil(k / block_size).
std::int64_t blocks_per_row(std::int64_t k, int block_size);

/// The bytes of element codes per row: k for FP8 elements, k / 2 for f4e2m1.
std::int64_t code_bytes_per_row(const minifloat::Format& element, std::int64_t k);

/// The first half of mx_quantize: the E8M0 scale of each block of x [rows, k] (rows *
/// blocks_per_row bytes), by the recipe's rule (FLOOR or RCEIL) from the block's amax.
void mx_block_scales(const float* x, std::int64_t rows, std::int64_t k, const amp::MXBlockScaling& recipe, std::uint8_t* scales);

/// The second half: each element divided by its block's scale (given in \p scales, as
/// mx_block_scales writes them) and cast with saturation into \p codes.
/// FP8 elements go block by block through quantize_f32 (minifloat_convert.h: AVX-512 where the
/// CPU has it), the block's scale a power of two; FP4 elements, and blocks whose scale is NaN,
/// through reference::mx_encode. Both give the same codes and counts (a test holds them equal).
BlockQuantizeCounts mx_encode(const float* x, std::int64_t rows, std::int64_t k, const amp::MXBlockScaling& recipe,
                              const std::uint8_t* scales, std::uint8_t* codes);

namespace reference {
/// mx_encode one element at a time through minifloat::encode: the plain statement of the rule.
BlockQuantizeCounts mx_encode(const float* x, std::int64_t rows, std::int64_t k, const amp::MXBlockScaling& recipe,
                              const std::uint8_t* scales, std::uint8_t* codes);
}  // namespace reference

/// Quantizes x [rows, k] with \p recipe (mx_block_scales, then mx_encode): writes the element codes to \p codes (rows *
/// code_bytes_per_row bytes) and the E8M0 block scales to \p scales (rows * blocks_per_row
/// bytes). Throws Error for a bad recipe (amp::validate), negative sizes (shape), and an odd k
/// with f4e2m1 elements (shape).
BlockQuantizeCounts mx_quantize(const float* x, std::int64_t rows, std::int64_t k, const amp::MXBlockScaling& recipe,
                                std::uint8_t* codes, std::uint8_t* scales);

/// The f32 values of mx_quantize's output: out[r, j] = decode(element, code) * 2^(scale - 127)
/// (NaN for a block whose scale is 0xFF). Same checks as mx_quantize.
void mx_dequantize(const std::uint8_t* codes, const std::uint8_t* scales, std::int64_t rows, std::int64_t k,
                   const amp::MXBlockScaling& recipe, float* out);

/// Quantizes x [rows, k] to NVFP4: E2M1 codes packed two per byte to \p codes (rows * k / 2
/// bytes) and the E4M3 block scales (amp::nvfp4_block_scale with \p tensor_scale) to \p scales.
/// Each element is divided by tensor_scale * decode(E4M3, block scale) (in f32, as torchao).
/// Throws Error for a bad recipe, negative sizes or odd k (shape), and a tensor scale that is not
/// positive and finite (value).
BlockQuantizeCounts nvfp4_quantize(const float* x, std::int64_t rows, std::int64_t k,
                                   const amp::NVFP4BlockScaling& recipe, float tensor_scale, std::uint8_t* codes,
                                   std::uint8_t* scales);

/// The f32 values of nvfp4_quantize's output: decode(E2M1, code) * (tensor_scale * decode(E4M3,
/// block scale)), the product in brackets first, in f32 (torchao's get_hp_scales). Same checks.
void nvfp4_dequantize(const std::uint8_t* codes, const std::uint8_t* scales, std::int64_t rows, std::int64_t k,
                      const amp::NVFP4BlockScaling& recipe, float tensor_scale, float* out);

}  // namespace tinyamp::kernels::cpu
