#pragma once
/// \file
/// Sharded optimizer state and sharded gradients (the ideas of ZeRO-1 and ZeRO-2, and of FSDP's
/// gradient shards), small: each rank owns some of the parameters, keeps the optimizer state and
/// the averaged gradients of those only, steps them, and sends them to the others.
///
///     distributed::ZeroRedundancyOptimizer zero(model->parameters(), [](std::vector<Tensor> shard) {
///         return std::make_unique<optim::AdamW>(shard, optim::AdamWOptions{.lr = 1e-3});
///     });
///     distributed::ShardedGradScaler scaler("cpu");
///     ...
///     scaler.scale(loss).backward();
///     zero.reduce_gradients();                       // average; keep only this rank's shard
///     scaler.step(zero.local_optimizer());           // unscale and step this rank's shard
///     zero.sync_parameters();                        // each parameter from its owner to every rank
///     scaler.update();
///
/// The trap this shows (lesson 21): with sharded gradients each rank checks only its own shard
/// for infs. A plain amp::GradScaler then lets the ranks disagree: the rank whose shard overflowed
/// skips its step and halves its scale, the others step and keep theirs. ShardedGradScaler
/// (PyTorch's torch.distributed.fsdp.ShardedGradScaler) takes the MAX of found-inf over the ranks,
/// so they all skip together.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tinyamp/optim/optimizer.h"
#include "tinyamp/scaler/grad_scaler.h"

namespace tinyamp::distributed {

/// A GradScaler whose overflow check is agreed by every rank (all_reduce MAX of found-inf): every
/// rank skips, or none does, and their scales stay equal. Every rank must call unscale_/step.
class ShardedGradScaler : public amp::GradScaler {
public:
    using amp::GradScaler::GradScaler;

protected:
    /// This rank's found-inf (none checked counts as false), MAX over the ranks.
    std::optional<bool> agree_on_found_inf(std::optional<bool> local_found_inf) override;
};

/// torch.distributed.optim.ZeroRedundancyOptimizer, with ZeRO-2's gradient shards: the parameters
/// are split between the ranks whole (the largest first, each to the rank holding the fewest
/// bytes, as PyTorch partitions them), and each rank's optimizer sees only its own.
class ZeroRedundancyOptimizer {
public:
    /// Makes this rank's optimizer over its shard with \p make_optimizer (an empty shard gets none).
    ZeroRedundancyOptimizer(std::vector<Tensor> parameters, std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)> make_optimizer);

    /// Averages every gradient over the ranks (all_reduce_gradients), then, with
    /// \p keep_only_own_shard, drops the gradients of parameters other ranks own (ZeRO-2: each rank
    /// keeps a shard of the gradients).
    void reduce_gradients(bool keep_only_own_shard = true);
    /// The optimizer over this rank's shard: what a scaler unscales and steps. Error(state) on a rank
    /// that owns no parameter (more ranks than parameters).
    optim::Optimizer& local_optimizer();
    /// Copies each parameter from the rank that owns it into every other rank's.
    void sync_parameters();
    /// reduce_gradients(), local_optimizer().step(), sync_parameters(): a step without a scaler.
    void step();
    /// Drops every gradient, on every parameter.
    void zero_grad();

    /// The rank that owns parameter \p index (in the order given).
    int owner(std::size_t index) const { return owner_[index]; }
    /// The bytes of optimizer state this rank holds (its optimizer's state tensors): about 1/world
    /// size of a replicated optimizer's.
    std::int64_t optimizer_state_bytes() const;

private:
    std::vector<Tensor> parameters_;
    std::vector<int> owner_;
    std::unique_ptr<optim::Optimizer> local_;
};

/// The bytes of the state tensors an optimizer holds (momentum buffers, Adam's moments).
std::int64_t optimizer_state_bytes(const optim::Optimizer& optimizer);

}  // namespace tinyamp::distributed
