// Lab 09's checks. Run them with:  scripts/lab check 09
#include <cmath>
#include <vector>

#include "lessons/09_nested_regions/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab09;
using tinyamp::lesson::approx;

TEST_SUITE("lab09")
{
    TEST_CASE("lab 09.1: matmul_in_f32 runs in f32 inside an f16 region and restores it")
    {
        amp::autocast region("cpu", {.dtype = f16});
        const Tensor a = full({1, 2}, 300.0, f16), b = full({2, 1}, 300.0, f16);
        LAB_CHECK("in the f16 region matmul runs in f16", matmul(a, b).dtype() == f16);
        {
            const double in_f16 = matmul(a, b).item();
            CAPTURE(in_f16);
            LAB_CHECK("in f16, 2 * 300 * 300 = 180000 is above 65504: inf", std::isinf(in_f16));
        }
        const Tensor c = matmul_in_f32(a, b);
        LAB_CHECK("matmul_in_f32 returns f32: with autocast off, ops run in their inputs' dtypes, and a and b are f16 "
                  "(mistake: forgetting to cast the inputs to f32); with autocast on, matmul casts f32 inputs back to f16 "
                  "(mistake: casting to f32 but leaving autocast on)",
                  c.dtype() == f32);
        LAB_CHECK("in f32, 2 * 300 * 300 = 180000 is exact, not inf (mistake: forgetting to cast the inputs to f32) "
                  "(mistake: casting to f32 but leaving autocast on)",
                  c.item() == 180000.0);
        LAB_CHECK("the caller's region is back after the call: autocast is on",
                  amp::is_autocast_enabled(DeviceType::cpu) == true);
        LAB_CHECK("the caller's region is back after the call: its dtype is f16",
                  amp::get_autocast_dtype(DeviceType::cpu) == f16);
        LAB_CHECK("the caller's region is back after the call: matmul(f32, f32) is f16 again",
                  matmul(ones({2, 2}), ones({2, 2})).dtype() == f16);
    }

    TEST_CASE("lab 09.2: safe_attention gives no NaN where f16 scores overflow")
    {
        // Every score is 64 * 40 * 40 = 102400 (inf in f16), so every row attends evenly to the 4 tokens.
        const Tensor q = full({4, 64}, 40.0);
        const Tensor v = tensor({1, 10, 2, 20, 3, 30, 4, 40}, {4, 2});
        amp::autocast region("cpu", {.dtype = f16});
        const Tensor naive = matmul(softmax(mul(matmul(q, q.t()), 0.125), -1), v);
        {
            const double naive_value = naive.at({0, 0});
            CAPTURE(naive_value);
            LAB_CHECK("without the island the f16 scores are inf, and softmax's inf - inf makes NaN", std::isnan(naive_value));
        }
        const Tensor out = safe_attention(q, q, v);
        LAB_CHECK("probs @ v runs back in the region, in f16: leave the f32 island before it (mistake: computing "
                  "probs @ v inside the f32 island)",
                  out.dtype() == f16);
        LAB_CHECK("every score is equal, so row 0 is the mean of v's first column: (1 + 2 + 3 + 4) / 4",
                  out.at({0, 0}) == 2.5);
        LAB_CHECK("every score is equal, so row 3 is the mean of v's second column: (10 + 20 + 30 + 40) / 4",
                  out.at({3, 1}) == 25.0);
        LAB_CHECK("the island leaves no NaN in the output", trace::compute_stats(out).nans == 0.0);
    }

    TEST_CASE("lab 09.2: safe_attention computes softmax(q k^T / sqrt(d)) v")
    {
        // Scores that differ, d = 4: the reference is computed in f64 without autocast.
        const Tensor q = tensor({2, 0, 1, 0, 0, 2, 0, 1, 1, 1, 1, 1}, {3, 4});
        const Tensor k = tensor({1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 1}, {3, 4});
        const Tensor v = tensor({1, 10, 2, 20, 3, 30}, {3, 2});
        const Tensor q64 = q.to(f64), k64 = k.to(f64), v64 = v.to(f64);
        const std::vector<double> want = matmul(softmax(mul(matmul(q64, k64.t()), 0.5), -1), v64).to_vector();
        amp::autocast region("cpu", {.dtype = f16});
        const Tensor out = safe_attention(q, k, v);
        LAB_CHECK("softmax over the last dim of the scores q k^T scaled by 1/sqrt(d) = 1/2, then @ v, within f16's rounding "
                  "(mistake: scaling the scores by 1/d instead of 1/sqrt(d))",
                  out.to(f64).to_vector() == approx(want, 5e-3));
    }

    TEST_CASE("lab 09.3: report_nesting sees each region's state")
    {
        const NestingReport r = report_nesting();
        LAB_CHECK("before any region matmul(f32, f32) stays f32", r.before == f32);
        LAB_CHECK("in the f16 region matmul(f32, f32) runs in f16", r.outer == f16);
        LAB_CHECK("in the enabled = false sub-region ops run in their inputs' dtype: f32", r.disabled == f32);
        LAB_CHECK("autocast is off inside the disabled sub-region; read it there, before the sub-region ends",
                  r.enabled_in_disabled == false);
        LAB_CHECK("a nested region given no dtype inherits f16 from the enclosing region, not the CPU default bf16 "
                  "(mistake: opening the nested region after the f16 one closed)",
                  r.inherited == f16);
        LAB_CHECK("leaving a nested region restores the outer one: f16 again", r.after_inner == f16);
        LAB_CHECK("after the outer region matmul(f32, f32) is f32 again", r.after_outer == f32);
        LAB_CHECK("report_nesting leaves autocast off, as it found it", amp::is_autocast_enabled(DeviceType::cpu) == false);
    }
}
