// The CUDA kernels through the ops, each against the CPU result of the same op on the same
// inputs: conversions bit for bit, everything else within the dtype's tolerance. Odd sizes (not
// multiples of a block), broadcasting and views (transposed, sliced) on purpose.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "cuda_compare.h"

using namespace tinyamp;
using test::check_gpu_matches_cpu;
using test::random_cpu;

namespace {

// Values that test rounding: zeros, f16/bf16 subnormals and ties, near the maxima, inf, NaN,
// and doubles just above an f16 tie (they must round up when converted straight from f64).
std::vector<double> special_values()
{
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-8, -3e-7, 6e-8, 5.96e-8, 1e-40, -1e-45,
                             1.0 + std::ldexp(1.0, -11), 1.0 + 3 * std::ldexp(1.0, -11), 1.0 + std::ldexp(1.0, -8),
                             1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 65504.0, 65519.0, 65520.0, 3.0e38, 3.4e38,
                             -65536.0, inf, -inf, std::nan(""), 123456.789, -0.1, 1e30, 2.5, -2.5, 7.0};
    for (int i = 0; i < 40; ++i) v.push_back(std::ldexp(1.0 + i / 41.0, i - 20) * (i % 2 ? -1 : 1));
    return v;
}

bool same_bits_or_both_nan(const Tensor& a, const Tensor& b)
{
    REQUIRE(a.dtype() == b.dtype());
    const std::vector<double> va = a.to_vector(), vb = b.to_vector();
    const auto* pa = static_cast<const unsigned char*>(a.data_ptr());
    const auto* pb = static_cast<const unsigned char*>(b.data_ptr());
    const auto size = std::size_t(a.element_size());
    for (std::size_t i = 0; i < va.size(); ++i) {
        if (std::isnan(va[i]) && std::isnan(vb[i])) continue;
        if (std::memcmp(pa + i * size, pb + i * size, size) != 0) {
            INFO("element " << i << ": " << va[i] << " vs " << vb[i]);
            return false;
        }
    }
    return true;
}

}  // namespace

TEST_CASE("CUDA casts between f64, f32, f16, bf16 round exactly as the CPU does, and NaN stays NaN")
{
    const Tensor values = tensor(special_values(), {std::int64_t(special_values().size())}, f64);
    for (DType from : {f64, f32, f16, bf16}) {
        const Tensor src = values.to(from);
        for (DType to : {f64, f32, f16, bf16, DType::boolean}) {
            INFO(dtype_name(from) << " -> " << dtype_name(to));
            const Tensor gpu = src.cuda().to(to);
            CHECK(gpu.device().is_cuda());
            CHECK(same_bits_or_both_nan(gpu.cpu(), src.to(to)));
        }
    }
}

TEST_CASE("CUDA casts from and to i64 and bool match the CPU, a NaN going to i64 is refused as on the CPU")
{
    const Tensor ints = tensor({0, 1, -1, 2049, -2049, 65505, 16777217, 123456789, 1e15}, {9}, i64);
    for (DType to : {f64, f32, f16, bf16, DType::boolean}) {
        INFO("i64 -> " << dtype_name(to));
        CHECK(same_bits_or_both_nan(ints.cuda().to(to).cpu(), ints.to(to)));
    }
    const Tensor floats = tensor({0.0, -2.7, 2.7, 1e10, -0.5}, {5}, f32);
    CHECK(same_bits_or_both_nan(floats.cuda().to(i64).cpu(), floats.to(i64)));
    const Tensor bools = tensor({0, 1, 1, 0}, {4}, DType::boolean);
    for (DType to : {f64, f32, f16, bf16, i64}) CHECK(same_bits_or_both_nan(bools.cuda().to(to).cpu(), bools.to(to)));
    const Tensor bad = tensor({1.0, std::nan(""), 2.0}, {3}, f32).cuda();
    CHECK_ERROR_MENTIONS(bad.to(i64), value, "element 1");
}

TEST_CASE("CUDA views (transposed, sliced, expanded) become contiguous on the device")
{
    Generator gen(test::cuda_test_seed(11));
    const Tensor host = random_cpu({7, 13, 5}, f32, gen);
    const Tensor gpu = host.cuda();
    const Tensor views_cpu[] = {host.permute({2, 0, 1}), host.slice(1, 1, 12, 3), host.select(2, 4).t(), host.slice(0, 0, 1).expand({4, 13, 5})};
    const Tensor views_gpu[] = {gpu.permute({2, 0, 1}), gpu.slice(1, 1, 12, 3), gpu.select(2, 4).t(), gpu.slice(0, 0, 1).expand({4, 13, 5})};
    for (std::size_t i = 0; i < 4; ++i) {
        const Tensor c = views_gpu[i].contiguous();
        CHECK(c.device().is_cuda());
        CHECK(c.is_contiguous());
        CHECK(c.cpu().to_vector() == views_cpu[i].contiguous().to_vector());
    }
    // Writing into a strided view of a CUDA tensor scatters on the device.
    const Tensor target = zeros({6, 4}, f32).cuda();
    {
        NoGradGuard no_grad;
        target.t().slice(1, 0, 6, 2).copy_(ones({4, 3}, f32));
    }
    const Tensor expect = zeros({6, 4}, f32);
    {
        NoGradGuard no_grad;
        expect.t().slice(1, 0, 6, 2).copy_(ones({4, 3}, f32));
    }
    CHECK(target.cpu().to_vector() == expect.to_vector());
}

TEST_CASE("CUDA binary ops with broadcasting and scalars match the CPU in every float dtype")
{
    Generator gen(test::cuda_test_seed(21));
    for (DType d : {f32, f16, bf16, f64}) {
        INFO(dtype_name(d));
        const Tensor a = random_cpu({5, 1, 37}, d, gen), b = random_cpu({3, 1}, d, gen), c = random_cpu({5, 3}, d, gen);
        const Tensor b_pos = add(mul(b, b), 0.5);  // a safe divisor
        const Tensor ga = a.cuda(), gb = b.cuda(), gb_pos = b_pos.cuda();
        check_gpu_matches_cpu(add(ga, gb), add(a, b));
        check_gpu_matches_cpu(sub(ga, gb), sub(a, b));
        check_gpu_matches_cpu(mul(ga, gb), mul(a, b));
        check_gpu_matches_cpu(div(ga, gb_pos), div(a, b_pos));
        check_gpu_matches_cpu(mul(ga, 2.5), mul(a, 2.5));
        check_gpu_matches_cpu(sub(1.0, ga), sub(1.0, a));
        check_gpu_matches_cpu(div(ga, 3.0), div(a, 3.0));
        check_gpu_matches_cpu(neg(ga), neg(a));
        check_gpu_matches_cpu(relu(ga), relu(a));
        check_gpu_matches_cpu(pow(gb_pos, ga), pow(b_pos, a), 4.0);
        // Transposed operands are read through their strides: [37, 1, 5] + [3, 5] -> [37, 3, 5].
        check_gpu_matches_cpu(add(ga.transpose(0, 2), c.cuda().t()), add(a.transpose(0, 2), c.t()));
    }
    // Mixed dtypes promote as on the CPU; i64 arithmetic stays exact.
    const Tensor x = random_cpu({9, 4}, f16, gen), y = random_cpu({4}, f32, gen);
    check_gpu_matches_cpu(add(x.cuda(), y.cuda()), add(x, y));
    const Tensor i = tensor({1, -2, 3, 3000000000.0}, {4}, i64);  // 9e18 still fits in i64
    check_gpu_matches_cpu(mul(i.cuda(), i.cuda()), mul(i, i));
}

TEST_CASE("CUDA unary math functions match the CPU")
{
    Generator gen(test::cuda_test_seed(31));
    for (DType d : {f32, f16, bf16, f64}) {
        INFO(dtype_name(d));
        const Tensor x = random_cpu({3, 301}, d, gen);
        const Tensor x_pos = add(mul(x, x), 0.25);
        const Tensor gx = x.cuda(), gx_pos = x_pos.cuda();
        // exp/log/tanh/erf of CUDA's math library are within an ulp or two of glibc's in f32/f64.
        check_gpu_matches_cpu(exp(gx), exp(x), 4.0);
        check_gpu_matches_cpu(log(gx_pos), log(x_pos), 4.0, 1.0);
        check_gpu_matches_cpu(sqrt(gx_pos), sqrt(x_pos));
        check_gpu_matches_cpu(tanh(gx), tanh(x), 4.0);
        check_gpu_matches_cpu(sigmoid(gx), sigmoid(x), 4.0);
        check_gpu_matches_cpu(erf(gx), erf(x), 4.0);
        check_gpu_matches_cpu(gelu(gx), gelu(x), 4.0);
        check_gpu_matches_cpu(pow(gx_pos, 1.5), pow(x_pos, 1.5), 4.0);
    }
}

TEST_CASE("CUDA comparisons and where match the CPU, with broadcasting")
{
    Generator gen(test::cuda_test_seed(41));
    const Tensor a = random_cpu({6, 11}, f32, gen), b = random_cpu({11}, f32, gen);
    const Tensor ga = a.cuda(), gb = b.cuda();
    CHECK(gt(ga, gb).dtype() == DType::boolean);
    CHECK(gt(ga, gb).cpu().to_vector() == gt(a, b).to_vector());
    CHECK(le(ga, 0.0).cpu().to_vector() == le(a, 0.0).to_vector());
    CHECK(eq(ga, ga).cpu().to_vector() == eq(a, a).to_vector());
    CHECK(ne(ga, gb).cpu().to_vector() == ne(a, b).to_vector());
    check_gpu_matches_cpu(where(gt(ga, gb), ga, gb), where(gt(a, b), a, b), 0.0);
}

TEST_CASE("CUDA sums, means and max over all dims or along dims match the CPU")
{
    Generator gen(test::cuda_test_seed(51));
    for (DType d : {f32, f16, bf16, f64}) {
        INFO(dtype_name(d));
        const Tensor x = random_cpu({9, 33, 7}, d, gen);
        const Tensor gx = x.cuda();
        const std::int64_t n = x.numel();
        check_gpu_matches_cpu(sum(gx), sum(x), test::ulps_for(d, n), 1.0);
        check_gpu_matches_cpu(mean(gx), mean(x), test::ulps_for(d, n), 1.0);
        check_gpu_matches_cpu(sum(gx, {1}), sum(x, {1}), test::ulps_for(d, 33), 1.0);
        check_gpu_matches_cpu(sum(gx, {0, 2}, true), sum(x, {0, 2}, true), test::ulps_for(d, 63), 1.0);
        check_gpu_matches_cpu(mean(gx, {2}), mean(x, {2}), test::ulps_for(d, 7), 1.0);
        check_gpu_matches_cpu(sum(gx.transpose(0, 1), {0}), sum(x.transpose(0, 1), {0}), test::ulps_for(d, 33), 1.0);
        const MaxResult m_gpu = max(gx, 1), m_cpu = max(x, 1);
        check_gpu_matches_cpu(m_gpu.values, m_cpu.values, 0.0);
        CHECK(m_gpu.indices.cpu().to_vector() == m_cpu.indices.to_vector());
        check_gpu_matches_cpu(max(gx), max(x), 0.0);
        CHECK(argmax(gx, -1).cpu().to_vector() == argmax(x, -1).to_vector());
    }
    // A NaN wins the max, at its first position, as on the CPU.
    const Tensor with_nan = tensor({1.0, std::nan(""), 5.0, std::nan("")}, {1, 4}, f32);
    CHECK(argmax(with_nan.cuda(), 1).cpu().item() == 1.0);
    CHECK(std::isnan(max(with_nan.cuda()).item()));
    // i64 and bool sums are exact and give i64.
    const Tensor flags = tensor({1, 0, 1, 1, 0}, {5}, DType::boolean);
    CHECK(sum(flags.cuda()).dtype() == i64);
    CHECK(sum(flags.cuda()).item() == 3.0);
}

TEST_CASE("CUDA softmax and log_softmax match the CPU along the last dim and along an inner dim")
{
    Generator gen(test::cuda_test_seed(61));
    for (DType d : {f32, f16, bf16, f64}) {
        INFO(dtype_name(d));
        const Tensor x = mul(random_cpu({4, 3, 517}, d, gen), 4.0);
        const Tensor gx = x.cuda();
        check_gpu_matches_cpu(softmax(gx, -1), softmax(x, -1), test::ulps_for(d, 517), 1.0);
        check_gpu_matches_cpu(log_softmax(gx, -1), log_softmax(x, -1), test::ulps_for(d, 517));
        check_gpu_matches_cpu(softmax(gx, 1), softmax(x, 1), 4.0, 1.0);
        check_gpu_matches_cpu(log_softmax(gx, 0, f32), log_softmax(x, 0, f32), 4.0);
    }
}

TEST_CASE("CUDA layer_norm and its gradients match the CPU, with and without weight and bias")
{
    Generator gen(test::cuda_test_seed(65));
    for (DType d : {f32, f16, bf16}) {
        for (bool affine : {true, false}) {
            INFO(dtype_name(d) << (affine ? " with" : " without") << " weight and bias");
            const Tensor x = add(mul(random_cpu({6, 5, 129}, d, gen), 3.0), 2.0).requires_grad_();
            const Tensor w = affine ? random_cpu({129}, f32, gen).requires_grad_() : Tensor();
            const Tensor b = affine ? random_cpu({129}, f32, gen).requires_grad_() : Tensor();
            const Tensor gx = x.detach().cuda().requires_grad_();
            const Tensor gw = affine ? w.detach().cuda().requires_grad_() : Tensor();
            const Tensor gb = affine ? b.detach().cuda().requires_grad_() : Tensor();
            const Tensor y = layer_norm(x, {129}, w, b), gy = layer_norm(gx, {129}, gw, gb);
            check_gpu_matches_cpu(gy, y, test::ulps_for(d, 129), 1.0);
            const Tensor probe = random_cpu({6, 5, 129}, f32, gen);
            sum(mul(y, probe)).backward();
            sum(mul(gy, probe.cuda())).backward();
            check_gpu_matches_cpu(gx.grad(), x.grad(), test::ulps_for(d, 129), 1.0);
            if (affine) {
                check_gpu_matches_cpu(gw.grad(), w.grad(), test::ulps_for(f32, 30), 5.0);
                check_gpu_matches_cpu(gb.grad(), b.grad(), test::ulps_for(f32, 30), 5.0);
            }
        }
    }
}

TEST_CASE("CUDA losses and their gradients match the CPU: cross_entropy, nll_loss, mse_loss")
{
    Generator gen(test::cuda_test_seed(71));
    const std::int64_t n = 37, classes = 10;
    std::vector<double> labels;
    for (std::int64_t i = 0; i < n; ++i) labels.push_back(double(gen.next_u64() % classes));
    labels[3] = -100;  // ignored, as PyTorch's default ignore_index
    const Tensor target = tensor(labels, {n}, i64);
    for (DType d : {f32, f16, bf16}) {
        INFO(dtype_name(d));
        for (Reduction r : {Reduction::mean, Reduction::sum, Reduction::none}) {
            INFO(reduction_name(r));
            const Tensor logits = mul(random_cpu({n, classes}, d, gen), 3.0).requires_grad_();
            const Tensor g_logits = logits.detach().cuda().requires_grad_();
            const Tensor loss = cross_entropy(logits, target, r), g_loss = cross_entropy(g_logits, target.cuda(), r);
            check_gpu_matches_cpu(g_loss, loss, test::ulps_for(d, n), 1.0);
            sum(loss).backward();
            sum(g_loss).backward();
            check_gpu_matches_cpu(g_logits.grad(), logits.grad(), 4.0, 1.0);

            const Tensor log_probs = log_softmax(logits.detach(), 1);
            check_gpu_matches_cpu(nll_loss(log_probs.cuda(), target.cuda(), r), nll_loss(log_probs, target, r), test::ulps_for(d, n), 1.0);

            const Tensor pred = random_cpu({n, 3}, d, gen).requires_grad_(), goal = random_cpu({n, 3}, d, gen);
            const Tensor g_pred = pred.detach().cuda().requires_grad_();
            const Tensor mse = mse_loss(pred, goal, r), g_mse = mse_loss(g_pred, goal.cuda(), r);
            check_gpu_matches_cpu(g_mse, mse, test::ulps_for(d, 3 * n), 1.0);
            sum(mse).backward();
            sum(g_mse).backward();
            check_gpu_matches_cpu(g_pred.grad(), pred.grad(), 4.0, 1.0);
        }
    }
    // A label out of range is found (on a host copy of the labels) before any kernel runs.
    const Tensor bad = tensor({0, 12}, {2}, i64).cuda();
    CHECK_ERROR_MENTIONS(cross_entropy(zeros({2, classes}, f32).cuda(), bad), index, "is not a class index");
}

TEST_CASE("tensors on two devices are refused with a message naming the devices and the fix, 0-D CPU scalars may join")
{
    const Tensor g = ones({3}, f32).cuda();
    CHECK_ERROR_MENTIONS(add(g, ones({3}, f32)), device, "cuda:0");
    CHECK_ERROR_MENTIONS(add(g, ones({3}, f32)), device, ".to(device)");
    CHECK(add(g, scalar_tensor(2.0)).device().is_cuda());  // a 0-D CPU tensor acts as a number
    CHECK(add(g, scalar_tensor(2.0)).cpu().to_vector() == std::vector<double>{3.0, 3.0, 3.0});
    // Ops without CUDA kernels say so.
    CHECK_ERROR_MENTIONS(cat({g, g}, 0), device, "has no CUDA kernel yet");
}
