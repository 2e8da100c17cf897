#pragma once
/// \file
/// One event of a trace: a forward op, a cast autocast inserted, or a backward node's run, with
/// the tensors it took and gave (as TensorInfo, which holds no data) and the rule behind it.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "tinyamp/core/tensor.h"
#include "tinyamp/trace/value_stats.h"

namespace tinyamp::trace {

/// Which pass an event belongs to: `forward` (ops and autocast's casts) or `backward` (one event
/// per graph node the backward engine ran).
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

/// One recorded event: a top-level forward op, a cast autocast inserted, or the run of one
/// backward node, with the tensors it took and gave and the autocast rule behind it.
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
};

/// One line per event for lessons and logs, e.g.
/// "#3 forward matmul(bf16 [4, 3], bf16 [3, 2]) -> bf16 [4, 2]  [lower_precision_fp]".
std::ostream& operator<<(std::ostream& out, const Event& event);

}  // namespace tinyamp::trace
