#include "bench/gemm_check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <ostream>
#include <string>
#include <vector>

#include "bench/gemm_inputs.h"
#include "bench/gemm_peers.h"
#include "kernels/cpu/gemm.h"

namespace tinyamp::bench {

namespace {

using kernels::cpu::Transpose;

// Distinct m, n, k, so a swapped dimension or a transposed operand cannot pass by symmetry; large
// enough that tinyamp takes its fast path, as in the timed runs.
constexpr std::int64_t kM = 96, kN = 80, kK = 112;

// C = A B with the readable reference kernel.
template <class T>
std::vector<T> reference_product(const std::vector<T>& a, const std::vector<T>& b)
{
    std::vector<T> c(static_cast<std::size_t>(kM * kN));
    kernels::cpu::gemm_reference(Transpose::no, Transpose::no, kM, kN, kK, 1.0, a.data(), kK, b.data(), kN, 0.0, c.data(), kN);
    return c;
}

// Worst |c - reference| / tolerance over C. Two correct kernels differ by the order of their f32
// additions (at most about k * eps_f32 * sum |a||b| per element) and then by one rounding of the
// output dtype (eps_out * |reference|); the tolerance is twice that. A wrong result is off by
// about the size of the values themselves, hundreds of times more.
template <class T>
double worst_error_ratio(const std::vector<T>& c, const std::vector<T>& reference, const std::vector<float>& a,
                         const std::vector<float>& b, DType out_dtype)
{
    const double eps_out = traits(out_dtype).eps, eps_f32 = traits(f32).eps;
    double worst = 0;
    for (std::int64_t i = 0; i < kM; ++i)
        for (std::int64_t j = 0; j < kN; ++j) {
            double magnitude = 0;  // sum over p of |a[i, p] b[p, j]|
            for (std::int64_t p = 0; p < kK; ++p) magnitude += std::fabs(double(a[std::size_t(i * kK + p)]) * double(b[std::size_t(p * kN + j)]));
            const double ref = double(float(reference[std::size_t(i * kN + j)]));
            const double tolerance = 2 * (double(kK) * eps_f32 * magnitude + eps_out * std::fabs(ref));
            const double error = std::fabs(double(float(c[std::size_t(i * kN + j)])) - ref);
            worst = std::max(worst, std::isnan(error) ? INFINITY : error / tolerance);
        }
    return worst;
}

bool report(std::ostream& out, const std::string& name, double ratio)
{
    const bool ok = ratio <= 1.0;
    out << "  " << std::left << std::setw(14) << name << " worst error = " << std::fixed << std::setprecision(3) << ratio
        << " of the tolerance  " << (ok ? "ok" : "WRONG RESULT") << '\n';
    return ok;
}

// oneDNN's matmul of this dtype against the reference, or a line saying why there is none here.
template <class T>
bool check_onednn(std::ostream& out, const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& reference,
                  const std::vector<float>& a_values, const std::vector<float>& b_values, DType dtype)
{
    const std::string name = std::string("oneDNN ") + dtype_name(dtype);
    if (const std::string why = onednn_unavailable_reason(dtype); !why.empty()) {
        out << "  " << std::left << std::setw(14) << name << " none: " << why << '\n';
        return true;
    }
    OnednnMatmul onednn(dtype, kM, kN, kK);
    std::vector<T> c(reference.size(), T(NAN));
    onednn.run(a.data(), b.data(), c.data());
    const bool ok = report(out, name, worst_error_ratio(c, reference, a_values, b_values, dtype));
    out << "  " << std::setw(14) << "" << " implementation: " << onednn.implementation()
        << (onednn_is_reference(onednn.implementation()) ? " (oneDNN's reference loops: no fast kernel here)" : "") << '\n';
    return ok;
}

}  // namespace

bool check_gemm_results(std::ostream& out)
{
    const GemmInputs in = make_gemm_inputs(kM, kN, kK);
    out << "Checking each GEMM against tinyamp's reference (m=" << kM << " n=" << kN << " k=" << kK << "):\n";
    bool all_ok = true;

    const std::vector<float> ref_f32 = reference_product(in.a, in.b);
    std::vector<float> c_f32(ref_f32.size());
    kernels::cpu::gemm(Transpose::no, Transpose::no, kM, kN, kK, 1.0, in.a.data(), kK, in.b.data(), kN, 0.0, c_f32.data(), kN);
    all_ok &= report(out, "tinyamp f32", worst_error_ratio(c_f32, ref_f32, in.a, in.b, f32));
    std::fill(c_f32.begin(), c_f32.end(), NAN);
    openblas_sgemm(kM, kN, kK, in.a.data(), in.b.data(), c_f32.data());
    all_ok &= report(out, "OpenBLAS f32", worst_error_ratio(c_f32, ref_f32, in.a, in.b, f32));
    all_ok &= check_onednn(out, in.a, in.b, ref_f32, in.a, in.b, f32);

    // f16 and bf16: the reference multiplies the rounded inputs, so the tolerance covers the kernels only.
    std::vector<float> a_rounded(in.a_f16.begin(), in.a_f16.end()), b_rounded(in.b_f16.begin(), in.b_f16.end());
    const std::vector<Half> ref_f16 = reference_product(in.a_f16, in.b_f16);
    std::vector<Half> c_f16(ref_f16.size());
    kernels::cpu::gemm(Transpose::no, Transpose::no, kM, kN, kK, 1.0, in.a_f16.data(), kK, in.b_f16.data(), kN, 0.0, c_f16.data(), kN);
    all_ok &= report(out, "tinyamp f16", worst_error_ratio(c_f16, ref_f16, a_rounded, b_rounded, f16));

    a_rounded.assign(in.a_bf16.begin(), in.a_bf16.end());
    b_rounded.assign(in.b_bf16.begin(), in.b_bf16.end());
    const std::vector<BFloat16> ref_bf16 = reference_product(in.a_bf16, in.b_bf16);
    std::vector<BFloat16> c_bf16(ref_bf16.size());
    kernels::cpu::gemm(Transpose::no, Transpose::no, kM, kN, kK, 1.0, in.a_bf16.data(), kK, in.b_bf16.data(), kN, 0.0, c_bf16.data(), kN);
    all_ok &= report(out, "tinyamp bf16", worst_error_ratio(c_bf16, ref_bf16, a_rounded, b_rounded, bf16));
    all_ok &= check_onednn(out, in.a_bf16, in.b_bf16, ref_bf16, a_rounded, b_rounded, bf16);
    return all_ok;
}

}  // namespace tinyamp::bench
