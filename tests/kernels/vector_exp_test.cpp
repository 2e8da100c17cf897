// kernels/cpu/vector_exp.h: e^(x - shift) over an array on this CPU's tier, within 1.1 ulp of
// libm's exp in double (erf_approx.h's accuracy, or libm's own where the CPU has no FMA), and
// x above shift taken as shift (e^0 = 1), x - shift below -87 as -87, in place too.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/vector_exp.h"

namespace cpu = tinyamp::kernels::cpu;

TEST_CASE("exp_shifted: within 1.1 ulp of exp(x - shift) down to -87, 1 above the shift, NaN as NaN, in place")
{
    std::vector<float> x;
    for (int i = 0; i <= 20000; ++i) x.push_back(-90.0f + 0.0047f * float(i));
    const float shift = 3.5f;
    std::vector<float> y(x.size());
    cpu::exp_shifted(x.data(), shift, y.data(), std::int64_t(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) {
        CAPTURE(x[i]);
        const float d = x[i] - shift;
        if (d >= 0) {
            CHECK(y[i] == 1.0f);
            continue;
        }
        if (d < -87.0f) {  // below the range: e^-87 (about 1.6e-38), as exp_nonpositive_f32 documents
            CHECK(y[i] <= 1.7e-38f);
            continue;
        }
        const double want = std::exp(double(d));
        const float rounded = float(want);
        const double ulp = double(std::nextafter(rounded, std::numeric_limits<float>::infinity())) - double(rounded);
        CHECK(std::fabs(double(y[i]) - want) <= 1.1 * ulp);
    }
    const float nan = std::numeric_limits<float>::quiet_NaN();
    float specials[] = {nan, std::numeric_limits<float>::infinity()}, out[2];
    cpu::exp_shifted(specials, 0.0f, out, 2);
    CHECK(std::isnan(out[0]));  // a NaN logit stays NaN: never the 1 of a clamped value
    CHECK(out[1] == 1.0f);
    std::vector<float> same = x;
    cpu::exp_shifted(same.data(), shift, same.data(), std::int64_t(same.size()));
    CHECK(same == y);
}
