// Writes the fuzz targets' seed corpus: a few valid files of each kind, for libFuzzer to mutate.
// The files are committed in fuzz/corpus/; scripts/fuzz.sh seeds writes them again.
//
//     fuzz_make_seeds fuzz/corpus
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include <tinyamp/tinyamp.h>
#include <tinyamp/trace/trace.h>

#include "fuzz/fuzz_model.h"

using namespace tinyamp;

namespace {

void write(const std::filesystem::path& path, const std::string& bytes)
{
    std::filesystem::create_directories(path.parent_path());
    io::write_file_atomically(path.string(), bytes);
    std::printf("wrote %s (%zu bytes)\n", path.string().c_str(), bytes.size());
}

void safetensors_seeds(const std::filesystem::path& out)
{
    Generator gen(2);
    const Tensor w = randn({3, 4}, f32, gen);
    write(out / "f32.safetensors", io::to_safetensors_bytes({{"w", w}}));
    write(out / "every_dtype.safetensors",
          io::to_safetensors_bytes({{"a", w.to(f64)}, {"b", w.to(f16)}, {"c", w.to(bf16)}, {"d", tensor({1.0, 2.0}).to(i64)}, {"e", tensor({1.0, 0.0}).to(DType::boolean)}},
                                   {{"format", "pt"}, {"note", "seed"}}));
    write(out / "empty_tensor.safetensors", io::to_safetensors_bytes({{"z", zeros({0, 3})}, {"s", tensor({2.5})}}));
}

void checkpoint_seeds(const std::filesystem::path& out)
{
    const auto model = fuzz::checkpoint_model();
    optim::SGD optimizer(model->parameters(), {.lr = 0.1, .momentum = 0.9});
    optim::StepLR scheduler(optimizer, 2);
    amp::GradScaler scaler("cpu");
    // One step, so the optimizer has its momentum buffers and the scheduler a count.
    Generator gen(3);
    const Tensor x = randn({5, 4}, f32, gen);
    sum((*model)(x)).backward();
    optimizer.step();
    scheduler.step();
    const std::string path = (out / "full.safetensors").string();
    std::filesystem::create_directories(out);
    io::save_checkpoint(path, {.model = model.get(), .optimizer = &optimizer, .scaler = &scaler, .scheduler = &scheduler, .epoch = 3});
    std::printf("wrote %s\n", path.c_str());
    io::save_checkpoint((out / "model_only.safetensors").string(), {.model = model.get()});
    std::printf("wrote %s\n", (out / "model_only.safetensors").string().c_str());
}

void policy_table_seeds(const std::filesystem::path& out)
{
    write(out / "cpu.txt", amp::PolicyTable::cpu().to_text());
    write(out / "cuda.txt", amp::PolicyTable::cuda().to_text());
}

// One FP8 step of Linear(32, 32), ReLU, Linear(32, 32) under a recipe: events with scaled casts
// (version 4), per-tensor with an amax history (delayed) or with block scales (mxfp8).
void fp8_trace_json_seeds(const std::filesystem::path& out)
{
    amp::DelayedScaling delayed;
    delayed.amax_history_len = 4;
    for (const auto& [name, recipe] : {std::pair<const char*, amp::ScalingRecipe>{"fp8_delayed_step.json", delayed},
                                       std::pair<const char*, amp::ScalingRecipe>{"mxfp8_step.json", amp::MXBlockScaling::mxfp8()}}) {
        manual_seed(5);
        nn::Sequential model;
        model.emplace_back<nn::Linear>(32, 32);
        model.emplace_back<nn::ReLU>();
        model.emplace_back<nn::Linear>(32, 32);
        Generator gen(6);
        const Tensor x = randn({4, 32}, f32, gen).set_name("x");
        trace::Trace t;
        {
            trace::TraceRecorder record(t);
            Tensor loss;
            {
                amp::fp8_autocast fp8(true, recipe);
                loss = sum(model(x));
            }
            loss.backward();
        }
        write(out / name, t.to_json());
    }
}

void trace_json_seeds(const std::filesystem::path& out)
{
    // One bf16 autocast step of a small model, forward and backward, with its modules.
    const auto model = fuzz::checkpoint_model();
    Generator gen(4);
    const Tensor x = randn({2, 4}, f32, gen).set_name("x");
    trace::Trace t;
    {
        trace::TraceRecorder record(t);
        Tensor loss;
        {
            amp::autocast region("cpu");
            loss = sum((*model)(x));
        }
        loss.backward();
    }
    write(out / "autocast_step.json", t.to_json());
    fp8_trace_json_seeds(out);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_make_seeds CORPUS_FOLDER (fuzz/corpus)\n");
        return 2;
    }
    const std::filesystem::path out = argv[1];
    safetensors_seeds(out / "safetensors");
    checkpoint_seeds(out / "checkpoint");
    policy_table_seeds(out / "policy_table");
    trace_json_seeds(out / "trace_json");
    return 0;
}
