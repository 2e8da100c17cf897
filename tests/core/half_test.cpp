#include <doctest/doctest.h>

#include <limits>
#include <sstream>

#include "tinyamp/values/half.h"

using namespace tinyamp;

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2, "16-bit storage");
static_assert(Half(1.5f).bits == 0x3e00);
static_assert(float(Half::from_bits(0x3e00)) == 1.5f);
static_assert(BFloat16(-1.5f).bits == 0xbfc0);

TEST_CASE("Half and BFloat16 round on construction and widen exactly")
{
    CHECK(Half(0.1f).bits == 0x2e66);                 // 0.0999755859375
    CHECK(float(Half(0.1f)) == 0.0999755859375f);
    CHECK(BFloat16(0.1f).bits == 0x3dcd);             // 0.10009765625
    CHECK(float(BFloat16(0.1f)) == 0.10009765625f);
    CHECK(Half(0.1).bits == Half(0.1f).bits);         // from double: one rounding, same answer here
    CHECK(float(Half(70000.0f)) == std::numeric_limits<float>::infinity());
    CHECK(float(BFloat16(70000.0f)) == 70144.0f);
}

TEST_CASE("arithmetic on Half happens in float")
{
    const Half a(1.0f), b(0.0004f);
    const float sum = a + b;  // both widen to float: the sum keeps the small part
    CHECK(sum > 1.0f);
    CHECK(float(Half(sum)) == 1.0f);  // storing it back in f16 loses it
}

TEST_CASE("Half and BFloat16 print their value")
{
    std::ostringstream out;
    out << Half(2.5f) << ' ' << BFloat16(-0.75f);
    CHECK(out.str() == "2.5 -0.75");
}
