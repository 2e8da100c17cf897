// Lab 9's checks. Run them with:  build/lessons/lab_09
#include <doctest/doctest.h>

#include <cmath>

#include "lessons/09_nested_regions/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab09;

TEST_SUITE("lab09")
{
    TEST_CASE("lab 09.1: matmul_in_f32 runs in f32 inside an f16 region and restores it")
    {
        amp::autocast region("cpu", {.dtype = f16});
        const Tensor a = full({1, 2}, 300.0, f16), b = full({2, 1}, 300.0, f16);
        CHECK(matmul(a, b).dtype() == f16);
        CHECK(std::isinf(matmul(a, b).item()));        // 2 * 300 * 300 = 180000 > 65504
        const Tensor c = matmul_in_f32(a, b);
        CHECK(c.dtype() == f32);
        CHECK(c.item() == 180000.0);
        CHECK(amp::is_autocast_enabled(DeviceType::cpu));       // the caller's region is back
        CHECK(amp::get_autocast_dtype(DeviceType::cpu) == f16);
        CHECK(matmul(ones({2, 2}), ones({2, 2})).dtype() == f16);
    }

    TEST_CASE("lab 09.2: safe_attention gives no NaN where f16 scores overflow")
    {
        // Every score is 64 * 40 * 40 = 102400 (inf in f16), so every row attends evenly to the 4 tokens.
        const Tensor q = full({4, 64}, 40.0);
        const Tensor v = tensor({1, 10, 2, 20, 3, 30, 4, 40}, {4, 2});
        amp::autocast region("cpu", {.dtype = f16});
        const Tensor naive = matmul(softmax(mul(matmul(q, q.t()), 0.125), -1), v);
        CHECK(std::isnan(naive.at({0, 0})));           // what happens without the island
        const Tensor out = safe_attention(q, q, v);
        CHECK(out.dtype() == f16);                     // probs @ v ran in the region's f16
        CHECK(out.at({0, 0}) == 2.5);                  // (1 + 2 + 3 + 4) / 4
        CHECK(out.at({3, 1}) == 25.0);                 // (10 + 20 + 30 + 40) / 4
        CHECK(trace::compute_stats(out).nans == 0.0);
    }

    TEST_CASE("lab 09.3: report_nesting sees each region's state")
    {
        const NestingReport r = report_nesting();
        CHECK(r.before == f32);
        CHECK(r.outer == f16);
        CHECK(r.disabled == f32);
        CHECK(r.enabled_in_disabled == false);
        CHECK(r.inherited == f16);                     // not bf16, the CPU default: it inherits
        CHECK(r.after_inner == f16);
        CHECK(r.after_outer == f32);
        CHECK(amp::is_autocast_enabled(DeviceType::cpu) == false);
    }
}
