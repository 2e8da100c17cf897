#include "tinyamp/values/dtype.h"

#include <limits>
#include <ostream>

#include "tinyamp/support/error.h"
#include "tinyamp/values/bit_cast.h"

namespace tinyamp {
namespace {

template <class Format>
constexpr DTypeTraits float_traits(DType dtype, const char* name, const char* long_name, int size)
{
    return {dtype,          name,           long_name,          size,
            true,           Format::exponent_bits, Format::mantissa_bits, Format::max(),
            Format::min_normal(), Format::min_subnormal(), Format::eps()};
}

// A minifloat row: its numbers come from its minifloat::Format, made by the same rule as the
// conversions. Not is_floating_point: no op computes in it (see DTypeTraits).
constexpr DTypeTraits minifloat_traits(DType dtype, const char* name, const char* long_name, const minifloat::Format& f,
                                       int values_per_element)
{
    return {dtype, name, long_name, 1, false, f.exponent_bits, f.mantissa_bits, f.max, f.min_normal, f.min_subnormal, f.eps, &f, values_per_element};
}

// Derived from the formats' bit counts rather than typed in, so the table cannot drift; the
// tests compare it with std::numeric_limits and with the published f16/bf16 constants.
constexpr std::array<DTypeTraits, kNumDTypes> kTraits = {
    float_traits<Binary64>(DType::f64, "f64", "float64", 8),
    float_traits<Binary32>(DType::f32, "f32", "float32", 4),
    float_traits<Binary16>(DType::f16, "f16", "float16", 2),
    float_traits<BFloat16Format>(DType::bf16, "bf16", "bfloat16", 2),
    DTypeTraits{DType::i64, "i64", "int64", 8, false, 0, 0,
                double(std::numeric_limits<std::int64_t>::max()), 0.0, 0.0, 0.0},
    DTypeTraits{DType::boolean, "bool", "bool", 1, false, 0, 0, 1.0, 0.0, 0.0, 0.0},
    minifloat_traits(DType::f8e4m3fn, "f8e4m3fn", "float8_e4m3fn", minifloat::f8e4m3fn, 1),
    minifloat_traits(DType::f8e5m2, "f8e5m2", "float8_e5m2", minifloat::f8e5m2, 1),
    minifloat_traits(DType::e8m0, "e8m0", "float8_e8m0fnu", minifloat::e8m0, 1),
    minifloat_traits(DType::f4e2m1x2, "f4e2m1x2", "float4_e2m1fn_x2", minifloat::f4e2m1, 2),
};

struct NamedDType {
    std::string_view name;
    DType dtype;
};
constexpr NamedDType kNames[] = {
    {"f64", DType::f64},   {"float64", DType::f64},    {"double", DType::f64},
    {"f32", DType::f32},   {"float32", DType::f32},    {"float", DType::f32},
    {"f16", DType::f16},   {"float16", DType::f16},    {"half", DType::f16},
    {"bf16", DType::bf16}, {"bfloat16", DType::bf16},
    {"i64", DType::i64},   {"int64", DType::i64},      {"long", DType::i64},
    {"bool", DType::boolean},
    {"f8e4m3fn", DType::f8e4m3fn}, {"float8_e4m3fn", DType::f8e4m3fn},
    {"f8e5m2", DType::f8e5m2},     {"float8_e5m2", DType::f8e5m2},
    {"e8m0", DType::e8m0},         {"float8_e8m0fnu", DType::e8m0},
    {"f4e2m1x2", DType::f4e2m1x2}, {"float4_e2m1fn_x2", DType::f4e2m1x2},
};

}  // namespace

const DTypeTraits& traits(DType dtype)
{
    const auto index = static_cast<std::size_t>(dtype);
    TINYAMP_CHECK(index < kTraits.size(), dtype, "unknown dtype value ", int(index),
                  "; use one of tinyamp::f64, f32, f16, bf16, i64, boolean, f8e4m3fn, f8e5m2, e8m0, f4e2m1x2");
    return kTraits[index];
}

const minifloat::Format& minifloat_format(DType dtype)
{
    const DTypeTraits& t = traits(dtype);
    TINYAMP_CHECK(t.minifloat != nullptr, dtype, dtype_name(dtype), " is not an FP8/FP4 dtype (those are f8e4m3fn, f8e5m2, e8m0, f4e2m1x2)");
    return *t.minifloat;
}

DType minifloat_dtype(const minifloat::Format& format)
{
    for (DType d : kMinifloatDTypes)
        if (traits(d).minifloat == &format) return d;
    TINYAMP_FAIL(dtype, "minifloat format '", format.name, "' is not one of tinyamp's rows (minifloat::f8e4m3fn, f8e5m2, e8m0, f4e2m1); "
                 "pass a reference to one of them, not a copy");
}

DType parse_dtype(std::string_view name)
{
    for (const auto& entry : kNames)
        if (entry.name == name) return entry.dtype;
    std::string accepted;
    for (const auto& entry : kNames) accepted += (accepted.empty() ? "" : ", ") + std::string(entry.name);
    TINYAMP_FAIL(dtype, "unknown dtype name '", name, "'; accepted names: ", accepted);
}

std::string bit_pattern(double value, DType dtype)
{
    const DTypeTraits& t = traits(dtype);
    TINYAMP_CHECK(t.is_floating_point || t.minifloat, dtype, "bit_pattern() shows float layouts; ", t.name,
                  " is not a float dtype (use f64, f32, f16, bf16 or a minifloat such as f8e4m3fn)");
    std::uint64_t bits = 0;
    bool has_sign = true;
    switch (dtype) {
    case DType::f64: bits = tinyamp::bit_cast<std::uint64_t>(value); break;
    case DType::f32: bits = Binary32::from_double(value); break;
    case DType::f16: bits = Binary16::from_double(value); break;
    case DType::bf16: bits = BFloat16Format::from_double(value); break;
    default:
        bits = minifloat::encode_f64(*t.minifloat, value, cast_overflow(dtype));
        has_sign = t.minifloat->has_sign;
        break;
    }
    std::string out;
    const int total = (has_sign ? 1 : 0) + t.exponent_bits + t.mantissa_bits;
    for (int i = total - 1; i >= 0; --i) {
        out += ((bits >> i) & 1) ? '1' : '0';
        if ((has_sign && i == total - 1) || (i == t.mantissa_bits && i > 0)) out += ' ';
    }
    return out;
}

DType promote_types(DType a, DType b)
{
    if (a == b) return a;
    TINYAMP_CHECK(!is_minifloat(a) && !is_minifloat(b), dtype, "no type promotion for ", dtype_name(a), " with ", dtype_name(b),
                  ": FP8/FP4 tensors hold codes that ops do not compute in; convert them with .to(f32) first (PyTorch: "
                  "'Promotion for Float8 Types is not supported')");
    const bool fa = is_floating_point(a), fb = is_floating_point(b);
    if (fa && !fb) return a;
    if (fb && !fa) return b;
    if (!fa && !fb) return DType::i64;  // bool with i64
    // Two different floats: the wider wins, and f16 with bf16 meet in f32 (neither holds the other).
    if (a == DType::f64 || b == DType::f64) return DType::f64;
    return DType::f32;
}

void visit_dtype_failed(DType dtype)
{
    TINYAMP_FAIL(dtype, "this op does not compute in ", dtype_name(dtype),
                 ": FP8/FP4 tensors hold codes (to store and multiply with scaled_mm); convert with .to(f32) first");
}

void fail_minifloat_input(const char* op, DType dtype)
{
    TINYAMP_FAIL(dtype, op, " does not take ", dtype_name(dtype), " tensors: FP8/FP4 tensors hold codes, which tinyamp stores, views, "
                 "copies, converts (.to) and multiplies with scaled_mm, but does not compute in; convert with .to(f32) first (or "
                 "dequantize the scaled tensor), as PyTorch asks");
}

void visit_float_dtype_failed(DType dtype)
{
    TINYAMP_FAIL(dtype, "internal: a float-only kernel was asked for ", dtype_name(dtype), "; the op should have converted or refused it");
}

std::ostream& operator<<(std::ostream& out, DType dtype) { return out << dtype_name(dtype); }

}  // namespace tinyamp
