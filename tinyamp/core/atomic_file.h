#pragma once
/// \file
/// Whole-file reads and atomic whole-file writes (POSIX).
///
/// A plain "open, truncate, write" that is interrupted (a crash, a full disk, a kill -9) leaves a
/// half-written file, and the old contents are already gone. write_file_atomically() writes to a
/// temporary file next to the target and renames it over the target only once every byte is on
/// disk, so a reader (or the next run) sees either the old file or the whole new one.
///
/// It lives on the first floor (core) because floors below io/ save files too (amp's policy
/// tables); its namespace is io, with the file formats built on it (io/safetensors, io/checkpoint).

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
/// A test seam: called after the temp file is complete and synced, just before the rename
/// (tests use it to simulate a crash there). Pass {} to clear. If it throws, the temp file is
/// removed and the exception goes on to the caller.
void set_before_rename_hook(std::function<void(const std::string& temp_path)> hook);
}  // namespace testing

}  // namespace tinyamp::io
