#pragma once
// Reading the goldens that tools/oracle/make_goldens.py wrote from PyTorch (tests/oracle/goldens/).
// Numbers are C99 hex strings ("0x1.8p+1", "inf", "nan"), which strtod reads back to the exact
// double the oracle wrote; dtypes use tinyamp's short names. TINYAMP_GOLDENS is the folder.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <tinyamp/tinyamp.h>

#include "tests/support/tolerance.h"

namespace tinyamp::oracle {

using Json = nlohmann::json;

/// The golden `name`.json; fails the test case when it is missing or not JSON.
inline Json load_golden(const std::string& name)
{
    const std::string path = std::string(TINYAMP_GOLDENS) + "/" + name + ".json";
    std::ifstream in(path);
    REQUIRE_MESSAGE(in.good(), "missing golden ", path, "; regenerate with tools/oracle/make_goldens.py");
    Json golden = Json::parse(in);
    REQUIRE(golden.contains("torch_version"));
    MESSAGE("golden ", name, " made by torch ", golden["torch_version"].get<std::string>(), " (CPU kernels ",
            golden.value("torch_cpu_capability", std::string("?")), ")");
    return golden;
}

/// One number: a hex string, or a plain JSON number.
inline double number(const Json& j)
{
    if (!j.is_string()) return j.get<double>();
    const std::string s = j.get<std::string>();
    return std::strtod(s.c_str(), nullptr);
}

inline std::vector<double> numbers(const Json& j)
{
    std::vector<double> out;
    for (const Json& v : j) out.push_back(number(v));
    return out;
}

inline Shape shape_of(const Json& j)
{
    Shape shape;
    for (const Json& s : j) shape.push_back(s.get<std::int64_t>());
    return shape;
}

inline DType dtype_of(const Json& j) { return parse_dtype(j.get<std::string>()); }

/// The tensor of a {"dtype", "shape", "values"} spec.
inline Tensor tensor_of(const Json& spec) { return tensor(numbers(spec["values"]), shape_of(spec["shape"]), dtype_of(spec["dtype"])); }

/// A value as the golden writes it, for failure messages.
inline std::string hex(double v)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "%a", v);
    return buf;
}

/// Its arguments streamed into one string, for case names (GCC 12 warns falsely, -Wrestrict, on
/// some chains of std::string +).
template <class... Args>
std::string text(const Args&... args)
{
    std::ostringstream out;
    (out << ... << args);
    return out.str();
}

/// Equal as the same double, NaN equal to NaN (the bit-exact comparisons).
inline bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

/// |a - b| within ulps units in the last place of `dtype` at |b| (or at `scale`, for values that
/// cancel to near 0); NaN matches NaN and an inf only the same inf.
inline bool close(double a, double b, DType dtype, double ulps, double scale = 0)
{
    if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) return same(a, b);
    const test::Tolerance tol = test::tolerance_for(dtype, scale, ulps);
    return std::abs(a - b) <= tol.atol + tol.rtol * std::abs(b);
}

}  // namespace tinyamp::oracle
