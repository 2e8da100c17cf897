// Lab 1's checks. Run them with:  build/lessons/lab_01
#include <doctest/doctest.h>

#include "lessons/01_why_mixed_precision/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab01;

TEST_SUITE("lab01")
{
    TEST_CASE("lab 01.1: bytes_of counts 4 bytes per f32 and 2 per f16 or bf16")
    {
        CHECK(bytes_of(zeros({3, 4}, f32)) == 48);
        CHECK(bytes_of(zeros({3, 4}, bf16)) == 24);
        CHECK(bytes_of(zeros({1000}, f16)) == 2000);
        CHECK(bytes_of(zeros({2, 0}, f32)) == 0);
    }

    TEST_CASE("lab 01.2: parameter_bytes halves when the model goes to bf16")
    {
        nn::Linear layer(4, 3);                   // 12 weights + 3 biases
        CHECK(parameter_bytes(layer) == 60);      // 15 x 4 bytes
        layer.to(bf16);
        CHECK(parameter_bytes(layer) == 30);      // 15 x 2 bytes
        nn::Linear no_bias(4, 3, false);
        CHECK(parameter_bytes(no_bias) == 48);
    }

    TEST_CASE("lab 01.3: bytes_allocated_by reads the allocator's counters")
    {
        CHECK(bytes_allocated_by([] { return zeros({256}, f32); }, f32) == 1024);
        CHECK(bytes_allocated_by([] { return zeros({256}, f32); }, bf16) == 0);
        CHECK(bytes_allocated_by([] { return zeros({256}, f32).to(bf16); }, bf16) == 512);
        CHECK(bytes_allocated_by([] { return zeros({256}, bf16); }, bf16) == 512);
    }
}
