// Fault injection for every file tinyamp writes (checkpoints, safetensors weights, policy tables):
// each system call of the save is made to fail in turn, and a crash is simulated at each one.
// Whatever happens, the file on disk is the old one or the whole new one, never a mix; a failed
// save is an io Error naming the file and the OS error, and leaves no temporary file behind.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/temp_dir.h"

using namespace tinyamp;
using io::testing::Syscall;
using io::testing::SyscallPoint;
using test::TempDir;

namespace {

// Clears the system-call hook when the test ends, even when a check fails.
struct HookGuard {
    ~HookGuard() { io::testing::set_syscall_hook({}); }
};

// One kind of file tinyamp saves: two versions of its contents, and a loader that checks a file
// back (it throws if the file is cut or corrupt).
struct SavedFile {
    const char* name;
    std::function<void(const std::string& path, int version)> save;  // version 0 (old) or 1 (new)
    std::function<void(const std::string& path)> load;
};

// A model with SGD momentum and a GradScaler whose state differs between the versions.
struct SmallTraining {
    std::shared_ptr<nn::Sequential> model;
    std::unique_ptr<optim::SGD> optimizer;
    std::unique_ptr<amp::GradScaler> scaler;

    explicit SmallTraining(int steps)
    {
        manual_seed(7);
        model = std::make_shared<nn::Sequential>();
        model->emplace_back<nn::Linear>(4, 6);
        model->emplace_back<nn::ReLU>();
        model->emplace_back<nn::Linear>(6, 3);
        optimizer = std::make_unique<optim::SGD>(model->parameters(), optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
        scaler = std::make_unique<amp::GradScaler>("cpu", amp::GradScalerOptions{.init_scale = 256.0});
        Generator gen(11);
        for (int i = 0; i < steps; ++i) {
            optimizer->zero_grad();
            scaler->scale(cross_entropy((*model)(randn({5, 4}, f32, gen)), tensor({0, 1, 2, 0, 1}, {5}, i64))).backward();
            scaler->step(*optimizer);
            scaler->update();
        }
    }
    io::TrainingState state(std::int64_t epoch) { return {.model = model.get(), .optimizer = optimizer.get(), .scaler = scaler.get(), .epoch = epoch}; }
};

// The training states are made here, in the test's process: a forked child only saves.
std::vector<SavedFile> saved_files()
{
    const std::vector<std::shared_ptr<SmallTraining>> runs = {std::make_shared<SmallTraining>(1), std::make_shared<SmallTraining>(2)};
    return {
        {"checkpoint",
         [runs](const std::string& path, int version) { io::save_checkpoint(path, runs[std::size_t(version)]->state(version)); },
         [](const std::string& path) {
             SmallTraining fresh(0);
             io::TrainingState state = fresh.state(0);
             io::load_checkpoint(path, state);
         }},
        {"safetensors",
         [](const std::string& path, int version) {
             io::save_safetensors(path, {{"w", full({3, 5}, 1.5 + version, bf16)}, {"b", arange(0, 4 + version, 1, f32)}});
         },
         [](const std::string& path) { io::load_safetensors(path); }},
        {"policy table",
         [](const std::string& path, int version) {
             amp::PolicyTable table = amp::PolicyTable::cpu();
             if (version == 1) table.set("exp", amp::CastPolicy::lower_precision_fp);
             table.save(path);
         },
         [](const std::string& path) { amp::PolicyTable::load(path); }},
    };
}

// The calls one successful save of `file` makes, in order.
std::vector<Syscall> calls_of_a_save(const SavedFile& file, const std::string& path)
{
    std::vector<Syscall> calls;
    io::testing::set_syscall_hook([&](const SyscallPoint& at) {
        calls.push_back(at.call);
        return 0;
    });
    file.save(path, 1);
    io::testing::set_syscall_hook({});
    return calls;
}

// The bytes of both versions of `file`, and the calls a save makes; leaves the old version at `path`.
struct Versions {
    std::string old_bytes, new_bytes;
    std::vector<Syscall> calls;
};
Versions versions_of(const SavedFile& file, const TempDir& dir, const std::string& path)
{
    Versions v;
    file.save(path, 1);
    v.new_bytes = io::read_file(path);
    file.save(path, 0);
    v.old_bytes = io::read_file(path);
    REQUIRE(v.old_bytes != v.new_bytes);
    v.calls = calls_of_a_save(file, dir.file("count"));
    std::filesystem::remove(dir.file("count"));
    return v;
}

std::string name_of(Syscall call)
{
    switch (call) {
    case Syscall::open_temp: return "open_temp";
    case Syscall::write: return "write";
    case Syscall::fsync_temp: return "fsync_temp";
    case Syscall::close_temp: return "close_temp";
    case Syscall::rename: return "rename";
    case Syscall::open_folder: return "open_folder";
    case Syscall::fsync_folder: return "fsync_folder";
    }
    return "?";
}

}  // namespace

TEST_CASE("a save's system calls: open, write, fsync, close, rename, then the folder's open and fsync")
{
    const TempDir dir;
    const HookGuard guard;
    for (const SavedFile& file : saved_files()) {
        CAPTURE(file.name);
        CHECK(calls_of_a_save(file, dir.file("f")) == std::vector<Syscall>{Syscall::open_temp, Syscall::write, Syscall::fsync_temp,
                                                                            Syscall::close_temp, Syscall::rename, Syscall::open_folder,
                                                                            Syscall::fsync_folder});
    }
}

TEST_CASE("every system call of a save failing in turn: an io Error naming the file, the old file whole, no temp file left")
{
    const TempDir dir;
    const HookGuard guard;
    for (const SavedFile& file : saved_files()) {
        const std::string path = dir.file("saved");
        const auto [old_bytes, new_bytes, calls] = versions_of(file, dir, path);
        for (std::size_t failing = 0; failing < calls.size(); ++failing)
            for (const int error : {EIO, ENOSPC, EACCES}) {
                CAPTURE(file.name);
                CAPTURE(name_of(calls[failing]));
                CAPTURE(error);
                io::write_file_atomically(path, old_bytes);
                std::size_t call = 0;
                io::testing::set_syscall_hook([&](const SyscallPoint&) { return call++ == failing ? error : 0; });
                const bool after_rename = calls[failing] == Syscall::open_folder || calls[failing] == Syscall::fsync_folder;
                const std::string message = test::error_message([&] { file.save(path, 1); }, ErrorKind::io);
                io::testing::set_syscall_hook({});

                CHECK(message.find("'" + path + "'") != std::string::npos);
                CHECK(message.find(std::error_code(error, std::generic_category()).message()) != std::string::npos);
                if (after_rename) {
                    // The new file is complete and in place; only its durability is in doubt, and the error says so.
                    CHECK(message.find("the new file is in place but may not survive a power loss") != std::string::npos);
                    CHECK(io::read_file(path) == new_bytes);
                } else {
                    CHECK(message.find("was left as it was") != std::string::npos);
                    CHECK(io::read_file(path) == old_bytes);
                }
                CHECK(dir.names() == std::vector<std::string>{"saved"});  // no temp file behind
                file.load(path);                                           // and what is there loads
            }
    }
}

TEST_CASE("an interrupted write (EINTR) is retried, and the save completes")
{
    const TempDir dir;
    const HookGuard guard;
    for (const SavedFile& file : saved_files()) {
        CAPTURE(file.name);
        const std::string path = dir.file("saved");
        const std::string new_bytes = versions_of(file, dir, path).new_bytes;
        int interrupted = 0;
        io::testing::set_syscall_hook([&](const SyscallPoint& at) {
            if (at.call != Syscall::write || interrupted == 3) return 0;
            ++interrupted;
            return EINTR;
        });
        file.save(path, 1);
        io::testing::set_syscall_hook({});
        CHECK(interrupted == 3);
        CHECK(io::read_file(path) == new_bytes);
        CHECK(dir.names() == std::vector<std::string>{"saved"});
    }
}

TEST_CASE("a crash at every system call of a save: the file is the old one or the whole new one, and the next save works")
{
    const TempDir dir;
    const HookGuard guard;
    for (const SavedFile& file : saved_files()) {
        const std::string path = dir.file("saved");
        const auto [old_bytes, new_bytes, calls] = versions_of(file, dir, path);
        for (std::size_t crash_at = 0; crash_at < calls.size(); ++crash_at) {
            CAPTURE(file.name);
            CAPTURE(name_of(calls[crash_at]));
            io::write_file_atomically(path, old_bytes);
            std::fflush(nullptr);
            const pid_t child = fork();
            REQUIRE(child >= 0);
            if (child == 0) {  // the process that dies in the middle of the save, with no clean-up at all
                std::size_t call = 0;
                io::testing::set_syscall_hook([&](const SyscallPoint&) {
                    if (call++ == crash_at) _exit(3);
                    return 0;
                });
                file.save(path, 1);
                _exit(0);
            }
            int status = 0;
            REQUIRE(waitpid(child, &status, 0) == child);
            REQUIRE(WIFEXITED(status));
            CHECK(WEXITSTATUS(status) == 3);

            const bool renamed = crash_at > std::size_t(std::find(calls.begin(), calls.end(), Syscall::rename) - calls.begin());
            CHECK(io::read_file(path) == (renamed ? new_bytes : old_bytes));
            file.load(path);
            // A crash leaves its temp file (".saved.tmp-<pid>-<n>") once it was created; the
            // loader never looks at it, and the next save does not mind it.
            file.save(path, 1);
            CHECK(io::read_file(path) == new_bytes);
            for (const std::string& name : dir.names())
                if (name != "saved") std::filesystem::remove(dir.file(name));
        }
    }
}
