#pragma once
/// \file
/// One event of a trace: a forward op, a cast autocast inserted, a backward node's run, or a
/// collective of tinyamp::distributed, with the tensors it took and gave (as TensorInfo, which
/// holds no data) and the rule behind it.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "tinyamp/tensor/tensor.h"
#include "tinyamp/trace/value_stats.h"

namespace tinyamp::trace {

/// Which pass an event belongs to: `forward` (ops and autocast's casts) or `backward` (one event
/// per graph node the backward engine ran, and the collectives its gradient hooks started). A
/// collective outside backward() is `forward`.
enum class Phase { forward, backward };

/// What the cast cache did for a cast event (none for ops and for casts it does not apply to).
enum class CacheEvent { none, stored, hit };

const char* phase_name(Phase phase);            ///< "forward" / "backward"
const char* cache_event_name(CacheEvent cache);  ///< "none" / "stored" / "hit"

/// A tensor as an event saw it: identity, dtype, shape and (for outputs) its value statistics.
/// It holds no data, so a trace keeps no tensor alive.
struct TensorInfo {
    std::uint64_t id = 0;        ///< Tensor::id()
    DType dtype = DType::f32;    ///< the tensor's dtype at that moment
    Shape shape;                 ///< its shape
    std::string name;            ///< Tensor::name(), e.g. "w1"
    bool is_leaf = true;         ///< Tensor::is_leaf()
    bool requires_grad = false;  ///< Tensor::requires_grad()
    bool has_stats = false;      ///< true for an event's outputs (stats filled), false for its inputs
    ValueStats stats;            ///< compute_stats() of the tensor when has_stats, else all zeros
};
/// What a trace records about `t`, with compute_stats() when `with_stats`. Throws Error(state)
/// for an undefined tensor.
TensorInfo describe(const Tensor& t, bool with_stats);

/// One quantization of a tensor into an FP8/FP4 format inside an op (FP8 training: fp8_linear
/// casts its input, weight and output gradient): what the cast did to the numbers, for lessons
/// and the visualizer.
struct ScaledCast {
    std::string role;            ///< the operand: "input", "weight", "grad_output" (+ " (transposed)" for MX's second copy)
    DType dtype = DType::f8e4m3fn;  ///< the element dtype: f8e4m3fn, f8e5m2 or f4e2m1x2
    std::string recipe;          ///< amp::recipe_name(): "current", "delayed", "mxfp8", "mxfp4"
    Shape shape;                 ///< the [rows, K] matrix cast (blocks run along K)
    double amax = 0;             ///< the largest |x| of the tensor, before scaling
    double scale = 1;            ///< the tensor scale multiplied in (1 for MX, whose scales are per block)
    double saturated_share = 0;  ///< share of the elements clamped to +-max (the format's largest value)
    double flushed_share = 0;    ///< share of the elements, nonzero before, that became 0
    /// Delayed scaling: the amax history after this step, in AmaxHistory::values() order
    /// (newest first, then oldest to second newest); empty for the other recipes.
    std::vector<float> amax_history;
    std::int64_t blocks_per_row = 0;  ///< MX: blocks in each row (0 for per-tensor scaling)
    /// MX: each block's scale as a power of two, log2 of it (the E8M0 code - 127), row-major
    /// [rows, blocks_per_row], at most kMaxBlockScales of them.
    std::vector<std::int16_t> block_scale_exponents;
    static constexpr std::size_t kMaxBlockScales = 4096;  ///< block scales kept per cast
    /// Counts of floor(log2 |x * scale|) (after the block's scale for MX) of the nonzero finite
    /// elements, for exponents kHistogramLowest .. kHistogramLowest + size - 1 (the ends
    /// collect what lies beyond them): what the format's range is compared with.
    std::vector<std::int64_t> log2_histogram;
    static constexpr int kHistogramLowest = -40;  ///< the exponent of log2_histogram[0]
    std::int64_t zeros = 0;  ///< elements that were 0 before the cast
};

/// What one rank did in a collective of tinyamp::distributed (all_reduce, broadcast,
/// all_gather_into_tensor, reduce_scatter_tensor; all_reduce_gradients' buckets): the event's
/// `op` names the collective, this says how its data travelled. The trace floor lies below
/// distributed, so the reduction is kept as its name.
struct Collective {
    /// "SUM", "MAX" or "AVG" (distributed::reduce_op_name) for all_reduce and
    /// reduce_scatter_tensor; "" for broadcast and all_gather_into_tensor.
    std::string reduce_op;
    DType dtype = DType::f32;  ///< the dtype the data travelled (and was reduced) in: bf16 for a bf16-compressed gradient
    /// The bytes this rank handed in: numel x itemsize of its buffer (all_gather: its input;
    /// reduce_scatter: its whole input; broadcast: the tensor on the source rank, 0 on the others).
    /// The wire traffic depends on MPI's algorithm (a ring all-reduce sends about 2(n-1)/n of it).
    std::int64_t bytes = 0;
    int world_size = 1;  ///< ranks in the group
    int rank = 0;        ///< the rank that recorded the event
    int root = -1;       ///< broadcast: the source rank; -1 for the other collectives
};

/// How a collective's data travelled, in a few words: "SUM in bf16"; a broadcast "from rank 0 in
/// f32"; an all_gather "in f32".
std::string collective_how(const Collective& collective);
/// A collective in a few words, as a trace's text and the visualizer's inspector say it: "SUM in
/// bf16, 2580 bytes, rank 0 of 2"; a broadcast "from rank 0 in f32, 64 bytes, rank 1 of 2".
std::string collective_summary(const Collective& collective);

/// One recorded event: a top-level forward op, a cast autocast inserted, the run of one
/// backward node, or a collective, with the tensors it took and gave and the autocast rule
/// behind it.
struct Event {
    std::uint64_t seq = 0;             ///< order of recording, from 1
    Phase phase = Phase::forward;      ///< forward (ops, casts) or backward (graph nodes)
    std::string op;                    ///< "matmul", "to", ...; backward events use the node's name
    bool is_cast = false;              ///< a cast inserted by autocast
    std::vector<TensorInfo> inputs;    ///< what the op received (after autocast's casts); backward: one gradient per branch that sent one
    std::vector<TensorInfo> outputs;   ///< forward: the result; backward: the input gradients (AccumulateGrad: the .grad it wrote)
    std::string device_type;           ///< "cpu" / "cuda"
    std::string policy;                ///< autocast rule applied: "lower_precision_fp", "fp32", "fp32_set_opt_dtype",
                                       ///< "promote", "banned", "not listed", or "" when autocast was off (and for backward events)
    std::string why;                   ///< one line a student can read
    CacheEvent cache = CacheEvent::none;  ///< what the cast cache did (cast events only)
    /// The nn::Module the op ran in, as a dotted path of names from the outermost module called
    /// ("0", "2", "4.attn"), "" outside every named module. A backward event takes the module of
    /// the forward op that made its node (AccumulateGrad: the module whose node sent it the gradient).
    std::string module;
    /// The type_name() of each module along `module`, joined by dots as the names are
    /// ("Block.Attention" for "4.attn"; "Linear" for "0"), "" when `module` is "".
    std::string module_types;
    /// The FP8/FP4 casts the op made inside (fp8_linear's forward: input and weight; its
    /// backward: the output gradient), in order; empty for other ops.
    std::vector<ScaledCast> scaled_casts;
    /// Set for a collective's event (`op` is its name, e.g. "all_reduce"; its inputs and outputs
    /// are the tensors sent and received, for all_reduce_gradients the gradients before and
    /// after averaging). Phase backward when backward() was running (DistributedDataParallel's
    /// bucket hooks), forward otherwise.
    std::optional<Collective> collective;
};

/// One line per event for lessons and logs, e.g.
/// "#3 forward matmul(bf16 [4, 3], bf16 [3, 2]) -> bf16 [4, 2]  [lower_precision_fp]".
std::ostream& operator<<(std::ostream& out, const Event& event);

}  // namespace tinyamp::trace
