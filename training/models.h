#pragma once
// The two models tinyamp-train knows, for 8x8 digit images (64 features, 10 classes).

#include <memory>
#include <string>

#include <tinyamp/tinyamp.h>

namespace tinyamp::train {

enum class ModelKind { mlp, cnn };

/// "mlp" or "cnn"; throws Error kind value naming the choices otherwise.
ModelKind parse_model(const std::string& name);
const char* model_name(ModelKind kind);

/// mlp: Linear(64, 256) ReLU Linear(256, 256) ReLU Linear(256, 10).
/// cnn: Conv2d(1, 8, 3, padding 1) ReLU Conv2d(8, 16, 3, stride 2, padding 1) ReLU Flatten
///      Linear(16*4*4, 10), on images [N, 1, 8, 8].
/// Weights are drawn from the default generator: call manual_seed first for a reproducible model.
std::shared_ptr<nn::Sequential> make_model(ModelKind kind);

/// The batch of flat features [N, 64] in the shape the model takes.
Tensor shape_input(ModelKind kind, const Tensor& features);

}  // namespace tinyamp::train
