#pragma once
// The fixed cost of an op: on tiny tensors the arithmetic is nothing, so what is timed is the road
// every op takes (dispatch: autocast layer, autograd layer, kernel call, allocation), with autocast
// off and on. A framework whose per-op cost is high is slow on small models whatever its GEMM.

#include <array>
#include <string>

namespace tinyamp::bench {

enum class DispatchCase {
    add_4x4,           ///< add(a, b), a and b [4, 4] f32, no grad: the cheapest op
    linear_forward,    ///< nn::Linear(8, 8) forward on x [4, 8]: weight and bias require grad, so a Node is recorded
    forward_backward,  ///< zero_grad, sum(relu(Linear(8, 8)(x))), backward: one small training step without the optimizer
};

inline constexpr std::array<DispatchCase, 3> kDispatchCases{DispatchCase::add_4x4, DispatchCase::linear_forward,
                                                             DispatchCase::forward_backward};

/// What the summary prints for the case, e.g. "Linear(8,8) forward, x [4,8]".
const char* dispatch_case_label(DispatchCase c);
/// How the autocast variant enters its region (once around the loop, or once per step).
const char* dispatch_autocast_note(DispatchCase c);
/// "dispatch/linear_forward/autocast" or ".../plain".
std::string dispatch_bench_name(DispatchCase c, bool autocast);

void register_dispatch_benchmarks();

}  // namespace tinyamp::bench
