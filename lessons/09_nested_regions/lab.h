#pragma once
// Lab 09: nested autocast regions. Write these in lab.cpp; check them with:  scripts/lab check 09
#include <tinyamp/tinyamp.h>

namespace tinyamp::lab09 {

/// a @ b computed in f32, whatever region it is called in: open an `enabled = false` sub-region
/// and cast both inputs to f32 inside it. Returns an f32 tensor; the caller's autocast state is
/// the same after the call as before it.
Tensor matmul_in_f32(const Tensor& a, const Tensor& b);

/// One attention head, softmax(q k^T / sqrt(d)) v with d = q.size(1), meant to be called inside an
/// f16 autocast region: the scores and the softmax in an f32 island, then probs @ v back in the
/// region (so it runs in the region's dtype). No inf or NaN where the f32 result has none.
Tensor safe_attention(const Tensor& q, const Tensor& k, const Tensor& v);

/// The dtype matmul(f32, f32) gives at each point of this nesting, and whether autocast is on:
///
///   before            <- no region yet
///   autocast("cpu", {.dtype = f16}) {
///       outer         <- in the region
///       autocast("cpu", {.enabled = false}) { disabled }
///       autocast("cpu") { inherited }      <- a nested region given no dtype
///       after_inner   <- back in the outer region
///   }
///   after_outer       <- after it
struct NestingReport {
    DType before = DType::f64, outer = DType::f64, disabled = DType::f64, inherited = DType::f64, after_inner = DType::f64,
          after_outer = DType::f64;
    bool enabled_in_disabled = true;  ///< amp::is_autocast_enabled(cpu) inside the disabled sub-region
};
NestingReport report_nesting();

}  // namespace tinyamp::lab09
