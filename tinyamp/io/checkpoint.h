#pragma once
// Training checkpoints: one safetensors file that NumPy and PyTorch read as the model's
// state_dict, with the rest of the training state as JSON in the file's metadata.
//
//     io::save_checkpoint("run.safetensors", {.model = &model, .optimizer = &opt, .scaler = &scaler, .epoch = 3});
//     io::TrainingState state{.model = &model, .optimizer = &opt, .scaler = &scaler};
//     io::load_checkpoint("run.safetensors", state);   // state.epoch == 3
//
// The file:
//   tensors        the model's parameters and buffers under their PyTorch names ("0.weight"), in
//                  their own dtypes (f32 master weights stay F32)
//   __metadata__   "format": "tinyamp-checkpoint/1", "epoch": "3", and, for the parts that were
//                  given, "optimizer", "grad_scaler", "lr_scheduler": each a JSON text
//
// Saving is atomic (temp file + rename): a crash leaves the previous checkpoint whole. Loading
// is all or nothing: the file is read and checked completely, and if any part does not fit the
// objects (another model, another optimizer, a cut or corrupt file) every object is left as it
// was and an Error says what did not match.

#include <cstdint>
#include <string>

#include "tinyamp/amp/grad_scaler.h"
#include "tinyamp/nn/module.h"
#include "tinyamp/optim/lr_scheduler.h"
#include "tinyamp/optim/optimizer.h"

namespace tinyamp::io {

/// The objects a checkpoint saves or restores. model is required; the others are optional.
struct TrainingState {
    nn::Module* model = nullptr;
    optim::Optimizer* optimizer = nullptr;
    amp::GradScaler* scaler = nullptr;
    optim::StepLR* scheduler = nullptr;
    std::int64_t epoch = 0;  ///< saved as given; set by load_checkpoint
};

void save_checkpoint(const std::string& path, const TrainingState& state);

/// Restores every object `state` points to from `path`, and sets state.epoch. A part the file
/// lacks (an optimizer state, say) is an error when its object is given. A safetensors file
/// written by PyTorch (model tensors only) loads into the model.
void load_checkpoint(const std::string& path, TrainingState& state);

}  // namespace tinyamp::io
