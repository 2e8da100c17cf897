#pragma once
// What every lab's checks include: doctest, plus the printers that let a failing check show what
// the student's code returned. Without them doctest prints `CHECK( {?} == {?} )` for a vector,
// and `CHECK( false )` for a helper that returns a bool; with them it prints the values:
//
//   CHECK( {65536, 65536, 65536} == {65536, 65536, 131072} )
//
// Each check also says its one-line lesson, shown only when it fails:
//
//   LAB_CHECK("the true gradient (3, 4) has norm 5, not 5 * S", norm == doctest::Approx(5.0));
//
// (The lesson comes first because the check may hold commas, {1, 2}, which CHECK_MESSAGE's
// condition argument cannot.) A value a bool test hides goes in CAPTURE(value) before the check.
//
// A common mistake the lab's README lists is named in the message of the check that catches it,
// after "mistake:", so the failure says which mistake it looks like (lessons/NN_topic/mistakes.txt,
// checked by the mutation tests).
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tinyamp/tinyamp.h>

/// CHECK(...) that prints `message` beside the values when it fails.
#define LAB_CHECK(message, ...)      \
    do {                             \
        INFO(message);               \
        CHECK(__VA_ARGS__);          \
    } while (false)

/// REQUIRE(...) that prints `message` beside the values when it fails (and ends the test case).
#define LAB_REQUIRE(message, ...)    \
    do {                             \
        INFO(message);               \
        REQUIRE(__VA_ARGS__);        \
    } while (false)

namespace tinyamp {

/// A DType by its name in a failing check (f32, not 1): doctest prints any enum as its number,
/// and finds this overload by argument-dependent lookup.
inline doctest::String toString(DType dtype) { return dtype_name(dtype); }

}  // namespace tinyamp

namespace tinyamp::lesson {

/// A list of numbers to compare element by element with doctest::Approx's tolerance,
/// epsilon * (1 + max(|got|, |want|)): relative for numbers above 1, about absolute below it
/// (as doctest::Approx, whose scale is 1). CHECK(got == approx({1, 448, 4.48})); on failure both
/// lists are printed. NaN equals NaN here.
struct ApproxList {
    std::vector<double> values;
    double epsilon = 1e-6;
};

inline ApproxList approx(std::vector<double> values, double epsilon = 1e-6) { return {std::move(values), epsilon}; }

inline bool operator==(const std::vector<double>& got, const ApproxList& want)
{
    if (got.size() != want.values.size()) return false;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want.values[i]) != std::isnan(got[i])) return false;
        if (std::isnan(got[i])) continue;
        if (got[i] != doctest::Approx(want.values[i]).epsilon(want.epsilon)) return false;
    }
    return true;
}
inline bool operator==(const ApproxList& want, const std::vector<double>& got) { return got == want; }

/// A number as the checks print it: the shortest text that reads back to the same double.
inline std::string number_text(double value)
{
    std::ostringstream out;
    out.precision(17);
    for (int digits = 6; digits <= 17; ++digits) {
        out.str("");
        out.precision(digits);
        out << value;
        if (std::stod(out.str()) == value || std::isnan(value)) break;
    }
    return out.str();
}

/// "{1, 2, 3}", with at most 16 elements shown and the count of the rest.
template <class T>
std::string list_text(const std::vector<T>& values)
{
    std::string out = "{";
    const std::size_t shown = values.size() <= 16 ? values.size() : 12;
    for (std::size_t i = 0; i < shown; ++i) {
        if (i) out += ", ";
        if constexpr (std::is_floating_point_v<T>)
            out += number_text(double(values[i]));
        else {
            using doctest::toString;  // and, by argument-dependent lookup, tinyamp::toString(DType)
            out += toString(values[i]).c_str();
        }
    }
    if (shown < values.size()) out += ", ... (" + std::to_string(values.size()) + " values)";
    return out + "}";
}

}  // namespace tinyamp::lesson

namespace doctest {

template <class T>
struct StringMaker<std::vector<T>> {
    static String convert(const std::vector<T>& values) { return tinyamp::lesson::list_text(values).c_str(); }
};

template <>
struct StringMaker<std::vector<bool>> {
    static String convert(const std::vector<bool>& values)
    {
        std::vector<int> as_ints(values.begin(), values.end());
        return tinyamp::lesson::list_text(as_ints).c_str();
    }
};

template <>
struct StringMaker<tinyamp::lesson::ApproxList> {
    static String convert(const tinyamp::lesson::ApproxList& list)
    {
        return ("approx " + tinyamp::lesson::list_text(list.values)).c_str();
    }
};

}  // namespace doctest
