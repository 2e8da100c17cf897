// Compiled (not linked) by the test autocast_unnamed_region_warns, which expects the compile to
// warn: the unnamed region below ends at its semicolon, so the linear after it runs
// in f32, and autocast's [[nodiscard]] constructor makes the compiler say so.
#include <tinyamp/tinyamp.h>

tinyamp::Tensor forward(const tinyamp::Tensor& x, const tinyamp::Tensor& w)
{
    tinyamp::amp::autocast("cpu");
    return tinyamp::linear(x, w);
}
