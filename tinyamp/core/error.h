#pragma once
// One error type for all of tinyamp. Every message says what was wrong and how to fix it.

#include <sstream>
#include <stdexcept>
#include <string>

namespace tinyamp {

/// What kind of mistake an Error reports; tests and tools can switch on it.
enum class ErrorKind { shape, dtype, index, device, value, state, io };

const char* error_kind_name(ErrorKind kind);

/// The single exception type thrown by tinyamp. `what()` reads "<kind> error: <message>".
class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message);
    ErrorKind kind() const { return kind_; }
    /// The message without the "<kind> error: " prefix.
    const std::string& message() const { return message_; }

private:
    ErrorKind kind_;
    std::string message_;
};

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
/// evaluated on failure, so checks cost nothing on the happy path.
#define TINYAMP_CHECK(cond, kind, ...)                                                     \
    do {                                                                                   \
        if (!(cond))                                                                       \
            throw ::tinyamp::Error(::tinyamp::ErrorKind::kind,                             \
                                   ::tinyamp::detail::concat(__VA_ARGS__));                \
    } while (0)

/// Throws unconditionally (for the branch that is already known to be wrong).
#define TINYAMP_FAIL(kind, ...) \
    throw ::tinyamp::Error(::tinyamp::ErrorKind::kind, ::tinyamp::detail::concat(__VA_ARGS__))
