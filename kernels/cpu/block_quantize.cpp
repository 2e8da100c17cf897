// Block quantization (MX, NVFP4) along K: reference loops, one block at a time, and mx_encode's
// fast path for FP8 elements over the bulk conversions of minifloat_convert.h. The layout is in
// block_quantize.h; the scale rules are in tinyamp/values/scaling_recipe.cpp.
#include "kernels/cpu/block_quantize.h"
#include "kernels/cpu/minifloat_convert.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tinyamp/support/error.h"
#include "tinyamp/values/fp4_packing.h"

namespace tinyamp::kernels::cpu {

namespace mf = tinyamp::minifloat;

namespace {

void check_sizes(std::int64_t rows, std::int64_t k, const mf::Format& element, const char* op)
{
    TINYAMP_CHECK(rows >= 0 && k >= 0, shape, op, " expects sizes >= 0, got rows ", rows, " and K ", k);
    TINYAMP_CHECK(element.bits != 4 || k % 2 == 0, shape, op, " packs two ", element.name,
                  " codes per byte along K, so K must be even; got K = ", k);
}

// The element codes of one row, FP8 (one per byte) or FP4 (two per byte, low nibble first).
void store_code(const mf::Format& element, std::uint8_t* row_codes, std::int64_t j, std::uint8_t code)
{
    if (element.bits == 8) {
        row_codes[j] = code;
        return;
    }
    // Elements are stored in order, so element 2i (low nibble) is written before 2i + 1.
    std::uint8_t& byte = row_codes[j / 2];
    byte = j % 2 == 0 ? mf::pack_fp4x2(code, 0) : mf::pack_fp4x2(std::uint8_t(byte & 0x0F), code);
}

std::uint8_t load_code(const mf::Format& element, const std::uint8_t* row_codes, std::int64_t j)
{
    return element.bits == 8 ? row_codes[j] : mf::unpack_fp4(row_codes, std::size_t(j));
}

// The block's largest |x|; NaN if the block holds a NaN (torch.amax propagates NaN).
float block_amax(const float* x, std::int64_t size)
{
    float amax = 0.0f;
    for (std::int64_t i = 0; i < size; ++i) {
        if (std::isnan(x[i])) return std::numeric_limits<float>::quiet_NaN();
        amax = std::max(amax, std::fabs(x[i]));
    }
    return amax;
}

// True if |scaled| rounds (to nearest, ties to even) to a value above the format's max, were
// there one: past max + half a step there, or on that tie when max's code is odd (E5M2's 57344,
// E2M1's 6; E4M3's 448 is even: 464 rounds to it). Only then does saturation change the result; a
// value a rounding error above max (NVFP4's block amax often lands at 6 + 1 ulp) is not counted.
bool rounds_past_max(const mf::Format& element, float scaled)
{
    const double magnitude = std::fabs(double(scaled));  // NaN compares false
    const double boundary = element.max + std::ldexp(1.0, std::ilogb(element.max) - element.mantissa_bits - 1);
    return (element.max_code & 1) ? magnitude >= boundary : magnitude > boundary;
}

// Casts one element already divided by its block's scale, with saturation, and counts it.
std::uint8_t cast_and_count(const mf::Format& element, float x, float scaled, BlockQuantizeCounts& counts)
{
    const std::uint8_t code = mf::encode(element, scaled, mf::Overflow::saturate);
    if (rounds_past_max(element, scaled)) ++counts.saturated;
    else if (x != 0.0f && !std::isnan(x) && mf::decode(element, code) == 0.0) ++counts.flushed;
    return code;
}

}  // namespace

float tensor_amax(const float* x, std::int64_t n) { return block_amax(x, n); }

void log2_histogram(const float* x, std::int64_t rows, std::int64_t k, float scale, const std::uint8_t* block_scales,
                    const minifloat::Format* block_format, int block_size, int lowest, std::int64_t* counts, int bins,
                    std::int64_t& zeros)
{
    const std::int64_t blocks = block_scales ? blocks_per_row(k, block_size) : 0;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t j = 0; j < k; ++j) {
            const float v = x[r * k + j];
            if (v == 0.0f) {
                ++zeros;
                continue;
            }
            float y = v * scale;
            if (block_scales) y = float(double(y) / mf::decode(*block_format, block_scales[r * blocks + j / block_size]));
            if (!std::isfinite(y) || y == 0.0f) continue;
            const int bin = std::clamp(std::ilogb(y) - lowest, 0, bins - 1);
            ++counts[bin];
        }
}

std::int64_t blocks_per_row(std::int64_t k, int block_size) { return (k + block_size - 1) / block_size; }

std::int64_t code_bytes_per_row(const minifloat::Format& element, std::int64_t k)
{
    return element.bits == 4 ? k / 2 : k;
}

void mx_block_scales(const float* x, std::int64_t rows, std::int64_t k, const amp::MXBlockScaling& recipe, std::uint8_t* scales)
{
    amp::validate(recipe);
    check_sizes(rows, k, *recipe.element, "mx_block_scales");
    const std::int64_t blocks = blocks_per_row(k, recipe.block_size);
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t b = 0; b < blocks; ++b) {
            const std::int64_t begin = b * recipe.block_size, end = std::min(k, begin + recipe.block_size);
            scales[r * blocks + b] = amp::mx_block_scale(block_amax(x + r * k + begin, end - begin), *recipe.element, recipe.scale_mode);
        }
}

namespace reference {

BlockQuantizeCounts mx_encode(const float* x, std::int64_t rows, std::int64_t k, const amp::MXBlockScaling& recipe,
                              const std::uint8_t* scales, std::uint8_t* codes)
{
    amp::validate(recipe);
    const mf::Format& element = *recipe.element;
    check_sizes(rows, k, element, "mx_encode");
    const std::int64_t blocks = blocks_per_row(k, recipe.block_size);
    BlockQuantizeCounts counts;
    for (std::int64_t r = 0; r < rows; ++r) {
        const float* row = x + r * k;
        std::uint8_t* row_codes = codes + r * code_bytes_per_row(element, k);
        for (std::int64_t j = 0; j < k; ++j) {
            const std::uint8_t scale = scales[r * blocks + j / recipe.block_size];
            if (scale == 0xFF) {
                // A NaN block: torchao divides by the 0xFF scale read as an f32, inf (finite
                // values give +-0, inf and NaN give NaN). The block reads back as NaN anyway.
                const float scaled = row[j] / std::numeric_limits<float>::infinity();
                store_code(element, row_codes, j, mf::encode(element, scaled, mf::Overflow::saturate));
                continue;
            }
            // Dividing by 2^(scale - 127) is exact (ldexp); torchao divides by the same power
            // of two, except for scale code 0 (2^-127), where it uses 2^-126 (FLOOR) or 1
            // (RCEIL) to stay clear of f32 subnormals. tinyamp divides by 2^-127 there too, so
            // dequantization (which multiplies by 2^-127) gives the value back.
            const float scaled = std::ldexp(row[j], 127 - int(scale));
            store_code(element, row_codes, j, cast_and_count(element, row[j], scaled, counts));
        }
    }
    return counts;
}

}  // namespace reference

BlockQuantizeCounts mx_encode(const float* x, std::int64_t rows, std::int64_t k, const amp::MXBlockScaling& recipe,
                              const std::uint8_t* scales, std::uint8_t* codes)
{
    amp::validate(recipe);
    const mf::Format& element = *recipe.element;
    if (element.bits != 8) return reference::mx_encode(x, rows, k, recipe, scales, codes);  // FP4: two codes per byte
    check_sizes(rows, k, element, "mx_encode");
    const std::int64_t blocks = blocks_per_row(k, recipe.block_size);
    BlockQuantizeCounts counts;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t b = 0; b < blocks; ++b) {
            const std::int64_t begin = b * recipe.block_size, size = std::min<std::int64_t>(recipe.block_size, k - begin);
            const float* block = x + r * k + begin;
            const std::uint8_t scale = scales[r * blocks + b];
            if (scale == 0xFF) {  // a NaN block: the reference's rule, not counted
                reference::mx_encode(block, 1, size, recipe, &scale, codes + r * k + begin);
                continue;
            }
            // 2^(127 - scale) is an f32 (2^-127 a subnormal one), so x * it rounds the exact
            // quotient once, as the reference's ldexp does.
            const float multiplier = std::ldexp(1.0f, 127 - int(scale));
            const QuantizeCounts lost = quantize_f32(element, block, multiplier, codes + r * k + begin, size, mf::Overflow::saturate);
            counts.saturated += lost.saturated;
            counts.flushed += lost.flushed;
            // quantize_f32 counts a product that is already 0 in f32 as nothing lost; the
            // reference counts every nonzero input stored as zero.
            if (multiplier < 1.0f)
                for (std::int64_t j = 0; j < size; ++j) counts.flushed += block[j] != 0.0f && block[j] * multiplier == 0.0f;
        }
    return counts;
}

BlockQuantizeCounts mx_quantize(const float* x, std::int64_t rows, std::int64_t k, const amp::MXBlockScaling& recipe,
                                std::uint8_t* codes, std::uint8_t* scales)
{
    mx_block_scales(x, rows, k, recipe, scales);
    return mx_encode(x, rows, k, recipe, scales, codes);
}

void mx_dequantize(const std::uint8_t* codes, const std::uint8_t* scales, std::int64_t rows, std::int64_t k,
                   const amp::MXBlockScaling& recipe, float* out)
{
    amp::validate(recipe);
    const mf::Format& element = *recipe.element;
    check_sizes(rows, k, element, "mx_dequantize");
    const std::int64_t blocks = blocks_per_row(k, recipe.block_size);
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::uint8_t* row_codes = codes + r * code_bytes_per_row(element, k);
        for (std::int64_t j = 0; j < k; ++j) {
            const double scale = mf::decode(mf::e8m0, scales[r * blocks + j / recipe.block_size]);  // NaN for 0xFF
            out[r * k + j] = float(mf::decode(element, load_code(element, row_codes, j)) * scale);
        }
    }
}

BlockQuantizeCounts nvfp4_quantize(const float* x, std::int64_t rows, std::int64_t k,
                                   const amp::NVFP4BlockScaling& recipe, float tensor_scale, std::uint8_t* codes,
                                   std::uint8_t* scales)
{
    amp::validate(recipe);
    const mf::Format& element = mf::f4e2m1;
    check_sizes(rows, k, element, "nvfp4_quantize");
    TINYAMP_CHECK(std::isfinite(tensor_scale) && tensor_scale > 0.0f, value,
                  "nvfp4_quantize expects a positive finite tensor scale, got ", tensor_scale);
    const std::int64_t blocks = blocks_per_row(k, recipe.block_size);
    BlockQuantizeCounts counts;
    for (std::int64_t r = 0; r < rows; ++r) {
        const float* row = x + r * k;
        std::uint8_t* row_codes = codes + r * code_bytes_per_row(element, k);
        for (std::int64_t b = 0; b < blocks; ++b) {
            const std::int64_t begin = b * recipe.block_size;
            const std::int64_t end = std::min(k, begin + recipe.block_size);
            const std::uint8_t scale = amp::nvfp4_block_scale(block_amax(row + begin, end - begin), tensor_scale);
            scales[r * blocks + b] = scale;
            // torchao: total_scale = per_tensor_scale * scaled_block_scales_fp32; data / total_scale.
            const float total_scale = tensor_scale * float(mf::decode(mf::f8e4m3fn, scale));
            const bool nan_block = std::isnan(total_scale);
            for (std::int64_t j = begin; j < end; ++j) {
                const float scaled = row[j] / total_scale;
                if (nan_block) store_code(element, row_codes, j, mf::encode(element, scaled, mf::Overflow::saturate));
                else store_code(element, row_codes, j, cast_and_count(element, row[j], scaled, counts));
            }
        }
    }
    return counts;
}

void nvfp4_dequantize(const std::uint8_t* codes, const std::uint8_t* scales, std::int64_t rows, std::int64_t k,
                      const amp::NVFP4BlockScaling& recipe, float tensor_scale, float* out)
{
    amp::validate(recipe);
    const mf::Format& element = mf::f4e2m1;
    check_sizes(rows, k, element, "nvfp4_dequantize");
    TINYAMP_CHECK(std::isfinite(tensor_scale) && tensor_scale > 0.0f, value,
                  "nvfp4_dequantize expects a positive finite tensor scale, got ", tensor_scale);
    const std::int64_t blocks = blocks_per_row(k, recipe.block_size);
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::uint8_t* row_codes = codes + r * code_bytes_per_row(element, k);
        for (std::int64_t j = 0; j < k; ++j) {
            const std::uint8_t scale = scales[r * blocks + j / recipe.block_size];
            const float total_scale = tensor_scale * float(mf::decode(mf::f8e4m3fn, scale));
            out[r * k + j] = float(mf::decode(element, load_code(element, row_codes, j))) * total_scale;
        }
    }
}

}  // namespace tinyamp::kernels::cpu
