// Every dtype has a glyph of its own, so nodes can be told apart without their colors.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "visualizer/model/dtype_glyph.h"

using namespace tinyamp;

TEST_CASE("dtype_glyph: all dtypes get distinct glyphs, each with a name")
{
    std::set<viz::Glyph> glyphs;
    std::set<std::string> names;
    for (const DType d : kAllDTypes) {
        glyphs.insert(viz::dtype_glyph(d));
        names.insert(viz::glyph_name(viz::dtype_glyph(d)));
    }
    CHECK(glyphs.size() == kAllDTypes.size());
    CHECK(names.size() == kAllDTypes.size());
    CHECK(names.count("?") == 0);
    CHECK(viz::dtype_glyph(DType::f16) != viz::dtype_glyph(DType::bf16));  // the pair the palette once confused
}
