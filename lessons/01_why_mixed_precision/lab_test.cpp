// Lab 01's checks. Run them with:  scripts/lab check 01
#include "lessons/01_why_mixed_precision/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab01;

TEST_SUITE("lab01")
{
    TEST_CASE("lab 01.1: bytes_of counts 4 bytes per f32 and 2 per f16 or bf16")
    {
        LAB_CHECK("a 3x4 f32 tensor holds 12 numbers of 4 bytes: 48 bytes (mistake: counting elements, not bytes)",
                  bytes_of(zeros({3, 4}, f32)) == 48);
        LAB_CHECK("bf16 takes 2 bytes a number: a 3x4 bf16 tensor takes 24 bytes, half of f32 "
                  "(mistake: hard-coding 4 bytes per element)",
                  bytes_of(zeros({3, 4}, bf16)) == 24);
        LAB_CHECK("f16 takes 2 bytes a number too: 1000 of them take 2000 bytes (mistake: hard-coding 4 bytes per element)",
                  bytes_of(zeros({1000}, f16)) == 2000);
        LAB_CHECK("a tensor with no elements takes no bytes",
                  bytes_of(zeros({2, 0}, f32)) == 0);
    }

    TEST_CASE("lab 01.2: parameter_bytes halves when the model goes to bf16")
    {
        nn::Linear layer(4, 3);  // 12 weights + 3 biases
        LAB_CHECK("Linear(4, 3) has 15 f32 parameters of 4 bytes each: 60 bytes",
                  parameter_bytes(layer) == 60);
        layer.to(bf16);
        LAB_CHECK("after to(bf16) the 15 parameters take 2 bytes each: 30 bytes (mistake: assuming the parameters are f32)",
                  parameter_bytes(layer) == 30);
        nn::Linear no_bias(4, 3, false);
        LAB_CHECK("without a bias only the 12 f32 weights count: 48 bytes",
                  parameter_bytes(no_bias) == 48);
    }

    TEST_CASE("lab 01.3: bytes_allocated_by reads the allocator's counters")
    {
        LAB_CHECK("256 f32 numbers kept alive hold 1024 bytes of f32 "
                  "(mistake: letting the result die before the second reading)",
                  bytes_allocated_by([] { return zeros({256}, f32); }, f32) == 1024);
        LAB_CHECK("an f32 tensor holds no bf16 bytes: count only the dtype asked for "
                  "(mistake: reading the live bytes of every dtype)",
                  bytes_allocated_by([] { return zeros({256}, f32); }, bf16) == 0);
        LAB_CHECK("zeros(f32).to(bf16) leaves only its bf16 result alive: 256 x 2 = 512 bytes of bf16",
                  bytes_allocated_by([] { return zeros({256}, f32).to(bf16); }, bf16) == 512);
        LAB_CHECK("256 bf16 numbers hold 512 bytes of bf16",
                  bytes_allocated_by([] { return zeros({256}, bf16); }, bf16) == 512);
    }
}
