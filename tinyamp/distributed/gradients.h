#pragma once
/// \file
/// Data parallelism by hand: the two things PyTorch's DistributedDataParallel does for a model
/// replicated on every rank, as functions.
///
///     distributed::broadcast_parameters(model.parameters());     // once: every replica starts as rank 0's
///     for (...) {                                                 // each rank on its own share of the batch
///         loss.backward();
///         distributed::all_reduce_gradients(model.parameters()); // every rank: the average gradient
///         optimizer.step();                                       // the same step everywhere
///     }
///
/// With the ranks' shares of a global batch and a mean loss, the averaged gradient is the global
/// batch's gradient (up to the order of f32 sums), so N ranks train as one process with the whole
/// batch would. A GradScaler needs nothing more: the gradients are averaged before unscale_, so
/// every rank finds the same infs and makes the same step-or-skip decision.

#include <cstdint>
#include <optional>
#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp::distributed {

/// How all_reduce_gradients sends the gradients.
struct GradientReduction {
    /// The dtype the gradients travel and are summed in. Unset: each gradient's own (f32 for f32
    /// parameters, DDP's default). bf16 or f16: PyTorch's bf16_compress_hook / fp16_compress_hook,
    /// half the bytes, and every partial sum rounded to that dtype.
    std::optional<DType> dtype;
    /// Gradients travel in buckets of at most this many bytes (DDP's bucket_cap_mb, 25 MiB), each
    /// one all_reduce; a larger gradient is a bucket of its own.
    std::int64_t bucket_bytes = std::int64_t(25) << 20;
};

/// Replaces each tensor's gradient by its average over the ranks: divided by the world size,
/// then summed, in `how.dtype` (PyTorch's hooks divide first, which keeps f16 sums in range), and
/// written back in the gradient's own dtype. Every rank must pass the same tensors in the same
/// order. A tensor without a gradient on this rank takes part with zeros (and gets the average),
/// so that the buckets agree between ranks; call it after backward and before the optimizer (and
/// before GradScaler::unscale_/step).
void all_reduce_gradients(const std::vector<Tensor>& parameters, GradientReduction how = {});

/// Copies rank \p src's tensors into every rank's, in place (DDP's broadcast of the parameters and
/// buffers when it wraps a model): the replicas start equal.
void broadcast_parameters(const std::vector<Tensor>& tensors, int src = 0);

}  // namespace tinyamp::distributed
