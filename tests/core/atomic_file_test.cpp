// write_file_atomically: a reader sees the old file or the whole new one, and a failed write
// leaves no trace; read_file: whole files, and io errors that name the path.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/temp_dir.h"

using namespace tinyamp;
using tinyamp::test::error_message;

using tinyamp::test::TempDir;

namespace {

// Clears the system-call hook when the test ends, even when a check fails.
struct HookGuard {
    ~HookGuard() { io::testing::set_syscall_hook({}); }
};

std::string all_byte_values(std::size_t size)
{
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i < size; ++i) bytes[i] = char(i * 7 % 256);
    return bytes;
}

}  // namespace

TEST_CASE("write_file_atomically: writes every byte, replaces an old file, and leaves no temp file behind")
{
    const TempDir dir;
    const std::string path = dir.file("data.bin");
    const std::string big = all_byte_values(300000);  // NULs and every byte value, several write() calls' worth
    io::write_file_atomically(path, big);
    CHECK(io::read_file(path) == big);
    CHECK(dir.names() == std::vector<std::string>{"data.bin"});

    io::write_file_atomically(path, "short");  // the whole file is replaced, not overwritten in place
    CHECK(io::read_file(path) == "short");
    io::write_file_atomically(path, "");
    CHECK(std::filesystem::exists(path));
    CHECK(io::read_file(path).empty());
    CHECK(dir.names() == std::vector<std::string>{"data.bin"});
}

TEST_CASE("write_file_atomically: just before the rename the temp file is complete and the old file untouched")
{
    const TempDir dir;
    const HookGuard guard;
    const std::string path = dir.file("data.txt");
    io::write_file_atomically(path, "old contents");

    std::string temp, temp_contents, target_contents;
    io::testing::set_syscall_hook([&](const io::testing::SyscallPoint& at) {
        if (at.call != io::testing::Syscall::rename) return 0;
        temp = at.temp_path;
        temp_contents = io::read_file(at.temp_path);
        target_contents = io::read_file(path);
        return 0;
    });
    io::write_file_atomically(path, "new contents");
    const std::string prefix = ".data.txt.tmp-" + std::to_string(getpid()) + "-";
    CHECK(std::filesystem::path(temp).parent_path() == dir.path());  // same folder, so rename is atomic
    CHECK(std::filesystem::path(temp).filename().string().rfind(prefix, 0) == 0);
    CHECK(temp_contents == "new contents");
    CHECK(target_contents == "old contents");
    CHECK(io::read_file(path) == "new contents");
    CHECK_FALSE(std::filesystem::exists(temp));
}

TEST_CASE("write_file_atomically: a failure before the rename removes the temp file and keeps the old file")
{
    const TempDir dir;
    const HookGuard guard;
    const std::string path = dir.file("data.txt");
    io::write_file_atomically(path, "old contents");
    io::testing::set_syscall_hook([](const io::testing::SyscallPoint& at) {
        if (at.call == io::testing::Syscall::rename) throw Error(ErrorKind::io, "simulated failure");
        return 0;
    });
    CHECK(error_message([&] { io::write_file_atomically(path, "new contents"); }, ErrorKind::io) == "simulated failure");
    CHECK(io::read_file(path) == "old contents");
    CHECK(dir.names() == std::vector<std::string>{"data.txt"});
}

TEST_CASE("write_file_atomically: a folder that does not exist is an io error naming the path and the OS error")
{
    const TempDir dir;
    const std::string path = dir.file("no_such_folder/data.txt");
    const std::string message = error_message([&] { io::write_file_atomically(path, "x"); }, ErrorKind::io);
    CHECK(message.rfind("cannot write '" + path + "': No such file or directory (creating the temporary file '", 0) == 0);
    CHECK(message.find("check that the folder '" + dir.file("no_such_folder") + "' exists") != std::string::npos);
    CHECK(dir.names().empty());  // nothing created, not even the folder
}

TEST_CASE("write_file_atomically: a path that is a folder is an io error and the folder stays as it was")
{
    const TempDir dir;
    const std::string folder = dir.file("sub");
    std::filesystem::create_directory(folder);
    io::write_file_atomically(folder + "/inside.txt", "inside");

    const std::string message = error_message([&] { io::write_file_atomically(folder, "x"); }, ErrorKind::io);
    CHECK(message.rfind("cannot write '" + folder + "': Is a directory (renaming over it the temporary file '", 0) == 0);
    CHECK(message.find("the path is a folder; give a file name") != std::string::npos);
    CHECK(std::filesystem::is_directory(folder));
    CHECK(io::read_file(folder + "/inside.txt") == "inside");
    CHECK(dir.names() == std::vector<std::string>{"sub"});  // the temp file is gone

    // A path that ends in a slash names no file at all.
    const std::string slash = error_message([&] { io::write_file_atomically(folder + "/", "x"); }, ErrorKind::io);
    CHECK(slash == "cannot write '" + folder + "/': the path ends in a folder, not a file name; give a file name");
}

TEST_CASE("write_file_atomically: a new file gets the usual permissions, 0666 less the umask")
{
    const TempDir dir;
    const mode_t saved = ::umask(022);
    io::write_file_atomically(dir.file("a.txt"), "a");
    ::umask(027);
    io::write_file_atomically(dir.file("b.txt"), "b");
    ::umask(saved);
    struct stat a {}, b {};
    REQUIRE(::stat(dir.file("a.txt").c_str(), &a) == 0);
    REQUIRE(::stat(dir.file("b.txt").c_str(), &b) == 0);
    CHECK((a.st_mode & 0777) == 0644);
    CHECK((b.st_mode & 0777) == 0640);
}

TEST_CASE("write_file_atomically: a bare file name writes into the current folder")
{
    const TempDir dir;
    const std::filesystem::path saved = std::filesystem::current_path();
    std::filesystem::current_path(dir.path());
    std::string error;
    try {
        io::write_file_atomically("plain.txt", "plain");
    } catch (const Error& e) {
        error = e.what();
    }
    std::filesystem::current_path(saved);
    CHECK(error.empty());
    CHECK(io::read_file(dir.file("plain.txt")) == "plain");
    CHECK(dir.names() == std::vector<std::string>{"plain.txt"});
}

TEST_CASE("write_file_atomically: a reader racing many writers only ever sees whole files")
{
    const TempDir dir;
    const std::string path = dir.file("race.bin");
    constexpr int kWriters = 3, kWrites = 20;
    std::vector<std::string> contents;
    for (int w = 0; w < kWriters; ++w) contents.push_back(std::string(100000, char('a' + w)));
    io::write_file_atomically(path, contents[0]);

    std::atomic<int> running{kWriters};
    std::atomic<int> writer_errors{0};
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w)
        writers.emplace_back([&, w] {
            for (int i = 0; i < kWrites; ++i) {
                try {
                    io::write_file_atomically(path, contents[std::size_t(w)]);
                } catch (const Error&) {
                    ++writer_errors;
                }
            }
            --running;
        });
    int reads = 0, torn = 0;
    while (running > 0 || reads == 0) {
        const std::string seen = io::read_file(path);
        ++reads;
        if (std::find(contents.begin(), contents.end(), seen) == contents.end()) ++torn;
    }
    for (std::thread& t : writers) t.join();
    CHECK(writer_errors == 0);
    CHECK(torn == 0);
    CHECK(dir.names() == std::vector<std::string>{"race.bin"});  // each writer's temp file had its own name
}

TEST_CASE("read_file: a missing file or a folder is an io error naming the path")
{
    const TempDir dir;
    const std::string missing = dir.file("missing.bin");
    CHECK(error_message([&] { io::read_file(missing); }, ErrorKind::io) ==
          "cannot read '" + missing + "': No such file or directory; check the path");
    const std::string folder = dir.path().string();
    CHECK(error_message([&] { io::read_file(folder); }, ErrorKind::io) ==
          "cannot read '" + folder + "': it is a folder, not a file; give a file name");
}
