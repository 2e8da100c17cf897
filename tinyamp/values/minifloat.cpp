// The traits table of the minifloat formats, as lessons and docs/number_formats.md print it.
#include "tinyamp/values/minifloat.h"

#include <ostream>

namespace tinyamp::minifloat {

void print_traits_table(std::ostream& out)
{
    out << "| format | ml_dtypes | bits | exp bits | mantissa | bias | max | smallest normal "
           "| smallest subnormal | eps | inf | NaN codes |\n";
    out << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const Format* f : kFormats) {
        out << "| " << f->name << " | " << f->ml_dtypes_name << " | " << f->bits << " | " << f->exponent_bits << " | "
            << f->mantissa_bits << " | " << f->bias << " | " << f->max << " | " << f->min_normal << " | ";
        if (f->has_subnormals) out << f->min_subnormal;
        else out << "none";
        out << " | " << f->eps << " | " << (f->has_inf ? "yes" : "no") << " | " << f->nan_codes << " |\n";
    }
}

}  // namespace tinyamp::minifloat
