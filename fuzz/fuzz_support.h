#pragma once
// What every fuzz target checks besides "no crash": a loader given any bytes either succeeds or
// throws tinyamp::Error. Any other exception (std::out_of_range from a stray .at(), bad_alloc
// from a length taken on trust, a JSON library's own error) is a bug: it aborts, so libFuzzer
// reports the input that caused it.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include <tinyamp/tinyamp.h>

namespace tinyamp::fuzz {

/// A property of a loaded input failed: print what, and abort (libFuzzer saves the input).
[[noreturn]] inline void violated(const std::string& what)
{
    std::fprintf(stderr, "fuzz: property violated: %s\n", what.c_str());
    std::abort();
}

/// Runs `load` on one input; returns true when it loaded, false when it threw tinyamp::Error.
template <class Load>
bool loads(Load&& load)
{
    try {
        load();
        return true;
    } catch (const Error&) {
        return false;  // the promised outcome for a bad file
    } catch (const std::exception& e) {
        violated(std::string("a loader threw something other than tinyamp::Error: ") + e.what());
    }
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) { return {reinterpret_cast<const char*>(data), size}; }

}  // namespace tinyamp::fuzz
