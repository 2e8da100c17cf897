// Packing and the epilogue of the blocked GEMM (gemm_blocked.h): plain C++ shared by every tier.
// Conversions go through the bulk kernels of convert.h, which use F16C / AVX-512 BF16 when the
// CPU has them and give the same bits either way (widening f16/bf16 to f32 is exact).
#include "kernels/cpu/gemm_blocked.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <thread>
#include <type_traits>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/panel_transpose.h"
#include "kernels/cpu/worker_pool.h"

namespace tinyamp::kernels::cpu::blocked {
namespace {

// n values of T as f32. A bf16 is the top half of an f32, so widening it is a 16-bit shift.
template <class T>
void widen(const T* src, float* dst, std::int64_t n)
{
    if constexpr (std::is_same_v<T, float>) std::copy(src, src + n, dst);
    if constexpr (std::is_same_v<T, Half>) f16_to_f32(src, dst, n);
    if constexpr (std::is_same_v<T, BFloat16>) bf16_to_f32(src, dst, n);
}

// n f32 values rounded once (to nearest even) into T.
template <class T>
void narrow(const float* src, T* dst, std::int64_t n)
{
    if constexpr (std::is_same_v<T, float>) std::copy(src, src + n, dst);
    if constexpr (std::is_same_v<T, Half>) f32_to_f16(src, dst, n);
    if constexpr (std::is_same_v<T, BFloat16>) f32_to_bf16(src, dst, n);
}

// Copies `width` floats when width is one of the tiers' panel widths, as a fixed-size memcpy;
// false (nothing copied) for any other width.
bool copy_fixed_width(const float* from, float* to, std::int64_t width)
{
    switch (width) {
    case 32: std::memcpy(to, from, 32 * sizeof(float)); return true;
    case 16: std::memcpy(to, from, 16 * sizeof(float)); return true;
    case 8: std::memcpy(to, from, 8 * sizeof(float)); return true;
    case 6: std::memcpy(to, from, 6 * sizeof(float)); return true;
    default: return false;
    }
}

// A contiguous run of n values as f32: f32 is read in place, others are widened into scratch.
template <class T>
const float* as_f32(const T* run, std::int64_t n, float* scratch)
{
    if constexpr (std::is_same_v<T, float>) {
        (void)n, (void)scratch;
        return run;
    } else {
        widen(run, scratch, n);
        return scratch;
    }
}

}  // namespace

namespace {

struct AlignedFree {
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t(64)); }
};
struct Workspace {
    std::unique_ptr<std::byte[], AlignedFree> memory;
    std::size_t capacity = 0;

    std::byte* at_least(std::size_t bytes)
    {
        if (bytes > capacity) {
            memory.reset();  // the old block first, so that the two never coexist
            memory.reset(static_cast<std::byte*>(::operator new[](bytes, std::align_val_t(64))));
            capacity = bytes;
        }
        return memory.get();
    }
    void trim()
    {
        if (capacity <= kWorkspaceKeepBytes) return;
        memory.reset();
        capacity = 0;
    }
};
// Some 50 to 200 microseconds of pause instructions (a pause takes 40 to 140 cycles, by CPU):
// longer than a block's packing.
constexpr int kSpinsBeforeYield = 4000;

thread_local Workspace workspace;         // this thread's own buffers
thread_local Workspace shared_workspace;  // op(A) packed for all the threads of a product this thread called

}  // namespace

std::byte* thread_workspace(std::size_t bytes) { return workspace.at_least(bytes); }

void trim_thread_workspace() { workspace.trim(); }

std::byte* thread_shared_workspace(std::size_t bytes) { return shared_workspace.at_least(bytes); }

void trim_thread_shared_workspace() { shared_workspace.trim(); }

#if defined(__cpp_lib_atomic_ref)
using AtomicState = std::atomic_ref<std::uint32_t>;
#else
// Emscripten 3.1.6's libc++ (the web build, one thread) has no std::atomic_ref: the three
// operations used here, on the GCC/Clang builtins std::atomic_ref is made of.
class AtomicState {
public:
    explicit AtomicState(std::uint32_t& value) : value_(&value) {}
    std::uint32_t load(std::memory_order order) const { return __atomic_load_n(value_, int(order)); }
    void store(std::uint32_t desired, std::memory_order order) { __atomic_store_n(value_, desired, int(order)); }
    bool compare_exchange_strong(std::uint32_t& expected, std::uint32_t desired, std::memory_order order)
    {
        return __atomic_compare_exchange_n(value_, &expected, desired, false, int(order),
                                           order == std::memory_order_acquire ? __ATOMIC_ACQUIRE : __ATOMIC_SEQ_CST);
    }

private:
    std::uint32_t* value_;
};
#endif

bool claim_block(std::uint32_t& state)
{
    AtomicState atomic_state(state);
    std::uint32_t seen = atomic_state.load(std::memory_order_acquire);
    if (seen == kBlockPacked) return false;
    if (seen == kBlockNotPacked && atomic_state.compare_exchange_strong(seen, kBlockBeingPacked, std::memory_order_acquire))
        return true;
    // Another thread is packing it: it waits for nothing meanwhile, so this ends within one
    // block's packing time (tens of microseconds), unless the system took that thread's core
    // away. So spin for a little longer than that, then yield the core while waiting.
    for (int spins = 0; atomic_state.load(std::memory_order_acquire) != kBlockPacked; ++spins) {
        if (spins < kSpinsBeforeYield)
            cpu_relax();
        else
            std::this_thread::yield();
    }
    return false;
}

void publish_block(std::uint32_t& state) { AtomicState(state).store(kBlockPacked, std::memory_order_release); }

std::size_t thread_workspace_capacity() { return workspace.capacity; }

template <class In>
void pack_widened(View<In> x, std::int64_t row0, std::int64_t rows, std::int64_t k, std::int64_t width, float* dst, float* scratch)
{
    const std::int64_t panels = (rows + width - 1) / width, panel_size = k * width;
    if (!x.transposed) {
        // Row r of op(X) is k contiguous values: a panel is their transpose (panel_transpose.h);
        // f16/bf16 rows are widened on the way.
        const In* row_values[kMaxPanelWidth];
        for (std::int64_t q = 0; q < panels; ++q) {
            const std::int64_t live = std::min(width, rows - q * width);
            for (std::int64_t r = 0; r < live; ++r) row_values[r] = x.data + (row0 + q * width + r) * x.ld;
            if constexpr (std::is_same_v<In, float>)
                transpose_into_panel(row_values, live, k, width, dst + q * panel_size);
            else
                transpose_widened_into_panel(row_values, live, k, width, dst + q * panel_size);
        }
        return;
    }
    // Column p of op(X) is contiguous: widen the block's `rows` values, copy a piece to each panel.
    for (std::int64_t p = 0; p < k; ++p) {
        const float* values = as_f32(x.data + p * x.ld + row0, rows, scratch);
        for (std::int64_t q = 0; q < panels; ++q) {
            const std::int64_t live = std::min(width, rows - q * width);
            float* slot = dst + q * panel_size + p * width;
            // The common case, a full panel, as one fixed-size copy that the compiler inlines: a call
            // to memmove cost 4 % of a 512^3 product on the avx512 tier, and 6.7 % of the GPT step's
            // samples on the avx2 tier (16-wide panels of B) before 16 was among these.
            if (live == width && copy_fixed_width(values + q * width, slot, width)) continue;
            std::copy(values + q * width, values + q * width + live, slot);
            std::fill(slot + live, slot + width, 0.0f);
        }
    }
}

void pack_bf16_pairs(View<BFloat16> x, std::int64_t row0, std::int64_t rows, std::int64_t k, std::int64_t units, std::int64_t width,
                     std::uint32_t* dst)
{
    const std::int64_t whole = k / 2, panels = (rows + width - 1) / width, panel_size = units * width;
    auto pair = [](BFloat16 lo, BFloat16 hi) { return std::uint32_t(lo.bits) | std::uint32_t(hi.bits) << 16; };
    const BFloat16 zero = BFloat16::from_bits(0);
    if (!x.transposed) {
        // Row r of op(X) is contiguous: steps 2p and 2p + 1 sit side by side, and two adjacent bf16
        // read as one 32-bit word are already the pair (x86 is little-endian). So a panel's whole
        // pairs are the transpose of those words (panel_transpose.h); an odd k's last unit pairs
        // the last step with a zero, and the units after it are zeros.
        const std::uint32_t* row_words[kMaxPanelWidth];
        for (std::int64_t q = 0; q < panels; ++q) {
            const std::int64_t live = std::min(width, rows - q * width);
            const BFloat16* first_row = x.data + (row0 + q * width) * x.ld;
            for (std::int64_t r = 0; r < live; ++r) row_words[r] = reinterpret_cast<const std::uint32_t*>(first_row + r * x.ld);
            std::uint32_t* panel = dst + q * panel_size;
            transpose_into_panel(row_words, live, whole, width, panel);
            if (k % 2) {
                std::uint32_t* slot = panel + whole * width;
                for (std::int64_t r = 0; r < live; ++r) slot[r] = pair(first_row[r * x.ld + k - 1], zero);
                for (std::int64_t r = live; r < width; ++r) slot[r] = 0u;  // the last panel's missing rows
            }
            const std::int64_t written = (k + 1) / 2;
            std::fill(panel + written * width, panel + units * width, 0u);
        }
        return;
    }
    // Columns 2p and 2p + 1 of op(X) are contiguous: interleave a piece of them into each panel.
    for (std::int64_t p = 0; p < units; ++p) {
        const BFloat16* even = 2 * p < k ? x.data + 2 * p * x.ld + row0 : nullptr;
        const BFloat16* odd = 2 * p + 1 < k ? x.data + (2 * p + 1) * x.ld + row0 : nullptr;
        for (std::int64_t q = 0; q < panels; ++q) {
            const std::int64_t first = q * width, live = std::min(width, rows - first);
            std::uint32_t* slot = dst + q * panel_size + p * width;
            if (odd && live == kMaxPanelWidth) {  // the common case: a fixed trip count, which the compiler vectorizes
                for (std::int64_t r = 0; r < kMaxPanelWidth; ++r) slot[r] = pair(even[first + r], odd[first + r]);
                continue;
            }
            if (!even) {  // a padding unit
                std::fill(slot, slot + width, 0u);
                continue;
            }
            for (std::int64_t r = 0; r < live; ++r) slot[r] = pair(even[first + r], odd ? odd[first + r] : zero);
            std::fill(slot + live, slot + width, 0u);
        }
    }
}

void pack_bf16_tile_rows(View<BFloat16> x, std::int64_t row0, std::int64_t rows, std::int64_t k, std::int64_t units, std::int64_t width,
                         std::uint32_t* dst)
{
    constexpr std::int64_t G = kTileRowUnits;
    const std::int64_t panels = (rows + width - 1) / width, panel_size = units * width, whole = k / 2;
    // Where unit p of row r of a panel goes (see gemm_blocked.h).
    auto at = [&](std::int64_t r, std::int64_t p) { return (p / G) * width * G + r * G + p % G; };
    for (std::int64_t q = 0; q < panels; ++q) {
        const std::int64_t live = std::min(width, rows - q * width);
        std::uint32_t* panel = dst + q * panel_size;
        std::fill(panel, panel + panel_size, 0u);  // missing rows, an odd k's last high half, the padding
        for (std::int64_t r = 0; r < live; ++r) {
            const std::int64_t i = row0 + q * width + r;  // the row of op(X)
            if (!x.transposed) {
                // The row's whole pairs are contiguous words: copy them a tile row (16) at a time.
                // memcpy, because a row of bf16 may start at any even address.
                const BFloat16* row = x.data + i * x.ld;
                for (std::int64_t p = 0; p < whole; p += G)
                    std::memcpy(panel + at(r, p), row + 2 * p, std::size_t(std::min(G, whole - p)) * sizeof(std::uint32_t));
                if (k % 2) panel[at(r, whole)] = row[k - 1].bits;  // paired with a zero high half
                continue;
            }
            // op(X) transposed: step s of row i is x.data[s * ld + i], one element at a time.
            for (std::int64_t s = 0; s < k; ++s)
                panel[at(r, s / 2)] |= std::uint32_t(x.data[s * x.ld + i].bits) << (16 * (s % 2));
        }
    }
}

namespace {

// One row of the epilogue in one pass: v = alpha * s, then + beta * old, + the column's bias, +
// the row's bias, each step rounded to f32 as gemm_reference does, in that order. `old` may be
// `value` itself (an f32 C updated in place): each element is read before it is written.
template <bool kBeta, bool kColumnBias, bool kRowBias>
void epilogue_row(const float* s, const float* old, float alpha, float beta, const float* column_bias, float row_bias, float* value,
                  std::int64_t cols)
{
    for (std::int64_t j = 0; j < cols; ++j) {
        float v = alpha * s[j];
        if constexpr (kBeta) v += beta * old[j];
        if constexpr (kColumnBias) v += column_bias[j];
        if constexpr (kRowBias) v += row_bias;
        value[j] = v;
    }
}

using EpilogueRow = void (*)(const float*, const float*, float, float, const float*, float, float*, std::int64_t);

// The loop for this block's epilogue: which of beta and the two biases take part.
EpilogueRow epilogue_row_for(bool beta, bool column_bias, bool row_bias)
{
    constexpr EpilogueRow rows[2][2][2] = {
        {{epilogue_row<false, false, false>, epilogue_row<false, false, true>}, {epilogue_row<false, true, false>, epilogue_row<false, true, true>}},
        {{epilogue_row<true, false, false>, epilogue_row<true, false, true>}, {epilogue_row<true, true, false>, epilogue_row<true, true, true>}}};
    return rows[beta][column_bias][row_bias];
}

}  // namespace

template <class Out>
void store_block(const float* sum, std::int64_t ld_sum, std::int64_t rows, std::int64_t cols, float alpha, float beta, BlockBias bias,
                 Out* c, std::int64_t ldc, float* scratch)
{
    float* old = scratch + cols;  // C's old row, when beta != 0 and C is f16/bf16
    // C = sum, the common case (alpha 1, beta 0, no bias): one rounding pass, nothing to compute.
    if (epilogue_is_a_copy(alpha, beta, bias.per_column || bias.per_row)) {
        for (std::int64_t i = 0; i < rows; ++i) narrow(sum + i * ld_sum, c + i * ldc, cols);
        return;
    }
    // The same operations, in the same order, as gemm_reference: each one rounded to f32, in one
    // pass over the row (C is written once, and read once when beta != 0).
    const EpilogueRow row_epilogue = epilogue_row_for(beta != 0.0f, bias.per_column != nullptr, bias.per_row != nullptr);
    for (std::int64_t i = 0; i < rows; ++i) {
        Out* c_row = c + i * ldc;
        const float row_bias = bias.per_row ? bias.per_row[i] : 0.0f;
        if constexpr (std::is_same_v<Out, float>) {  // an f32 C is its own old row and its own result
            row_epilogue(sum + i * ld_sum, c_row, alpha, beta, bias.per_column, row_bias, c_row, cols);
        } else {
            if (beta != 0.0f) widen(c_row, old, cols);  // only then is C read
            row_epilogue(sum + i * ld_sum, old, alpha, beta, bias.per_column, row_bias, scratch, cols);
            narrow(scratch, c_row, cols);
        }
    }
}

template <class Out>
std::vector<float> widened_bias(const Out* bias, std::int64_t from, std::int64_t count)
{
    if (!bias) return {};
    std::vector<float> values(static_cast<std::size_t>(count));
    widen(bias + from, values.data(), count);
    return values;
}

template void pack_widened<float>(View<float>, std::int64_t, std::int64_t, std::int64_t, std::int64_t, float*, float*);
template void pack_widened<Half>(View<Half>, std::int64_t, std::int64_t, std::int64_t, std::int64_t, float*, float*);
template void pack_widened<BFloat16>(View<BFloat16>, std::int64_t, std::int64_t, std::int64_t, std::int64_t, float*, float*);
#define TINYAMP_INSTANTIATE_EPILOGUE(Out)                                                                                          \
    template void store_block<Out>(const float*, std::int64_t, std::int64_t, std::int64_t, float, float, BlockBias, Out*, std::int64_t, \
                                   float*);                                                                                         \
    template std::vector<float> widened_bias<Out>(const Out*, std::int64_t, std::int64_t);
TINYAMP_INSTANTIATE_EPILOGUE(float)
TINYAMP_INSTANTIATE_EPILOGUE(Half)
TINYAMP_INSTANTIATE_EPILOGUE(BFloat16)
#undef TINYAMP_INSTANTIATE_EPILOGUE

}  // namespace tinyamp::kernels::cpu::blocked
