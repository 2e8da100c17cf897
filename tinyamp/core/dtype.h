#pragma once
// DType: the element types tinyamp knows, and a traits table that lessons print.

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "tinyamp/core/half.h"

namespace tinyamp {

enum class DType : std::uint8_t { f64, f32, f16, bf16, i64, boolean };

inline constexpr int kNumDTypes = 6;
inline constexpr std::array<DType, kNumDTypes> kAllDTypes = {DType::f64, DType::f32, DType::f16,
                                                             DType::bf16, DType::i64, DType::boolean};

/// Short names so code reads like the lessons: `f32`, `f16`, `bf16`, ...
inline constexpr DType f64 = DType::f64;
inline constexpr DType f32 = DType::f32;
inline constexpr DType f16 = DType::f16;
inline constexpr DType bf16 = DType::bf16;
inline constexpr DType i64 = DType::i64;
inline constexpr DType boolean = DType::boolean;

/// Facts about one dtype. For the integer and bool types the float-only fields are 0.
struct DTypeTraits {
    DType dtype;
    const char* name;          ///< as printed: "f32", "bf16", ...
    const char* long_name;     ///< PyTorch's name: "float32", "bfloat16", ...
    int size;                  ///< bytes per element
    bool is_floating_point;
    int exponent_bits;
    int mantissa_bits;         ///< stored fraction bits (the leading 1 is implicit)
    double max;                ///< largest finite value
    double min_normal;         ///< smallest positive normal value
    double min_subnormal;      ///< smallest positive value (a subnormal)
    double eps;                ///< distance from 1.0 to the next value
};

const DTypeTraits& traits(DType dtype);
inline int dtype_size(DType dtype) { return traits(dtype).size; }
inline const char* dtype_name(DType dtype) { return traits(dtype).name; }
inline bool is_floating_point(DType dtype) { return traits(dtype).is_floating_point; }

/// Parses "f32", "float32", "float", "f16", "float16", "half", "bf16", "bfloat16", "f64",
/// "float64", "double", "i64", "int64", "long", "bool". Throws Error(dtype) naming the accepted names.
DType parse_dtype(std::string_view name);

/// `value` rounded to a float dtype, as its bits: sign, exponent and mantissa fields separated by
/// spaces, e.g. bit_pattern(1.0, f16) == "0 01111 0000000000". Throws for i64/bool.
std::string bit_pattern(double value, DType dtype);

/// PyTorch's promotion for two dtypes (f16 with bf16 gives f32; floats win over integers).
DType promote_types(DType a, DType b);

std::ostream& operator<<(std::ostream& out, DType dtype);

/// The C++ element type stored for each dtype (bool is stored as one byte).
template <DType D> struct ElementType;
template <> struct ElementType<DType::f64> { using type = double; };
template <> struct ElementType<DType::f32> { using type = float; };
template <> struct ElementType<DType::f16> { using type = Half; };
template <> struct ElementType<DType::bf16> { using type = BFloat16; };
template <> struct ElementType<DType::i64> { using type = std::int64_t; };
template <> struct ElementType<DType::boolean> { using type = bool; };
template <DType D> using element_t = typename ElementType<D>::type;

/// The dtype of a C++ element type (the inverse of element_t).
template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<double>() { return DType::f64; }
template <> constexpr DType dtype_of<float>() { return DType::f32; }
template <> constexpr DType dtype_of<Half>() { return DType::f16; }
template <> constexpr DType dtype_of<BFloat16>() { return DType::bf16; }
template <> constexpr DType dtype_of<std::int64_t>() { return DType::i64; }
template <> constexpr DType dtype_of<bool>() { return DType::boolean; }

[[noreturn]] void visit_float_dtype_failed(DType dtype);

/// Calls `fn(T{})` with T the element type of `dtype`: the one switch over dtypes that the
/// rest of the code reuses instead of writing its own.
template <class Fn>
decltype(auto) visit_dtype(DType dtype, Fn&& fn)
{
    switch (dtype) {
    case DType::f64: return fn(double{});
    case DType::f32: return fn(float{});
    case DType::f16: return fn(Half{});
    case DType::bf16: return fn(BFloat16{});
    case DType::i64: return fn(std::int64_t{});
    case DType::boolean: return fn(bool{});
    }
    return fn(float{});  // unreachable: every enumerator is handled above
}

/// The same for the four float dtypes only, for kernels that are not built for integers; any
/// other dtype is an error (the op should have refused or converted it before).
template <class Fn>
void visit_float_dtype(DType dtype, Fn&& fn)
{
    switch (dtype) {
    case DType::f64: fn(double{}); return;
    case DType::f32: fn(float{}); return;
    case DType::f16: fn(Half{}); return;
    case DType::bf16: fn(BFloat16{}); return;
    default: break;
    }
    visit_float_dtype_failed(dtype);
}

}  // namespace tinyamp
