#pragma once
// One optimizer step on the CPU: the rule of kernels/optimizer_rules.h applied to every element of
// a parameter, its gradient and its state, in place (the GPU's twin: kernels/cuda/optimizer_step_cuda.h).
//
// Why a kernel of its own: the rules fuse PyTorch's multiply-adds with std::fma. Compiled for the
// baseline x86-64 that every tinyamp build targets (no FMA instructions), each std::fma is a call
// to libm's fmaf, one element at a time: SGD was 18 % of a digits MLP epoch, on a Zen 4 and on a
// Xeon alike. Where the CPU has AVX2 and FMA, the same loop compiled for them (a target
// attribute, chosen at run time) turns each std::fma into a vfmadd over 8 floats. fma rounds once
// either way, so both give the same bits; the plain loop stays as reference:: and a test holds
// them equal.

#include <cstdint>

#include "kernels/optimizer_rules.h"

namespace tinyamp::kernels::cpu {

/// rule(w[i], g[i], s0[i], s1[i]) for i < n, all contiguous; s0 and s1 may be null where the rule
/// does not use them (SGD without momentum; SGD's second state). The AVX2 + FMA loop where
/// cpu_features() has both, the reference loop elsewhere.
void optimizer_step(const SgdRule<float>& rule, float* w, const float* g, float* s0, float* s1, std::int64_t n);
void optimizer_step(const SgdRule<double>& rule, double* w, const double* g, double* s0, double* s1, std::int64_t n);
void optimizer_step(const AdamRule<float>& rule, float* w, const float* g, float* s0, float* s1, std::int64_t n);
void optimizer_step(const AdamRule<double>& rule, double* w, const double* g, double* s0, double* s1, std::int64_t n);

namespace reference {
/// The same loop compiled for the baseline CPU: std::fma is a call to libm.
void optimizer_step(const SgdRule<float>& rule, float* w, const float* g, float* s0, float* s1, std::int64_t n);
void optimizer_step(const SgdRule<double>& rule, double* w, const double* g, double* s0, double* s1, std::int64_t n);
void optimizer_step(const AdamRule<float>& rule, float* w, const float* g, float* s0, float* s1, std::int64_t n);
void optimizer_step(const AdamRule<double>& rule, double* w, const double* g, double* s0, double* s1, std::int64_t n);
}  // namespace reference

}  // namespace tinyamp::kernels::cpu
