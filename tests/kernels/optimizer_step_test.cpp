// The CPU optimizer step (kernels/cpu/optimizer_step.h): the loop chosen for this CPU (AVX2 + FMA
// where it has them) gives the reference loop's bits, for every branch of the SGD and Adam rules,
// f32 and f64, lengths that leave vector tails; and one step against its closed form.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/optimizer_step.h"

namespace cpu = tinyamp::kernels::cpu;
using tinyamp::kernels::AdamRule;
using tinyamp::kernels::AdamScalars;
using tinyamp::kernels::SgdRule;
using tinyamp::kernels::SgdScalars;

namespace {

template <class T>
struct Arrays {
    std::vector<T> w, g, s0, s1;
};

/// Random weights and gradients across several binades, states >= 0 (Adam's v must be).
template <class T>
Arrays<T> random_arrays(std::int64_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(-12, 3);
    auto value = [&] { return T(std::ldexp(mantissa(rng), exponent(rng))); };
    Arrays<T> x;
    for (std::int64_t i = 0; i < n; ++i) {
        x.w.push_back(value());
        x.g.push_back(value());
        x.s0.push_back(value());
        x.s1.push_back(std::abs(value()));
    }
    return x;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

/// Runs the dispatched and the reference loop on copies of the same arrays; they must agree bit for bit.
template <class Rule, class T>
void check_equal(const Rule& rule, bool use_s0, bool use_s1, const std::string& what)
{
    for (const std::int64_t n : {1, 7, 8, 33, 1000, 100000}) {  // 100000: split between threads (two parts or more)
        const Arrays<T> start = random_arrays<T>(n, unsigned(n) * 7 + unsigned(what.size()));
        Arrays<T> fast = start, slow = start;
        auto state = [](std::vector<T>& v, bool used) { return used ? v.data() : nullptr; };
        cpu::optimizer_step(rule, fast.w.data(), fast.g.data(), state(fast.s0, use_s0), state(fast.s1, use_s1), n);
        cpu::reference::optimizer_step(rule, slow.w.data(), slow.g.data(), state(slow.s0, use_s0), state(slow.s1, use_s1), n);
        INFO(what, ", n = ", n);
        CHECK(same_bits(fast.w, slow.w));
        CHECK(same_bits(fast.s0, slow.s0));
        CHECK(same_bits(fast.s1, slow.s1));
        CHECK_FALSE(same_bits(fast.w, start.w));  // the step did something
    }
}

template <class T>
void check_every_branch()
{
    for (double momentum : {0.0, 0.9})
        for (bool first : {false, true})
            for (bool nesterov : {false, true})
                for (double weight_decay : {0.0, 1e-2})
                    for (double dampening : {0.0, 0.1}) {
                        if (nesterov && (momentum == 0 || dampening != 0)) continue;  // PyTorch refuses these
                        const SgdRule<T> rule(SgdScalars{0.05, weight_decay, momentum, dampening, nesterov, first});
                        const std::string what = "sgd momentum " + std::to_string(momentum) + (first ? " first" : "") +
                                                 (nesterov ? " nesterov" : "") + " wd " + std::to_string(weight_decay) + " dampening " +
                                                 std::to_string(dampening);
                        check_equal<SgdRule<T>, T>(rule, momentum != 0, false, what);
                    }
    for (bool decoupled : {false, true})
        for (double weight_decay : {0.0, 1e-2})
            for (double beta1 : {0.9, 0.3}) {  // lerp's two branches: weight 0.1 and 0.7
                const double beta2 = 0.999, step = 3;
                const double bias_correction1 = 1 - std::pow(beta1, step), bias_correction2 = 1 - std::pow(beta2, step);
                const AdamRule<T> rule(
                    AdamScalars{1e-3, beta1, beta2, 1e-8, weight_decay, std::sqrt(bias_correction2), 1e-3 / bias_correction1, decoupled});
                const std::string what = std::string(decoupled ? "adamw" : "adam") + " wd " + std::to_string(weight_decay) + " beta1 " +
                                         std::to_string(beta1);
                check_equal<AdamRule<T>, T>(rule, true, true, what);
            }
}

}  // namespace

TEST_CASE("optimizer_step: the loop for this CPU gives the reference's bits, every rule branch, f32")
{
    MESSAGE("CPU features in use: ", cpu::cpu_features().str(), " (the AVX2 + FMA loop runs where both are present)");
    check_every_branch<float>();
}

TEST_CASE("optimizer_step: the loop for this CPU gives the reference's bits, every rule branch, f64")
{
    check_every_branch<double>();
}

TEST_CASE("optimizer_step: one SGD step is its closed form, w - lr g rounded once, and momentum's buffer")
{
    std::vector<float> w{1.0f, -2.0f, 3.0f}, g{0.5f, 0.25f, -1.0f}, buf{0.0f, 0.0f, 0.0f};
    const SgdRule<float> plain(SgdScalars{0.1, 0.0, 0.0, 0.0, false, false});
    std::vector<float> w1 = w;
    cpu::optimizer_step(plain, w1.data(), g.data(), nullptr, nullptr, 3);
    for (int i = 0; i < 3; ++i) CHECK(w1[i] == std::fma(-0.1f, g[i], w[i]));
    // With momentum, the first step's buffer is the gradient itself; the second is 0.9 buf + g.
    const SgdRule<float> first(SgdScalars{0.1, 0.0, 0.9, 0.0, false, true});
    const SgdRule<float> later(SgdScalars{0.1, 0.0, 0.9, 0.0, false, false});
    std::vector<float> w2 = w;
    cpu::optimizer_step(first, w2.data(), g.data(), buf.data(), nullptr, 3);
    CHECK(buf == g);
    cpu::optimizer_step(later, w2.data(), g.data(), buf.data(), nullptr, 3);
    for (int i = 0; i < 3; ++i) CHECK(buf[i] == std::fma(1.0f, g[i], g[i] * 0.9f));
}
