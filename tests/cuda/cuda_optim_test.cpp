// The optimizers' GPU step (kernels/cuda/optimizer_step_cuda.cu) against the CPU loop: both apply the
// same rule (kernels/optimizer_rules.h) with the same fused multiply-adds, and the GPU file is
// built with --fmad=false, so f32 and f64 weights and states must come out bit for bit equal.
#include "cuda_compare.h"

using namespace tinyamp;

namespace {

struct Pair {
    Tensor cpu, gpu;
};

// The same parameter on both devices, with the same gradient set by hand.
Pair make_param(const Shape& shape, DType dtype, Generator& gen)
{
    const Tensor w = test::random_cpu(shape, dtype, gen);
    const Tensor g = test::random_cpu(shape, dtype, gen);
    Pair p{w.clone().requires_grad_(), w.cuda().requires_grad_()};
    p.cpu.set_grad(g);
    p.gpu.set_grad(g.cuda());
    return p;
}

void set_new_grads(const Pair& p, Generator& gen)
{
    const Tensor g = test::random_cpu(p.cpu.shape(), p.cpu.dtype(), gen);
    p.cpu.set_grad(g);
    p.gpu.set_grad(g.cuda());
}

template <class Opt, class Options>
void check_steps_equal(const Options& options, DType dtype, std::uint64_t seed)
{
    Generator gen(test::cuda_test_seed(seed));
    const Pair a = make_param({37, 5}, dtype, gen), b = make_param({300}, dtype, gen);
    Opt on_cpu({a.cpu, b.cpu}, options), on_gpu({a.gpu, b.gpu}, options);
    for (int step = 0; step < 4; ++step) {
        const auto before = a.gpu.storage()->version();
        on_cpu.step();
        on_gpu.step();
        CHECK(a.gpu.storage()->version() > before);  // an in-place write: a graph that saved w notices
        CHECK(a.gpu.device() == Device::cuda(0));
        CHECK(a.gpu.cpu().to_vector() == a.cpu.to_vector());
        CHECK(b.gpu.cpu().to_vector() == b.cpu.to_vector());
        set_new_grads(a, gen);
        set_new_grads(b, gen);
    }
}

}  // namespace

TEST_CASE("SGD on CUDA parameters steps on the device, bit for bit as on the CPU: plain, momentum, nesterov, weight decay")
{
    for (DType d : {f32, f64}) {
        INFO(dtype_name(d));
        check_steps_equal<optim::SGD>(optim::SGDOptions{.lr = 0.1}, d, 61);
        check_steps_equal<optim::SGD>(optim::SGDOptions{.lr = 0.05, .momentum = 0.9, .dampening = 0.1, .weight_decay = 0.01}, d, 62);
        check_steps_equal<optim::SGD>(optim::SGDOptions{.lr = 0.05, .momentum = 0.9, .weight_decay = 0.001, .nesterov = true}, d, 63);
    }
}

TEST_CASE("Adam and AdamW on CUDA parameters step on the device, bit for bit as on the CPU")
{
    for (DType d : {f32, f64}) {
        INFO(dtype_name(d));
        check_steps_equal<optim::Adam>(optim::AdamOptions{.lr = 0.01}, d, 71);
        check_steps_equal<optim::Adam>(optim::AdamOptions{.lr = 0.01, .weight_decay = 0.1}, d, 72);
        check_steps_equal<optim::AdamW>(optim::AdamWOptions{.lr = 0.01, .weight_decay = 0.1}, d, 73);
    }
}

TEST_CASE("an f16 parameter on CUDA still steps (through the host path) and stays on the GPU in f16")
{
    Generator gen(test::cuda_test_seed(81));
    const Pair a = make_param({64}, f16, gen);
    optim::SGD on_cpu({a.cpu}, {.lr = 0.1}), on_gpu({a.gpu}, {.lr = 0.1});
    on_cpu.step();
    on_gpu.step();
    CHECK(a.gpu.device() == Device::cuda(0));
    CHECK(a.gpu.dtype() == f16);
    CHECK(a.gpu.cpu().to_vector() == a.cpu.to_vector());
}
