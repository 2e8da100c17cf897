#pragma once
// The AMX instructions the amx GEMM tier uses (gemm_amx.cpp), twice: as the CPU's instructions
// (HardwareTiles) and as plain C++ that does what the Intel SDM says each one does (EmulatedTiles).
// The kernel is written once over either, so its packing, blocking and tile arithmetic can be
// tested on any CPU, and on a CPU with AMX against the emulation.
//
// AMX in one paragraph. A core has 8 tile registers tmm0..tmm7 of up to 16 rows x 64 bytes (1 KiB),
// shaped by a 64-byte configuration (ldtilecfg). tileloadd fills a tile from memory, one row of
// up to 64 bytes every `stride` bytes; tilestored writes one back; tilezero clears one. The work
// is tdpbf16ps C, A, B: C is 16 x 16 f32, A is 16 rows of 16 PAIRS of bf16 (16 x 32 values), B is
// 16 rows of 16 pairs (pair n of row k holds B[2k][n] and B[2k + 1][n]): C += A x B, 16 x 16 x 32
// = 8192 multiply-adds in one instruction, where an AVX-512 FMA does 16.

#include <cstdint>

namespace tinyamp::kernels::cpu::amx {

/// ldtilecfg's 64-byte operand, palette 1: for each tile, its rows and its bytes per row.
struct alignas(64) TileConfig {
    std::uint8_t palette = 1;
    std::uint8_t start_row = 0;  ///< where an interrupted tileloadd resumes; 0 to start
    std::uint8_t reserved[14] = {};
    std::uint16_t bytes_per_row[16] = {};  ///< tiles 0..7 (8..15 reserved)
    std::uint8_t rows[16] = {};            ///< tiles 0..7 (8..15 reserved)
};
static_assert(sizeof(TileConfig) == 64, "ldtilecfg reads exactly 64 bytes");

/// The CPU's instructions. Only call these where cpu_features().amx_bf16 (or the tests'
/// detect_cpu_features()) says yes: elsewhere they stop the program with SIGILL.
struct HardwareTiles {
    static void configure(const TileConfig& config);  ///< ldtilecfg: shapes the tiles, zeroes them
    static void release();                            ///< tilerelease: back to the init state
    template <int T>
    static void zero()
    {
        __asm__ volatile("tilezero %%tmm%c0" ::"i"(T));
    }
    /// Tile T's rows from base, base + stride, ... (stride in bytes).
    template <int T>
    static void load(const void* base, std::int64_t stride)
    {
        __asm__ volatile("tileloadd (%0,%1,1), %%tmm%c2" ::"r"(base), "r"(stride), "i"(T) : "memory");
    }
    template <int T>
    static void store(void* base, std::int64_t stride)
    {
        __asm__ volatile("tilestored %%tmm%c2, (%0,%1,1)" ::"r"(base), "r"(stride), "i"(T) : "memory");
    }
    /// tdpbf16ps tmmC, tmmA, tmmB (AT&T syntax lists the operands the other way round).
    template <int C, int A, int B>
    static void dpbf16ps()
    {
        __asm__ volatile("tdpbf16ps %%tmm%c2, %%tmm%c1, %%tmm%c0" ::"i"(C), "i"(A), "i"(B));
    }
};

/// The same instructions in C++, one number at a time, each thread with its own 8 tiles, as the
/// Intel SDM's pseudo-code defines them. tdpbf16ps: inputs that are subnormal count as zero (DAZ),
/// results that are subnormal become zero (FTZ), every operation rounds to nearest even whatever
/// the rounding mode; the even and the odd products of each pair are summed separately over the
/// instruction's 16 pairs, then added together, then to C. A misuse the CPU would fault on (a tile
/// used before configure(), shapes that do not fit) throws std::logic_error.
struct EmulatedTiles {
    static void configure(const TileConfig& config);
    static void release();
    template <int T>
    static void zero()
    {
        zero_tile(T);
    }
    template <int T>
    static void load(const void* base, std::int64_t stride)
    {
        load_tile(T, base, stride);
    }
    template <int T>
    static void store(void* base, std::int64_t stride)
    {
        store_tile(T, base, stride);
    }
    template <int C, int A, int B>
    static void dpbf16ps()
    {
        dpbf16ps_tiles(C, A, B);
    }

private:
    static void zero_tile(int t);
    static void load_tile(int t, const void* base, std::int64_t stride);
    static void store_tile(int t, void* base, std::int64_t stride);
    static void dpbf16ps_tiles(int c, int a, int b);
};

}  // namespace tinyamp::kernels::cpu::amx
