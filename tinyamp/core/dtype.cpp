#include "tinyamp/core/dtype.h"

#include <limits>
#include <ostream>

#include "tinyamp/core/error.h"

namespace tinyamp {
namespace {

template <class Format>
constexpr DTypeTraits float_traits(DType dtype, const char* name, const char* long_name, int size)
{
    return {dtype,          name,           long_name,          size,
            true,           Format::exponent_bits, Format::mantissa_bits, Format::max(),
            Format::min_normal(), Format::min_subnormal(), Format::eps()};
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
};

}  // namespace

const DTypeTraits& traits(DType dtype)
{
    const auto index = static_cast<std::size_t>(dtype);
    TINYAMP_CHECK(index < kTraits.size(), dtype, "unknown dtype value ", int(index),
                  "; use one of tinyamp::f64, f32, f16, bf16, i64, boolean");
    return kTraits[index];
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
    TINYAMP_CHECK(t.is_floating_point, dtype, "bit_pattern() shows float layouts; ", t.name,
                  " is not a float dtype (use f64, f32, f16 or bf16)");
    std::uint64_t bits = 0;
    switch (dtype) {
    case DType::f64: bits = std::bit_cast<std::uint64_t>(value); break;
    case DType::f32: bits = Binary32::from_double(value); break;
    case DType::f16: bits = Binary16::from_double(value); break;
    default: bits = BFloat16Format::from_double(value); break;
    }
    std::string out;
    const int total = 1 + t.exponent_bits + t.mantissa_bits;
    for (int i = total - 1; i >= 0; --i) {
        out += ((bits >> i) & 1) ? '1' : '0';
        if (i == total - 1 || i == t.mantissa_bits) out += ' ';
    }
    return out;
}

DType promote_types(DType a, DType b)
{
    if (a == b) return a;
    const bool fa = is_floating_point(a), fb = is_floating_point(b);
    if (fa && !fb) return a;
    if (fb && !fa) return b;
    if (!fa && !fb) return DType::i64;  // bool with i64
    // Two different floats: the wider wins, and f16 with bf16 meet in f32 (neither holds the other).
    if (a == DType::f64 || b == DType::f64) return DType::f64;
    return DType::f32;
}

void visit_float_dtype_failed(DType dtype)
{
    TINYAMP_FAIL(dtype, "internal: a float-only kernel was asked for ", dtype_name(dtype), "; the op should have converted or refused it");
}

std::ostream& operator<<(std::ostream& out, DType dtype) { return out << dtype_name(dtype); }

}  // namespace tinyamp
