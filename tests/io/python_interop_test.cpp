// Files written by Python's own libraries load in tinyamp with the values Python put in them:
// tests/io/data/ holds a safetensors file from safetensors.numpy (every dtype, bf16 through
// ml-dtypes, with inf, NaN, -0 and subnormals) and the weights of the README's PyTorch twin model
// from safetensors.torch, with the logits PyTorch computed. tools/interop/write_with_python.py
// wrote them; no Python is needed to run this test.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;
using json = nlohmann::json;

namespace {

const std::string kData = TINYAMP_INTEROP_DATA;

json read_json(const std::string& path)
{
    std::ifstream in(path);
    REQUIRE_MESSAGE(in.good(), "cannot open ", path);
    return json::parse(in);
}

double json_value(const json& v)
{
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        if (s == "nan") return std::nan("");
        return s == "inf" ? INFINITY : -INFINITY;
    }
    if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
    return v.get<double>();
}

// Equal as numbers, with -0 told from +0 and NaN equal to NaN.
bool same(double got, double want)
{
    if (std::isnan(want)) return std::isnan(got);
    return got == want && std::signbit(got) == std::signbit(want);
}

}  // namespace

TEST_CASE("a safetensors file written by safetensors.numpy loads with every dtype, shape, value and the metadata")
{
    const io::SafetensorsFile file = io::load_safetensors(kData + "/numpy_written.safetensors");
    const json expected = read_json(kData + "/numpy_written.json");
    CHECK(file.metadata == expected["metadata"].get<std::map<std::string, std::string>>());
    REQUIRE(file.tensors.size() == expected["tensors"].size());
    int values = 0;
    for (const auto& [name, t] : file.tensors) {
        CAPTURE(name);
        REQUIRE(expected["tensors"].contains(name));
        const json& want = expected["tensors"][name];
        CHECK(dtype_name(t.dtype()) == want["dtype"].get<std::string>());
        CHECK(Shape(want["shape"].get<std::vector<std::int64_t>>()) == t.shape());
        if (t.dtype() == i64) {  // beyond 2^53: compare the integers themselves, not doubles
            const std::vector<std::int64_t> want_ints = want["values"].get<std::vector<std::int64_t>>();
            REQUIRE(std::int64_t(want_ints.size()) == t.numel());
            for (std::size_t i = 0; i < want_ints.size(); ++i) CHECK(t.data_ptr<std::int64_t>()[i] == want_ints[i]);
            values += int(want_ints.size());
            continue;
        }
        const std::vector<double> got = t.to_vector();
        REQUIRE(got.size() == want["values"].size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            CAPTURE(i);
            CHECK(same(got[i], json_value(want["values"][i])));
        }
        values += int(got.size());
    }
    CHECK(values == 12 + 12 + 12 + 12 + 6 + 5 + 1 + 0);
}

TEST_CASE("the PyTorch twin's weights, written by safetensors.torch, load into tinyamp's model and give PyTorch's logits")
{
    nn::Sequential model({std::make_shared<nn::Linear>(64, 128), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(128, 10)});
    io::TrainingState state{.model = &model};
    io::load_checkpoint(kData + "/torch_twin.safetensors", state);
    CHECK(state.epoch == 0);

    const json expected = read_json(kData + "/torch_twin.json");
    const Tensor inputs = tensor(expected["inputs"].get<std::vector<double>>(), Shape(expected["input_shape"].get<std::vector<std::int64_t>>()));
    const std::vector<double> want = expected["logits"].get<std::vector<double>>();
    const std::vector<double> got = model(inputs).to_vector();
    REQUIRE(got.size() == want.size());
    // The same f32 products summed in another order (tinyamp's GEMM blocks, PyTorch's oneDNN/MKL):
    // a few units in the last place of the sums, which are of order 1 here.
    for (std::size_t i = 0; i < got.size(); ++i) {
        CAPTURE(i);
        CHECK(std::abs(got[i] - want[i]) <= 1e-5 * std::max(1.0, std::abs(want[i])));
    }
}

TEST_CASE("FP8 tensors PyTorch cast and saved (F8_E4M3, F8_E5M2, F8_E8M0) load with its codes, and tinyamp's to() makes the same codes")
{
    const io::SafetensorsFile file = io::load_safetensors(kData + "/torch_fp8.safetensors");
    const json expected = read_json(kData + "/torch_fp8.json");
    const std::pair<const char*, DType> names[] = {{"e4m3", f8e4m3fn}, {"e5m2", f8e5m2}, {"e8m0", e8m0}};
    REQUIRE(file.tensors.size() == 3);
    for (const auto& [name, dtype] : names) {
        CAPTURE(name);
        const json& want = expected["tensors"][name];
        const Tensor* loaded = nullptr;
        for (const auto& [n, t] : file.tensors)
            if (n == name) loaded = &t;
        REQUIRE(loaded != nullptr);
        CHECK(loaded->dtype() == dtype);
        const auto* codes = static_cast<const std::uint8_t*>(loaded->data_ptr());
        std::vector<double> inputs;
        for (const json& v : want["inputs"]) inputs.push_back(json_value(v));
        const Tensor mine = tensor(inputs, {std::int64_t(inputs.size())}, f32).to(dtype);  // PyTorch 2.15's x.to(dtype), in tinyamp
        const auto* my_codes = static_cast<const std::uint8_t*>(mine.data_ptr());
        const std::vector<double> values = loaded->to(f32).to_vector();
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            CAPTURE(inputs[i]);
            CHECK(int(codes[i]) == want["codes"][i].get<int>());
            CHECK(int(my_codes[i]) == want["codes"][i].get<int>());
            CHECK(same(values[i], json_value(want["values"][i])));
        }
    }
}
