#pragma once
// The amx tier's micro-kernel (gemm_amx.cpp makes the tier of it: the blocked GEMM of
// gemm_blocked.h around it, for bf16 inputs only). It keeps a 32 x 32 block of C in four AMX tiles
// and feeds them with tdpbf16ps (gemm_amx_tiles.h explains the instructions):
//
//            B0 (tmm6)   B1 (tmm7)        each k step is 16 pairs (32 values of k):
//   A0 (tmm4)  C00 (tmm0)  C01 (tmm1)       4 tile loads (4 KiB) and 4 tdpbf16ps
//   A1 (tmm5)  C10 (tmm2)  C11 (tmm3)       (32768 multiply-adds)
//
// op(B) is packed in pairs as for vdpbf16ps (gemm_blocked.h, pack_bf16_pairs): a row of a B tile
// is 16 columns' pairs of one k step, and the 32-column panel puts the rows 128 bytes apart. op(A)
// is packed in tile rows (pack_bf16_tile_rows): a tile's 16 rows of 16 pairs are 1 KiB in a row.
// k is padded with zeros to whole steps of 16 pairs, which add nothing. Where op(A) is row-major
// in whole tiles (the usual x W product), it is not packed: the tiles load from it in place.
//
// The tiles are configured at the start of each thread's part of a product and released at its
// end, not once for the thread's life: another library in the same thread (oneDNN, PyTorch) may
// configure other shapes between two products, and a released unit lets the core save power and
// makes context switches cheaper.
//
// The loop over A micro-panels is the outer one (rows_outer): one A micro-panel (32 rows x 256
// pairs, 32 KiB, often read in place from rows up to 1 KiB apart) stays in L1 while the packed,
// contiguous B micro-panels stream past it, which the prefetchers follow. With the tile loads
// interleaved with the products (each tdpbf16ps as soon as its operands are loaded), a 512^3
// product on one Xeon core ran about 15 % faster than B-outer with the four loads first; other
// MC, NC, KC and software prefetching were no better (docs/kernels.md, "Tuning on a Xeon").
//
// The numbers are those of vdpbf16ps (gemm_avx512_bf16.cpp): products of bf16 are exact in f32,
// subnormal inputs and results are flushed, sums round to nearest even whatever MXCSR says.
#include <cstdint>

#include "kernels/cpu/gemm_amx_tiles.h"
#include "kernels/cpu/gemm_blocked.h"

namespace tinyamp::kernels::cpu::amx {

/// Every tile is 16 rows of 64 bytes: C tiles 16 x 16 f32, A and B tiles 16 rows of 16 pairs.
inline TileConfig full_tiles()
{
    TileConfig config;
    for (int t = 0; t < 8; ++t) {
        config.rows[t] = 16;
        config.bytes_per_row[t] = 64;
    }
    return config;
}

/// The micro-kernel over Tiles (HardwareTiles or EmulatedTiles), with gemm_blocked.h's cache
/// blocking: MC rows, NC columns, KC pairs (512 values of k) per block, and its loop order. The
/// defaults are the tier's; bench/amx_tuning.cpp times others.
template <class Tiles, std::int64_t MC_ = 128, std::int64_t NC_ = 256, std::int64_t KC_ = 256, bool RowsOuter = true>
struct Kernel {
    using Packed = std::uint32_t;  // a pair of bf16
    static constexpr std::int64_t MR = 32;
    static constexpr std::int64_t NR = 32;
    static constexpr std::int64_t KU = blocked::kTileRowUnits;  // pairs per k step
    static constexpr std::int64_t MC = MC_;
    static constexpr std::int64_t NC = NC_;
    static constexpr std::int64_t KC = KC_;
    static constexpr bool a_in_tile_rows = true;
    static constexpr bool rows_outer = RowsOuter;

    static void begin_range()
    {
        static const TileConfig config = full_tiles();
        Tiles::configure(config);
    }
    static void end_range() { Tiles::release(); }

    /// Where the A tiles of one run lie: the tile of rows 0-15 of k step 0 at `first`, its rows
    /// `row_bytes` apart; rows 16-31 `lower_bytes` further on; step s `s * step_bytes` further on.
    struct ATiles {
        const std::byte* first;
        std::int64_t row_bytes, step_bytes, lower_bytes;
    };

    /// op(A) packed in tile rows (pack_bf16_tile_rows): a tile's 16 rows are 1 KiB in a row.
    static void run(std::int64_t kc, const std::uint32_t* a, const std::uint32_t* b, float* c, std::int64_t ldc, bool first)
    {
        constexpr std::int64_t kUnitBytes = sizeof(std::uint32_t);
        run_tiles(kc, {reinterpret_cast<const std::byte*>(a), 16 * kUnitBytes, MR * KU * kUnitBytes, 16 * KU * kUnitBytes}, b, c, ldc, first);
    }

    /// op(A) read where it lies (gemm_blocked.h, run_a_in_place): row-major bf16 is already what a
    /// tile row holds, 16 pairs of one row, so tileloadd reads it with the matrix's row stride and
    /// op(A) is not packed at all (oneDNN's brgemm does the same).
    static void run_a_in_place(std::int64_t kc, const BFloat16* a, std::int64_t lda, const std::uint32_t* b, float* c, std::int64_t ldc,
                               bool first)
    {
        const std::int64_t row_bytes = lda * std::int64_t(sizeof(BFloat16));
        run_tiles(kc, {reinterpret_cast<const std::byte*>(a), row_bytes, KU * std::int64_t(sizeof(std::uint32_t)), 16 * row_bytes}, b, c, ldc,
                  first);
    }

    static void run_tiles(std::int64_t kc, ATiles a, const std::uint32_t* b, float* c, std::int64_t ldc, bool first)
    {
        const std::int64_t c_stride = ldc * std::int64_t(sizeof(float));
        float* const c00 = c;
        float* const c01 = c + 16;
        float* const c10 = c + 16 * ldc;
        float* const c11 = c + 16 * ldc + 16;
        if (first) {
            Tiles::template zero<0>();
            Tiles::template zero<1>();
            Tiles::template zero<2>();
            Tiles::template zero<3>();
        } else {
            Tiles::template load<0>(c00, c_stride);
            Tiles::template load<1>(c01, c_stride);
            Tiles::template load<2>(c10, c_stride);
            Tiles::template load<3>(c11, c_stride);
        }
        constexpr std::int64_t kBRowBytes = NR * std::int64_t(sizeof(std::uint32_t));  // a k step's row of the B micro-panel
        const std::byte* a_step = a.first;
        for (std::int64_t p = 0; p < kc; p += KU, a_step += a.step_bytes) {
            const std::uint32_t* b_step = b + p * NR;  // 16 rows of 32 columns' pairs
            // Each product right after the loads it needs, so loads and products overlap.
            Tiles::template load<4>(a_step, a.row_bytes);  // rows 0-15
            Tiles::template load<6>(b_step, kBRowBytes);   // columns 0-15
            Tiles::template dpbf16ps<0, 4, 6>();
            Tiles::template load<7>(b_step + 16, kBRowBytes);  // columns 16-31
            Tiles::template dpbf16ps<1, 4, 7>();
            Tiles::template load<5>(a_step + a.lower_bytes, a.row_bytes);  // rows 16-31
            Tiles::template dpbf16ps<2, 5, 6>();
            Tiles::template dpbf16ps<3, 5, 7>();
        }
        Tiles::template store<0>(c00, c_stride);
        Tiles::template store<1>(c01, c_stride);
        Tiles::template store<2>(c10, c_stride);
        Tiles::template store<3>(c11, c_stride);
    }
};

}  // namespace tinyamp::kernels::cpu::amx
