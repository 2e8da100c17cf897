#include "tinyamp/support/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <mutex>
#include <system_error>

#include "tinyamp/support/error.h"

namespace tinyamp::io {
namespace {

using testing::Syscall;
using SyscallHook = std::function<int(const testing::SyscallPoint&)>;

std::mutex hook_mutex;
SyscallHook syscall_hook;

SyscallHook current_hook()
{
    const std::lock_guard lock(hook_mutex);
    return syscall_hook;
}

// strerror's text ("No such file or directory"), without strerror's shared buffer.
std::string os_error(int error) { return std::error_code(error, std::generic_category()).message(); }

// What the user can do about the usual errors.
std::string hint(int error, const std::string& folder)
{
    switch (error) {
    case ENOENT: return "check that the folder '" + folder + "' exists";
    case EACCES:
    case EPERM:
    case EROFS: return "check that the folder '" + folder + "' is writable";
    case ENOSPC:
    case EDQUOT: return "free some disk space and save again";
    case EISDIR:
    case ENOTEMPTY:
    case EEXIST: return "the path is a folder; give a file name";
    default: return "check the path and the disk";
    }
}

// A temp file name no other writer (thread or process) uses at the same time.
std::string temp_name(const std::filesystem::path& folder, const std::string& file)
{
    static std::atomic<unsigned long> counter{0};
    std::string name = ".";
    name.append(file).append(".tmp-").append(std::to_string(::getpid())).append("-").append(std::to_string(counter++));
    return (folder / name).string();
}

// Runs one system call, unless the test hook makes it fail: then errno is the hook's error and
// the result -1, as from a failed call. `run` returns the call's own result.
template <class Run>
auto checked_call(const SyscallHook& hook, Syscall call, const std::string& temp, Run&& run) -> decltype(run())
{
    if (hook)
        if (const int error = hook({call, temp})) {
            errno = error;
            return -1;
        }
    return run();
}

// Writes every byte (write() may write less than asked, or be interrupted by a signal).
// Returns 0, or the errno of the failure.
int write_all(const SyscallHook& hook, int fd, const std::string& temp, std::string_view bytes)
{
    while (!bytes.empty()) {
        const ssize_t n = checked_call(hook, Syscall::write, temp, [&] { return ::write(fd, bytes.data(), bytes.size()); });
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        if (n == 0) return EIO;
        bytes.remove_prefix(std::size_t(n));
    }
    return 0;
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes)
{
    const std::filesystem::path target(path);
    const std::string file = target.filename().string();
    TINYAMP_CHECK(!file.empty() && file != "." && file != "..", io, "cannot write '", path,
                  "': the path ends in a folder, not a file name; give a file name");
    const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    const std::string temp = temp_name(folder, file);

    const SyscallHook hook = current_hook();
    auto call = [&](Syscall which, auto&& run) { return checked_call(hook, which, temp, run); };

    // Every failure below: close and remove the temp file (if it exists) and say what failed and why.
    int fd = -1;
    bool renamed = false;
    auto abandon = [&] {
        if (fd >= 0) ::close(fd);
        fd = -1;
        if (!renamed) ::unlink(temp.c_str());
    };
    // (`step` is a literal so that nothing allocates between the failing call and reading errno.)
    auto fail = [&](const char* step, int error) {
        abandon();
        TINYAMP_FAIL(io, "cannot write '", path, "': ", os_error(error), " (", step, " '", temp, "'); ", hint(error, folder.string()),
                     "; '", path, "' was left as it was");
    };

    try {
        // 0666 less the umask, like any new file (mkstemp's 0600 would surprise other readers).
        fd = call(Syscall::open_temp, [&] { return ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); });
        if (fd < 0) fail("creating the temporary file", errno);
        // No stdio buffer in between, so there is nothing to fflush: write, then fsync to the disk.
        if (const int error = write_all(hook, fd, temp, bytes)) fail("writing the temporary file", error);
        if (call(Syscall::fsync_temp, [&] { return ::fsync(fd); }) != 0) fail("syncing to disk the temporary file", errno);
        // close() releases the descriptor even when it fails, so it is not closed again.
        const int closing = fd;
        fd = -1;
        if (call(Syscall::close_temp, [&] { return ::close(closing); }) != 0) fail("closing the temporary file", errno);

        // rename() replaces the target in one step: no reader ever sees a partial file.
        if (call(Syscall::rename, [&] { return ::rename(temp.c_str(), path.c_str()); }) != 0)
            fail("renaming over it the temporary file", errno);
        renamed = true;
    } catch (...) {
        abandon();  // a throwing hook, or the Error of fail() (then this finds nothing left to do)
        throw;
    }

    // The rename is only durable once the folder's entry is on disk too. Some file systems
    // cannot sync a folder (EINVAL); the file itself is complete there, so that is not an error.
    const int dir = call(Syscall::open_folder, [&] { return ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
    const int synced = dir >= 0 ? call(Syscall::fsync_folder, [&] { return ::fsync(dir); }) : -1;
    const int error = synced == 0 ? 0 : errno;
    if (dir >= 0) ::close(dir);
    TINYAMP_CHECK(error == 0 || error == EINVAL, io, "wrote '", path, "', but syncing its folder '", folder.string(),
                  "' failed: ", os_error(error), "; the new file is in place but may not survive a power loss");
}

std::string read_file(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    TINYAMP_CHECK(fd >= 0, io, "cannot read '", path, "': ", os_error(errno), "; check the path");
    auto fail = [&](const std::string& why) {
        ::close(fd);
        TINYAMP_FAIL(io, "cannot read '", path, "': ", why);
    };
    struct stat info {};
    if (::fstat(fd, &info) != 0) fail(os_error(errno));
    if (S_ISDIR(info.st_mode)) fail("it is a folder, not a file; give a file name");

    std::string bytes;
    if (S_ISREG(info.st_mode)) bytes.reserve(std::size_t(info.st_size));
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(os_error(errno));
        if (n == 0) break;
        bytes.append(buffer, std::size_t(n));
    }
    ::close(fd);
    return bytes;
}

namespace testing {
void set_syscall_hook(std::function<int(const SyscallPoint& at)> hook)
{
    const std::lock_guard lock(hook_mutex);
    syscall_hook = std::move(hook);
}
}  // namespace testing

}  // namespace tinyamp::io
