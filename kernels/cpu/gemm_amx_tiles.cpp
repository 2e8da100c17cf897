// The AMX tile instructions: the CPU's (ldtilecfg and tilerelease; the rest are inline in the
// header), and their emulation in plain C++ (gemm_amx_tiles.h).
#include "kernels/cpu/gemm_amx_tiles.h"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace tinyamp::kernels::cpu::amx {

#if defined(__x86_64__)
void HardwareTiles::configure(const TileConfig& config) { __asm__ volatile("ldtilecfg %0" ::"m"(config)); }

void HardwareTiles::release() { __asm__ volatile("tilerelease" ::: "memory"); }
#endif

namespace {

struct EmulatedState {
    bool configured = false;
    TileConfig config;
    alignas(64) std::uint8_t tile[8][16][64] = {};
};
thread_local EmulatedState emulated;

// The checks the CPU makes before it runs a tile instruction (it raises #UD where these throw).
void require_configured(const char* instruction)
{
    if (!emulated.configured) throw std::logic_error(std::string(instruction) + " before ldtilecfg: the tiles are not configured");
}

int rows_of(int t) { return emulated.config.rows[t]; }
int bytes_of(int t) { return emulated.config.bytes_per_row[t]; }

// A bf16 as f32, with a subnormal read as zero (DAZ): its exponent bits are all zero.
float bf16_daz(std::uint16_t bits)
{
    if ((bits & 0x7F80u) == 0) bits &= 0x8000u;  // keep the sign, drop the fraction
    std::uint32_t word = std::uint32_t(bits) << 16;
    float value;
    std::memcpy(&value, &word, sizeof(value));
    return value;
}

// A result flushed to zero when subnormal (FTZ).
float ftz(float value) { return std::fpclassify(value) == FP_SUBNORMAL ? std::copysign(0.0f, value) : value; }

// tdpbf16ps rounds to nearest even whatever MXCSR says: the emulation sets that mode while it runs.
class RoundToNearest {
public:
    RoundToNearest() : previous_(std::fegetround()) { std::fesetround(FE_TONEAREST); }
    ~RoundToNearest() { std::fesetround(previous_); }
    RoundToNearest(const RoundToNearest&) = delete;
    RoundToNearest& operator=(const RoundToNearest&) = delete;

private:
    int previous_;
};

}  // namespace

void EmulatedTiles::configure(const TileConfig& config)
{
    if (config.palette != 1) throw std::logic_error("ldtilecfg: only palette 1 exists");
    for (int t = 0; t < 8; ++t)
        if (config.rows[t] > 16 || config.bytes_per_row[t] > 64 || config.bytes_per_row[t] % 4 != 0)
            throw std::logic_error("ldtilecfg: tile " + std::to_string(t) + " is larger than 16 rows x 64 bytes, or not whole dwords");
    emulated.config = config;
    std::memset(emulated.tile, 0, sizeof(emulated.tile));  // ldtilecfg zeroes every tile
    emulated.configured = true;
}

void EmulatedTiles::release() { emulated = EmulatedState{}; }

void EmulatedTiles::zero_tile(int t)
{
    require_configured("tilezero");
    std::memset(emulated.tile[t], 0, sizeof(emulated.tile[t]));
}

void EmulatedTiles::load_tile(int t, const void* base, std::int64_t stride)
{
    require_configured("tileloadd");
    std::memset(emulated.tile[t], 0, sizeof(emulated.tile[t]));  // bytes past the configured shape read as zero
    for (int r = 0; r < rows_of(t); ++r)
        std::memcpy(emulated.tile[t][r], static_cast<const std::uint8_t*>(base) + r * stride, std::size_t(bytes_of(t)));
}

void EmulatedTiles::store_tile(int t, void* base, std::int64_t stride)
{
    require_configured("tilestored");
    for (int r = 0; r < rows_of(t); ++r)
        std::memcpy(static_cast<std::uint8_t*>(base) + r * stride, emulated.tile[t][r], std::size_t(bytes_of(t)));
}

void EmulatedTiles::dpbf16ps_tiles(int c, int a, int b)
{
    require_configured("tdpbf16ps");
    // C is M x N f32, A is M x K pairs, B is K x N pairs: the shapes must agree.
    const int m_rows = rows_of(c), n_cols = bytes_of(c) / 4, k_pairs = bytes_of(a) / 4;
    if (rows_of(a) != m_rows || rows_of(b) != k_pairs || bytes_of(b) != bytes_of(c))
        throw std::logic_error("tdpbf16ps: the tiles' shapes do not fit C (M x N) += A (M x K) B (K x N)");
    const RoundToNearest nearest;
    auto bf16_at = [](int t, int row, int index) {
        std::uint16_t bits;
        std::memcpy(&bits, emulated.tile[t][row] + 2 * index, sizeof(bits));
        return bf16_daz(bits);
    };
    float b_values[16][32];  // B as f32, read once
    for (int k = 0; k < k_pairs; ++k)
        for (int v = 0; v < 2 * n_cols; ++v) b_values[k][v] = bf16_at(b, k, v);
    for (int m = 0; m < m_rows; ++m) {
        float even[16] = {}, odd[16] = {};
        for (int k = 0; k < k_pairs; ++k) {
            const float a_even = bf16_at(a, m, 2 * k), a_odd = bf16_at(a, m, 2 * k + 1);
            for (int n = 0; n < n_cols; ++n) {
                even[n] = ftz(std::fma(a_even, b_values[k][2 * n], even[n]));
                odd[n] = ftz(std::fma(a_odd, b_values[k][2 * n + 1], odd[n]));
            }
        }
        float c_row[16];
        std::memcpy(c_row, emulated.tile[c][m], sizeof(float) * std::size_t(n_cols));
        for (int n = 0; n < n_cols; ++n) c_row[n] = ftz(ftz(c_row[n]) + ftz(even[n] + odd[n]));
        std::memcpy(emulated.tile[c][m], c_row, sizeof(float) * std::size_t(n_cols));
    }
}

}  // namespace tinyamp::kernels::cpu::amx
