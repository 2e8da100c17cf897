#include "tinyamp/io/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <set>

#include "tinyamp/tensor/factories.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/support/atomic_file.h"

namespace tinyamp::io {
namespace {

// The file stores little-endian bytes and tinyamp copies tensor memory as it is.
static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes a little-endian machine");

// ordered_json writes the header in the order the tensors were given.
using json = nlohmann::ordered_json;

// As the reference implementation: a larger header is a damaged length field, not a real file.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
constexpr const char* kMetadataKey = "__metadata__";
constexpr const char* kSaveAgain = "the file is damaged or was cut short; save it again";

// The format's own names (the safetensors crate's Dtype). FP8 keeps its dtype in the file, so a
// checkpoint of fp8 weights stays fp8. f4e2m1x2 is not listed: the format's "F4" counts 4-bit
// values in its shape, where tinyamp's shape counts bytes of two.
constexpr std::pair<DType, const char*> kDTypeNames[] = {
    {DType::f64, "F64"},  {DType::f32, "F32"},         {DType::f16, "F16"},         {DType::bf16, "BF16"}, {DType::i64, "I64"},
    {DType::boolean, "BOOL"}, {DType::f8e4m3fn, "F8_E4M3"}, {DType::f8e5m2, "F8_E5M2"}, {DType::e8m0, "F8_E8M0"}};

const char* file_dtype_name(DType dtype)
{
    for (const auto& [d, name] : kDTypeNames)
        if (d == dtype) return name;
    return nullptr;
}

std::optional<DType> parse_file_dtype(const std::string& name)
{
    for (const auto& [d, n] : kDTypeNames)
        if (name == n) return d;
    return std::nullopt;
}

// ---------------------------------------------------------------- reading

// "an array", "a string": for messages that say what was found instead.
std::string a_type(const json& j)
{
    const std::string type = j.type_name();
    return (type[0] == 'a' || type[0] == 'o' ? "an " : "a ") + type;
}

// One tensor's header entry, checked against itself (the file as a whole is checked later).
struct Entry {
    std::string name;
    DType dtype;
    Shape shape;
    std::uint64_t begin, end;
};

// Every reading error: Error(io) "safetensors file '<name>': <what>".
struct Reader {
    const std::string& file;

    template <class... Parts>
    [[noreturn]] void fail(const Parts&... what) const
    {
        TINYAMP_FAIL(io, "safetensors file '", file, "': ", what...);
    }

    // The header as JSON. nlohmann keeps the last of two equal keys silently; a tensor listed
    // twice is corruption, so a parse callback tracks the keys of each open object.
    json parse_header(std::string_view text) const
    {
        std::vector<std::set<std::string>> open_objects;
        std::optional<std::string> duplicate;
        const json::parser_callback_t track = [&](int, json::parse_event_t event, json& parsed) {
            if (event == json::parse_event_t::object_start) open_objects.emplace_back();
            if (event == json::parse_event_t::object_end) open_objects.pop_back();
            if (event == json::parse_event_t::key && !open_objects.back().insert(parsed.get<std::string>()).second && !duplicate)
                duplicate = parsed.get<std::string>();
            return true;
        };
        // nlohmann stops at a NUL byte as if the text ended there; JSON never has a raw NUL.
        if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
            fail("the header is not valid JSON (a NUL byte at header byte ", nul, "); ", kSaveAgain);
        json header;
        try {
            // Strict: no comments, every string valid UTF-8 (nlohmann's lexer checks it).
            header = json::parse(text.begin(), text.end(), track);
        } catch (const json::exception& e) {
            fail("the header is not valid JSON (", e.what(), "); ", kSaveAgain);
        }
        if (duplicate) fail("the header lists the key '", *duplicate, "' twice; ", kSaveAgain);
        if (!header.is_object()) fail("the header is ", a_type(header), ", not a JSON object; ", kSaveAgain);
        return header;
    }

    std::map<std::string, std::string> metadata(const json& j) const
    {
        if (!j.is_object()) fail("\"__metadata__\" must be an object of strings, found ", a_type(j), "; ", kSaveAgain);
        std::map<std::string, std::string> out;
        for (const auto& [key, value] : j.items()) {
            if (!value.is_string())
                fail("\"__metadata__\" entry '", key, "' must be a string, found ", value.dump(), "; ", kSaveAgain);
            out[key] = value.get<std::string>();
        }
        return out;
    }

    std::uint64_t offset(const json& j, const std::string& name) const
    {
        if (!j.is_number_unsigned())
            fail("tensor '", name, "': data_offsets must be non-negative integers, found ", j.dump(), "; ", kSaveAgain);
        return j.get<std::uint64_t>();
    }

    Entry entry(const std::string& name, const json& j) const
    {
        if (!j.is_object()) fail("tensor '", name, "': expected {\"dtype\", \"shape\", \"data_offsets\"}, found ", a_type(j), "; ", kSaveAgain);
        for (const auto& [key, value] : j.items())
            if (key != "dtype" && key != "shape" && key != "data_offsets")
                fail("tensor '", name, "': unknown field '", key, "' (an entry has exactly dtype, shape and data_offsets); ", kSaveAgain);
        for (const char* key : {"dtype", "shape", "data_offsets"})
            if (!j.contains(key)) fail("tensor '", name, "': the field '", key, "' is missing; ", kSaveAgain);

        const json& dtype = j["dtype"];
        if (!dtype.is_string()) fail("tensor '", name, "': dtype must be a string, found ", dtype.dump(), "; ", kSaveAgain);
        const std::optional<DType> parsed = parse_file_dtype(dtype.get<std::string>());
        if (!parsed)
            fail("tensor '", name, "' has dtype ", dtype.dump(), ", which tinyamp does not read; it reads F64, F32, F16, BF16, I64, "
                 "BOOL, F8_E4M3, F8_E5M2 and F8_E8M0: convert the tensor to one of these before saving (in PyTorch, e.g. t.float())");

        // Sizes must fit Shape's int64, and so must the product of the non-zero sizes (the
        // strides): a huge size next to a 0 would otherwise overflow inside the tensor code.
        const json& shape = j["shape"];
        if (!shape.is_array()) fail("tensor '", name, "': shape must be an array, found ", shape.dump(), "; ", kSaveAgain);
        Shape dims;
        std::uint64_t span = 1, count = 1;
        constexpr std::uint64_t kMax = std::numeric_limits<std::int64_t>::max();
        for (const json& d : shape) {
            if (!d.is_number_unsigned())
                fail("tensor '", name, "': shape sizes must be non-negative integers, found ", d.dump(), "; ", kSaveAgain);
            const std::uint64_t size = d.get<std::uint64_t>();
            if (__builtin_mul_overflow(span, std::max<std::uint64_t>(size, 1), &span) || span > kMax)
                fail("tensor '", name, "': shape ", shape.dump(), " is too large to exist; ", kSaveAgain);
            count *= size;  // cannot overflow: count <= span
            dims.push_back(std::int64_t(size));
        }
        std::uint64_t nbytes = 0;
        if (__builtin_mul_overflow(count, std::uint64_t(dtype_size(*parsed)), &nbytes) || nbytes > kMax)
            fail("tensor '", name, "': shape ", shape.dump(), " is too large to exist; ", kSaveAgain);

        const json& offsets = j["data_offsets"];
        if (!offsets.is_array() || offsets.size() != 2)
            fail("tensor '", name, "': data_offsets must be [begin, end], found ", offsets.dump(), "; ", kSaveAgain);
        const std::uint64_t begin = offset(offsets[0], name), end = offset(offsets[1], name);
        if (begin > end) fail("tensor '", name, "': data_offsets ", offsets.dump(), " end before they begin; ", kSaveAgain);
        if (end - begin != nbytes)
            fail("tensor '", name, "' is ", dtype.get<std::string>(), " with shape ", shape.dump(), ", which is ", nbytes,
                 " bytes, but its data_offsets ", offsets.dump(), " hold ", end - begin, "; ", kSaveAgain);
        return {name, *parsed, std::move(dims), begin, end};
    }

    // The tensors must tile the data buffer exactly: [0, a), [a, b), ..., [y, size).
    void check_coverage(const std::vector<Entry>& entries, std::uint64_t data_size) const
    {
        std::uint64_t needed = 0;
        for (const Entry& e : entries) needed = std::max(needed, e.end);
        if (needed > data_size)
            fail("truncated: the header says ", needed, " bytes of tensor data but the file has ", data_size,
                 "; the file may have been cut short — save it again");
        std::uint64_t position = 0;
        const Entry* previous = nullptr;
        for (const Entry& e : entries) {
            if (e.begin < position)
                fail("the data of tensors '", previous->name, "' [", previous->begin, ", ", previous->end, ") and '", e.name, "' [", e.begin,
                     ", ", e.end, ") overlap; ", kSaveAgain);
            if (e.begin > position)
                fail("bytes ", position, " to ", e.begin, " of the data belong to no tensor (a gap before '", e.name, "'); ", kSaveAgain);
            position = e.end;
            previous = &e;
        }
        if (data_size > position)
            fail("the file has ", data_size - position, " bytes after the last tensor's data, which belong to no tensor; ", kSaveAgain);
    }
};

}  // namespace

// ---------------------------------------------------------------- writing

std::string to_safetensors_bytes(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                 const std::map<std::string, std::string>& metadata)
{
    json header = json::object();
    if (!metadata.empty()) header[kMetadataKey] = metadata;  // first, as the reference writer puts it
    std::vector<Tensor> packed;
    std::set<std::string_view> names;
    std::uint64_t offset = 0;
    for (const auto& [name, t] : tensors) {
        TINYAMP_CHECK(!name.empty(), value, "save_safetensors: a tensor has an empty name; give every tensor a name");
        TINYAMP_CHECK(name != kMetadataKey, value, "save_safetensors: \"__metadata__\" cannot name a tensor (the format keeps it for "
                                                   "the metadata); rename the tensor, or pass the text as metadata");
        TINYAMP_CHECK(names.insert(name).second, value, "save_safetensors: the name '", name,
                      "' is given to two tensors; names must be unique");
        TINYAMP_CHECK(t.defined(), value, "save_safetensors: tensor '", name, "' is undefined");
        TINYAMP_CHECK(file_dtype_name(t.dtype()) != nullptr, dtype, "save_safetensors: tensor '", name, "' is ", dtype_name(t.dtype()),
                      ", which tinyamp does not save (safetensors' F4 counts single FP4 values in its shape, tinyamp's "
                      "shape counts bytes of two); dequantize it to f32 first");
        // No autograd here (layout::), and the data in row-major order on the CPU.
        const Tensor cpu = t.device().is_cpu() ? t : layout::to_device(t, Device::cpu());
        packed.push_back(layout::contiguous(cpu));
        const std::uint64_t end = offset + std::uint64_t(t.nbytes());
        header[name] = {{"dtype", file_dtype_name(t.dtype())}, {"shape", t.shape()}, {"data_offsets", json::array({offset, end})}};
        offset = end;
    }

    std::string text;
    try {
        text = header.dump();  // compact, as the reference writer
    } catch (const json::exception& e) {
        TINYAMP_FAIL(value, "save_safetensors: a tensor name or metadata text is not valid UTF-8 (", e.what(),
                     "); the header is JSON, which holds only UTF-8 text");
    }
    // Padding to a multiple of 8 keeps the data aligned for readers that map the file.
    text.append((8 - text.size() % 8) % 8, ' ');

    std::string bytes;
    bytes.reserve(8 + text.size() + offset);
    const std::uint64_t length = text.size();
    for (int i = 0; i < 8; ++i) bytes.push_back(char((length >> (8 * i)) & 0xFF));
    bytes.append(text);
    for (const Tensor& t : packed)
        if (t.nbytes() > 0) bytes.append(static_cast<const char*>(t.data_ptr()), std::size_t(t.nbytes()));
    return bytes;
}

void save_safetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata)
{
    write_file_atomically(path, to_safetensors_bytes(tensors, metadata));
}

SafetensorsFile from_safetensors_bytes(std::string_view bytes, const std::string& name_for_errors)
{
    const Reader reader{name_for_errors};
    if (bytes.size() < 8)
        reader.fail("truncated: it has ", bytes.size(), " bytes, fewer than the 8 of the header length; the file may have been cut "
                    "short — save it again");
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i) length = (length << 8) | std::uint8_t(bytes[std::size_t(i)]);
    if (length > kMaxHeaderBytes)
        reader.fail("its first 8 bytes give a header length of ", length, " bytes, more than the ", kMaxHeaderBytes,
                    " allowed; it is not a safetensors file, or its start is damaged");
    if (length > bytes.size() - 8)
        reader.fail("truncated: the header says it is ", length, " bytes long but only ", bytes.size() - 8,
                    " bytes follow; the file may have been cut short — save it again");

    const json header = reader.parse_header(bytes.substr(8, length));
    const std::string_view data = bytes.substr(8 + length);
    SafetensorsFile file;
    std::vector<Entry> entries;
    for (const auto& [key, value] : header.items()) {
        if (key == kMetadataKey)
            file.metadata = reader.metadata(value);
        else
            entries.push_back(reader.entry(key, value));
    }
    // File order is the order of the data (for files tinyamp writes, also the header's order).
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
    reader.check_coverage(entries, data.size());
    for (const Entry& e : entries)
        if (e.dtype == DType::boolean)  // any other byte would be an invalid C++ bool
            for (std::uint64_t i = e.begin; i < e.end; ++i)
                if (std::uint8_t(data[i]) > 1)
                    reader.fail("tensor '", e.name, "' is BOOL but byte ", i - e.begin, " of its data is ", int(std::uint8_t(data[i])),
                                " (a bool is 0 or 1); ", kSaveAgain);

    // Everything is checked: only now make the tensors.
    for (const Entry& e : entries) {
        Tensor t = empty(e.shape, e.dtype);
        if (e.end > e.begin) std::memcpy(t.data_ptr(), data.data() + e.begin, e.end - e.begin);
        file.tensors.emplace_back(e.name, std::move(t));
    }
    return file;
}

SafetensorsFile load_safetensors(const std::string& path) { return from_safetensors_bytes(read_file(path), path); }

}  // namespace tinyamp::io
