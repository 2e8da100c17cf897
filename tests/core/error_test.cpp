#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

TEST_CASE("Error: what() is \"<kind> error: <message>\" and message() is the message alone")
{
    const Error e(ErrorKind::shape, "shape [2, 3] is invalid for 5 elements");
    CHECK(e.kind() == ErrorKind::shape);
    CHECK(std::string(e.what()) == "shape error: shape [2, 3] is invalid for 5 elements");
    CHECK(e.message() == "shape [2, 3] is invalid for 5 elements");

    const Error empty(ErrorKind::io, "");
    CHECK(std::string(empty.what()) == "io error: ");
    CHECK(empty.message().empty());
}

TEST_CASE("Error: every kind has its own name")
{
    CHECK(std::string(error_kind_name(ErrorKind::shape)) == "shape");
    CHECK(std::string(error_kind_name(ErrorKind::dtype)) == "dtype");
    CHECK(std::string(error_kind_name(ErrorKind::index)) == "index");
    CHECK(std::string(error_kind_name(ErrorKind::device)) == "device");
    CHECK(std::string(error_kind_name(ErrorKind::value)) == "value");
    CHECK(std::string(error_kind_name(ErrorKind::state)) == "state");
    CHECK(std::string(error_kind_name(ErrorKind::io)) == "io");
    CHECK(std::string(Error(ErrorKind::dtype, "x").what()) == "dtype error: x");
    CHECK(std::string(Error(ErrorKind::index, "x").what()) == "index error: x");
    CHECK(std::string(Error(ErrorKind::device, "x").what()) == "device error: x");
    CHECK(std::string(Error(ErrorKind::value, "x").what()) == "value error: x");
    CHECK(std::string(Error(ErrorKind::state, "x").what()) == "state error: x");
}

TEST_CASE("Error is a std::runtime_error, so generic handlers catch it")
{
    CHECK_THROWS_AS(throw Error(ErrorKind::value, "bad"), std::runtime_error);
    CHECK_THROWS_WITH_AS(throw Error(ErrorKind::value, "bad"), "value error: bad", std::exception);
    try {
        throw Error(ErrorKind::state, "gone");
    } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()) == "state error: gone");
    }
}

TEST_CASE("TINYAMP_CHECK throws the named kind with the parts joined, only when the condition fails")
{
    int evaluated = 0;
    auto part = [&evaluated] {
        ++evaluated;
        return "part";
    };
    TINYAMP_CHECK(1 + 1 == 2, value, "never built: ", part());
    CHECK(evaluated == 0);  // the message is not built on the happy path

    try {
        TINYAMP_CHECK(1 + 1 == 3, index, "index ", 7, " is out of range for dimension ", 1, " with size ", 2.5, " (", part(), ")");
        FAIL("TINYAMP_CHECK did not throw");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::index);
        CHECK(e.message() == "index 7 is out of range for dimension 1 with size 2.5 (part)");
        CHECK(std::string(e.what()) == "index error: index 7 is out of range for dimension 1 with size 2.5 (part)");
    }
    CHECK(evaluated == 1);
}

TEST_CASE("TINYAMP_FAIL always throws")
{
    auto fail = [](int n) -> int { TINYAMP_FAIL(io, "cannot open file ", n); };
    try {
        fail(3);
        FAIL("TINYAMP_FAIL did not throw");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::io);
        CHECK(e.message() == "cannot open file 3");
    }
}
