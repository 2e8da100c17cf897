#pragma once
// The blocked GEMM every fast tier shares (the Goto/BLIS design); a tier brings only its
// micro-kernel. See docs/kernels.md for the pictures. In four steps:
//
//  1. Register tiling. The micro-kernel computes an MR x NR tile of C in vector registers of f32.
//     Each step p of the k loop loads NR values of a row of op(B), broadcasts MR values of a
//     column of op(A) and does MR x NR multiply-adds, far more work than loads.
//  2. Packing (gemm_blocked.cpp). op(A) is copied into panels of MR rows, stored so that the MR
//     values the kernel needs at step p are adjacent (a[p * MR + i]); op(B) into panels of NR
//     columns (b[p * NR + j]). The kernel then reads both strictly sequentially. Packing is where
//     transposes and leading dimensions are handled (a transposed view is read in place), where
//     edge panels are padded with zeros (so the kernel has no edge cases), and where f16/bf16 are
//     widened to f32 (F16C; bf16 is a 16-bit shift), or, for vdpbf16ps, paired.
//  3. Cache blocking. Columns in blocks of NC, rows in blocks of MC, the k range in blocks of KC
//     steps, so the micro-panels the kernel reuses stay in L1/L2.
//  4. The epilogue (gemm_blocked.cpp). Partial sums of a block of C live in an f32 buffer
//     between k blocks; when the whole k range is summed, ((alpha * sum) + beta * C) + bias is
//     computed in f32, as the reference does, and rounded once into C's dtype. (When that would
//     only copy the sums into an f32 C, the kernel sums into C itself.)
//
// Several threads split C's columns (or rows, when C is narrow) at tile boundaries. Each element
// is computed by one thread, over the same k blocks in the same order, so the bits do not depend
// on the number of threads.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/cpu/gemm_fast.h"
#include "kernels/cpu/worker_pool.h"

namespace tinyamp::kernels::cpu::blocked {

/// op(X) over a raw buffer: element (row, col) is data[row * ld + col], or data[col * ld + row]
/// when `transposed`.
template <class T>
struct View {
    const T* data;
    std::int64_t ld;
    bool transposed;
};

/// Packs rows [row0, row0 + rows) x k of op(X) into panels of `width` rows, widened to f32 (for
/// op(B) pass the view of op(B)^T, whose rows are op(B)'s columns). Panel q holds step p at
/// dst[q * k * width + p * width + r]; rows past the end are zeros. `scratch` holds
/// max(k * width, rows) floats. `width` is at most kMaxPanelWidth.
constexpr std::int64_t kPackAllOfAMaxBytes = std::int64_t(16) << 20;  ///< see gemm_range
constexpr std::int64_t kMaxPanelWidth = 32;  ///< the widest micro-panel of any tier (NR of avx512)

template <class In>
void pack_widened(View<In> x, std::int64_t row0, std::int64_t rows, std::int64_t k, std::int64_t width, float* dst, float* scratch);

/// The same for vdpbf16ps and AMX's B tiles: unit p is the pair of steps (2p, 2p + 1) in one
/// 32-bit slot, low half first (Intel calls this the VNNI layout). `units` units are written, at
/// least (k + 1) / 2: the steps past k (an odd k's last one, a kernel's padding) are zeros.
void pack_bf16_pairs(View<BFloat16> x, std::int64_t row0, std::int64_t rows, std::int64_t k, std::int64_t units, std::int64_t width,
                     std::uint32_t* dst);

/// Units in one row of an AMX tile: 64 bytes, 16 pairs of bf16.
constexpr std::int64_t kTileRowUnits = 16;

/// The same pairs laid out for AMX's A tiles, whose rows are 16 consecutive units of ONE row of
/// op(A). A panel of `width` rows holds `units` units (a multiple of kTileRowUnits, zeros past k)
/// in groups of 16: row r's units [16g, 16g + 16) at dst[g * width * 16 + r * 16 + 0..15]. So the
/// 16 rows of one tile are 1 KiB in a row (tileloadd with a 64-byte stride), and group g of the
/// panel starts at dst + 16g * width, where pack_bf16_pairs puts unit 16g: the kernel's offsets
/// are the same for both layouts.
void pack_bf16_tile_rows(View<BFloat16> x, std::int64_t row0, std::int64_t rows, std::int64_t k, std::int64_t units, std::int64_t width,
                         std::uint32_t* dst);

/// The bias values a block of C adds, widened to f32: per column (BiasAlong::rows) or per row
/// (BiasAlong::columns); both null without a bias.
struct BlockBias {
    const float* per_column = nullptr;  ///< bias[j] of the block's columns
    const float* per_row = nullptr;     ///< bias[i] of the block's rows
};

/// True when the epilogue computes nothing: C = sum, rounded into C's dtype (alpha 1, beta 0, no
/// bias). store_block then only narrows the sums; gemm_range lets the kernel sum into an f32 C.
constexpr bool epilogue_is_a_copy(float alpha, float beta, bool has_bias) { return alpha == 1.0f && beta == 0.0f && !has_bias; }

/// C block [rows x cols] = ((alpha * sum) + beta * C) + bias, in f32, rounded once into Out.
/// With beta == 0, C is not read. `scratch` holds 2 * cols floats.
template <class Out>
void store_block(const float* sum, std::int64_t ld_sum, std::int64_t rows, std::int64_t cols, float alpha, float beta, BlockBias bias,
                 Out* c, std::int64_t ldc, float* scratch);

/// Bias values [from, from + count) widened to f32 (empty when `bias` is null).
template <class Out>
std::vector<float> widened_bias(const Out* bias, std::int64_t from, std::int64_t count);

// A Kernel provides: using Packed (float, or std::uint32_t for pairs of bf16); MR, NR, MC, NC, KC
// (MC a multiple of MR, NC of NR; KC counts packed units); and
//   static void run(std::int64_t kc, const Packed* a, const Packed* b, float* c, std::int64_t ldc, bool first)
// which sets the MR x NR tile c (row stride ldc) to (first ? 0 : c) + the sum over kc units of a x b.
// A kernel may also provide (each optional, found with `requires`; amx has all, avx512_bf16 and
// the avx512 f32 kernel run_a_in_place):
//   KU                   kc is always a multiple of KU: the packing pads k with zero units (default 1)
//   a_in_tile_rows       true: op(A) packed by pack_bf16_tile_rows (default: the same as op(B))
//   rows_outer           true: in a block, the loop over A micro-panels is the outer one, so one
//                        A micro-panel stays in L1 while the B micro-panels stream (default false)
//   pack_all_of_a_max_bytes  the most op(A) packed whole (default kPackAllOfAMaxBytes)
//   chunk_rows_of_large_a false: an op(A) too large to pack whole is packed again for every block
//                        of columns (default true: its rows in chunks that fit, each packed once)
//   share_packed_a       false: threads that split C's columns each pack all of op(A) (default true: SharedPackA)
//   begin_range()        called by each thread before its first run() of a product (tile setup),
//   end_range()          and after its last one
//   run_a_in_place(kc, a, lda, b, c, ldc, first)
//                        run() reading op(A) where it lies (a: the micro-panel's first row at the
//                        k block's first value, lda its row stride), used when op(A) is row-major
//                        in the kernel's own input (in_place_input_t: bf16 for pairs, f32 for an f32
//                        kernel), in whole kernel steps and whole MR-row panels: op(A) is not packed
template <class Kernel>
constexpr bool pairs_of_bf16 = std::is_same_v<typename Kernel::Packed, std::uint32_t>;
template <class Kernel>
constexpr std::int64_t unit_step()
{
    if constexpr (requires { Kernel::KU; }) return Kernel::KU;
    return 1;
}
template <class Kernel>
constexpr bool reads_a_in_place = requires { &Kernel::run_a_in_place; };
/// The input a kernel reads where it lies: bf16 for a kernel of bf16 pairs, f32 for an f32 one
/// (an f16 or bf16 op(A) for an f32 kernel must be widened, so packed).
template <class Kernel>
using in_place_input_t = std::conditional_t<pairs_of_bf16<Kernel>, BFloat16, float>;
template <class Kernel>
constexpr bool rows_outer()
{
    if constexpr (requires { Kernel::rows_outer; }) return Kernel::rows_outer;
    return false;
}
template <class Kernel>
constexpr std::int64_t pack_all_of_a_max_bytes()  // a test's small limit reaches the chunks with small products
{
    if constexpr (requires { Kernel::pack_all_of_a_max_bytes; }) return Kernel::pack_all_of_a_max_bytes;
    return kPackAllOfAMaxBytes;
}
template <class Kernel>
constexpr bool chunks_rows_of_large_a()  // false: op(A) too large to pack whole is packed per block of columns
{
    if constexpr (requires { Kernel::chunk_rows_of_large_a; }) return Kernel::chunk_rows_of_large_a;
    return true;
}
template <class Kernel>
constexpr bool shares_packed_a()  // false: each thread packs all of op(A) itself (for the tuning tools' comparison)
{
    if constexpr (requires { Kernel::share_packed_a; }) return Kernel::share_packed_a;
    return true;
}
template <class Kernel>
constexpr bool a_in_tile_rows()
{
    if constexpr (requires { Kernel::a_in_tile_rows; }) return Kernel::a_in_tile_rows;
    return false;
}

/// The widest row stride (bytes) at which a kernel reads op(A) in place. A tile's 16 rows then
/// span at most 4 pages. Measured on a Xeon with AMX (docs/benchmarks.md): in place, a 256^3 bf16
/// product ran 1.2-1.5x faster and a 512^3 one on two threads 1.2-1.35x (each thread had packed
/// all of op(A)), but at 2 and 4 KiB strides (1024^3, 2048^3 on one thread) 10-20% slower than
/// packing: every tile row on another page, the prefetchers lose the stream that packing lays out.
/// The avx512_bf16 kernel's 8 rows on a Zen 4 (docs/kernels.md): a few percent faster up to 1
/// KiB, 3-10% slower at 2 and 4 KiB.
constexpr std::int64_t kInPlaceMaxRowBytes = 1024;

/// x rounded up to a multiple of `step` (whole tiles, whole cache lines).
constexpr std::int64_t round_up(std::int64_t x, std::int64_t step) { return (x + step - 1) / step * step; }

/// The units op(A)'s rows and op(B)'s columns are packed in for a k of `k` values: k, or its
/// pairs for a bf16-pair kernel, rounded up to whole kernel steps (zero units pad the last one).
template <class Kernel>
constexpr std::int64_t packed_units(std::int64_t k)
{
    return round_up(pairs_of_bf16<Kernel> ? (k + 1) / 2 : k, unit_step<Kernel>());
}

/// Memory for one gemm_range call on this thread: at least `bytes`, 64-byte aligned, contents
/// undefined, valid until this thread's next call. Kept and reused (grown when too small), so a
/// GEMM neither allocates nor faults pages in: on two threads, unmapping the freed megabytes
/// made the kernel flush the other core's TLB, about 10% of a 512^3 bf16 product.
std::byte* thread_workspace(std::size_t bytes);

/// The most workspace a thread keeps between products (64 MiB): a rare huge product (a long k
/// makes the packed B large) gets its memory, then gives it back when it ends.
constexpr std::size_t kWorkspaceKeepBytes = std::size_t(64) << 20;

/// Frees this thread's workspace if it is larger than kWorkspaceKeepBytes (gemm_range's last step).
void trim_thread_workspace();

/// The bytes this thread's workspace holds now (for tests).
std::size_t thread_workspace_capacity();

/// op(A) packed once for all the threads of one product that split C's columns, each of which
/// needs all of op(A)'s rows. Without it each of two threads packed all of op(A) itself: twice
/// the packing, and twice the memory for the caches to hold. The buffer is laid out as one
/// thread's whole-range buffer (see gemm_range). Each block of it, MC rows x KC units, has a
/// state: the first thread that needs the block packs it, and a thread that finds it being packed
/// waits. No thread waits for anything while it packs, so no thread waits for long, and a caller
/// that ends up running every part itself (gemm's helper slow to wake) packs every block itself.
struct SharedPackA {
    void* data = nullptr;             ///< the packed rows (Kernel::Packed values)
    std::uint32_t* states = nullptr;  ///< one per block, row block by row block: kBlock*
    std::int64_t k_blocks = 0;        ///< blocks per row block
};
constexpr std::uint32_t kBlockNotPacked = 0, kBlockBeingPacked = 1, kBlockPacked = 2;

/// Memory for a SharedPackA, kept by the calling thread between products as thread_workspace is
/// (a different block: gemm_range on the same thread takes its own); contents undefined.
std::byte* thread_shared_workspace(std::size_t bytes);
/// Frees it if larger than kWorkspaceKeepBytes (gemm's last step).
void trim_thread_shared_workspace();

/// True when this thread is to pack the block whose state this is (then publish_block when
/// done); false once another thread has packed it (waiting while another thread packs it).
bool claim_block(std::uint32_t& state);
/// Marks a claimed block packed: the other threads may read it.
void publish_block(std::uint32_t& state);

/// Whether gemm_range reads op(A) where it lies instead of packing it (see there).
template <class Kernel, class In, class Out>
bool reads_a_where_it_lies(const GemmProblem<In, Out>& pr, std::int64_t rows)
{
    if constexpr (reads_a_in_place<Kernel> && std::is_same_v<In, in_place_input_t<Kernel>>) {
        constexpr std::int64_t values_per_unit = pairs_of_bf16<Kernel> ? 2 : 1;
        return pr.trans_a == Transpose::no && pr.k % (unit_step<Kernel>() * values_per_unit) == 0 && rows % Kernel::MR == 0 &&
               pr.lda * std::int64_t(sizeof(In)) <= kInPlaceMaxRowBytes;
    } else {
        (void)pr, (void)rows;
        return false;
    }
}

/// Carves `count` values of T from `cursor`, which moves on by whole cache lines.
template <class T>
T* take(std::byte*& cursor, std::int64_t count)
{
    static_assert(std::is_trivially_default_constructible_v<T>);
    T* values = reinterpret_cast<T*>(cursor);
    cursor += round_up(std::max<std::int64_t>(count, 1) * std::int64_t(sizeof(T)), 64);
    return values;
}

/// How many rows of op(A) to pack at once, for a range of `rows` x `cols` of C over `units`
/// packed units: all of them when that fits in kPackAllOfAMaxBytes; else chunks of whole blocks
/// of rows that fit, done one after the other, each packed once, so that op(B) is packed once
/// per chunk. (Without chunks op(A) would be packed again for every block of columns: at 3072^3
/// in f32 that cost 6-9 % of the product on an Emerald Rapids Xeon. Chunks pack fewer values whenever a chunk has more rows
/// than a block of columns has columns, chunks x k x n < (n / NC) x m x k, which holds up to
/// k = 16384 for f32.) 0: neither; op(A) is packed block by block as it is used.
template <class Kernel>
constexpr std::int64_t rows_per_packed_chunk(std::int64_t rows, std::int64_t cols, std::int64_t units)
{
    using K = Kernel;
    const std::int64_t row_bytes = std::max<std::int64_t>(units, 1) * std::int64_t(sizeof(typename K::Packed));
    if (round_up(rows, K::MR) * row_bytes <= pack_all_of_a_max_bytes<K>()) return rows;
    const std::int64_t chunk_rows = pack_all_of_a_max_bytes<K>() / row_bytes / K::MC * K::MC;
    return chunks_rows_of_large_a<K>() && cols > K::NC && chunk_rows >= std::max(K::MC, K::NC) ? chunk_rows : 0;
}

/// Rows [i0, i1) x columns [j0, j1) of C: the whole loop nest of one thread. With `shared_a`,
/// op(A)'s rows [i0, i1) are packed there, block by block, by whichever thread needs a block
/// first; `rows_backwards` runs the blocks of rows from the last, so that two threads sharing
/// op(A) start at opposite ends and each packs about half of it.
template <class Kernel, class In, class Out>
void gemm_range(const GemmProblem<In, Out>& pr, std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1,
                const SharedPackA* shared_a = nullptr, bool rows_backwards = false)
{
    using K = Kernel;
    using P = typename K::Packed;
    static_assert(K::MR <= kMaxPanelWidth && K::NR <= kMaxPanelWidth, "pack_widened reads at most kMaxPanelWidth rows side by side");
    static_assert(K::KC % unit_step<K>() == 0, "every k block but the last must be whole kernel steps");
    const std::int64_t units = packed_units<K>(pr.k);
    const std::int64_t values_per_unit = pairs_of_bf16<K> ? 2 : 1;
    const View<In> op_a{pr.a, pr.lda, pr.trans_a == Transpose::yes};
    const View<In> op_b_t{pr.b, pr.ldb, pr.trans_b == Transpose::no};  // op(B)^T: its rows are columns of op(B)
    // Buffers sized for the largest block of this range.
    const std::int64_t mc_max = round_up(std::min(K::MC, i1 - i0), K::MR);
    const std::int64_t ld_sum = round_up(std::min(K::NC, j1 - j0), K::NR);
    const std::int64_t units_stored = std::max<std::int64_t>(units, 1);  // an empty k still gets a buffer
    // When C has more than one block of columns, op(A) would be packed again for each of them:
    // pack all of this range's rows once instead (in chunks of rows past kPackAllOfAMaxBytes).
    // A kernel that can read op(A) in place does so when op(A) is row-major (its rows are the
    // runs of k the kernel reads), k is whole kernel steps (no padding to add), the rows are
    // whole panels (none to add) and close together (kInPlaceMaxRowBytes): then op(A) is not packed.
    constexpr bool can_read_a_in_place = reads_a_in_place<K> && std::is_same_v<In, in_place_input_t<K>>;
    const bool a_in_place = reads_a_where_it_lies<K>(pr, i1 - i0);
    const std::int64_t rows_padded = round_up(i1 - i0, K::MR);
    // Rows of op(A) packed at once: all of them, chunks of them when they do not fit (done one
    // after the other), or 0 (packed block by block as used). A shared op(A) has the whole-range
    // layout: gemm cut the rows into chunks that fit.
    const std::int64_t chunk_rows =
        shared_a ? i1 - i0 : !a_in_place && j1 - j0 > K::NC ? rows_per_packed_chunk<K>(i1 - i0, j1 - j0, units) : 0;
    if (chunk_rows > 0 && chunk_rows < i1 - i0) {
        for (std::int64_t r = i0; r < i1; r += chunk_rows) gemm_range<K>(pr, r, std::min(r + chunk_rows, i1), j0, j1);
        return;
    }
    const bool pack_a_once = chunk_rows > 0;
    const std::int64_t a_rows = pack_a_once ? rows_padded : mc_max;  // rows the A buffer holds
    // The buffers, from this thread's workspace. Not zero-filled: packing and the first k block
    // write every value the kernel reads, and zeroing megabytes per call cost ~8% of a 1024^3 product.
    const std::int64_t a_size = a_in_place || shared_a ? 0 : a_rows * units_stored, b_size = ld_sum * units_stored;
    const std::int64_t sum_size = mc_max * ld_sum;
    const std::int64_t scratch_size = std::max({K::KC * values_per_unit * std::max(K::MR, K::NR), a_rows, 2 * ld_sum});
    std::byte* cursor =
        thread_workspace(std::size_t(a_size + b_size) * sizeof(P) + std::size_t(sum_size + scratch_size) * sizeof(float) + 4 * 64);
    P* const a_pack = shared_a ? static_cast<P*>(shared_a->data) : take<P>(cursor, a_size);
    P* const b_pack = take<P>(cursor, b_size);
    float* const sum = take<float>(cursor, sum_size);  // f32 sums of one block of C
    float* const scratch = take<float>(cursor, scratch_size);
    // The bias of this range's columns (bias[j], added along rows) or of its rows (bias[i]), in f32.
    const bool bias_per_column = pr.bias.data && pr.bias.along == BiasAlong::rows;
    const bool bias_per_row = pr.bias.data && pr.bias.along == BiasAlong::columns;
    const std::vector<float> column_bias = widened_bias(bias_per_column ? pr.bias.data : nullptr, j0, j1 - j0);
    const std::vector<float> row_bias = widened_bias(bias_per_row ? pr.bias.data : nullptr, i0, i1 - i0);
    // When the epilogue would only copy the sums into an f32 C, the kernel sums straight into C,
    // as BLAS kernels do: the same f32 sums, and no copy of every block of C (4% of a 512^3
    // product in a profile on a Zen 4; measured on an Emerald Rapids Xeon, one thread: 2% faster
    // at 512^3, 1% at 1024^3, no change at 2048^3). Only blocks of whole tiles: the kernel writes
    // whole MR x NR tiles, which would run past C's edge.
    bool sums_in_c = false;
    if constexpr (std::is_same_v<Out, float>)
        sums_in_c = epilogue_is_a_copy(float(pr.alpha), float(pr.beta), pr.bias.data != nullptr) && units > 0;

    // Packed buffers are laid out k block by k block: block pc (units [pc, pc + KC)) of a buffer
    // holding R rows starts at pc * R, and in it the panel of rows [r, r + width) at r * kc. So
    // the kernel's A block (MC x KC) and B block (KC x NC) are each one contiguous run. (Whole-k
    // panels put the A micro-panels of one block a panel's size apart; at k = 2048 that is 64
    // KiB, the L2 cache's set period, and they evicted each other.)
    // (The padded last block has fewer values than its units hold; it is never all padding,
    // since the padding is less than one kernel step and KC is whole steps.)
    // Rows [row0, row0 + rows) of k block pc (units [pc, pc + KC)) into dst, in panels of `width`.
    auto pack_k_block = [&](const View<In>& x, bool is_a, std::int64_t pc, std::int64_t row0, std::int64_t rows, std::int64_t width,
                            P* dst) {
        const std::int64_t kc = std::min(K::KC, units - pc);
        const std::int64_t k0 = pc * values_per_unit, k_block = std::min(kc * values_per_unit, pr.k - k0);
        const View<In> block{x.data + (x.transposed ? k0 * x.ld : k0), x.ld, x.transposed};  // columns [k0, k0 + k_block)
        if constexpr (pairs_of_bf16<K>) {
            if (is_a && a_in_tile_rows<K>())
                pack_bf16_tile_rows(block, row0, rows, k_block, kc, width, dst);
            else
                pack_bf16_pairs(block, row0, rows, k_block, kc, width, dst);
        } else {
            (void)is_a;
            pack_widened<In>(block, row0, rows, k_block, width, dst, scratch);
        }
    };
    auto pack = [&](const View<In>& x, bool is_a, std::int64_t row0, std::int64_t rows, std::int64_t width, std::int64_t buffer_rows,
                    P* dst) {
        for (std::int64_t pc = 0; pc < units; pc += K::KC) pack_k_block(x, is_a, pc, row0, rows, width, dst + pc * buffer_rows);
    };
    if constexpr (requires { K::begin_range(); }) K::begin_range();
    if (pack_a_once && !shared_a) pack(op_a, true, i0, i1 - i0, K::MR, a_rows, a_pack);
    const std::int64_t row_blocks = (i1 - i0 + K::MC - 1) / K::MC;
    for (std::int64_t jc = j0; jc < j1; jc += K::NC) {
        const std::int64_t nc = std::min(K::NC, j1 - jc);
        pack(op_b_t, false, jc, nc, K::NR, ld_sum, b_pack);
        for (std::int64_t row_block = 0; row_block < row_blocks; ++row_block) {
            const std::int64_t ic = i0 + (rows_backwards ? row_blocks - 1 - row_block : row_block) * K::MC;
            const std::int64_t mc = std::min(K::MC, i1 - ic);
            const std::int64_t a_row0 = pack_a_once ? ic - i0 : 0;  // MC is a multiple of MR: whole panels
            if (!pack_a_once && !a_in_place) pack(op_a, true, ic, mc, K::MR, a_rows, a_pack);
            if (units == 0) std::fill(sum, sum + sum_size, 0.0f);
            float* block_sum = sum;  // where this block's f32 sums are kept: the buffer, or C itself
            std::int64_t ld_block = ld_sum;
            if constexpr (std::is_same_v<Out, float>) {
                if (sums_in_c && mc % K::MR == 0 && nc % K::NR == 0) {
                    block_sum = pr.c + ic * pr.ldc + jc;
                    ld_block = pr.ldc;
                }
            }
            for (std::int64_t pc = 0; pc < units; pc += K::KC) {
                const std::int64_t kc = std::min(K::KC, units - pc);
                if (shared_a) {  // this block of op(A): packed by this thread now, or by another already
                    std::uint32_t& state = shared_a->states[(ic - i0) / K::MC * shared_a->k_blocks + pc / K::KC];
                    if (claim_block(state)) {
                        pack_k_block(op_a, true, pc, ic, mc, K::MR, a_pack + pc * a_rows + a_row0 * kc);
                        publish_block(state);
                    }
                }
                const P* a_block = a_in_place ? nullptr : a_pack + pc * a_rows + a_row0 * kc;
                const P* b_block = b_pack + pc * ld_sum;
                auto run_tile = [&](std::int64_t ir, std::int64_t jr) {
                    if constexpr (can_read_a_in_place) {
                        if (a_in_place) {
                            K::run_a_in_place(kc, op_a.data + (ic + ir) * op_a.ld + pc * values_per_unit, op_a.ld, b_block + jr * kc,
                                              block_sum + ir * ld_block + jr, ld_block, pc == 0);
                            return;
                        }
                    }
                    K::run(kc, a_block + ir * kc, b_block + jr * kc, block_sum + ir * ld_block + jr, ld_block, pc == 0);
                };
                if constexpr (rows_outer<K>()) {
                    // One A micro-panel (MR x KC) stays in L1 while the B micro-panels stream past it.
                    for (std::int64_t ir = 0; ir < mc; ir += K::MR)
                        for (std::int64_t jr = 0; jr < nc; jr += K::NR) run_tile(ir, jr);
                } else {
                    // One B micro-panel (KC x NR) stays in L1 while the A micro-panels stream past it.
                    for (std::int64_t jr = 0; jr < nc; jr += K::NR)
                        for (std::int64_t ir = 0; ir < mc; ir += K::MR) run_tile(ir, jr);
                }
            }
            if (block_sum != sum) continue;  // C already holds the block
            const BlockBias bias{bias_per_column ? column_bias.data() + (jc - j0) : nullptr,
                                 bias_per_row ? row_bias.data() + (ic - i0) : nullptr};
            store_block<Out>(sum, ld_sum, mc, nc, float(pr.alpha), float(pr.beta), bias, pr.c + ic * pr.ldc + jc, pr.ldc,
                             scratch);
        }
    }
    if constexpr (requires { K::end_range(); }) K::end_range();
    trim_thread_workspace();
}

/// The product on `threads` threads (at least 1), each computing its own part of C.
template <class Kernel, class In, class Out>
void gemm_blocked(const GemmProblem<In, Out>& pr, int threads)
{
    using K = Kernel;
    if (pr.m == 0 || pr.n == 0) return;
    // Split at multiples of the tile, so the cuts add no edge tiles: the columns when C is wide
    // enough, else the rows.
    const bool by_columns = pr.n >= 2 * K::NR;
    const std::int64_t total = by_columns ? pr.n : pr.m, step = by_columns ? K::NR : K::MR;
    const int parts = int(std::min<std::int64_t>(std::max(threads, 1), total / step));
    if (parts < 2) {
        gemm_range<K>(pr, 0, pr.m, 0, pr.n);
        return;
    }
    auto cut = [&](int part) { return std::min(total, round_up(total * part / parts, step)); };
    // Parts that split the columns all read every row of op(A): pack it once, for all of them
    // (SharedPackA), unless the kernel reads it in place. An op(A) too large to pack whole goes in
    // chunks of rows, each shared in turn (as gemm_range chunks it on one thread).
    auto run_part = [&](int part, std::int64_t row0, std::int64_t row1, const SharedPackA* shared) {
        const std::int64_t lo = cut(part), hi = cut(part + 1);
        if (lo >= hi) return;
        if (by_columns)
            gemm_range<K>(pr, row0, row1, lo, hi, shared, part % 2 == 1);
        else
            gemm_range<K>(pr, lo, hi, 0, pr.n);
    };
    using P = typename K::Packed;
    const std::int64_t units = packed_units<K>(pr.k);
    const std::int64_t chunk_rows = rows_per_packed_chunk<K>(pr.m, pr.n, units);
    if (!shares_packed_a<K>() || !by_columns || units == 0 || reads_a_where_it_lies<K>(pr, pr.m) || chunk_rows == 0) {
        run_parts(parts, [&](int part) { run_part(part, 0, pr.m, nullptr); });  // part 0 here, the others on the pool's helpers
        return;
    }
    for (std::int64_t row0 = 0; row0 < pr.m; row0 += chunk_rows) {
        const std::int64_t row1 = std::min(row0 + chunk_rows, pr.m);
        SharedPackA shared;
        shared.k_blocks = (units + K::KC - 1) / K::KC;
        const std::int64_t rows_padded = round_up(row1 - row0, K::MR), blocks = (row1 - row0 + K::MC - 1) / K::MC * shared.k_blocks;
        const std::int64_t a_bytes = rows_padded * units * std::int64_t(sizeof(P));
        const std::int64_t states_bytes = blocks * std::int64_t(sizeof(std::uint32_t));
        std::byte* cursor = thread_shared_workspace(std::size_t(round_up(a_bytes, 64) + round_up(states_bytes, 64)));
        shared.data = take<P>(cursor, rows_padded * units);
        shared.states = take<std::uint32_t>(cursor, blocks);
        std::fill(shared.states, shared.states + blocks, kBlockNotPacked);  // before run_parts starts the helpers
        run_parts(parts, [&](int part) { run_part(part, row0, row1, &shared); });
    }
    trim_thread_shared_workspace();
}

}  // namespace tinyamp::kernels::cpu::blocked

/// Defines a tier's entry point `Name` (gemm_fast.h: gemm_avx2, gemm_avx512) as the blocked GEMM
/// around `Kernel`, for every (In, Out) a tier whose kernel takes f32 serves: f32, f16 and bf16,
/// with their own dtype or f32 out. Used inside the tier's namespace.
#define TINYAMP_DEFINE_WIDENING_GEMM_TIER(Name, Kernel)                                              \
    template <class In, class Out>                                                                \
    void Name(const GemmProblem<In, Out>& problem, int threads)                                   \
    {                                                                                             \
        blocked::gemm_blocked<Kernel>(problem, threads);                                          \
    }                                                                                             \
    template void Name<float, float>(const GemmProblem<float, float>&, int);                      \
    template void Name<Half, Half>(const GemmProblem<Half, Half>&, int);                          \
    template void Name<BFloat16, BFloat16>(const GemmProblem<BFloat16, BFloat16>&, int);          \
    template void Name<Half, float>(const GemmProblem<Half, float>&, int);                        \
    template void Name<BFloat16, float>(const GemmProblem<BFloat16, float>&, int);
