// The fuzz targets' seed corpus (fuzz/corpus/, written by fuzz/make_seeds.cpp) must stay valid:
// libFuzzer mutates these files, and seeds that no longer load (after a format change) would
// leave it fuzzing only the first few bytes of each loader. `scripts/fuzz.sh seeds` writes them
// again.
#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <string>

#include <tinyamp/tinyamp.h>
#include <tinyamp/trace/trace.h>

#include "fuzz/fuzz_model.h"

using namespace tinyamp;

namespace {

const std::filesystem::path kCorpus = TINYAMP_FUZZ_CORPUS;

std::string read(const std::filesystem::path& path) { return io::read_file(path.string()); }

std::size_t count_files(const std::filesystem::path& folder)
{
    std::size_t n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) n += entry.is_regular_file() ? 1 : 0;
    return n;
}

}  // namespace

TEST_CASE("fuzz corpus: every safetensors, policy table and trace seed loads")
{
    CHECK(count_files(kCorpus / "safetensors") >= 3);
    for (const auto& entry : std::filesystem::directory_iterator(kCorpus / "safetensors")) {
        INFO(entry.path().string());
        CHECK_FALSE(io::from_safetensors_bytes(read(entry.path()), entry.path().string()).tensors.empty());
    }
    CHECK(count_files(kCorpus / "policy_table") >= 2);
    for (const auto& entry : std::filesystem::directory_iterator(kCorpus / "policy_table")) {
        INFO(entry.path().string());
        CHECK(amp::PolicyTable::from_text(read(entry.path())).to_text() == read(entry.path()));
    }
    CHECK(count_files(kCorpus / "trace_json") >= 3);
    std::size_t scaled_casts = 0, block_scales = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kCorpus / "trace_json")) {
        INFO(entry.path().string());
        const trace::Trace t = trace::Trace::from_json(read(entry.path()));
        CHECK(t.events().size() > 10);
        CHECK(t.events().front().module == "0");  // recorded in a model: the fuzzer sees module paths
        for (const trace::Event& e : t.events())
            for (const trace::ScaledCast& c : e.scaled_casts) {
                ++scaled_casts;
                block_scales += c.block_scale_exponents.size();
            }
    }
    CHECK(scaled_casts > 0);  // version 4's FP8 casts (fp8_delayed_step.json, mxfp8_step.json)
    CHECK(block_scales > 0);
}

TEST_CASE("fuzz corpus: the checkpoint seeds load into the fuzz target's model, optimizer, scaler and scheduler")
{
    const auto model = fuzz::checkpoint_model();
    optim::SGD optimizer(model->parameters(), {.lr = 0.1, .momentum = 0.9});
    optim::StepLR scheduler(optimizer, 2);
    amp::GradScaler scaler("cpu");
    io::TrainingState full{.model = model.get(), .optimizer = &optimizer, .scaler = &scaler, .scheduler = &scheduler};
    io::load_checkpoint((kCorpus / "checkpoint" / "full.safetensors").string(), full);
    CHECK(full.epoch == 3);
    io::TrainingState model_only{.model = model.get()};
    io::load_checkpoint((kCorpus / "checkpoint" / "model_only.safetensors").string(), model_only);
    CHECK(model_only.epoch == 0);
}
