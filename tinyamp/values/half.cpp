#include "tinyamp/values/half.h"

#include <ostream>

namespace tinyamp {

std::ostream& operator<<(std::ostream& out, Half h) { return out << float(h); }
std::ostream& operator<<(std::ostream& out, BFloat16 h) { return out << float(h); }

}  // namespace tinyamp
