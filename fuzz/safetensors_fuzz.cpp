// libFuzzer target: io::from_safetensors_bytes on any bytes. A file that loads must write back
// to bytes that load again and write back the same (nothing lost or invented on the way).
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.h"

using namespace tinyamp;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string bytes(fuzz::as_text(data, size));
    io::SafetensorsFile file;
    if (!fuzz::loads([&] { file = io::from_safetensors_bytes(bytes, "fuzz.safetensors"); })) return 0;
    const std::string written = io::to_safetensors_bytes(file.tensors, file.metadata);
    const io::SafetensorsFile again = io::from_safetensors_bytes(written, "written.safetensors");
    if (io::to_safetensors_bytes(again.tensors, again.metadata) != written)
        fuzz::violated("a loaded safetensors file does not survive a write and a read unchanged");
    return 0;
}
