#pragma once
/// \file
/// Training checkpoints: one safetensors file that NumPy and PyTorch read as the model's
/// state_dict, with the rest of the training state as JSON in the file's metadata.
///
/// \code
///     io::save_checkpoint("run.safetensors", {.model = &model, .optimizer = &opt, .scaler = &scaler, .epoch = 3});
///     io::TrainingState state{.model = &model, .optimizer = &opt, .scaler = &scaler};
///     io::load_checkpoint("run.safetensors", state);   // state.epoch == 3
/// \endcode
///
/// The file:
/// \code{.unparsed}
///   tensors        the model's parameters and buffers under their PyTorch names ("0.weight"), in
///                  their own dtypes (f32 master weights stay F32)
///   __metadata__   "format": "tinyamp-checkpoint/1", "epoch": "3", "step": "0", and, for the
///                  parts that were given, "optimizer", "grad_scaler", "lr_scheduler": each a
///                  JSON text ("lr_scheduler" names its "type"; a file without it is a StepLR's)
/// \endcode
///
/// Saving is atomic (temp file + rename): a crash leaves the previous checkpoint whole. Loading
/// is all or nothing: the file is read and checked completely, and if any part does not fit the
/// objects (another model, another optimizer, a cut or corrupt file) every object is left as it
/// was and an Error says what did not match.

#include <cstdint>
#include <string>

#include "tinyamp/scaler/grad_scaler.h"
#include "tinyamp/nn/module.h"
#include "tinyamp/optim/lr_scheduler.h"
#include "tinyamp/optim/optimizer.h"

namespace tinyamp::io {

/// The objects a checkpoint saves or restores. model is required; the others are optional.
struct TrainingState {
    nn::Module* model = nullptr;            ///< its state_dict is the file's tensors (required)
    optim::Optimizer* optimizer = nullptr;  ///< saved as "optimizer" metadata, or nullptr
    amp::GradScaler* scaler = nullptr;      ///< saved as "grad_scaler"; loaded only when enabled
    /// Saved as "lr_scheduler" with its type (StepLR, CosineAnnealingLR or LambdaLR; LambdaLR's
    /// function is not saved, as in PyTorch: make the scheduler with the same one), or nullptr.
    optim::LRScheduler* scheduler = nullptr;
    std::int64_t epoch = 0;  ///< saved as given; set by load_checkpoint
    std::int64_t step = 0;   ///< optimizer steps taken (for step-based runs); saved as given, 0 when absent
};

/// Writes `state` to `path` as one safetensors file: the model's state_dict as the tensors, each
/// in its own dtype, and the epoch and the given optimizer, GradScaler and scheduler states as
/// metadata (optimizer tensors as exact JSON numbers). Atomic, through write_file_atomically.
/// Error(value) when state.model is null; Error(io) when the file cannot be written.
void save_checkpoint(const std::string& path, const TrainingState& state);

/// Restores every object `state` points to from `path`, and sets state.epoch. A part the file
/// lacks (an optimizer state, say) is an error when its object is given. A safetensors file
/// written by PyTorch (model tensors only) loads into the model (and sets state.epoch to 0).
///
/// The model load is strict (every name and shape must match; values are converted to the
/// model's dtypes, so f32 master weights stay f32). A disabled GradScaler is skipped. Error(io)
/// for a missing, cut or corrupt file or another checkpoint format; Error(value) when
/// state.model is null or a given part is missing from the file; a part that does not fit its
/// object throws that object's error, with the file named, after every object is put back.
void load_checkpoint(const std::string& path, TrainingState& state);

}  // namespace tinyamp::io
