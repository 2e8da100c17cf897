// Writes a safetensors file with known values in every dtype, and a JSON file of those values,
// for read_safetensors_with_numpy.py to check that NumPy reads the same numbers.
//
//     write_safetensors_sample OUT.safetensors EXPECTED.json
//
// EXPECTED.json: {"metadata": {...}, "tensors": [{"name", "dtype", "shape", "values"}, ...]} in
// file order; values are row-major, JSON numbers except "nan", "inf" and "-inf" (JSON has none).
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;
using json = nlohmann::ordered_json;

namespace {

json value_to_json(double v)
{
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

// The format's names for tinyamp's dtypes.
const char* file_dtype(DType dtype)
{
    switch (dtype) {
    case DType::f64: return "F64";
    case DType::f32: return "F32";
    case DType::f16: return "F16";
    case DType::bf16: return "BF16";
    case DType::i64: return "I64";
    case DType::boolean: return "BOOL";
    case DType::f8e4m3fn: return "F8_E4M3";
    case DType::f8e5m2: return "F8_E5M2";
    case DType::e8m0: return "F8_E8M0";
    case DType::f4e2m1x2: return "?";  // the sample holds none
    }
    return "?";
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s OUT.safetensors EXPECTED.json\n", argv[0]);
        return 2;
    }
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    // tensor() rounds each value to the dtype; the expected values are what was stored.
    const std::vector<std::pair<std::string, Tensor>> tensors{
        {"f64", tensor({0.1, -0.0, 1e300, 5e-324, inf, -inf, nan, -2.5}, {2, 4}, f64)},
        {"f32", tensor({1.0 / 3, -0.0, 3.4028234663852886e38, 1e-45, -inf, nan}, {6}, f32)},
        {"f16", tensor({1, 0.1, 65504, 6e-8, -inf, nan}, {2, 3}, f16)},
        {"bf16", tensor({1, 0.1, 3e38, 1e-40, -0.0, nan}, {3, 2}, bf16)},
        {"i64", tensor({0, 0, 0, 0}, {4}, i64)},  // filled below: doubles cannot hold these exactly
        {"bool", tensor({1, 0, 0, 1}, {2, 2}, boolean)},
        {"scalar", scalar_tensor(2.5, f32)},
        {"empty", zeros({0, 3}, f16)},
    };
    const std::int64_t ints[] = {std::numeric_limits<std::int64_t>::min(), -1, 0, std::numeric_limits<std::int64_t>::max()};
    std::memcpy(tensors[4].second.data_ptr(), ints, sizeof ints);
    const std::map<std::string, std::string> metadata{{"format", "pt"}, {"note", "written by tinyamp \u2192 read by NumPy"}};

    json expected = {{"metadata", metadata}, {"tensors", json::array()}};
    for (const auto& [name, t] : tensors) {
        json values = json::array();
        if (t.dtype() == i64) {
            for (std::int64_t i = 0; i < t.numel(); ++i) values.push_back(t.data_ptr<std::int64_t>()[i]);
        } else if (t.dtype() == boolean) {
            for (double v : t.to_vector()) values.push_back(v != 0);
        } else {
            for (double v : t.to_vector()) values.push_back(value_to_json(v));
        }
        expected["tensors"].push_back({{"name", name}, {"dtype", file_dtype(t.dtype())}, {"shape", t.shape()}, {"values", values}});
    }
    try {
        io::save_safetensors(argv[1], tensors, metadata);
        io::write_file_atomically(argv[2], expected.dump(1) + "\n");
    } catch (const Error& e) {
        std::fprintf(stderr, "write_safetensors_sample: %s\n", e.what());
        return 1;
    }
    std::printf("wrote %s and %s\n", argv[1], argv[2]);
    return 0;
}
