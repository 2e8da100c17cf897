// Checkpoints: resuming continues bit for bit; a file that does not fit (cut, corrupt, another
// model or optimizer) is refused and changes nothing; a crash while saving keeps the old file.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/temp_dir.h"

using namespace tinyamp;

namespace {

// A small model, its optimizer, scaler and scheduler, built the same way from a seed.
struct Training {
    std::shared_ptr<nn::Sequential> model;
    std::unique_ptr<optim::SGD> optimizer;
    std::unique_ptr<amp::GradScaler> scaler;
    std::unique_ptr<optim::StepLR> scheduler;

    explicit Training(std::uint64_t seed, std::int64_t hidden = 5)
    {
        manual_seed(seed);
        model = std::make_shared<nn::Sequential>();
        model->emplace_back<nn::Linear>(4, hidden);
        model->emplace_back<nn::ReLU>();
        model->emplace_back<nn::Linear>(hidden, 3);
        optimizer = std::make_unique<optim::SGD>(model->parameters(), optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
        scaler = std::make_unique<amp::GradScaler>("cpu", amp::GradScalerOptions{.init_scale = 1024.0, .growth_interval = 2});
        scheduler = std::make_unique<optim::StepLR>(*optimizer, 2, 0.5);
    }

    io::TrainingState state(std::int64_t epoch = 0)
    {
        return {.model = model.get(), .optimizer = optimizer.get(), .scaler = scaler.get(), .scheduler = scheduler.get(), .epoch = epoch};
    }

    // One f16-autocast step on a fixed batch, through the scaler, then a scheduler step.
    void step(std::int64_t i)
    {
        Generator gen(100 + std::uint64_t(i));
        const Tensor x = randn({8, 4}, f32, gen);
        const Tensor y = tensor({0, 1, 2, 0, 1, 2, 0, 1}, {8}, i64);
        optimizer->zero_grad();
        Tensor loss;
        {
            amp::autocast ac("cpu", {.dtype = f16});
            loss = cross_entropy((*model)(x), y);
        }
        scaler->scale(loss).backward();
        scaler->step(*optimizer);
        scaler->update();
        scheduler->step();
    }

    std::vector<std::vector<double>> values() const
    {
        std::vector<std::vector<double>> out;
        for (const auto& [name, t] : model->state_dict()) out.push_back(t.to_vector());
        for (const auto& [index, entries] : optimizer->state_dict().state)
            for (const auto& [name, t] : entries) out.push_back(t.to_vector());
        out.push_back({scaler->get_scale(), double(scaler->get_growth_tracker()), optimizer->param_groups()[0].lr,
                       double(scheduler->last_epoch())});
        return out;
    }
};

std::string read_bytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

}  // namespace

TEST_CASE("checkpoint: a resumed run continues bit for bit like one that never stopped")
{
    const test::TempDir dir;
    const std::string path = dir.file("resume.safetensors");
    Training straight(1), first(1);
    for (int i = 0; i < 3; ++i) {
        straight.step(i);
        first.step(i);
    }
    io::save_checkpoint(path, first.state(3));

    Training resumed(2);  // other initial weights: everything must come from the file
    CHECK(resumed.values() != first.values());
    io::TrainingState state = resumed.state();
    io::load_checkpoint(path, state);
    CHECK(state.epoch == 3);
    CHECK(resumed.values() == first.values());
    for (int i = 3; i < 6; ++i) {
        straight.step(i);
        resumed.step(i);
    }
    CHECK(resumed.values() == straight.values());
}

TEST_CASE("checkpoint: the file is a safetensors state_dict with the training state as JSON metadata")
{
    const test::TempDir dir;
    const std::string path = dir.file("layout.safetensors");
    Training t(1);
    t.step(0);
    io::save_checkpoint(path, t.state(1));
    const io::SafetensorsFile file = io::load_safetensors(path);
    std::vector<std::string> names;
    for (const auto& [name, tensor] : file.tensors) names.push_back(name);
    CHECK(names == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"});
    CHECK(file.tensors[0].second.dtype() == f32);  // master weights stay f32
    CHECK(file.metadata.at("format") == "tinyamp-checkpoint/1");
    CHECK(file.metadata.at("epoch") == "1");
    CHECK(file.metadata.at("grad_scaler").find("\"scale\"") != std::string::npos);
    CHECK(file.metadata.at("optimizer").find("\"momentum_buffer\"") != std::string::npos);
    CHECK(file.metadata.at("lr_scheduler").find("\"last_epoch\":1") != std::string::npos);
    CHECK(file.metadata.at("lr_scheduler").find("\"type\":\"StepLR\"") != std::string::npos);
    CHECK(file.metadata.at("step") == "0");
}

TEST_CASE("checkpoint: LambdaLR and CosineAnnealingLR states and the step count round trip, another scheduler type is refused")
{
    const test::TempDir dir;
    const std::string path = dir.file("schedulers.safetensors");
    const auto factor = [](std::int64_t it) { return it < 3 ? double(it + 1) / 3.0 : 0.5; };
    Training saved(1);
    optim::LambdaLR lambda(*saved.optimizer, factor);
    for (int i = 0; i < 4; ++i) lambda.step();
    io::save_checkpoint(path, {.model = saved.model.get(), .optimizer = saved.optimizer.get(), .scheduler = &lambda, .step = 4});
    const io::SafetensorsFile file = io::load_safetensors(path);
    CHECK(file.metadata.at("lr_scheduler").find("\"type\":\"LambdaLR\"") != std::string::npos);
    CHECK(file.metadata.at("step") == "4");

    Training loaded(2);
    optim::LambdaLR lambda_loaded(*loaded.optimizer, factor);
    io::TrainingState state{.model = loaded.model.get(), .optimizer = loaded.optimizer.get(), .scheduler = &lambda_loaded};
    io::load_checkpoint(path, state);
    CHECK(state.step == 4);
    CHECK(lambda_loaded.last_epoch() == 4);
    CHECK(loaded.optimizer->param_groups()[0].lr == saved.optimizer->param_groups()[0].lr);

    // A CosineAnnealingLR saved and loaded the same way.
    Training cosine_saved(3), cosine_loaded(4);
    optim::CosineAnnealingLR cosine(*cosine_saved.optimizer, 10, 0.01);
    for (int i = 0; i < 3; ++i) cosine.step();
    io::save_checkpoint(path, {.model = cosine_saved.model.get(), .scheduler = &cosine});
    optim::CosineAnnealingLR cosine_target(*cosine_loaded.optimizer, 10, 0.01);
    io::TrainingState cosine_state{.model = cosine_loaded.model.get(), .scheduler = &cosine_target};
    io::load_checkpoint(path, cosine_state);
    CHECK(cosine_target.last_epoch() == 3);
    CHECK(cosine_state.step == 0);

    // The file holds a CosineAnnealingLR; a StepLR given for it is refused, and nothing changes.
    Training other(5);
    const auto before = other.values();
    io::TrainingState mismatch = other.state();
    mismatch.scaler = nullptr;
    mismatch.optimizer = nullptr;
    const std::string message = test::error_message([&] { io::load_checkpoint(path, mismatch); }, ErrorKind::value);
    CHECK(message.find("holds a CosineAnnealingLR state but the scheduler given is a StepLR") != std::string::npos);
    CHECK(other.values() == before);
}

TEST_CASE("checkpoint: a plain safetensors state_dict (as PyTorch writes) loads into the model alone")
{
    const test::TempDir dir;
    const std::string path = dir.file("plain.safetensors");
    Training source(1), target(2);
    io::save_safetensors(path, source.model->state_dict());
    const auto before = target.values();
    io::TrainingState with_optimizer = target.state();
    const std::string message = test::error_message([&] { io::load_checkpoint(path, with_optimizer); }, ErrorKind::value);
    CHECK(message.find("has no optimizer state") != std::string::npos);
    CHECK(target.values() == before);

    io::TrainingState model_only{.model = target.model.get()};
    io::load_checkpoint(path, model_only);
    CHECK(target.model->state_dict()[0].second.to_vector() == source.model->state_dict()[0].second.to_vector());
}

TEST_CASE("checkpoint: another model or another optimizer is refused and nothing changes")
{
    const test::TempDir dir;
    const std::string path = dir.file("mismatch.safetensors");
    Training saved(1, /*hidden=*/7);
    saved.step(0);
    io::save_checkpoint(path, saved.state(1));

    Training other(2);  // hidden 5: every weight shape differs
    other.step(0);
    const auto before = other.values();
    io::TrainingState state = other.state();
    const std::string message = test::error_message([&] { io::load_checkpoint(path, state); }, ErrorKind::value);
    CHECK(message.find("size mismatch for 0.weight: copying a param with shape [7, 4] from checkpoint, the shape in current model is [5, 4]") !=
          std::string::npos);
    CHECK(other.values() == before);

    // Same model, other optimizer: the model was loaded first and must be put back.
    Training same(3, 7);
    same.step(0);
    const auto same_before = same.values();
    optim::Adam adam(same.model->parameters(), {.lr = 1e-3});
    io::TrainingState wrong{.model = same.model.get(), .optimizer = &adam};
    const std::string adam_message = test::error_message([&] { io::load_checkpoint(path, wrong); }, ErrorKind::value);
    CHECK(adam_message.find("SGD") != std::string::npos);
    CHECK(same.values() == same_before);
}

TEST_CASE("checkpoint: cut at every byte offset, the file is refused and nothing in memory changes")
{
    const test::TempDir dir;
    const std::string path = dir.file("full.safetensors"), cut = dir.file("cut.safetensors");
    Training saved(1, /*hidden=*/2);
    saved.step(0);
    io::save_checkpoint(path, saved.state(1));
    const std::string bytes = read_bytes(path);
    REQUIRE(bytes.size() > 100);

    Training target(2, 2);
    const auto before = target.values();
    std::size_t refused = 0;
    for (std::size_t k = 0; k < bytes.size(); ++k) {
        write_bytes(cut, bytes.substr(0, k));
        io::TrainingState state = target.state();
        try {
            io::load_checkpoint(cut, state);
            FAIL_CHECK("a checkpoint cut to ", k, " of ", bytes.size(), " bytes was accepted");
        } catch (const Error& e) {
            ++refused;
        }
        if (target.values() != before) FAIL_CHECK("a checkpoint cut to ", k, " bytes changed the model or its state");
    }
    CHECK(refused == bytes.size());
    // And the whole file still loads.
    io::TrainingState state = target.state();
    io::load_checkpoint(path, state);
    CHECK(target.values() == saved.values());
}

TEST_CASE("checkpoint: corrupt training-state JSON is refused with an io error and nothing changes")
{
    const test::TempDir dir;
    const std::string path = dir.file("corrupt.safetensors");
    Training saved(1);
    saved.step(0);
    io::SafetensorsFile file;
    file.tensors = saved.model->state_dict();
    file.metadata = {{"format", "tinyamp-checkpoint/1"}, {"epoch", "1"}, {"optimizer", "{\"type\": \"SGD\", \"param_groups\": [tru"}};
    io::save_safetensors(path, file.tensors, file.metadata);
    Training target(2);
    const auto before = target.values();
    io::TrainingState state{.model = target.model.get(), .optimizer = target.optimizer.get()};
    const std::string message = test::error_message([&] { io::load_checkpoint(path, state); }, ErrorKind::io);
    CHECK(message.find("not valid JSON") != std::string::npos);
    CHECK(target.values() == before);
}

TEST_CASE("checkpoint: a crash between the temp write and the rename leaves the old checkpoint intact")
{
    const test::TempDir dir;
    const std::string path = dir.file("crash.safetensors");
    Training old_run(1);
    old_run.step(0);
    io::save_checkpoint(path, old_run.state(1));
    const std::string old_bytes = read_bytes(path);

    Training new_run(2);
    new_run.step(0);
    new_run.step(1);
    std::fflush(nullptr);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // the "crashing" process: dies just before it would rename
        io::testing::set_syscall_hook([](const io::testing::SyscallPoint& at) {
            if (at.call == io::testing::Syscall::rename) _exit(3);
            return 0;
        });
        io::save_checkpoint(path, new_run.state(2));
        _exit(0);  // not reached when the hook works
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 3);
    CHECK(read_bytes(path) == old_bytes);
    Training target(3);
    io::TrainingState state = target.state();
    io::load_checkpoint(path, state);
    CHECK(state.epoch == 1);
    CHECK(target.values() == old_run.values());

    io::save_checkpoint(path, new_run.state(2));  // without a crash, the new one replaces it
    io::load_checkpoint(path, state);
    CHECK(state.epoch == 2);
    CHECK(target.values() == new_run.values());
}
