// libFuzzer target: amp::PolicyTable::from_text on any text. A table that loads must write back
// (to_text) to text that loads as the same table.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.h"

using namespace tinyamp;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(fuzz::as_text(data, size));
    std::optional<amp::PolicyTable> table;
    if (!fuzz::loads([&] { table = amp::PolicyTable::from_text(text); })) return 0;
    const std::string written = table->to_text();
    if (amp::PolicyTable::from_text(written).to_text() != written)
        fuzz::violated("a loaded policy table does not survive to_text and from_text unchanged");
    return 0;
}
