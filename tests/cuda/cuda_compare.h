#pragma once
// What every CUDA test does: run an op on the GPU and on the CPU with the same inputs, and hold
// the GPU result to the CPU one within a tolerance from the dtype's eps (tests/support/tolerance.h).
// Both results round from f32 (f64) intermediates that may differ in their last bits (another
// summation order, FMA), so they can sit one ulp of the dtype apart: 2 ulps is the default.

#include <doctest/doctest.h>

#include <cstdint>
#include <iostream>

#include <tinyamp/tinyamp.h>

#include "../support/expect_error.h"
#include "../support/tolerance.h"

/// CHECKs that `expr` throws a tinyamp::Error of `kind` whose message contains `text`.
#define CHECK_ERROR_MENTIONS(expr, kind, text)                                                                       \
    CHECK_MESSAGE(::tinyamp::test::error_message([&] { (void)(expr); }, ::tinyamp::ErrorKind::kind).find(text) != std::string::npos, \
                  "expected the message to mention: " << (text))

namespace tinyamp::test {

/// A seed printed once per test case, so that a failure can be replayed.
inline std::uint64_t cuda_test_seed(std::uint64_t seed)
{
    MESSAGE("seed " << seed);
    return seed;
}

/// `gpu` (a CUDA tensor) against `cpu` (a CPU tensor): same shape and dtype, values close.
inline void check_gpu_matches_cpu(const Tensor& gpu, const Tensor& cpu, double ulps = 2.0, double scale = -1.0)
{
    REQUIRE(gpu.device().is_cuda());
    REQUIRE(cpu.device().is_cpu());
    CHECK(gpu.dtype() == cpu.dtype());
    const DType dtype = is_floating_point(cpu.dtype()) ? cpu.dtype() : DType::f64;
    check_close(gpu.cpu().to(DType::f64), cpu.to(DType::f64), dtype, ulps, scale);
}

/// Random values of `dtype` on the CPU (rounded into it), from a seeded generator.
inline Tensor random_cpu(const Shape& shape, DType dtype, Generator& gen) { return randn(shape, DType::f32, gen).to(dtype); }

}  // namespace tinyamp::test
