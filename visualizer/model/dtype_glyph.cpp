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
    }
    return "?";
}

}  // namespace tinyamp::viz
