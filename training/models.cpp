#include "training/models.h"

namespace tinyamp::train {

ModelKind parse_model(const std::string& name)
{
    if (name == "mlp") return ModelKind::mlp;
    if (name == "cnn") return ModelKind::cnn;
    TINYAMP_FAIL(value, "unknown model '", name, "': choose mlp, cnn or gpt");
}

const char* model_name(ModelKind kind) { return kind == ModelKind::mlp ? "mlp" : "cnn"; }

std::shared_ptr<nn::Sequential> make_model(ModelKind kind)
{
    auto model = std::make_shared<nn::Sequential>();
    if (kind == ModelKind::mlp) {
        model->emplace_back<nn::Linear>(64, 256);
        model->emplace_back<nn::ReLU>();
        model->emplace_back<nn::Linear>(256, 256);
        model->emplace_back<nn::ReLU>();
        model->emplace_back<nn::Linear>(256, 10);
    } else {
        model->emplace_back<nn::Conv2d>(1, 8, 3, 1, 1);
        model->emplace_back<nn::ReLU>();
        model->emplace_back<nn::Conv2d>(8, 16, 3, 2, 1);  // 8x8 -> 4x4
        model->emplace_back<nn::ReLU>();
        model->emplace_back<nn::Flatten>();
        model->emplace_back<nn::Linear>(16 * 4 * 4, 10);
    }
    return model;
}

Tensor shape_input(ModelKind kind, const Tensor& features)
{
    return kind == ModelKind::mlp ? features : features.reshape({-1, 1, 8, 8});
}

}  // namespace tinyamp::train
