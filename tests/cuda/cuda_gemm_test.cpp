// GEMM on CUDA (cuBLAS with f32 accumulation) against the CPU's GEMM on the same inputs: plain,
// transposed operands read in place, batched and broadcast stacks, linear and addmm with a bias.
// The two sum k products in different orders (and cuBLAS's f16/bf16 tensor-core paths may sum
// in blocks), so f32 results get the k-term summation allowance; f16/bf16 results, summed in f32
// far below their own ulp, stay within a couple of their ulps.
#include <doctest/doctest.h>

#include <tinyamp/tinyamp.h>

#include "cuda_compare.h"

using namespace tinyamp;
using test::check_gpu_matches_cpu;
using test::random_cpu;

namespace {

// |a . b| is bounded by the sum of |a_i b_i|, about k for unit normals: the scale errors live at.
double product_scale(std::int64_t k) { return double(k); }

}  // namespace

TEST_CASE("CUDA matmul matches the CPU in f32, f16, bf16 and f64, with odd sizes and transposed operands")
{
    Generator gen(test::cuda_test_seed(81));
    struct Size {
        std::int64_t m, k, n;
    };
    for (const Size s : {Size{1, 1, 1}, Size{7, 13, 5}, Size{33, 65, 17}, Size{128, 256, 64}, Size{1, 300, 257}}) {
        for (DType d : {f32, f16, bf16, f64}) {
            INFO(dtype_name(d) << " m=" << s.m << " k=" << s.k << " n=" << s.n);
            const Tensor a = random_cpu({s.m, s.k}, d, gen), b = random_cpu({s.k, s.n}, d, gen);
            const Tensor at = random_cpu({s.k, s.m}, d, gen), bt = random_cpu({s.n, s.k}, d, gen);
            const double ulps = test::ulps_for(d, s.k);
            const double scale = product_scale(s.k);
            check_gpu_matches_cpu(matmul(a.cuda(), b.cuda()), matmul(a, b), ulps, scale);
            check_gpu_matches_cpu(matmul(at.cuda().t(), b.cuda()), matmul(at.t(), b), ulps, scale);
            check_gpu_matches_cpu(matmul(a.cuda(), bt.cuda().t()), matmul(a, bt.t()), ulps, scale);
            check_gpu_matches_cpu(mm(at.cuda().t(), bt.cuda().t()), mm(at.t(), bt.t()), ulps, scale);
        }
    }
}

TEST_CASE("CUDA batched matmul, bmm and broadcast batches match the CPU")
{
    Generator gen(test::cuda_test_seed(91));
    for (DType d : {f32, f16, bf16}) {
        INFO(dtype_name(d));
        const double ulps = test::ulps_for(d, 24);
        const Tensor a = random_cpu({4, 9, 24}, d, gen), b = random_cpu({4, 24, 11}, d, gen);
        check_gpu_matches_cpu(bmm(a.cuda(), b.cuda()), bmm(a, b), ulps, 24);
        check_gpu_matches_cpu(matmul(a.cuda(), b.cuda().transpose(1, 2).contiguous().transpose(1, 2)), matmul(a, b), ulps, 24);
        const Tensor shared = random_cpu({24, 11}, d, gen);  // one matrix for the whole batch (stride 0)
        check_gpu_matches_cpu(matmul(a.cuda(), shared.cuda()), matmul(a, shared), ulps, 24);
        const Tensor c = random_cpu({3, 1, 9, 24}, d, gen), e = random_cpu({2, 24, 5}, d, gen);
        check_gpu_matches_cpu(matmul(c.cuda(), e.cuda()), matmul(c, e), ulps, 24);
        const Tensor v = random_cpu({24}, d, gen);  // a vector is a row or a column
        check_gpu_matches_cpu(matmul(a.cuda(), v.cuda()), matmul(a, v), ulps, 24);
    }
}

TEST_CASE("CUDA linear and addmm (bias in the output buffer, beta and alpha) and their gradients match the CPU")
{
    Generator gen(test::cuda_test_seed(101));
    for (DType d : {f32, f16, bf16}) {
        INFO(dtype_name(d));
        const double ulps = test::ulps_for(d, 40);
        const Tensor x = random_cpu({19, 40}, d, gen).requires_grad_();
        const Tensor w = random_cpu({23, 40}, d, gen).requires_grad_();
        const Tensor bias = random_cpu({23}, d, gen).requires_grad_();
        const Tensor gx = x.detach().cuda().requires_grad_(), gw = w.detach().cuda().requires_grad_();
        const Tensor gbias = bias.detach().cuda().requires_grad_();
        const Tensor y = linear(x, w, bias), gy = linear(gx, gw, gbias);
        check_gpu_matches_cpu(gy, y, ulps, 40);
        sum(y).backward();
        sum(gy).backward();
        check_gpu_matches_cpu(gx.grad(), x.grad(), test::ulps_for(d, 23), 23);
        check_gpu_matches_cpu(gw.grad(), w.grad(), test::ulps_for(d, 19), 19);
        check_gpu_matches_cpu(gbias.grad(), bias.grad(), test::ulps_for(d, 19), 19);

        const Tensor m1 = random_cpu({6, 40}, d, gen), m2 = random_cpu({40, 23}, d, gen);
        check_gpu_matches_cpu(addmm(bias.detach().cuda(), m1.cuda(), m2.cuda(), 0.5, 2.0), addmm(bias.detach(), m1, m2, 0.5, 2.0), ulps, 80);
    }
    // An empty inner dimension gives beta * bias (and zeros without a bias), not garbage.
    const Tensor empty_a = zeros({3, 0}, f32), empty_b = zeros({0, 4}, f32);
    check_gpu_matches_cpu(mm(empty_a.cuda(), empty_b.cuda()), mm(empty_a, empty_b), 0.0);
}
