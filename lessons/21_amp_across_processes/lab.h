#pragma once
// Lab 21: AMP across processes. Write these in lab.cpp; check them with:  scripts/lab check 21
// The checks run on 2 processes (lab_21 starts itself under mpiexec): both ranks run the same
// code, and every collective must be made by every rank, in the same order, or the ranks stop
// with an error naming what each called (or, if one never calls, after 30 s, saying what was awaited).
#include <optional>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/process_group.h"

namespace tinyamp::lab21 {

/// Data parallelism by hand: replaces every parameter's .grad by its average over the ranks
/// (the sum of every rank's gradient, divided by the world size), as DistributedDataParallel does
/// during backward. A parameter this rank has no gradient for takes part with zeros.
void average_gradients(const std::vector<Tensor>& parameters);

/// The found-inf agreement: whether any rank found an inf/NaN, known on every rank. Each rank
/// passes what it found in the gradients it checked (with sharded gradients, only its own shard's).
bool found_inf_on_any_rank(bool found_inf_here);

/// A GradScaler whose step-or-skip decision every rank shares: agree_on_found_inf, which
/// GradScaler calls at the end of unscale_, asks found_inf_on_any_rank (lab.cpp; no TODO there).
/// PyTorch's name for this is ShardedGradScaler.
class AgreeingGradScaler : public amp::GradScaler {
public:
    using amp::GradScaler::GradScaler;

protected:
    /// This rank's found-inf (none checked counts as none found), agreed by every rank.
    std::optional<bool> agree_on_found_inf(std::optional<bool> local_found_inf) override;
};

/// PyTorch's bf16_compress_hook for one f32 gradient: its average over the ranks, sent and summed
/// in bf16 (half the bytes; each partial sum rounded to bf16, as NCCL's bf16 ring does), returned
/// in f32. Divide by the world size first, in f32, as the hook does.
Tensor average_in_bf16(const Tensor& grad);

}  // namespace tinyamp::lab21
