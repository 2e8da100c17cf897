// Lesson 16: the same mixed precision on a GPU, with tinyamp's CUDA backend. Tensors move with
// .cuda()/.to(Device::cuda(0)); autocast("cuda") picks f16 for matmul and keeps softmax and the loss
// in f32; GradScaler("cuda") checks and unscales the gradients with its device kernels; and one
// training step runs on the GPU as on the CPU. Without a usable GPU the lesson says why and skips
// (exit 77).
//
// The GPU path below follows tests/cuda/*.cpp. It was written on machines without a GPU.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "lessons/support/lesson.h"
#include "lessons/support/models.h"

using namespace tinyamp;

namespace {

using Clock = std::chrono::steady_clock;

// An MLP of plain tensors (not leaves yet): each device gets its own copy with Mlp::copy_to, since
// nn::Module has no to(Device) yet.
lesson::Mlp make_mlp(const std::vector<std::int64_t>& sizes, Generator& gen)
{
    return lesson::Mlp(sizes, gen, {.requires_grad = false, .named = false});
}

// One AMP step on whatever device the data is on. `low` empty: plain f32. f16 gets an enabled
// GradScaler; bf16 a disabled one (same loop, no scaling), as PyTorch code writes it.
double train_step(const lesson::Mlp& m, optim::SGD& optimizer, amp::GradScaler& scaler, const Tensor& x, const Tensor& y, std::optional<DType> low)
{
    const std::string type = device_type_name(x.device().type());
    optimizer.zero_grad();
    Tensor loss;
    {
        std::optional<amp::autocast> region;
        if (low) region.emplace(type, amp::AutocastOptions{.dtype = *low});
        loss = cross_entropy(m(x), y);
    }
    scaler.scale(loss).backward();
    scaler.step(optimizer);
    scaler.update();
    return loss.item();  // reads the loss back to the host: the GPU has finished the step
}

// The largest |a - b| / max(1, |b|): relative for large values, absolute for small ones.
double difference(double a, double b) { return std::abs(a - b) / std::max(1.0, std::abs(b)); }

double max_difference(const Tensor& a, const Tensor& b)
{
    const std::vector<double> va = a.to_vector(), vb = b.to_vector();
    double worst = 0;
    for (std::size_t i = 0; i < va.size(); ++i) worst = std::max(worst, difference(va[i], vb[i]));
    return worst;
}

// A batch of 256 on the host, and its copy on the GPU.
struct HostAndGpu {
    Tensor host, x;
};

HostAndGpu step_tensors_on_gpu(lesson::Lesson& L, Generator& gen, Device gpu)
{
    L.step("Tensors on the GPU");
    L.expect("x.cuda() copies a tensor to cuda:0; memory_stats(Device::cuda(0)) counts its bytes there, and\n"
             ".cpu() brings back the same bits.");
    const Tensor host = randn({256, 64}, f32, gen);
    const std::int64_t live_before = memory_stats(gpu).total.live_bytes;
    const Tensor x = host.cuda();
    const std::int64_t added = memory_stats(gpu).total.live_bytes - live_before;
    std::printf("   x: %s on %s, %lld bytes more on the GPU\n", dtype_name(x.dtype()), x.device().str().c_str(), static_cast<long long>(added));
    L.check(x.device() == gpu && added >= host.nbytes(), "x lives on cuda:0, and the GPU's counters grew by its 65536 bytes");
    L.check(x.cpu().to_vector() == host.to_vector(), "the round trip to the GPU and back is exact");
    return {host, x};
}

// The small MLP's initial weights and the batch of 16 that steps 3 and 4 train on.
struct SmallStep {
    lesson::Mlp init;
    Tensor labels, xb, yb;
    DType linear_dtype = f32;  // what linear gave under autocast("cuda")
};

SmallStep step_autocast_cuda(lesson::Lesson& L, Generator& gen, Device gpu, const HostAndGpu& batch)
{
    const Tensor& host = batch.host;
    L.step("autocast(\"cuda\"): f16 for the products, f32 for softmax and the loss");
    L.expect("The CUDA lists differ from the CPU's: the default dtype is f16, and softmax, log_softmax and sum are\n"
             "fp32_set_opt_dtype (they return f32). A CPU tensor inside a \"cuda\" region is not eligible: it stays\n"
             "f32. Gradients reach the f32 weights on the GPU.");
    const lesson::Mlp init = make_mlp({64, 32, 10}, gen);
    const lesson::Mlp on_gpu = init.copy_to(gpu);
    const Tensor labels = tensor({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5}, {16}, i64);
    const Tensor xb = batch.x.slice(0, 0, 16).contiguous(), yb = labels.cuda();
    trace::Trace recorded;
    Tensor loss;
    {
        trace::TraceRecorder recorder(recorded);
        {
            amp::autocast region("cuda");
            loss = cross_entropy(on_gpu(xb), yb);
        }
        loss.backward();
    }
    Tensor h, probs, cpu_h;
    {
        amp::autocast region("cuda");
        h = linear(xb, on_gpu.weight(1), on_gpu.bias(1));
        probs = softmax(h, 1);
        cpu_h = linear(host.slice(0, 0, 16), init.weight(1), init.bias(1));  // CPU tensors: not eligible, not cast
    }
    std::printf("   default autocast dtype for cuda: %s | linear -> %s, softmax -> %s, cross_entropy -> %s, CPU linear -> %s\n",
                dtype_name(amp::get_autocast_dtype(DeviceType::cuda)), dtype_name(h.dtype()), dtype_name(probs.dtype()),
                dtype_name(loss.dtype()), dtype_name(cpu_h.dtype()));
    std::printf("   w1.grad: %s on %s\n", dtype_name(on_gpu.weight(1).grad().dtype()), on_gpu.weight(1).grad().device().str().c_str());
    L.check(h.dtype() == f16 && h.device() == gpu, "linear of f32 GPU tensors runs in f16 on the GPU");
    L.check(probs.dtype() == f32 && loss.dtype() == f32, "softmax and cross_entropy return f32");
    L.check(cpu_h.dtype() == f32, "a CPU tensor in a \"cuda\" region is not cast");
    L.check(on_gpu.weight(1).grad().dtype() == f32 && on_gpu.weight(1).grad().device() == gpu, "the weight's gradient is f32, on the GPU");
    L.write_graph("gpu_step", recorded, "One forward and backward under autocast(\"cuda\"): the linear layers in f16 (cuBLAS, f32 "
                                        "accumulation), the loss in f32, the gradients back to the f32 weights.");
    return {init, labels, xb, yb, h.dtype()};
}

void step_grad_scaler(lesson::Lesson& L, Device gpu, const SmallStep& small)
{
    const Tensor &xb = small.xb, &yb = small.yb;
    L.step("GradScaler(\"cuda\"): the scale's rule, on device kernels");
    L.expect("GradScaler(\"cuda\") checks every gradient for inf/NaN and unscales it in one kernel, and updates the\n"
             "scale with a second. With init 4, growth 2 every 2 clean steps, backoff 0.25: 4, 8, then an inf\n"
             "injected in step 3 skips the step and backs the scale off to 2.");
    {
        const lesson::Mlp m = small.init.copy_to(gpu);
        optim::SGD optimizer(m.params(), {.lr = 0.1});
        amp::GradScaler scaler("cuda", {.init_scale = 4.0, .growth_factor = 2.0, .backoff_factor = 0.25, .growth_interval = 2});
        std::vector<double> scales;
        std::vector<bool> stepped;
        for (int i = 0; i < 3; ++i) {
            optimizer.zero_grad();
            Tensor step_loss;
            {
                amp::autocast region("cuda");
                step_loss = cross_entropy(m(xb), yb);
            }
            scaler.scale(step_loss).backward();
            if (i == 2) {
                NoGradGuard no_grad;
                const Tensor& g = m.weight(1).grad();
                g.copy_(full(g.shape(), std::numeric_limits<double>::infinity(), g.dtype()));  // copy_ moves it to the GPU
            }
            stepped.push_back(scaler.step(optimizer));
            scaler.update();
            scales.push_back(scaler.get_scale());
        }
        std::printf("   scale after each update: %g, %g, %g; stepped: %d %d %d\n", scales[0], scales[1], scales[2], int(stepped[0]),
                    int(stepped[1]), int(stepped[2]));
        L.check(scales == std::vector<double>{4.0, 8.0, 2.0} && stepped == std::vector<bool>{true, true, false},
                "scales 4, 8, 2; the step with an inf was skipped");
    }
}

// One timed configuration of the bigger MLP's training step.
struct Timing {
    const char* name;
    Device device;
    std::optional<DType> low;
    int steps;
    double seconds = 0, first_loss = 0, last_loss = 0;
    std::int64_t peak = 0;
};

// The same training step from the same weights on the CPU and on the GPU, in f32 or (mixed) under
// f16 autocast with a GradScaler: the largest difference in the loss or the weights.
double step_difference(Device gpu, const Tensor& host, const SmallStep& small, bool mixed)
{
    const lesson::Mlp& init = small.init;
    std::vector<double> losses;
    std::vector<lesson::Mlp> trained;
    for (Device d : {Device::cpu(), gpu}) {
        const lesson::Mlp m = init.copy_to(d);
        optim::SGD optimizer(m.params(), {.lr = 0.1});
        amp::GradScaler scaler(device_type_name(d.type()), {.init_scale = 1024.0, .enabled = mixed});
        losses.push_back(train_step(m, optimizer, scaler, host.slice(0, 0, 16).contiguous().to(d), small.labels.to(d),
                                    mixed ? std::optional<DType>(f16) : std::nullopt));
        trained.push_back(m);
    }
    double worst = difference(losses[1], losses[0]);
    for (std::size_t i = 0; i < init.params().size(); ++i)
        worst = std::max(worst, max_difference(trained[1].params()[i].cpu(), trained[0].params()[i]));
    std::printf("   %-22s loss CPU %.7f, GPU %.7f; largest difference in loss or weights %.3g\n", mixed ? "f16 autocast + scaler" : "f32",
                losses[0], losses[1], worst);
    return worst;
}

// Returns the timings: CPU f32, GPU f32, GPU f16 + GradScaler, GPU bf16.
std::vector<Timing> step_train_and_time(lesson::Lesson& L, Generator& gen, Device gpu, const Tensor& host, const SmallStep& small)
{
    L.step("One training step, GPU against CPU; then time a bigger MLP");
    L.expect("The same step from the same weights gives the same loss on both devices: exactly up to the order\n"
             "of additions in f32, within f16's rounding under autocast. A bigger MLP (784-2048-2048-10, batch\n"
             "512) shows the speed: on the GPU f16 and bf16 run on Tensor Cores. (Each op launches its own\n"
             "kernels one by one, so a small model's step is bound by launches, not by the Tensor Cores.)");
    const double worst_f32 = step_difference(gpu, host, small, false), worst_f16 = step_difference(gpu, host, small, true);
    L.check(worst_f32 < 1e-4, "f32: the GPU step matches the CPU step (loss and weights) to 1e-4");
    L.check(worst_f16 < 1e-2, "f16 autocast + GradScaler: the GPU step matches the CPU one within f16's rounding (1e-2)");

    const lesson::Mlp big = make_mlp({784, 2048, 2048, 10}, gen);
    const Tensor bx = randn({512, 784}, f32, gen);
    std::vector<double> big_labels;
    for (int i = 0; i < 512; ++i) big_labels.push_back(double(i % 10));
    const Tensor by = tensor(big_labels, {512}, i64);
    std::vector<Timing> timings{{"CPU f32", Device::cpu(), std::nullopt, 2},
                                {"GPU f32", gpu, std::nullopt, 10},
                                {"GPU f16 + GradScaler", gpu, f16, 10},
                                {"GPU bf16", gpu, bf16, 10}};
    for (Timing& t : timings) {
        const lesson::Mlp m = big.copy_to(t.device);
        optim::SGD optimizer(m.params(), {.lr = 0.01});
        amp::GradScaler scaler(device_type_name(t.device.type()), {.enabled = t.low == f16});
        const Tensor tx = bx.to(t.device), ty = by.to(t.device);
        t.first_loss = train_step(m, optimizer, scaler, tx, ty, t.low);  // warm-up: cuBLAS handle, first allocations
        reset_peak_memory_stats(t.device);
        const std::int64_t live = memory_stats(t.device).total.live_bytes;
        const auto start = Clock::now();
        for (int i = 0; i < t.steps; ++i) t.last_loss = train_step(m, optimizer, scaler, tx, ty, t.low);
        t.seconds = std::chrono::duration<double>(Clock::now() - start).count() / t.steps;
        t.peak = memory_stats(t.device).total.peak_bytes - live;
        std::printf("   %-22s %9.2f ms per step, step's peak memory %8.1f MiB, loss %.4f -> %.4f\n", t.name, t.seconds * 1e3,
                    double(t.peak) / (1024.0 * 1024.0), t.first_loss, t.last_loss);
    }
    bool all_fell = true;
    for (const Timing& t : timings) all_fell = all_fell && std::isfinite(t.last_loss) && t.last_loss < t.first_loss;
    L.check(all_fell, "the loss falls in every mode, on both devices");
    return timings;
}

// cuda:0, or a skip (exit 77) saying why there is no usable GPU here.
Device require_gpu(lesson::Lesson& L)
{
    std::printf("   cuda_built() = %s, cuda_device_count() = %d\n", cuda_built() ? "true" : "false", cuda_device_count());
    if (cuda_device_count() == 0) {
        const std::string reason = cuda_unavailable_reason();
        L.say("No usable GPU here: " + reason + ".\n"
              "The lab still runs (it is written and checked on the CPU), and autocast(\"cpu\", {.dtype = f16,\n"
              ".table = cuda table}) shows on CPU tensors the dtypes a GPU run would get (lesson 5).");
        L.skip("no CUDA device: " + reason);
    }
    return Device::cuda(0);
}

void run(lesson::Lesson& L)
{
    L.say("Everything so far ran on the CPU. On a GPU the same code runs with the tensors moved there\n"
          "(x.cuda() or x.to(Device::cuda(0))), autocast(\"cuda\") in place of autocast(\"cpu\"), and\n"
          "GradScaler(\"cuda\"). This is where mixed precision pays: Tensor Cores multiply f16/bf16\n"
          "matrices many times faster than f32.");
    const Device gpu = require_gpu(L);
    Generator gen(0);  // steps 1, 2 and 4 draw from it in turn
    const HostAndGpu batch = step_tensors_on_gpu(L, gen, gpu);
    const SmallStep small = step_autocast_cuda(L, gen, gpu, batch);
    step_grad_scaler(L, gpu, small);
    const std::vector<Timing> timings = step_train_and_time(L, gen, gpu, batch.host, small);
    L.key_result("autocast(\"cuda\"): linear in " + std::string(dtype_name(small.linear_dtype)) +
                 ", softmax and the loss in f32; GradScaler(\"cuda\") scales 4 -> 8 -> 2");
    L.key_result("MLP 784-2048-2048-10, batch 512, ms per step: CPU f32 " + lesson::fmt(timings[0].seconds * 1e3) + ", GPU f32 " +
                 lesson::fmt(timings[1].seconds * 1e3) + ", f16 + scaler " + lesson::fmt(timings[2].seconds * 1e3) + ", bf16 " +
                 lesson::fmt(timings[3].seconds * 1e3));
}

const lesson::Registration registered{{16, "on_a_gpu", "On a GPU: the CUDA backend",
                                       "mixed precision on a GPU: autocast(\"cuda\") picks f16, GradScaler on device kernels", run}};

}  // namespace
