// The optimizer step's element loop (optimizer_step.h), compiled twice: for the baseline CPU
// (reference::) and, behind a target attribute, for AVX2 + FMA.
#include "kernels/cpu/optimizer_step.h"

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/worker_pool.h"
#include "tinyamp/support/parallel.h"

namespace tinyamp::kernels::cpu {
namespace {

/// The loop, inlined into each caller so that it is compiled for the caller's target. The rule
/// is copied into a local first: read through a reference, its scalars could alias the arrays
/// being written, and the compiler would reload them at every element instead of vectorizing.
template <class Rule, class T>
[[gnu::always_inline]] inline void apply(const Rule& rule_in, T* w, const T* g, T* s0, T* s1, std::int64_t n)
{
    const Rule rule = rule_in;
    T unused = 0;
    if (s0 && s1)
        for (std::int64_t i = 0; i < n; ++i) rule(w[i], g[i], s0[i], s1[i]);
    else if (s0)
        for (std::int64_t i = 0; i < n; ++i) rule(w[i], g[i], s0[i], unused);
    else if (s1)
        for (std::int64_t i = 0; i < n; ++i) rule(w[i], g[i], unused, s1[i]);
    else
        for (std::int64_t i = 0; i < n; ++i) rule(w[i], g[i], unused, unused);
}

#if defined(__x86_64__)
template <class Rule, class T>
__attribute__((target("avx2,fma"))) void apply_fma(const Rule& rule, T* w, const T* g, T* s0, T* s1, std::int64_t n)
{
    apply(rule, w, g, s0, s1, n);
}
#endif

template <class Rule, class T>
void dispatch_range(const Rule& rule, T* w, const T* g, T* s0, T* s1, std::int64_t n)
{
#if defined(__x86_64__)
    if (cpu_features().avx2 && cpu_features().fma) {
        apply_fma(rule, w, g, s0, s1, n);
        return;
    }
#endif
    apply(rule, w, g, s0, s1, n);
}

// A large parameter's elements are shared out between the threads as an elementwise op's are
// (each element's update is the same wherever it runs).
template <class Rule, class T>
void dispatch(const Rule& rule, T* w, const T* g, T* s0, T* s1, std::int64_t n)
{
    run_ranges(n, kElementwiseGrain, get_num_threads(), [&](std::int64_t first, std::int64_t last) {
        const auto at = [first](auto* p) { return p ? p + first : p; };
        dispatch_range(rule, w + first, g + first, at(s0), at(s1), last - first);
    });
}

}  // namespace

#define TINYAMP_OPTIMIZER_STEP(Rule, T)                                                           \
    void optimizer_step(const Rule<T>& rule, T* w, const T* g, T* s0, T* s1, std::int64_t n)      \
    {                                                                                             \
        dispatch(rule, w, g, s0, s1, n);                                                          \
    }                                                                                             \
    void reference::optimizer_step(const Rule<T>& rule, T* w, const T* g, T* s0, T* s1, std::int64_t n) \
    {                                                                                             \
        apply(rule, w, g, s0, s1, n);                                                             \
    }
TINYAMP_OPTIMIZER_STEP(SgdRule, float)
TINYAMP_OPTIMIZER_STEP(SgdRule, double)
TINYAMP_OPTIMIZER_STEP(AdamRule, float)
TINYAMP_OPTIMIZER_STEP(AdamRule, double)
#undef TINYAMP_OPTIMIZER_STEP

}  // namespace tinyamp::kernels::cpu
