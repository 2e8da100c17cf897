#pragma once
// The one tolerance rule of the tests: how far a result computed in a low-precision dtype may be
// from the f64 result of the same op on the same (already rounded) inputs. Everything is derived
// from the dtype's machine epsilon; no test writes its own magic number.
//
// An op that computes in f32 and rounds once into f16/bf16 is off by at most half an ulp of its
// result, i.e. eps/2 relative. The helper allows `ulps` ulps (default 2: one for the final
// rounding, one for f32 arithmetic and rounded constants inside the op) relative to the result,
// plus the same relative to `scale` (default: the largest |expected|) for results that cancel
// to near zero.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "tinyamp/values/dtype.h"
#include "tinyamp/tensor/tensor.h"

namespace tinyamp::test {

struct Tolerance {
    double rtol;
    double atol;
};

inline Tolerance tolerance_for(DType dtype, double scale, double ulps = 2.0)
{
    const double eps = traits(dtype).eps;
    return {ulps * eps, ulps * eps * scale};
}

/// The ulps to allow for a result that sums `terms` values in its own dtype: f32/f64 results
/// also carry the rounding of that sum (up to about terms/2 ulps for recursive summation), while
/// f16/bf16 results are summed in f32, far below their own ulp, and keep the default 2.
inline double ulps_for(DType dtype, std::int64_t terms)
{
    return dtype == DType::f32 || dtype == DType::f64 ? 2.0 + double(terms) / 2 : 2.0;
}

/// Checks every element of `actual` (any dtype) against `expected` (computed in f64).
inline void check_close(const Tensor& actual, const Tensor& expected, DType dtype, double ulps = 2.0, double scale = -1.0)
{
    REQUIRE(actual.shape() == expected.shape());
    const std::vector<double> a = actual.to_vector(), e = expected.to_vector();
    if (scale < 0) {
        scale = 0;
        for (double v : e) scale = std::max(scale, std::abs(v));
    }
    const Tolerance tol = tolerance_for(dtype, scale, ulps);
    int failures = 0;
    std::ostringstream details;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const bool both_nan = std::isnan(a[i]) && std::isnan(e[i]);
        const bool same_inf = std::isinf(a[i]) && a[i] == e[i];
        if (both_nan || same_inf || std::abs(a[i] - e[i]) <= tol.atol + tol.rtol * std::abs(e[i])) continue;
        if (failures++ < 5) details << "element " << i << ": " << a[i] << " vs f64 " << e[i] << "; ";
    }
    INFO(std::string(dtype_name(dtype)) << " result vs f64 (rtol " << tol.rtol << ", atol " << tol.atol << "): " << details.str());
    CHECK(failures == 0);
}

}  // namespace tinyamp::test
