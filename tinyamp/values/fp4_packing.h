#pragma once
/// \file
/// Two 4-bit codes (f4e2m1) in one byte, in the order PyTorch's `torch.float4_e2m1fn_x2` and ONNX's
/// FLOAT4E2M1 use: the element with the lower index in the low nibble (bits 0-3), the next one
/// in the high nibble (bits 4-7). So the bytes of a row of 2n values hold element 2i in the low
/// nibble of byte i and element 2i + 1 in its high nibble; an odd count leaves the last high
/// nibble 0.

#include <cstddef>
#include <cstdint>

namespace tinyamp::minifloat {

/// The byte holding \p first (element 2i: low nibble) and \p second (element 2i + 1: high
/// nibble); only the low 4 bits of each are used.
constexpr std::uint8_t pack_fp4x2(std::uint8_t first, std::uint8_t second)
{
    return std::uint8_t((first & 0x0F) | ((second & 0x0F) << 4));
}

/// The code of the element at \p index of a packed row: nibble `index % 2` of byte `index / 2`.
constexpr std::uint8_t unpack_fp4(const std::uint8_t* packed, std::size_t index)
{
    const std::uint8_t byte = packed[index / 2];
    return index % 2 == 0 ? std::uint8_t(byte & 0x0F) : std::uint8_t(byte >> 4);
}

}  // namespace tinyamp::minifloat
