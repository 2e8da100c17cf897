// scaled_mm: the argument checks, the reference triple loop, and the fast path (decode each
// operand once into an f32 panel, then the vectorized f32 gemm).
#include "kernels/cpu/scaled_mm.h"

#include <algorithm>
#include <vector>

#include "kernels/cpu/gemm.h"
#include "kernels/cpu/minifloat_convert.h"
#include "tinyamp/support/error.h"
#include "tinyamp/values/fp4_packing.h"

namespace tinyamp::kernels::cpu {

namespace {

bool is_f4(const ScaledOperand& x) { return x.format == &minifloat::f4e2m1; }

void check_operand(const ScaledOperand& x, const char* name, std::int64_t rows, std::int64_t k)
{
    TINYAMP_CHECK(x.format != nullptr, value, "scaled_mm: operand ", name, " has no format: set its format to &minifloat::f8e4m3fn, f8e5m2 or f4e2m1");
    const bool element_format = x.format == &minifloat::f8e4m3fn || x.format == &minifloat::f8e5m2 || is_f4(x);
    TINYAMP_CHECK(element_format, value, "scaled_mm: operand ", name, "'s format ", x.format->name,
                  " is not an element format: use f8e4m3fn, f8e5m2 or f4e2m1 (e8m0 is a block scale format: pass it as block_scale_format)");
    TINYAMP_CHECK(!is_f4(x) || k % 2 == 0, value, "scaled_mm: operand ", name, " is f4e2m1, two codes per byte along K, but K = ", k,
                  " is odd: pad K to an even length with zero codes");
    TINYAMP_CHECK(rows == 0 || k == 0 || x.codes != nullptr, value, "scaled_mm: operand ", name, "'s codes are null (", rows, " x ", k,
                  " codes expected)");
    if (x.block_scales == nullptr) {
        TINYAMP_CHECK(x.block_size == 0 && x.block_scale_format == nullptr, value, "scaled_mm: operand ", name,
                      " has a block size or block scale format but no block_scales: pass the scales, or leave block_size 0 and block_scale_format null");
        return;
    }
    TINYAMP_CHECK(x.block_size > 0, value, "scaled_mm: operand ", name, " has block_scales but block_size = ", x.block_size,
                  ": set it (32 for MXFP8/MXFP4, 16 for NVFP4)");
    TINYAMP_CHECK(x.block_scale_format == &minifloat::e8m0 || x.block_scale_format == &minifloat::f8e4m3fn, value, "scaled_mm: operand ",
                  name, "'s block_scale_format is ", x.block_scale_format == nullptr ? "null" : x.block_scale_format->name,
                  ": use &minifloat::e8m0 (MX) or &minifloat::f8e4m3fn (NVFP4)");
}

void check_arguments(const ScaledOperand& a, const ScaledOperand& b, const float* out, std::int64_t m, std::int64_t n, std::int64_t k)
{
    TINYAMP_CHECK(m >= 0 && n >= 0 && k >= 0, value, "scaled_mm: sizes must not be negative (m = ", m, ", n = ", n, ", k = ", k, ")");
    check_operand(a, "a", m, k);
    check_operand(b, "b", n, k);
    TINYAMP_CHECK(m == 0 || n == 0 || out != nullptr, value, "scaled_mm: out is null (", m, " x ", n, " floats expected)");
}

std::int64_t row_bytes(const ScaledOperand& x, std::int64_t k) { return is_f4(x) ? k / 2 : k; }
std::int64_t blocks_per_row(const ScaledOperand& x, std::int64_t k) { return (k + x.block_size - 1) / x.block_size; }

// value(x, row, index) of scaled_mm.h, one element at a time.
float value(const ScaledOperand& x, std::int64_t row, std::int64_t index, std::int64_t k)
{
    const std::uint8_t* codes = x.codes + row * row_bytes(x, k);
    const std::uint8_t code = is_f4(x) ? minifloat::unpack_fp4(codes, std::size_t(index)) : codes[index];
    float v = float(minifloat::decode(*x.format, code));
    if (x.block_scales != nullptr) {
        const std::uint8_t scale = x.block_scales[row * blocks_per_row(x, k) + index / x.block_size];
        v = v * float(minifloat::decode(*x.block_scale_format, scale));
    }
    return v * x.tensor_scale_inv;
}

}  // namespace

void decode_scaled_operand(const ScaledOperand& x, const char* name, std::int64_t rows, std::int64_t k, float* values)
{
    check_operand(x, name, rows, k);
    std::vector<std::uint8_t> unpacked(is_f4(x) ? std::size_t(k) : 0);
    for (std::int64_t r = 0; r < rows; ++r) {
        float* row = values + r * k;
        const std::uint8_t* codes = x.codes + r * row_bytes(x, k);
        if (is_f4(x)) {
            for (std::int64_t i = 0; i < k; ++i) unpacked[std::size_t(i)] = minifloat::unpack_fp4(codes, std::size_t(i));
            codes = unpacked.data();
        }
        decode_f32(*x.format, codes, row, k);
        if (x.block_scales != nullptr) {
            const float* scales = decode_table(*x.block_scale_format);
            const std::uint8_t* row_scales = x.block_scales + r * blocks_per_row(x, k);
            for (std::int64_t start = 0, block = 0; start < k; start += x.block_size, ++block) {
                const float scale = scales[row_scales[block]];
                const std::int64_t end = std::min(k, start + x.block_size);
                for (std::int64_t i = start; i < end; ++i) row[i] = row[i] * scale;
            }
        }
        // v * 1.0f is v (the decode tables hold no signaling NaN): the pass is skipped then.
        if (x.tensor_scale_inv != 1.0f)
            for (std::int64_t i = 0; i < k; ++i) row[i] = row[i] * x.tensor_scale_inv;
    }
}

void scaled_mm(const ScaledOperand& a, const ScaledOperand& b, float* out, std::int64_t m, std::int64_t n, std::int64_t k)
{
    check_arguments(a, b, out, m, n, k);
    if (m == 0 || n == 0) return;
    if (k == 0) {  // an empty sum
        for (std::int64_t i = 0; i < m * n; ++i) out[i] = 0.0f;
        return;
    }
    // The panels are a workspace kept per thread and only grown: a fresh vector each call would
    // zero-fill it and, past malloc's mmap threshold, fault in every page again, which at
    // N = 256 cost more than the product itself.
    thread_local std::vector<float> panels;
    const std::size_t a_size = std::size_t(m * k), size = a_size + std::size_t(n * k);
    if (panels.size() < size) panels.resize(size);
    float* a_values = panels.data();
    float* b_values = panels.data() + a_size;
    decode_scaled_operand(a, "a", m, k, a_values);
    decode_scaled_operand(b, "b", n, k, b_values);
    // out = A * (B^T)^T: b_values holds B^T row-major, which gemm reads transposed in place.
    gemm<float, float>(Transpose::no, Transpose::yes, m, n, k, 1.0, a_values, k, b_values, k, 0.0, out, n);
}

void scaled_mm_reference(const ScaledOperand& a, const ScaledOperand& b, float* out, std::int64_t m, std::int64_t n, std::int64_t k)
{
    check_arguments(a, b, out, m, n, k);
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (std::int64_t p = 0; p < k; ++p) sum += value(a, i, p, k) * value(b, j, p, k);
            out[i * n + j] = sum;
        }
}

}  // namespace tinyamp::kernels::cpu
