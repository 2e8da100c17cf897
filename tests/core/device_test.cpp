#include <doctest/doctest.h>

#include <set>
#include <sstream>
#include <string>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

TEST_CASE("Device: cpu and cuda:N, their names and equality")
{
    static_assert(Device::cpu().is_cpu() && !Device::cpu().is_cuda());  // usable at compile time
    static_assert(Device::cuda(2).index() == 2);

    CHECK(Device::cpu().type() == DeviceType::cpu);
    CHECK(Device::cpu().index() == 0);
    CHECK(Device::cuda().type() == DeviceType::cuda);
    CHECK(Device::cuda().index() == 0);
    CHECK(Device::cuda(3).is_cuda());

    CHECK(Device::cpu().str() == "cpu");
    CHECK(Device::cuda().str() == "cuda:0");
    CHECK(Device::cuda(3).str() == "cuda:3");
    std::ostringstream out;
    out << Device::cuda(1) << ' ' << Device::cpu();
    CHECK(out.str() == "cuda:1 cpu");

    CHECK(std::string(device_type_name(DeviceType::cpu)) == "cpu");
    CHECK(std::string(device_type_name(DeviceType::cuda)) == "cuda");

    CHECK(Device::cuda(0) == Device::cuda());
    CHECK(Device::cuda(0) != Device::cuda(1));
    CHECK(Device::cpu() != Device::cuda(0));
}

TEST_CASE("Device::parse reads \"cpu\", \"cuda\" and \"cuda:N\"")
{
    CHECK(Device::parse("cpu") == Device::cpu());
    CHECK(Device::parse("cuda") == Device::cuda(0));
    CHECK(Device::parse("cuda:0") == Device::cuda(0));
    CHECK(Device::parse("cuda:2") == Device::cuda(2));
    CHECK(Device::parse("cuda:15").index() == 15);
    CHECK(Device::parse("cuda:999").index() == 999);
    // str() reads back
    CHECK(Device::parse(Device::cuda(7).str()) == Device::cuda(7));
    CHECK(Device::parse(Device::cpu().str()) == Device::cpu());
}

TEST_CASE("Device::parse rejects anything else with a device error that says what to write")
{
    CHECK_THROWS_WITH_AS(Device::parse("gpu"),
                         "device error: unknown device 'gpu'; write \"cpu\", \"cuda\" or \"cuda:N\"", Error);
    for (const char* bad : {"", "CPU", "Cuda", " cpu", "cpu ", "cuda:", "cuda:x", "cuda:-1", "cuda:+1", "cuda:1 ",
                            "cuda0", "cuda:1:2", "cpu:0", "cuda:1000", "cuda:99999999999"}) {
        const std::string text = bad;
        CAPTURE(text);
        try {
            Device::parse(text);
            FAIL("no error for '", text, "'");
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::device);
            CHECK(e.message() == "unknown device '" + text + "'; write \"cpu\", \"cuda\" or \"cuda:N\"");
        }
    }
}

TEST_CASE("cpu_features_str lists known features, or says portable")
{
    const std::string features = cpu_features_str();
    CAPTURE(features);
    REQUIRE(!features.empty());
    const std::set<std::string> known = {"f16c", "avx2", "fma", "avx512f", "avx512bf16", "amx"};
    std::istringstream words(features);
    std::string word;
    int count = 0;
    while (words >> word) {
        CAPTURE(word);
        ++count;
        if (word == "portable") {
            CHECK(features == "portable");  // "portable" only ever stands alone
        } else {
            CHECK(known.count(word) == 1);
        }
    }
    CHECK(count >= 1);
    CHECK(features.front() != ' ');
    CHECK(features.back() != ' ');
    CHECK(features.find("  ") == std::string::npos);
    CHECK(cpu_features_str() == features);  // read once, stable
}

TEST_CASE("CUDA availability is reported consistently, and without a device CUDA use fails clearly")
{
    const int count = cuda_device_count();
    CHECK(count >= 0);
    CHECK(cuda_unavailable_reason().empty() == (count > 0));
    if (!cuda_built()) {
        // The build these tests normally run in: no CUDA backend at all.
        CHECK(count == 0);
        CHECK(cuda_unavailable_reason() ==
              "tinyamp was built without its CUDA backend (nvcc was not found when CMake configured the build)");
        CHECK_THROWS_WITH_AS(zeros({2}, f32, Device::cuda(0)),
                             "device error: cannot allocate on cuda:0: tinyamp was built without its CUDA backend (nvcc was not "
                             "found when CMake configured the build); install the CUDA toolkit and reconfigure, or use Device::cpu()",
                             Error);
    }
    if (count == 0) {
        // With the backend but no GPU the message differs (it quotes the driver); the kind does not.
        try {
            (void)ones({3}).cuda();
            FAIL("cuda() worked without a CUDA device");
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::device);
        }
        // The cache of freed GPU blocks is empty, and emptying it is harmless.
        CHECK(cuda_cached_bytes() == 0);
        CHECK_NOTHROW(cuda_empty_cache());
    }
}
