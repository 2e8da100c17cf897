#pragma once
/// \file
/// The safetensors file format (https://huggingface.co/docs/safetensors), which PyTorch, NumPy
/// and JAX read without running any code from the file.
///
/// \code{.unparsed}
///   8 bytes     N, the header length: an unsigned 64-bit little-endian integer
///   N bytes     a JSON object, padded with spaces to a multiple of 8:
///                 {"__metadata__": {"format": "pt"},
///                  "w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}, ...}
///   the rest    the tensors' bytes, little-endian, row-major, packed with no gaps; data_offsets
///               count from the start of this part
/// \endcode
///
/// \code
///     io::save_safetensors("model.safetensors", {{"w", w}, {"b", b}}, {{"epoch", "3"}});
///     io::SafetensorsFile f = io::load_safetensors("model.safetensors");  // f.tensors[0].first == "w"
/// \endcode
///
/// Loading checks the whole file before it returns anything, and refuses a cut or corrupt file
/// with an Error(io) that names the file and what is wrong.

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp::io {

/// What load_safetensors returns: the named tensors and the metadata of one file.
struct SafetensorsFile {
    /// The tensors by name, in the order their data lies in the file: CPU tensors in the file's dtypes.
    std::vector<std::pair<std::string, Tensor>> tensors;
    std::map<std::string, std::string> metadata;          ///< the `"__metadata__"` entry (may be empty)
};

/// Saves tensors (any layout: non-contiguous ones are made contiguous; CUDA ones are copied to
/// the CPU) under their names, in the order given, with write_file_atomically. Dtypes are
/// written as f64 F64, f32 F32, f16 F16, bf16 BF16, i64 I64, bool BOOL, f8e4m3fn F8_E4M3,
/// f8e5m2 F8_E5M2, e8m0 F8_E8M0 (f4e2m1x2 is refused: Error(dtype)). Names must be unique,
/// non-empty, valid UTF-8 and not `"__metadata__"` (Error(value) otherwise), and every tensor
/// defined. Empty metadata is left out of the header. Error(io) when the file cannot be written
/// (the old file, if any, is then untouched).
void save_safetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

/// The bytes save_safetensors writes, with the same checks (Error(value)).
std::string to_safetensors_bytes(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                 const std::map<std::string, std::string>& metadata = {});

/// Reads and validates the whole file (nothing is half loaded): a sane header length within
/// the file, a strict UTF-8 JSON header whose entries have exactly dtype, shape and
/// data_offsets, known dtypes, sizes that match the shapes, and tensors that cover the data
/// exactly (no gaps, overlaps, missing or trailing bytes). Each problem is an Error(io), as is
/// a file that cannot be read. The tensors are on the CPU, in the file's dtypes.
SafetensorsFile load_safetensors(const std::string& path);

/// The same, from bytes in memory; errors call them `name_for_errors`.
SafetensorsFile from_safetensors_bytes(std::string_view bytes, const std::string& name_for_errors);

}  // namespace tinyamp::io
