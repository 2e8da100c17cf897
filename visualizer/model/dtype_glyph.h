#pragma once
// A shape per dtype, drawn in every node beside its label and beside the legend's swatches, so
// that dtypes can be told apart without their colors: in grayscale, on a monochrome printout, or
// with a color vision the palette does not separate enough. No GUI here: the app draws them
// (app/node_painter.h) and tests/visualizer/dtype_glyph_test.cpp checks that no two dtypes share one.
#include "tinyamp/values/dtype.h"

namespace tinyamp::viz {

enum class Glyph { circle, triangle, diamond, square, plus, bar, triangle_down, hourglass, ring, two_dots };

/// f32 a circle, f16 a triangle, bf16 a diamond (the two 16-bit floats: pointed shapes), f64 a
/// square, i64 a plus, bool a bar; the FP8/FP4 storage dtypes: f8e4m3fn a triangle pointing
/// down, f8e5m2 an hourglass, e8m0 (block scales) a ring, f4e2m1x2 two dots (two values a byte).
Glyph dtype_glyph(DType dtype);
/// "circle", "triangle", ... (the legend's tooltip and the tests name them).
const char* glyph_name(Glyph glyph);

}  // namespace tinyamp::viz
