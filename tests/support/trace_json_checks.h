#pragma once
// What the trace JSON tests share: a sample's JSON broken in one place, and the check that
// reading it fails with Error(io) naming what is wrong.
#include <doctest/doctest.h>

#include <initializer_list>
#include <string>

#include "tests/support/expect_error.h"
#include "tinyamp/trace/recorder.h"

namespace tinyamp::test {

/// `json` with the first occurrence of `from` replaced by `to` (which must occur).
inline std::string replace_first(std::string json, const std::string& from, const std::string& to)
{
    const std::size_t at = json.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, "the sample JSON lacks " << from);
    return json.replace(at, from.size(), to);
}

/// Reading `text` must fail with Error(io) whose message contains every one of `parts`.
inline void check_json_rejected(const std::string& text, std::initializer_list<const char*> parts)
{
    const std::string message = error_message([&] { trace::Trace::from_json(text); }, ErrorKind::io);
    INFO("message: " << message);
    for (const char* part : parts) CHECK(message.find(part) != std::string::npos);
}

}  // namespace tinyamp::test
