// libFuzzer target: io::load_checkpoint on any file, into a model with an SGD optimizer (with
// momentum), a GradScaler and a StepLR scheduler, as tinyamp-train restores them. A file that
// does not load must leave every one of them as it was: their checkpoint, written before and
// after, is byte for byte the same. The input goes through a file because that is the loader's
// interface (in /dev/shm when there is one, so it stays in memory).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>

#include "fuzz/fuzz_model.h"
#include "fuzz/fuzz_support.h"

using namespace tinyamp;

namespace {

std::string scratch_path(const char* what)
{
    const std::filesystem::path folder = std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
    return (folder / ("tinyamp_fuzz_" + std::to_string(::getpid()) + "_" + what + ".safetensors")).string();
}

// Everything a checkpoint restores, made afresh (same seed) for each input.
struct Training {
    std::shared_ptr<nn::Sequential> model = fuzz::checkpoint_model();
    std::unique_ptr<optim::SGD> optimizer;
    amp::GradScaler scaler{"cpu"};
    std::unique_ptr<optim::StepLR> scheduler;
    io::TrainingState state;

    Training()
    {
        optimizer = std::make_unique<optim::SGD>(model->parameters(), optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
        scheduler = std::make_unique<optim::StepLR>(*optimizer, 2);
        state = {.model = model.get(), .optimizer = optimizer.get(), .scaler = &scaler, .scheduler = scheduler.get(), .epoch = 7};
    }
    // Everything the checkpoint holds, as its bytes.
    std::string snapshot(const std::string& path)
    {
        io::save_checkpoint(path, state);
        return io::read_file(path);
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const std::string input = scratch_path("input"), copy = scratch_path("state");
    io::write_file_atomically(input, fuzz::as_text(data, size));
    Training training;
    const std::string before = training.snapshot(copy);
    if (fuzz::loads([&] { io::load_checkpoint(input, training.state); })) return 0;
    if (training.snapshot(copy) != before) fuzz::violated("a checkpoint that did not load changed the model, optimizer, scaler or scheduler");
    return 0;
}
