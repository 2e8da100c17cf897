#include <cstdio>
#include <tinyamp/tinyamp.h>
using namespace tinyamp;

int main() {
    auto digits = data::load_digits(data::data_path("digits.csv.gz"));
    auto [train, test] = data::train_test_split(digits, 0.2, /*seed=*/0);
    nn::Sequential model({std::make_shared<nn::Linear>(64, 128), std::make_shared<nn::ReLU>(),
                          std::make_shared<nn::Linear>(128, 10)});
    optim::SGD optimizer(model.parameters(), {.lr = 0.05, .momentum = 0.9});
    amp::GradScaler scaler("cpu");
    for (int epoch = 0; epoch < 10; ++epoch) {
        for (const data::Batch& batch : data::DataLoader(train, 64)) {
            optimizer.zero_grad();
            Tensor loss;
            {
                amp::autocast region("cpu", {.dtype = f16});  // Linear runs in f16
                loss = cross_entropy(model(batch.features / 16), batch.labels);
            }
            scaler.scale(loss).backward();  // scaled: small f16 gradients survive
            scaler.step(optimizer);         // unscaled first; skipped on inf/NaN
            scaler.update();                // the scale grows or backs off
        }
    }
    Tensor predicted = argmax(model(test.features / 16), 1);
    std::printf("test accuracy %.3f\n", mean(eq(predicted, test.labels).to(f32)).item());
}
