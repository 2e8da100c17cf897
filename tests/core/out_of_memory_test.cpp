// Out of memory is an Error that says how much was asked for, never a crash (std::bad_alloc,
// a wrapped-around size, a sanitizer abort), and nothing is left counted or half-made.
// The sizes here are far beyond any machine (terabytes and more): tinyamp refuses a request larger
// than the machine's memory before asking the allocator, so the result is the same whatever the
// OS's overcommit setting, and under the sanitizers too.
#include <doctest/doctest.h>

#include <functional>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using test::error_message;

namespace {
constexpr std::int64_t kTera = std::int64_t(1) << 40;

// An op whose forward needs a buffer that does not fit (as std::vector or new report it).
struct BufferHungry : Function<BufferHungry> {
    static constexpr const char* name = "buffer_hungry";
    static Tensor forward(Context&, const Tensor&) { throw std::bad_alloc(); }
    static std::vector<Tensor> backward(Context&, const Tensor& grad) { return {grad}; }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("readable_bytes: bytes, then two decimals in powers of 1024")
{
    CHECK(readable_bytes(0) == "0 B");
    CHECK(readable_bytes(1023) == "1023 B");
    CHECK(readable_bytes(1536) == "1.50 KiB");
    CHECK(readable_bytes(std::int64_t(24) << 30) == "24.00 GiB");
    CHECK(readable_bytes(4 * kTera) == "4.00 TiB");
}

TEST_CASE("every factory asked for terabytes: a value Error naming the size, and the memory counters unchanged")
{
    const std::int64_t live_before = memory_stats().total.live_bytes;
    const std::vector<std::pair<const char*, std::function<void()>>> factories = {
        {"empty", [] { empty({kTera}, f32); }},
        {"zeros", [] { zeros({kTera}, f32); }},
        {"ones", [] { ones({kTera, 1}, bf16); }},
        {"full", [] { full({kTera / 2, 2}, 3.0, f64); }},
        {"rand", [] { rand({kTera}, f32); }},
        {"randn", [] { randn({kTera}, f16); }},
        {"arange", [] { arange(kTera / 2, i64); }},
    };
    for (const auto& [name, make] : factories) {
        CAPTURE(name);
        const std::string message = error_message(make, ErrorKind::value);
        CHECK(contains(message, "out of CPU memory: cannot allocate "));
        CHECK(contains(message, " TiB"));
        CHECK(contains(message, "use smaller tensors or batches"));
    }
    CHECK(memory_stats().total.live_bytes == live_before);
    CHECK(sum(zeros({2, 3})).item() == 0.0);  // and the next allocation works
}

TEST_CASE("the message says what was asked for and what the machine has")
{
    const std::string message = error_message([] { empty({4 * kTera / 4}, f32); }, ErrorKind::value);
    CHECK(message.rfind("out of CPU memory: cannot allocate 4.00 TiB (4398046511104 bytes) for f32 elements; this machine has ", 0) == 0);
    CHECK(contains(message, " of memory (RAM and swap) in all; use smaller tensors or batches"));
    CHECK(contains(message, readable_bytes(machine_memory_bytes())));
    CHECK(machine_memory_bytes() > (std::int64_t(1) << 26));  // the machine's memory was read
}

TEST_CASE("a shape whose element or byte count does not fit in 64 bits is a shape Error, not a wrapped-around size")
{
    const std::int64_t big = std::int64_t(1) << 32;
    CHECK(contains(error_message([&] { empty({big, big}, f32); }, ErrorKind::shape),
                   "shape [4294967296, 4294967296] has more elements than a 64-bit count can hold"));
    CHECK(contains(error_message([&] { zeros({std::int64_t(1) << 62}, f64); }, ErrorKind::shape),
                   "a f64 tensor of shape [4611686018427387904] would take more bytes than a 64-bit count can hold"));
    // A size of 0 makes an empty tensor, however large the other sizes.
    CHECK(empty({big, big, 0}, f32).numel() == 0);
    CHECK(zeros({0, big, big}).numel() == 0);
}

TEST_CASE("an op whose output would need terabytes: a value Error, and the inputs and their autograd graph usable after it")
{
    const Tensor column = ones({1, 1}).requires_grad_().expand({std::int64_t(1) << 21, 1});
    const Tensor row = ones({1, 1}).expand({1, std::int64_t(1) << 21});
    const std::int64_t live_before = memory_stats().total.live_bytes;
    // [2^21, 1] x [1, 2^21] in f32: 16 TiB.
    const std::string message = error_message([&] { matmul(column, row); }, ErrorKind::value);
    CHECK(contains(message, "out of CPU memory: cannot allocate 16.00 TiB"));
    CHECK(memory_stats().total.live_bytes == live_before);
    // Nothing was left half-made: a small op on the same inputs still runs forward and backward.
    const Tensor small = sum(column.narrow(0, 0, 3));
    small.backward();
    CHECK(small.item() == 3.0);
}

TEST_CASE("std::bad_alloc inside an op is a value Error naming the op, not an exception of another type")
{
    const Tensor x = ones({2}).requires_grad_();
    CHECK(error_message([&] { BufferHungry::apply(x); }, ErrorKind::value) ==
          "out of CPU memory while running buffer_hungry: a buffer it needs did not fit in memory; use smaller tensors or batches");
}
