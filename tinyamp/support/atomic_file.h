#pragma once
/// \file
/// Whole-file reads and atomic whole-file writes (POSIX).
///
/// A plain "open, truncate, write" that is interrupted (a crash, a full disk, a kill -9) leaves a
/// half-written file, and the old contents are already gone. write_file_atomically() writes to a
/// temporary file next to the target and renames it over the target only once every byte is on
/// disk, so a reader (or the next run) sees either the old file or the whole new one.
///
/// It lives in support/, the lowest folder, because folders below io/ save files too (amp's
/// policy tables); its namespace is io, with the file formats built on it (io/safetensors, io/checkpoint).

#include <functional>
#include <string>
#include <string_view>

namespace tinyamp::io {

/// Writes \p bytes to \p path so that readers see either the old file or the whole new one.
///
/// The steps: write to a temp file in the same directory (`.<file>.tmp-<pid>-<counter>`), fsync
/// it, rename it over \p path, fsync the directory. On any failure the temp file is removed and
/// Error (ErrorKind::io) is thrown naming the path, the OS error and a hint; the old file is
/// untouched. A path that ends in a folder (`dir/`, `.`, `..`) is refused the same way. If only
/// the final fsync of the directory fails, the new file is already in place and the Error says
/// it may not survive a power loss (file systems that cannot sync a folder are not an error).
/// A new file gets the usual permissions (0666 less the umask), as `std::ofstream` would give it.
void write_file_atomically(const std::string& path, std::string_view bytes);

/// The whole file at \p path, as bytes. Throws Error (ErrorKind::io) naming the path if it is
/// missing, a folder, or unreadable.
std::string read_file(const std::string& path);

namespace testing {
/// The system calls write_file_atomically() makes, in this order (write may come more than once).
enum class Syscall { open_temp, write, fsync_temp, close_temp, rename, open_folder, fsync_folder };
/// The call about to be made, and the temporary file it works on.
struct SyscallPoint {
    Syscall call;                  ///< the system call about to run
    const std::string& temp_path;  ///< `.<file>.tmp-<pid>-<n>`, next to the target
};
/// A test seam for fault injection: \p hook is called just before each system call of
/// write_file_atomically(). It returns 0 to let the call run, or an errno value to make the call
/// fail with it as if the OS had failed it (EINTR on a write is retried, like a real interrupted
/// write). It may also throw, or end the process (a crash at that point); a throw removes the
/// temp file and goes on to the caller. Pass {} to clear.
void set_syscall_hook(std::function<int(const SyscallPoint& at)> hook);
}  // namespace testing

}  // namespace tinyamp::io
