// safetensors: the exact bytes of the format, bit-exact round trips for every dtype, strict
// loading (every cut or corrupt file is an io error, never a crash), and atomic saving.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/temp_dir.h"

using namespace tinyamp;
using tinyamp::test::error_message;
using Named = std::vector<std::pair<std::string, Tensor>>;

using tinyamp::test::TempDir;

namespace {

// A tensor whose memory holds exactly these values (bit patterns for the 16-bit floats, NaN
// payloads, ...): T is the storage type, or a same-size integer holding the bits.
template <class T>
Tensor from_raw(const std::vector<T>& values, const Shape& shape, DType dtype)
{
    Tensor t = empty(shape, dtype);
    REQUIRE(std::size_t(t.nbytes()) == values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(T));
    return t;
}

std::string raw_bytes(const Tensor& t)
{
    const Tensor c = t.contiguous();
    return c.nbytes() == 0 ? std::string() : std::string(static_cast<const char*>(c.data_ptr()), std::size_t(c.nbytes()));
}

// Same names in the same order, same dtypes and shapes, and the same bits.
void check_same(const Named& loaded, const Named& saved)
{
    REQUIRE(loaded.size() == saved.size());
    for (std::size_t i = 0; i < saved.size(); ++i) {
        CAPTURE(saved[i].first);
        CHECK(loaded[i].first == saved[i].first);
        CHECK(loaded[i].second.dtype() == saved[i].second.dtype());
        CHECK(loaded[i].second.shape() == saved[i].second.shape());
        CHECK(loaded[i].second.is_contiguous());
        CHECK(raw_bytes(loaded[i].second) == raw_bytes(saved[i].second));
    }
}

std::uint64_t header_length(const std::string& bytes)
{
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | std::uint8_t(bytes[std::size_t(i)]);
    return n;
}

std::string header_text(const std::string& bytes) { return bytes.substr(8, header_length(bytes)); }

// A file made by hand: the length field, the header text as given (no padding), the data.
std::string file_with(const std::string& header, const std::string& data)
{
    std::string bytes;
    for (int i = 0; i < 8; ++i) bytes.push_back(char((std::uint64_t(header.size()) >> (8 * i)) & 0xFF));
    return bytes + header + data;
}

// A plain write, without write_file_atomically's fsyncs: hundreds of them would make a test slow.
void write_plain(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    REQUIRE(out.good());
}

// Several dtypes and shapes plus metadata, a few hundred bytes: small enough to cut and corrupt
// at every byte, even under the sanitizers.
Named small_sample()
{
    return {{"w", tensor({1, -2, 3.5, 0.25, 5, 6}, {2, 3}, f32)},
            {"h", tensor({1, 0.5, -65504}, {3}, f16)},
            {"b", scalar_tensor(1.5, bf16)},
            {"n", tensor({-7, 9}, {2}, i64)},
            {"m", tensor({1, 0, 1}, {3}, boolean)},
            {"d", tensor({0.1, -0.0}, {2}, f64)},
            {"e", zeros({0, 2}, f32)}};
}
const std::map<std::string, std::string> kSampleMetadata{{"epoch", "3"}, {"format", "pt"}};

}  // namespace

TEST_CASE("safetensors: a one-tensor file is byte for byte what the format spec gives")
{
    // 8-byte little-endian header length (56), the JSON header padded with spaces to a multiple
    // of 8, then the two f32 values little-endian: 1.0f = 0x3F800000, 2.0f = 0x40000000.
    const std::string header = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    REQUIRE(header.size() == 54);
    const std::string expected = std::string("\x38\0\0\0\0\0\0\0", 8) + header + "  " + std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8);
    REQUIRE(expected.size() == 72);
    CHECK(io::to_safetensors_bytes({{"x", tensor({1, 2})}}) == expected);

    const io::SafetensorsFile file = io::from_safetensors_bytes(expected, "golden");
    REQUIRE(file.tensors.size() == 1);
    CHECK(file.tensors[0].first == "x");
    CHECK(file.tensors[0].second.to_vector() == std::vector<double>{1, 2});
    CHECK(file.metadata.empty());
}

TEST_CASE("safetensors: metadata comes first in the header and bool and f16 data are packed with no gaps")
{
    const std::string header = R"({"__metadata__":{"format":"pt"},"b":{"dtype":"BOOL","shape":[],"data_offsets":[0,1]},)"
                               R"("h":{"dtype":"F16","shape":[1,2],"data_offsets":[1,5]}})";
    REQUIRE(header.size() == 140);
    // 1 byte of bool (true), then f16 1.0 = 0x3C00 and -2.0 = 0xC000, little-endian, unaligned.
    const std::string expected = std::string("\x90\0\0\0\0\0\0\0", 8) + header + "    " + std::string("\x01\x00\x3c\x00\xc0", 5);
    const Named tensors{{"b", scalar_tensor(1, boolean)}, {"h", tensor({1, -2}, {1, 2}, f16)}};
    CHECK(io::to_safetensors_bytes(tensors, {{"format", "pt"}}) == expected);
    const io::SafetensorsFile file = io::from_safetensors_bytes(expected, "golden");
    check_same(file.tensors, tensors);
    CHECK(file.metadata == std::map<std::string, std::string>{{"format", "pt"}});
}

TEST_CASE("safetensors: every dtype round-trips bit for bit, special values included")
{
    const TempDir dir;
    const std::string path = dir.file("dtypes.safetensors");
    const Named tensors{
        // 0, -0, 1/3, inf, -inf, a NaN with a payload, the smallest subnormal, the largest value
        {"f64", from_raw<std::uint64_t>({0x0, 0x8000000000000000, 0x3FD5555555555555, 0x7FF0000000000000, 0xFFF0000000000000,
                                         0x7FF8000000000123, 0x1, 0x7FEFFFFFFFFFFFFF},
                                        {2, 4}, f64)},
        {"f32", from_raw<std::uint32_t>({0x0, 0x80000000, 0x3EAAAAAB, 0x7F800000, 0xFF800000, 0x7FC00123, 0x1, 0x7F7FFFFF}, {4, 2}, f32)},
        {"f16", from_raw<std::uint16_t>({0x0000, 0x8000, 0x3555, 0x7C00, 0xFC00, 0x7E01, 0x0001, 0x7BFF}, {8}, f16)},
        {"bf16", from_raw<std::uint16_t>({0x0000, 0x8000, 0x3EAB, 0x7F80, 0xFF80, 0x7FC1, 0x0001, 0x7F7F}, {2, 2, 2}, bf16)},
        {"i64", from_raw<std::int64_t>({std::numeric_limits<std::int64_t>::min(), -1, 0, 1, std::numeric_limits<std::int64_t>::max()}, {5}, i64)},
        {"bool", from_raw<std::uint8_t>({1, 0, 0, 1, 1, 0}, {3, 2}, boolean)},
        // FP8 keeps its codes and its dtype: 0, -0, 1, max, -max, NaN (E4M3FN has no inf), smallest subnormal
        {"f8e4m3fn", from_raw<std::uint8_t>({0x00, 0x80, 0x38, 0x7E, 0xFE, 0x7F, 0x01}, {7}, f8e4m3fn)},
        {"f8e5m2", from_raw<std::uint8_t>({0x00, 0x80, 0x3C, 0x7B, 0x7C, 0xFC, 0x7E, 0x01}, {2, 4}, f8e5m2)},
        {"e8m0", from_raw<std::uint8_t>({0x00, 0x7F, 0xFE, 0xFF}, {4}, e8m0)},
    };
    io::save_safetensors(path, tensors);
    const io::SafetensorsFile file = io::load_safetensors(path);
    check_same(file.tensors, tensors);
    CHECK(file.tensors[4].second.to_vector() == tensors[4].second.to_vector());
    const std::string header = header_text(io::read_file(path));
    for (const char* name : {R"("dtype":"F64")", R"("dtype":"F32")", R"("dtype":"F16")", R"("dtype":"BF16")", R"("dtype":"I64")",
                             R"("dtype":"BOOL")", R"("dtype":"F8_E4M3")", R"("dtype":"F8_E5M2")", R"("dtype":"F8_E8M0")"})
        CHECK(header.find(name) != std::string::npos);
}

TEST_CASE("safetensors: an f4e2m1x2 tensor is refused with a message, and nothing is written")
{
    const TempDir dir;
    const std::string path = dir.file("fp4.safetensors");
    CHECK_THROWS_WITH_AS(io::save_safetensors(path, {{"w", empty({2, 4}, f4e2m1x2)}}), doctest::Contains("dequantize it to f32"), Error);
    CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("safetensors: 0-d tensors and tensors with a size-0 dimension round-trip")
{
    const Named tensors{{"scalar_f32", scalar_tensor(-3.25, f32)}, {"empty", zeros({0}, f16)},         {"scalar_i64", scalar_tensor(42, i64)},
                        {"empty_3d", zeros({2, 0, 3}, f64)},    {"scalar_bool", scalar_tensor(1, boolean)}, {"empty_bool", zeros({0, 5}, boolean)}};
    const std::string bytes = io::to_safetensors_bytes(tensors);
    const std::string header = header_text(bytes);
    CHECK(header.find(R"("scalar_f32":{"dtype":"F32","shape":[],"data_offsets":[0,4]})") != std::string::npos);
    CHECK(header.find(R"("empty":{"dtype":"F16","shape":[0],"data_offsets":[4,4]})") != std::string::npos);
    CHECK(header.find(R"("empty_3d":{"dtype":"F64","shape":[2,0,3],"data_offsets":[12,12]})") != std::string::npos);
    const io::SafetensorsFile file = io::from_safetensors_bytes(bytes, "empty");
    check_same(file.tensors, tensors);
    CHECK(file.tensors[0].second.dim() == 0);
    CHECK(file.tensors[0].second.item() == -3.25);
    CHECK(file.tensors[2].second.item() == 42);
    CHECK(file.tensors[3].second.numel() == 0);

    // No tensors at all: the header is "{}" and six spaces.
    const std::string nothing = io::to_safetensors_bytes({});
    CHECK(nothing == std::string("\x08\0\0\0\0\0\0\0", 8) + "{}      ");
    CHECK(io::from_safetensors_bytes(nothing, "nothing").tensors.empty());
}

TEST_CASE("safetensors: non-contiguous tensors are saved as row-major data and the inputs stay as they were")
{
    const Tensor base = tensor({0, 1, 2, 3, 4, 5}, {2, 3}, f32);
    const Tensor transposed = base.t();                                      // [3, 2], strides [1, 3]
    const Tensor stepped = tensor({0, 1, 2, 3, 4, 5, 6}, {7}, f16).slice(0, 1, 7, 3);  // {1, 4}
    const Tensor expanded = tensor({7, 8}, {1, 2}, i64).expand({3, 2});      // stride 0
    REQUIRE_FALSE(transposed.is_contiguous());
    const io::SafetensorsFile file =
        io::from_safetensors_bytes(io::to_safetensors_bytes({{"t", transposed}, {"s", stepped}, {"e", expanded}}), "views");
    REQUIRE(file.tensors.size() == 3);
    CHECK(file.tensors[0].second.shape() == Shape{3, 2});
    CHECK(file.tensors[0].second.to_vector() == std::vector<double>{0, 3, 1, 4, 2, 5});
    CHECK(file.tensors[1].second.to_vector() == std::vector<double>{1, 4});
    CHECK(file.tensors[2].second.to_vector() == std::vector<double>{7, 8, 7, 8, 7, 8});
    CHECK_FALSE(transposed.is_contiguous());
    CHECK(transposed.strides() == Strides{1, 3});
}

TEST_CASE("safetensors: metadata round-trips and is left out of the header when empty")
{
    const TempDir dir;
    const std::string path = dir.file("meta.safetensors");
    const std::map<std::string, std::string> metadata{
        {"format", "pt"}, {"note", "quotes \" and \\ and a\nnewline"}, {"unicode", "f32 \u2192 bf16"}, {"empty", ""}};
    io::save_safetensors(path, {{"x", tensor({1})}}, metadata);
    CHECK(io::load_safetensors(path).metadata == metadata);
    CHECK(header_text(io::read_file(path)).rfind(R"({"__metadata__":{"empty":"",)", 0) == 0);

    io::save_safetensors(path, {{"x", tensor({1})}});
    CHECK(io::load_safetensors(path).metadata.empty());
    CHECK(header_text(io::read_file(path)).find("__metadata__") == std::string::npos);
}

TEST_CASE("safetensors: the header is padded with spaces so that the data starts at a multiple of 8")
{
    for (std::size_t length = 1; length <= 17; ++length) {
        CAPTURE(length);
        const std::string bytes = io::to_safetensors_bytes({{std::string(length, 'n'), tensor({1, 2, 3}, f64)}});
        const std::uint64_t n = header_length(bytes);
        CHECK(n % 8 == 0);
        const std::string header = header_text(bytes);
        const std::size_t json_end = header.rfind('}') + 1;
        CHECK(json_end + 8 > n);  // at most 7 spaces
        CHECK(header.substr(json_end) == std::string(n - json_end, ' '));
        CHECK(bytes.size() == 8 + n + 24);
    }
}

TEST_CASE("safetensors: tensors come back in the order of their data, and a header without padding loads")
{
    // As other writers may order the header: "b" first, though its data comes second. No padding.
    const std::string header = R"({"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
    REQUIRE(header.size() % 8 != 0);
    const io::SafetensorsFile file = io::from_safetensors_bytes(file_with(header, std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8)), "order");
    REQUIRE(file.tensors.size() == 2);
    CHECK(file.tensors[0].first == "a");
    CHECK(file.tensors[0].second.item() == 1);
    CHECK(file.tensors[1].first == "b");
    CHECK(file.tensors[1].second.item() == 2);

    // What tinyamp saves comes back in the order given, which need not be alphabetical.
    const Named saved{{"zeta", tensor({1})}, {"alpha", tensor({2})}, {"mid", zeros({0})}, {"beta", tensor({3})}};
    check_same(io::from_safetensors_bytes(io::to_safetensors_bytes(saved), "order").tensors, saved);
}

TEST_CASE("safetensors: saving refuses duplicate, empty, reserved and non-UTF-8 names and undefined tensors")
{
    const TempDir dir;
    const std::string path = dir.file("refused.safetensors");
    auto refused = [&](const Named& tensors, const std::map<std::string, std::string>& metadata = {}) {
        const std::string message = error_message([&] { io::save_safetensors(path, tensors, metadata); }, ErrorKind::value);
        CHECK_FALSE(std::filesystem::exists(path));
        return message;
    };
    CHECK(refused({{"a", tensor({1})}, {"b", tensor({2})}, {"a", tensor({3})}}) ==
          "save_safetensors: the name 'a' is given to two tensors; names must be unique");
    CHECK(refused({{"__metadata__", tensor({1})}}).find("\"__metadata__\" cannot name a tensor") != std::string::npos);
    CHECK(refused({{"", tensor({1})}}) == "save_safetensors: a tensor has an empty name; give every tensor a name");
    CHECK(refused({{"u", Tensor()}}) == "save_safetensors: tensor 'u' is undefined");
    CHECK(refused({{"bad \xff name", tensor({1})}}).find("not valid UTF-8") != std::string::npos);
    CHECK(refused({{"x", tensor({1})}}, {{"k", "bad \xc3"}}).find("not valid UTF-8") != std::string::npos);
}

TEST_CASE("safetensors: saving into a missing folder is an io error and creates nothing")
{
    const TempDir dir;
    const std::string path = dir.file("missing/out.safetensors");
    const std::string message = error_message([&] { io::save_safetensors(path, {{"x", tensor({1})}}); }, ErrorKind::io);
    CHECK(message.find("cannot write '" + path + "': No such file or directory") == 0);
    CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE("safetensors: loading a missing file is an io error naming the path")
{
    const TempDir dir;
    const std::string path = dir.file("missing.safetensors");
    CHECK(error_message([&] { io::load_safetensors(path); }, ErrorKind::io) == "cannot read '" + path + "': No such file or directory; check the path");
}

TEST_CASE("safetensors: an invalid file is refused with an io error that names the file and the problem")
{
    const std::string f32x2 = std::string(8, '\0');
    struct Case {
        std::string what;
        std::string bytes;
        std::string expected;  // a part of the message
    };
    const std::string big_length = std::string("\x00\x00\x00\x00\x00\x01\x00\x00", 8) + "{}";
    const Case cases[] = {
        {"shorter than the length field", "abc", "truncated: it has 3 bytes, fewer than the 8 of the header length"},
        {"an absurd header length", big_length, "header length of 1099511627776 bytes, more than the 100000000 allowed"},
        {"a header longer than the file", std::string("\x40\0\0\0\0\0\0\0{}", 10),
         "truncated: the header says it is 64 bytes long but only 2 bytes follow"},
        {"a header cut inside the JSON", file_with(R"({"x":)", ""), "the header is not valid JSON"},
        {"NUL padding", file_with(std::string("{}\0\0", 4), ""), "the header is not valid JSON (a NUL byte at header byte 2)"},
        {"a NUL before trailing text", file_with(std::string("{}\0x", 4), ""), "the header is not valid JSON (a NUL byte at header byte 2)"},
        {"a comment", file_with("{/* c */}", ""), "the header is not valid JSON"},
        {"invalid UTF-8", file_with("{\"\xff\":{}}", ""), "the header is not valid JSON"},
        {"an array header", file_with("[]", ""), "the header is an array, not a JSON object"},
        {"a key listed twice", file_with(R"({"x":{"dtype":"F32","shape":[],"data_offsets":[0,4]},"x":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})", "    "),
         "the header lists the key 'x' twice"},
        {"an entry that is not an object", file_with(R"({"x":[1]})", ""), R"(tensor 'x': expected {"dtype", "shape", "data_offsets"}, found an array)"},
        {"an unknown dtype", file_with(R"({"x":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})", "    "),
         "tensor 'x' has dtype \"I32\", which tinyamp does not read; it reads F64, F32, F16, BF16, I64, BOOL, F8_E4M3, F8_E5M2 and F8_E8M0"},
        {"a dtype that is a number", file_with(R"({"x":{"dtype":5,"shape":[1],"data_offsets":[0,4]}})", "    "), "tensor 'x': dtype must be a string, found 5"},
        {"a missing field", file_with(R"({"x":{"dtype":"F32","shape":[1]}})", "    "), "tensor 'x': the field 'data_offsets' is missing"},
        {"an unknown field", file_with(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":1}})", "    "), "tensor 'x': unknown field 'extra'"},
        {"a shape that is not an array", file_with(R"({"x":{"dtype":"F32","shape":2,"data_offsets":[0,8]}})", f32x2), "shape must be an array, found 2"},
        {"a negative size", file_with(R"({"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "    "),
         "shape sizes must be non-negative integers, found -1"},
        {"a fractional size", file_with(R"({"x":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", f32x2),
         "shape sizes must be non-negative integers, found 2.0"},
        {"sizes whose product overflows", file_with(R"({"x":{"dtype":"F32","shape":[4294967296,4294967296,0],"data_offsets":[0,0]}})", ""),
         "shape [4294967296,4294967296,0] is too large to exist"},
        {"a byte count that overflows", file_with(R"({"x":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,0]}})", ""),
         "shape [2305843009213693952] is too large to exist"},
        {"one offset", file_with(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[8]}})", f32x2), "data_offsets must be [begin, end], found [8]"},
        {"a negative offset", file_with(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}})", f32x2),
         "data_offsets must be non-negative integers, found -8"},
        {"offsets that run backwards", file_with(R"({"x":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", f32x2),
         "data_offsets [8,0] end before they begin"},
        {"offsets that do not match the shape", file_with(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", "    "),
         "tensor 'x' is F32 with shape [2], which is 8 bytes, but its data_offsets [0,4] hold 4"},
        {"data cut short", file_with(R"({"x":{"dtype":"F32","shape":[1024],"data_offsets":[0,4096]}})", std::string(1000, '\0')),
         "truncated: the header says 4096 bytes of tensor data but the file has 1000; the file may have been cut short — save it again"},
        {"overlapping tensors",
         file_with(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", std::string(12, '\0')),
         "the data of tensors 'a' [0, 8) and 'b' [4, 12) overlap"},
        {"a gap between tensors",
         file_with(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})", std::string(12, '\0')),
         "bytes 4 to 8 of the data belong to no tensor (a gap before 'b')"},
        {"trailing bytes", file_with(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", f32x2),
         "the file has 4 bytes after the last tensor's data, which belong to no tensor"},
        {"metadata that is not an object", file_with(R"({"__metadata__":["pt"]})", ""), "\"__metadata__\" must be an object of strings, found an array"},
        {"a metadata value that is not a string", file_with(R"({"__metadata__":{"epoch":3}})", ""), "\"__metadata__\" entry 'epoch' must be a string, found 3"},
        {"a bool byte that is not 0 or 1", file_with(R"({"m":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}})", std::string("\x01\x02\x00", 3)),
         "tensor 'm' is BOOL but byte 1 of its data is 2 (a bool is 0 or 1)"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.what);
        const std::string message = error_message([&] { io::from_safetensors_bytes(c.bytes, "bad.safetensors"); }, ErrorKind::io);
        CHECK(message.rfind("safetensors file 'bad.safetensors': ", 0) == 0);
        CHECK_MESSAGE(message.find(c.expected) != std::string::npos, message);
    }
}

TEST_CASE("safetensors: a file cut at every byte offset is refused with an io error, never a crash")
{
    const TempDir dir;
    const std::string path = dir.file("cut.safetensors");
    const std::string bytes = io::to_safetensors_bytes(small_sample(), kSampleMetadata);
    REQUIRE(bytes.size() > 300);
    REQUIRE(bytes.size() < 1000);  // keep the loop fast under the sanitizers
    std::size_t refused = 0;
    for (std::size_t k = 0; k < bytes.size(); ++k) {
        write_plain(path, bytes.substr(0, k));
        try {
            io::load_safetensors(path);
            FAIL_CHECK("a file cut to ", k, " of ", bytes.size(), " bytes was accepted");
        } catch (const Error& e) {
            if (e.kind() == ErrorKind::io && e.message().find(path) != std::string::npos)
                ++refused;
            else
                FAIL_CHECK("cut to ", k, " bytes: ", e.what());
        }
    }
    CHECK(refused == bytes.size());
    write_plain(path, bytes);  // and the whole file loads
    const io::SafetensorsFile file = io::load_safetensors(path);
    check_same(file.tensors, small_sample());
    CHECK(file.metadata == kSampleMetadata);
}

TEST_CASE("safetensors: a file with any one byte corrupted gives an io error or a valid file, never a crash or another error")
{
    const std::string bytes = io::to_safetensors_bytes(small_sample(), kSampleMetadata);
    const std::size_t header_end = 8 + header_length(bytes);
    std::size_t loaded = 0, header_ff_refused = 0, header_nul_refused = 0;
    // True when refused with an io error; anything but a tinyamp::Error of kind io fails the test.
    auto try_load = [&](const std::string& corrupt, const std::string& what) {
        try {
            const io::SafetensorsFile file = io::from_safetensors_bytes(corrupt, "corrupt");
            // What loads must be whole: it saves and loads again to the same tensors.
            check_same(io::from_safetensors_bytes(io::to_safetensors_bytes(file.tensors, file.metadata), "again").tensors, file.tensors);
            ++loaded;
            return false;
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::io) FAIL_CHECK(what, ": ", e.what());
            return e.kind() == ErrorKind::io;
        } catch (const std::exception& e) {
            FAIL_CHECK(what, ": not a tinyamp::Error: ", e.what());
            return false;
        }
    };
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        // In the header, '}', 0xFF and NUL break the JSON; in the data, they and a flipped bit change values.
        const unsigned char values[] = {'}', 0xFF, 0x00, static_cast<unsigned char>(std::uint8_t(bytes[i]) ^ 0x01)};
        for (const unsigned char value : values) {
            std::string corrupt = bytes;
            corrupt[i] = char(value);
            if (corrupt == bytes) continue;
            const bool refused = try_load(corrupt, "byte " + std::to_string(i) + " set to " + std::to_string(int(value)));
            if (refused && value == 0xFF && i >= 8 && i < header_end) ++header_ff_refused;
            if (refused && value == 0x00 && i >= 8 && i < header_end) ++header_nul_refused;
        }
    }
    for (std::size_t i = 0; i < 8; ++i)  // the length field: off by one, by 8, and far off
        for (const int delta : {1, -1, 8, -8, 0x7F}) {
            std::string corrupt = bytes;
            corrupt[i] = char(std::uint8_t(bytes[i]) + delta);
            try_load(corrupt, "length byte " + std::to_string(i) + " changed by " + std::to_string(delta));
        }
    CHECK(header_ff_refused == header_end - 8);   // 0xFF is never valid in UTF-8 JSON text,
    CHECK(header_nul_refused == header_end - 8);  // nor is a raw NUL
    CHECK(loaded > 0);                           // while data corruptions load (as other values)
}

TEST_CASE("safetensors: a crash between the temp write and the rename leaves the old file intact")
{
    const TempDir dir;
    const std::string path = dir.file("ckpt.safetensors");
    const Named old_tensors{{"w", tensor({1, 2, 3}, {3}, f32)}, {"step", scalar_tensor(1, i64)}};
    io::save_safetensors(path, old_tensors, {{"epoch", "1"}});
    const std::string old_bytes = io::read_file(path);

    const Named new_tensors{{"w", tensor({4, 5, 6, 7}, {2, 2}, bf16)}, {"step", scalar_tensor(2, i64)}};
    std::fflush(nullptr);  // the child must not flush the parent's buffered output a second time
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // the "crashing" process: dies just before it would rename
        io::testing::set_syscall_hook([](const io::testing::SyscallPoint& at) {
            if (at.call == io::testing::Syscall::rename) _exit(3);
            return 0;
        });
        try {
            io::save_safetensors(path, new_tensors, {{"epoch", "2"}});
        } catch (...) {
            _exit(4);
        }
        _exit(0);  // not reached when the hook works
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 3);

    CHECK(io::read_file(path) == old_bytes);
    const io::SafetensorsFile old_file = io::load_safetensors(path);
    check_same(old_file.tensors, old_tensors);
    CHECK(old_file.metadata.at("epoch") == "1");

    // The crashed save left its complete temp file behind (named after the child), and nothing else.
    std::vector<std::string> temps;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
        if (entry.path().filename() != "ckpt.safetensors") temps.push_back(entry.path().string());
    REQUIRE(temps.size() == 1);
    CHECK(std::filesystem::path(temps[0]).filename().string().rfind(".ckpt.safetensors.tmp-" + std::to_string(child) + "-", 0) == 0);
    CHECK(io::read_file(temps[0]) == io::to_safetensors_bytes(new_tensors, {{"epoch", "2"}}));
    std::filesystem::remove(temps[0]);

    io::save_safetensors(path, new_tensors, {{"epoch", "2"}});  // without a crash, the new file replaces the old
    const io::SafetensorsFile new_file = io::load_safetensors(path);
    check_same(new_file.tensors, new_tensors);
    CHECK(new_file.metadata.at("epoch") == "2");
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()) == 1);
}
