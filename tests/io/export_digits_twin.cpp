// Trains the README's digits MLP as the README does (f16 autocast, GradScaler, SGD momentum),
// saves a tinyamp checkpoint, and writes the test set with tinyamp's logits and predictions, for
// check_twin_with_torch.py to load the checkpoint into the PyTorch twin and compare.
//
//     export_digits_twin CHECKPOINT.safetensors TESTSET.safetensors
//
// TESTSET holds "features" (f32, already divided by 16, as the model sees them), "labels" (i64),
// "logits" (f32, tinyamp's, in f32 outside autocast) and "predicted" (i64, their argmax).
#include <cstdio>
#include <exception>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s CHECKPOINT.safetensors TESTSET.safetensors\n", argv[0]);
        return 2;
    }
    try {
        manual_seed(0);
        auto digits = data::load_digits(data::data_path("digits.csv.gz"));
        auto [train, test] = data::train_test_split(digits, 0.2, /*seed=*/0);
        nn::Sequential model({std::make_shared<nn::Linear>(64, 128), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(128, 10)});
        optim::SGD optimizer(model.parameters(), {.lr = 0.05, .momentum = 0.9});
        amp::GradScaler scaler("cpu");
        for (int epoch = 0; epoch < 10; ++epoch)
            for (const data::Batch& batch : data::DataLoader(train, 64)) {
                optimizer.zero_grad();
                Tensor loss;
                {
                    amp::autocast region("cpu", {.dtype = f16});
                    loss = cross_entropy(model(batch.features / 16), batch.labels);
                }
                scaler.scale(loss).backward();
                scaler.step(optimizer);
                scaler.update();
            }
        io::save_checkpoint(argv[1], {.model = &model, .optimizer = &optimizer, .scaler = &scaler, .epoch = 10});

        const Tensor features = test.features / 16;
        Tensor logits;
        {
            NoGradGuard no_grad;
            logits = model(features);
        }
        const Tensor predicted = argmax(logits, 1);
        io::save_safetensors(argv[2], {{"features", features}, {"labels", test.labels}, {"logits", logits}, {"predicted", predicted}});
        std::printf("tinyamp: test accuracy %.4f on %lld digits\n", mean(eq(predicted, test.labels).to(f32)).item(),
                    static_cast<long long>(test.labels.numel()));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
