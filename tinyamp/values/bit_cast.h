#pragma once
/// \file
/// `tinyamp::bit_cast`: `std::bit_cast`, or the compiler's builtin where the standard library has
/// none (Emscripten 3.1.6's libc++, the web build's). Same meaning: the bits of `from` read as a `To`.
#include <bit>
#include <type_traits>

namespace tinyamp {

#if defined(__cpp_lib_bit_cast)
using std::bit_cast;
#else
/// The bits of `from` read as a `To` (both the same size and trivially copyable).
template <class To, class From>
    requires(sizeof(To) == sizeof(From) && std::is_trivially_copyable_v<To> && std::is_trivially_copyable_v<From>)
constexpr To bit_cast(const From& from) noexcept
{
    return __builtin_bit_cast(To, from);
}
#endif

}  // namespace tinyamp
