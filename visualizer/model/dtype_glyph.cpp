#include "visualizer/model/dtype_glyph.h"

namespace tinyamp::viz {

Glyph dtype_glyph(DType dtype)
{
    switch (dtype) {
    case DType::f64: return Glyph::square;
    case DType::f32: return Glyph::circle;
    case DType::f16: return Glyph::triangle;
    case DType::bf16: return Glyph::diamond;
    case DType::i64: return Glyph::plus;
    case DType::boolean: return Glyph::bar;
    case DType::f8e4m3fn: return Glyph::triangle_down;
    case DType::f8e5m2: return Glyph::hourglass;
    case DType::e8m0: return Glyph::ring;
    case DType::f4e2m1x2: return Glyph::two_dots;
    }
    return Glyph::circle;
}

const char* glyph_name(Glyph glyph)
{
    switch (glyph) {
    case Glyph::circle: return "circle";
    case Glyph::triangle: return "triangle";
    case Glyph::diamond: return "diamond";
    case Glyph::square: return "square";
    case Glyph::plus: return "plus";
    case Glyph::bar: return "bar";
    case Glyph::triangle_down: return "triangle pointing down";
    case Glyph::hourglass: return "hourglass";
    case Glyph::ring: return "ring";
    case Glyph::two_dots: return "two dots";
    }
    return "?";
}

}  // namespace tinyamp::viz
