#include "tinyamp/support/generator.h"

#include <cmath>
#include <numbers>

namespace tinyamp {

void Generator::manual_seed(std::uint64_t seed)
{
    engine_.seed(seed);
    seed_ = seed;
    has_spare_ = false;
}

double Generator::uniform() { return double(engine_() >> 11) * 0x1.0p-53; }

double Generator::normal()
{
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    const double u1 = 1.0 - uniform();  // in (0, 1]: log(u1) is finite
    const double u2 = uniform();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
}

Generator& default_generator()
{
    static Generator generator(0);  // one, like PyTorch's; threads that draw numbers need their own
    return generator;
}

void manual_seed(std::uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace tinyamp
