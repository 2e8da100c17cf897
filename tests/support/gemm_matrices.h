#pragma once
// Random GEMM problems stored as a GEMM kernel reads them, and the checks the GEMM tests share.
// Matrices are row-major with a leading dimension larger than the row, so the `gap` elements after
// each row are memory the kernel must leave alone; with beta == 0, C starts as NaN garbage that
// must not leak into the result.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/cpu/elementwise_loops.h"
#include "kernels/cpu/gemm.h"
#include "tests/support/tolerance.h"
#include "tinyamp/values/dtype.h"
#include "tinyamp/support/generator.h"

namespace tinyamp::test {

template <class T>
double value_of(T x)
{
    return double(kernels::cpu::load(x));
}

template <class T>
struct Stored {
    std::int64_t rows, cols, ld;
    std::vector<T> data;
    double at(std::int64_t r, std::int64_t c) const { return value_of(data[std::size_t(r * ld + c)]); }
};

/// Uniform values in [-1, 1), rounded to T; leading dimension cols + gap.
template <class T>
Stored<T> random_matrix(std::int64_t rows, std::int64_t cols, Generator& gen, std::int64_t gap)
{
    Stored<T> m{rows, cols, cols + gap, {}};
    m.data.resize(std::size_t(std::max<std::int64_t>(rows * m.ld, 1)));
    for (T& x : m.data) x = T(2.0 * gen.uniform() - 1.0);
    return m;
}

/// One GEMM problem: C = alpha op(A) op(B) + beta C + bias, with In inputs and an Out C.
template <class In, class Out>
struct GemmCase {
    using Transpose = kernels::cpu::Transpose;
    Transpose trans_a, trans_b;
    std::int64_t m, n, k;
    double alpha, beta;
    std::optional<kernels::cpu::BiasAlong> bias_along;  ///< none, or how the bias vector is broadcast
    std::uint64_t seed;
    Stored<In> a, b;  ///< the buffers as stored (op(A) or its transpose)
    Stored<Out> c;    ///< C before the call
    std::vector<Out> bias;
    /// exact() for every element of C, computed at its first call: each check of a tier against
    /// the reference reads it, and its O(m n k) loop dominated the sanitizer builds' GEMM tests.
    mutable std::vector<std::pair<double, double>> exact_values;

    static GemmCase make(Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, double beta,
                         std::optional<kernels::cpu::BiasAlong> bias_along, std::uint64_t seed, std::int64_t gap)
    {
        Generator gen(seed);
        const bool a_t = ta == Transpose::yes, b_t = tb == Transpose::yes;
        GemmCase g{ta, tb, m, n, k, alpha, beta, bias_along, seed, random_matrix<In>(a_t ? k : m, a_t ? m : k, gen, gap),
                   random_matrix<In>(b_t ? n : k, b_t ? k : n, gen, gap), random_matrix<Out>(m, n, gen, gap), {}, {}};
        if (beta == 0.0)
            for (std::int64_t i = 0; i < m; ++i)
                for (std::int64_t j = 0; j < n; ++j) g.c.data[std::size_t(i * g.c.ld + j)] = Out(std::numeric_limits<float>::quiet_NaN());
        if (bias_along) {
            const Stored<Out> values = random_matrix<Out>(1, *bias_along == kernels::cpu::BiasAlong::rows ? n : m, gen, 0);
            g.bias.assign(values.data.begin(), values.data.begin() + values.cols);
        }
        return g;
    }

    kernels::cpu::GemmBias<Out> gemm_bias() const
    {
        return {bias_along ? bias.data() : nullptr, bias_along.value_or(kernels::cpu::BiasAlong::rows)};
    }
    double op_a(std::int64_t i, std::int64_t p) const { return trans_a == Transpose::yes ? a.at(p, i) : a.at(i, p); }
    double op_b(std::int64_t p, std::int64_t j) const { return trans_b == Transpose::yes ? b.at(j, p) : b.at(p, j); }
    double bias_at(std::int64_t i, std::int64_t j) const
    {
        if (!bias_along) return 0.0;
        return value_of(bias[std::size_t(*bias_along == kernels::cpu::BiasAlong::rows ? j : i)]);
    }

    /// Runs `gemm` (any function with gemm's arguments) on a copy of C and returns the copy.
    template <class Gemm>
    Stored<Out> run(Gemm gemm) const
    {
        Stored<Out> out = c;
        gemm(trans_a, trans_b, m, n, k, alpha, a.data.data(), a.ld, b.data.data(), b.ld, beta, out.data.data(), out.ld, gemm_bias());
        return out;
    }

    /// The exact result of element (i, j) in f64, and the scale its rounding errors are relative
    /// to: |alpha| sum |a||b| + |beta c| + |bias|.
    std::pair<double, double> exact(std::int64_t i, std::int64_t j) const
    {
        if (exact_values.size() != std::size_t(m * n)) {
            exact_values.resize(std::size_t(m * n));
            for (std::int64_t r = 0; r < m; ++r)
                for (std::int64_t col = 0; col < n; ++col) exact_values[std::size_t(r * n + col)] = compute_exact(r, col);
        }
        return exact_values[std::size_t(i * n + j)];
    }

    std::pair<double, double> compute_exact(std::int64_t i, std::int64_t j) const
    {
        double sum = 0, magnitude = 0;
        for (std::int64_t p = 0; p < k; ++p) {
            const double product = op_a(i, p) * op_b(p, j);
            sum += product;
            magnitude += std::abs(product);
        }
        const double c_ij = beta == 0.0 ? 0.0 : c.at(i, j);
        return {alpha * sum + beta * c_ij + bias_at(i, j), std::abs(alpha) * magnitude + std::abs(beta * c_ij) + std::abs(bias_at(i, j))};
    }

    std::string describe() const
    {
        std::ostringstream s;
        s << dtype_name(dtype_of<In>()) << " -> " << dtype_name(dtype_of<Out>()) << " m=" << m << " n=" << n << " k=" << k
          << " trans_a=" << (trans_a == Transpose::yes) << " trans_b=" << (trans_b == Transpose::yes) << " alpha=" << alpha
          << " beta=" << beta << " bias="
          << (!bias_along ? "none" : *bias_along == kernels::cpu::BiasAlong::rows ? "per column (along rows)" : "per row (along columns)")
          << " seed=" << seed;
        return s.str();
    }
};

/// The ulps (of Out, relative to exact()'s scale) two correct GEMMs may differ by: each is within
/// ulps_for(Out, k + 2) of the exact result (k products, then beta C and the bias), so twice that
/// for an f32 C. An f16/bf16 C is rounded once from f32 sums far closer than its ulp: the default
/// 2 ulps of ulps_for already covers both sides of one rounding boundary.
inline double ulps_between_two_gemms(DType out, std::int64_t k)
{
    const double each = ulps_for(out, k + 2);
    return out == DType::f32 || out == DType::f64 ? 2 * each : each;
}

/// Checks `got` (C after a GEMM of `g`) element by element against want(i, j) within `ulps` of
/// Out relative to each element's scale, and that the gaps between C's rows were not touched.
template <class In, class Out, class Want>
void check_gemm_result(const GemmCase<In, Out>& g, const Stored<Out>& got, Want want, double ulps, const char* against)
{
    int failures = 0, gap_changed = 0;
    std::ostringstream details;
    for (std::int64_t i = 0; i < g.m; ++i) {
        for (std::int64_t j = 0; j < g.n; ++j) {
            const double expected = want(i, j), actual = got.at(i, j);
            const Tolerance tol = tolerance_for(dtype_of<Out>(), g.exact(i, j).second, ulps);
            if (!std::isnan(actual) && std::abs(actual - expected) <= tol.atol + tol.rtol * std::abs(expected)) continue;
            if (failures++ < 5) details << "(" << i << "," << j << "): " << actual << " vs " << against << " " << expected << "; ";
        }
        for (std::int64_t j = g.n; j < got.ld; ++j) {
            const std::size_t at = std::size_t(i * got.ld + j);
            if (std::memcmp(&got.data[at], &g.c.data[at], sizeof(Out)) != 0) ++gap_changed;
        }
    }
    INFO(g.describe() << ": " << details.str());
    CHECK(failures == 0);
    CHECK(gap_changed == 0);
}

}  // namespace tinyamp::test
