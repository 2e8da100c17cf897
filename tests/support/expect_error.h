#pragma once
// Runs `fn`, which must throw a tinyamp::Error of `kind`; returns its message for further checks.

#include <doctest/doctest.h>

#include <string>

#include "tinyamp/support/error.h"

namespace tinyamp::test {

template <class Fn>
std::string error_message(Fn&& fn, ErrorKind kind)
{
    try {
        fn();
    } catch (const Error& e) {
        CHECK(std::string(error_kind_name(e.kind())) == error_kind_name(kind));
        return e.message();
    }
    FAIL_CHECK("expected a tinyamp::Error of kind ", std::string(error_kind_name(kind)));
    return {};
}

}  // namespace tinyamp::test
