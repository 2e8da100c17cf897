#pragma once
// The scaled FP8 / MX matrix product with f32 accumulation (kernels/: raw memory, no Tensor): the
// CPU counterpart of torch._scaled_mm and cuBLASLt's FP8 GEMM.
//
//   out[i * n + j] = sum over k of value(a, i, k) * value(b, j, k)        (out is [m, n] row-major)
//
// Both operands are K-contiguous: A is [m, k] row-major and B is given as [n, k] row-major (B^T,
// as torch._scaled_mm's column-major B). The value of an element is its code decoded exactly,
// times its block's scale (MX: blocks of 32 along K with e8m0 scales; NVFP4: blocks of 16 with
// f8e4m3fn scales), times the operand's tensor_scale_inv, in f32 and in that order:
//
//   value(x, r, k) = (decode(x.format, code) * decode(x.block_scale_format, block code)) * x.tensor_scale_inv
//
// (the first product is exact whenever it is finite: a power of two or a 4-bit significand times
// a small significand). scaled_mm_reference sums the f32 products in k order; scaled_mm decodes
// each operand once into an f32 panel (the same values) and runs the vectorized f32 gemm, whose
// sums differ from the reference's only by the order of the f32 additions and FMA.
// tests/kernels/scaled_mm_test.cpp holds both within the bound that follows from K and f32's eps.

#include <cstdint>

#include "tinyamp/values/minifloat.h"

namespace tinyamp::kernels::cpu {

// One operand of scaled_mm: `rows` rows of K codes.
struct ScaledOperand {
    // [rows, K]: one code per byte; f4e2m1: two per byte along K, low nibble first (fp4_packing.h),
    // row stride K / 2 bytes, K even.
    const std::uint8_t* codes = nullptr;
    const minifloat::Format* format = nullptr;  // f8e4m3fn, f8e5m2 or f4e2m1
    float tensor_scale_inv = 1.0f;              // multiplies every value (per-tensor scaling: 1 / scale)
    // Optional [rows, ceil(K / block_size)] codes, row-major: block b of row r covers elements
    // b * block_size .. (b + 1) * block_size - 1 of that row (the last block may be partial).
    const std::uint8_t* block_scales = nullptr;
    const minifloat::Format* block_scale_format = nullptr;  // e8m0 (MXFP8/MXFP4, blocks of 32) or f8e4m3fn (NVFP4, blocks of 16)
    int block_size = 0;
};

// out = A B^T as above, through f32 panels and the fastest f32 gemm of this CPU. Throws
// tinyamp::Error (value) on an invalid operand, naming what is wrong.
void scaled_mm(const ScaledOperand& a, const ScaledOperand& b, float* out, std::int64_t m, std::int64_t n, std::int64_t k);

// The readable reference: a triple loop, each value decoded exactly, products and sums in f32 in
// k order. The same checks as scaled_mm.
void scaled_mm_reference(const ScaledOperand& a, const ScaledOperand& b, float* out, std::int64_t m, std::int64_t n, std::int64_t k);

// The values of one operand's `rows` rows as f32, [rows, k] row-major (value() above): what
// scaled_mm hands to gemm. Checks the operand as scaled_mm does; `name` ("a", "b") is for the errors.
void decode_scaled_operand(const ScaledOperand& x, const char* name, std::int64_t rows, std::int64_t k, float* values);

}  // namespace tinyamp::kernels::cpu
