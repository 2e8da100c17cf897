#pragma once
/// \file
/// DType: the element types tinyamp knows, and a traits table that lessons print.

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "tinyamp/values/half.h"
#include "tinyamp/values/minifloat.h"

namespace tinyamp {

/// The element type of a tensor, as PyTorch's torch.dtype: \c f64 (torch.float64), \c f32
/// (torch.float32), \c f16 (torch.float16, IEEE half), \c bf16 (torch.bfloat16), \c i64
/// (torch.int64) and \c boolean (torch.bool). f32 is the default of every factory; autocast
/// runs the ops its policy table lists in f16 or bf16 ("lower precision") and others in f32.
///
/// The last four are the storage formats of FP8 and microscaling (MX) training, the
/// "minifloats": \c f8e4m3fn (torch.float8_e4m3fn), \c f8e5m2 (torch.float8_e5m2), \c e8m0
/// (torch.float8_e8m0fnu, the MX block scale) and \c f4e2m1x2 (torch.float4_e2m1fn_x2: each
/// element is one byte holding two E2M1 values, low nibble first, because strides count whole
/// bytes). Their tensors hold codes: they can be made, viewed, copied, converted with to(),
/// printed and saved, and scaled_mm multiplies them; arithmetic ops refuse them (convert to f32
/// first), as PyTorch's ops do. tinyamp/values/minifloat.h has their rules.
/// The short names below (tinyamp::f32, ...) and traits() say more about each.
enum class DType : std::uint8_t { f64, f32, f16, bf16, i64, boolean, f8e4m3fn, f8e5m2, e8m0, f4e2m1x2 };

/// How many dtypes there are (the size of tables indexed by a DType).
inline constexpr int kNumDTypes = 10;
/// Every dtype, in enum order, for loops over dtypes.
inline constexpr std::array<DType, kNumDTypes> kAllDTypes = {DType::f64,      DType::f32,    DType::f16,  DType::bf16,
                                                             DType::i64,      DType::boolean, DType::f8e4m3fn, DType::f8e5m2,
                                                             DType::e8m0,     DType::f4e2m1x2};
/// The six dtypes ops compute in (and autocast casts between): all but the minifloats.
inline constexpr std::array<DType, 6> kComputeDTypes = {DType::f64, DType::f32, DType::f16, DType::bf16, DType::i64, DType::boolean};
/// The four FP8/FP4 storage dtypes, in enum order.
inline constexpr std::array<DType, 4> kMinifloatDTypes = {DType::f8e4m3fn, DType::f8e5m2, DType::e8m0, DType::f4e2m1x2};

/// Short names so code reads like the lessons: `f32`, `f16`, `bf16`, ...; this one is
/// DType::f64, IEEE double precision (torch.float64).
inline constexpr DType f64 = DType::f64;
inline constexpr DType f32 = DType::f32;  ///< DType::f32, IEEE single precision (torch.float32)
inline constexpr DType f16 = DType::f16;  ///< DType::f16, IEEE half precision (torch.float16)
inline constexpr DType bf16 = DType::bf16;  ///< DType::bf16, bfloat16 (torch.bfloat16)
inline constexpr DType i64 = DType::i64;  ///< DType::i64, 64-bit integer (torch.int64)
inline constexpr DType boolean = DType::boolean;  ///< DType::boolean (torch.bool; `bool` is a C++ keyword)
inline constexpr DType f8e4m3fn = DType::f8e4m3fn;  ///< DType::f8e4m3fn, OCP FP8 E4M3, max 448, no inf (torch.float8_e4m3fn)
inline constexpr DType f8e5m2 = DType::f8e5m2;  ///< DType::f8e5m2, OCP FP8 E5M2, max 57344, inf and NaN (torch.float8_e5m2)
inline constexpr DType e8m0 = DType::e8m0;  ///< DType::e8m0, the MX scale: powers of two 2^-127..2^127 (torch.float8_e8m0fnu)
inline constexpr DType f4e2m1x2 = DType::f4e2m1x2;  ///< DType::f4e2m1x2, two FP4 E2M1 values per byte (torch.float4_e2m1fn_x2)

/// Facts about one dtype. For the integer and bool types the float-only fields are 0.
/// The float rows are derived from FloatFormat's bit counts, so they cannot drift.
struct DTypeTraits {
    DType dtype;               ///< the dtype this row describes
    const char* name;          ///< as printed: "f32", "bf16", ...
    const char* long_name;     ///< PyTorch's name: "float32", "bfloat16", ...
    int size;                  ///< bytes per element
    /// True for f64, f32, f16 and bf16, the floats ops compute in. False for the minifloats
    /// (PyTorch says true for its float8 dtypes, but no tinyamp op computes in them: they answer
    /// is_minifloat() instead, so a check for a float input refuses them).
    bool is_floating_point;
    int exponent_bits;         ///< width of the exponent field (f32: 8, f16: 5, bf16: 8)
    int mantissa_bits;         ///< stored fraction bits (the leading 1 is implicit)
    double max;                ///< largest finite value
    double min_normal;         ///< smallest positive normal value
    double min_subnormal;      ///< smallest positive value (a subnormal)
    double eps;                ///< distance from 1.0 to the next value
    /// The 8-bit or 4-bit format of a minifloat dtype (its codes, specials and overflow rules);
    /// null for the others.
    const minifloat::Format* minifloat = nullptr;
    int values_per_element = 1;  ///< 2 for f4e2m1x2 (two FP4 values per byte), 1 for the others
};

/// The traits row of \p dtype (as torch.finfo / torch.iinfo, in one table). Throws Error
/// (ErrorKind::dtype) for a value that is no DType (e.g. cast from a bad integer).
const DTypeTraits& traits(DType dtype);
inline int dtype_size(DType dtype) { return traits(dtype).size; }  ///< bytes per element (torch's itemsize)
inline const char* dtype_name(DType dtype) { return traits(dtype).name; }  ///< the short name: "f32", "bf16", "bool", ...
inline bool is_floating_point(DType dtype) { return traits(dtype).is_floating_point; }  ///< f64, f32, f16 or bf16
/// True for the FP8/FP4 storage dtypes f8e4m3fn, f8e5m2, e8m0 and f4e2m1x2 (the last ones of the enum).
constexpr bool is_minifloat(DType dtype) { return dtype >= DType::f8e4m3fn; }
/// The format of a minifloat dtype (f4e2m1x2 gives minifloat::f4e2m1, the format of each of its
/// two values). Throws Error(dtype) for any other dtype.
const minifloat::Format& minifloat_format(DType dtype);

/// The dtype whose tensors hold codes of \p format: f8e4m3fn, f8e5m2, e8m0, and f4e2m1x2 for
/// f4e2m1 (two a byte). Throws Error(dtype) for a Format that is not one of the four rows.
DType minifloat_dtype(const minifloat::Format& format);

/// How to() rounds into a minifloat dtype, as PyTorch 2.15's eager cast: f8e4m3fn saturates
/// (a value past 448 becomes +-448, as Transformer Engine's casts do), f8e5m2 and e8m0 do not
/// (past the largest value is inf for E5M2 and NaN for E8M0, as in IEEE and ml_dtypes).
constexpr minifloat::Overflow cast_overflow(DType dtype)
{
    return dtype == DType::f8e4m3fn ? minifloat::Overflow::saturate : minifloat::Overflow::non_saturating;
}

/// Parses "f32", "float32", "float", "f16", "float16", "half", "bf16", "bfloat16", "f64",
/// "float64", "double", "i64", "int64", "long", "bool", and the minifloats by tinyamp's and
/// PyTorch's names ("f8e4m3fn" or "float8_e4m3fn", "f8e5m2" or "float8_e5m2", "e8m0" or
/// "float8_e8m0fnu", "f4e2m1x2" or "float4_e2m1fn_x2"). Throws Error(dtype) naming the accepted names.
DType parse_dtype(std::string_view name);

/// `value` rounded to a float dtype, as its bits: sign, exponent and mantissa fields separated by
/// spaces. For example bit_pattern(1.0, f16) == "0 01111 0000000000", bit_pattern(448,
/// f8e4m3fn) == "0 1111 110". A minifloat rounds as to() does (cast_overflow); f4e2m1x2 shows
/// one E2M1 value ("0 11 1" for 6), e8m0 its 8 exponent bits. Throws Error(dtype) for i64/bool.
std::string bit_pattern(double value, DType dtype);

/// PyTorch's promotion for two dtypes (torch.promote_types): the same dtype gives itself, floats
/// win over integers and bool, the wider float wins, f16 with bf16 gives f32 (neither holds the
/// other), and bool with i64 gives i64. A minifloat with any other dtype throws Error(dtype), as
/// PyTorch does ("Promotion for Float8 Types is not supported").
DType promote_types(DType a, DType b);

std::ostream& operator<<(std::ostream& out, DType dtype);  ///< writes dtype_name(dtype)

/// The C++ element type stored for each dtype (bool is stored as one byte): f64 `double`,
/// f32 `float`, f16 Half, bf16 BFloat16, i64 `std::int64_t`, boolean `bool`. Use element_t.
template <DType D> struct ElementType;
/// \cond
// The six specializations (listed in ElementType's comment above).
template <> struct ElementType<DType::f64> { using type = double; };
template <> struct ElementType<DType::f32> { using type = float; };
template <> struct ElementType<DType::f16> { using type = Half; };
template <> struct ElementType<DType::bf16> { using type = BFloat16; };
template <> struct ElementType<DType::i64> { using type = std::int64_t; };
template <> struct ElementType<DType::boolean> { using type = bool; };
/// \endcond
/// The C++ element type of dtype \p D, e.g. `element_t<DType::f16>` is Half.
template <DType D> using element_t = typename ElementType<D>::type;

/// The dtype of a C++ element type (the inverse of element_t).
template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<double>() { return DType::f64; }  ///< DType::f64
template <> constexpr DType dtype_of<float>() { return DType::f32; }  ///< DType::f32
template <> constexpr DType dtype_of<Half>() { return DType::f16; }  ///< DType::f16
template <> constexpr DType dtype_of<BFloat16>() { return DType::bf16; }  ///< DType::bf16
template <> constexpr DType dtype_of<std::int64_t>() { return DType::i64; }  ///< DType::i64
template <> constexpr DType dtype_of<bool>() { return DType::boolean; }  ///< DType::boolean

/// Throws the Error (ErrorKind::dtype) of visit_float_dtype for a dtype that is not a float
/// (out of line, so the template stays small).
[[noreturn]] void visit_float_dtype_failed(DType dtype);

/// Throws the Error (ErrorKind::dtype) of visit_dtype for a minifloat dtype.
[[noreturn]] void visit_dtype_failed(DType dtype);
/// Throws the Error (ErrorKind::dtype) the dispatcher gives when op \p op, which does not take
/// FP8/FP4 tensors, is handed one of dtype \p dtype: it says to convert with .to(f32) first.
[[noreturn]] void fail_minifloat_input(const char* op, DType dtype);

/// Calls `fn(T{})` with T the element type of `dtype`: the one switch over dtypes that the
/// rest of the code reuses instead of writing its own. Returns what \p fn returns. The
/// minifloats have no C++ element type (their codes are bytes): they throw Error(dtype).
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
    case DType::f8e4m3fn:
    case DType::f8e5m2:
    case DType::e8m0:
    case DType::f4e2m1x2: break;
    }
    visit_dtype_failed(dtype);
}

/// The same for the four float dtypes only, for kernels that are not built for integers; any
/// other dtype throws Error(dtype) (the op should have refused or converted it before).
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
