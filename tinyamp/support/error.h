#pragma once
/// \file
/// One error type for all of tinyamp. Every message says what was wrong and how to fix it.

#include <sstream>
#include <stdexcept>
#include <string>

namespace tinyamp {

/// What kind of mistake an Error reports; tests and tools can switch on it. The kinds: \c shape
/// (sizes that do not fit), \c dtype (a wrong or unsupported element type), \c index (a dimension
/// or index out of range), \c device (a bad or unavailable device, or tensors on different
/// devices), \c value (a bad argument value), \c state (a call that is wrong at this moment, e.g.
/// on an undefined tensor) and \c io (files).
enum class ErrorKind { shape, dtype, index, device, value, state, io };

/// The kind's name as `what()` prints it: "shape", "dtype", ..., "io".
const char* error_kind_name(ErrorKind kind);

/// The single exception type thrown by tinyamp. `what()` reads `<kind> error: <message>`.
/// It derives from `std::runtime_error` and stands for the RuntimeError, ValueError,
/// IndexError, ... that PyTorch raises; kind() tells the mistakes apart.
class Error : public std::runtime_error {
public:
    /// Usually made by TINYAMP_CHECK or TINYAMP_FAIL rather than by hand.
    Error(ErrorKind kind, const std::string& message);
    ErrorKind kind() const { return kind_; }  ///< what kind of mistake
    /// The message without the `<kind> error: ` prefix.
    const std::string& message() const { return message_; }

private:
    ErrorKind kind_;
    std::string message_;
};

/// Throws Error(value) for a std::bad_alloc met while running \p op (a buffer an op needs inside,
/// beyond its output, which Storage reports itself): out of memory is an Error, never a crash.
[[noreturn]] void fail_out_of_memory(const char* op);

namespace detail {
template <class... Parts>
std::string concat(const Parts&... parts)
{
    std::ostringstream out;
    (out << ... << parts);
    return out.str();
}
}  // namespace detail

}  // namespace tinyamp

/// Throws tinyamp::Error of the given kind when `cond` is false. The message parts are only
/// evaluated on failure, so checks cost nothing on the happy path. \p kind is an ErrorKind
/// name without its scope (`shape`, `value`, ...); the parts are streamed together with `<<`:
/// \code
/// TINYAMP_CHECK(threads >= 1, value, "set_num_threads expects a positive number of threads, got ", threads);
/// \endcode
#define TINYAMP_CHECK(cond, kind, ...)                                                     \
    do {                                                                                   \
        if (!(cond))                                                                       \
            throw ::tinyamp::Error(::tinyamp::ErrorKind::kind,                             \
                                   ::tinyamp::detail::concat(__VA_ARGS__));                \
    } while (0)

/// Throws unconditionally (for the branch that is already known to be wrong), with the same
/// arguments as TINYAMP_CHECK less the condition.
#define TINYAMP_FAIL(kind, ...) \
    throw ::tinyamp::Error(::tinyamp::ErrorKind::kind, ::tinyamp::detail::concat(__VA_ARGS__))
