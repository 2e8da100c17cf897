// GPU benchmark (built with the CUDA backend, never run by CI; exits 77 without a device).
//
// 1. GEMM: tinyamp's mm on CUDA tensors against the raw cublasGemmEx call it makes, for square
//    N = 1024 .. 8192 in f32, f16 and bf16 (f32 accumulation, no TF32). The ratio shows what
//    tinyamp adds around cuBLAS: the op's checks, the dispatcher, and a cudaMalloc/cudaFree of the
//    output each call (tinyamp has no caching allocator).
// 2. A training step (forward, backward, SGD) of an MLP 784 -> 2048 -> 2048 -> 10, batch 512, on
//    CUDA in f32, f16 autocast + GradScaler, and bf16 autocast.
// Every time is the median of its repetitions, each measured with CUDA events (GEMM) or to a
// synchronizing read of the loss (training step), after warm-up runs. With --pytorch-csv=FILE
// (written by bench/cuda/pytorch_mlp_step.py just before, on the same GPU) the training table
// also prints PyTorch's time for the same step and the ratio.
//
//   ./build-cuda/bench/cuda_bench [--quick] [--pytorch-csv=FILE]   (--quick: N up to 2048, fewer repetitions)
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

namespace {

void check(cudaError_t err, const char* what)
{
    if (err != cudaSuccess) {
        std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(err));
        std::exit(1);
    }
}

void check(cublasStatus_t status, const char* what)
{
    if (status != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "%s failed: %s\n", what, cublasGetStatusString(status));
        std::exit(1);
    }
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// An [n, n] CUDA tensor of random values: a 2^20-element random block made on the host, copied
// to the device and then repeated there (random bits keep the tensor cores honestly busy;
// making 8192^2 random values on the host would take longer than the benchmark).
Tensor random_square(std::int64_t n, DType dtype, Generator& gen)
{
    const std::int64_t block = std::min<std::int64_t>(n * n, 1 << 20);
    const Tensor seed = randn({block}, f32, gen).to(dtype).cuda();
    Tensor out = empty({n, n}, dtype, Device::cuda(0));
    const auto bytes = std::size_t(block * out.element_size());
    for (std::int64_t at = 0; at < n * n; at += block) {
        const auto count = std::size_t(std::min(block, n * n - at) * out.element_size());
        check(cudaMemcpy(static_cast<char*>(out.data_ptr()) + std::size_t(at * out.element_size()), seed.data_ptr(), std::min(bytes, count),
                         cudaMemcpyDeviceToDevice),
              "cudaMemcpy");
    }
    return out;
}

cudaDataType_t cuda_type(DType d) { return d == f16 ? CUDA_R_16F : d == bf16 ? CUDA_R_16BF : CUDA_R_32F; }

template <class Fn>
double time_ms_events(Fn&& fn, int reps)
{
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) {
        check(cudaEventRecord(start), "cudaEventRecord");
        fn();
        check(cudaEventRecord(stop), "cudaEventRecord");
        check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        times.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return median(times);
}

void gemm_table(bool quick)
{
    cublasHandle_t handle;
    check(cublasCreate(&handle), "cublasCreate");
    Generator gen(2024);
    std::printf("\nGEMM C = A B, square N x N, f32 accumulation (CUBLAS_COMPUTE_32F, no TF32); median of %d runs\n", quick ? 5 : 20);
    std::printf("%-6s %6s %14s %14s %8s\n", "dtype", "N", "tinyamp TF/s", "cuBLAS TF/s", "ratio");
    const std::vector<std::int64_t> sizes = quick ? std::vector<std::int64_t>{1024, 2048} : std::vector<std::int64_t>{1024, 2048, 4096, 8192};
    for (DType d : {f32, f16, bf16}) {
        for (std::int64_t n : sizes) {
            const Tensor a = random_square(n, d, gen), b = random_square(n, d, gen);
            Tensor c = empty({n, n}, d, Device::cuda(0));
            const int reps = quick ? 5 : 20;
            NoGradGuard no_grad;
            for (int w = 0; w < 3; ++w) (void)mm(a, b);  // warm-up: cuBLAS picks its kernels
            const double t_tinyamp = time_ms_events([&] { (void)mm(a, b); }, reps);
            const float alpha = 1.0f, beta = 0.0f;
            const int ni = int(n);
            auto raw = [&] {
                // Row-major C = A B as column-major C^T = B^T A^T, exactly as tinyamp calls it.
                check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &alpha, b.data_ptr(), cuda_type(d), ni, a.data_ptr(),
                                   cuda_type(d), ni, &beta, c.data_ptr(), cuda_type(d), ni, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                      "cublasGemmEx");
            };
            for (int w = 0; w < 3; ++w) raw();
            const double t_raw = time_ms_events(raw, reps);
            const double flops = 2.0 * double(n) * double(n) * double(n);
            std::printf("%-6s %6lld %14.1f %14.1f %8.3f\n", dtype_name(d), static_cast<long long>(n), flops / (t_tinyamp * 1e9),
                        flops / (t_raw * 1e9), t_raw / t_tinyamp);
        }
    }
    cublasDestroy(handle);
}

struct Mlp {
    std::vector<Tensor> params;
    Tensor operator()(const Tensor& x) const
    {
        return linear(relu(linear(relu(linear(x, params[0], params[1])), params[2], params[3])), params[4], params[5]);
    }
};

Mlp make_mlp(Generator& gen)
{
    const std::int64_t sizes[] = {784, 2048, 2048, 10};
    Mlp m;
    for (int i = 0; i < 3; ++i) {
        const double bound = 1.0 / std::sqrt(double(sizes[i]));
        m.params.push_back(mul(sub(rand({sizes[i + 1], sizes[i]}, f32, gen), 0.5), 2 * bound).cuda().requires_grad_());
        m.params.push_back(zeros({sizes[i + 1]}, f32).cuda().requires_grad_());
    }
    return m;
}

// PyTorch's ms per step by mode, from the CSV of bench/cuda/pytorch_mlp_step.py ("mode,ms").
std::map<std::string, double> read_pytorch_csv(const std::string& path)
{
    std::map<std::string, double> ms;
    if (path.empty()) return ms;
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "cannot read %s (written by bench/cuda/pytorch_mlp_step.py --csv); PyTorch's column stays empty\n", path.c_str());
        return ms;
    }
    for (std::string line; std::getline(in, line);) {
        const auto comma = line.rfind(',');
        if (comma != std::string::npos) ms[line.substr(0, comma)] = std::stod(line.substr(comma + 1));
    }
    return ms;
}

void training_table(bool quick, const std::map<std::string, double>& pytorch_ms)
{
    Generator gen(7);
    const std::int64_t batch = 512;
    const Tensor x = randn({batch, 784}, f32, gen).cuda();
    std::vector<double> labels;
    for (std::int64_t i = 0; i < batch; ++i) labels.push_back(double(i % 10));
    const Tensor y = tensor(labels, {batch}, i64).cuda();
    const int steps = quick ? 10 : 50;
    std::printf("\nTraining step of an MLP 784-2048-2048-10, batch %lld, SGD; median of %d steps after 5 warm-up steps\n",
                static_cast<long long>(batch), steps);
    std::printf("%-26s %10s %12s %10s %14s %18s\n", "mode", "ms/step", "vs f32", "last loss", "PyTorch ms", "tinyamp/PyTorch");
    double f32_ms = 0;
    for (const char* mode : {"f32", "f16 autocast + GradScaler", "bf16 autocast"}) {
        const bool is_f16 = std::strncmp(mode, "f16", 3) == 0, is_bf16 = std::strncmp(mode, "bf16", 4) == 0;
        const Mlp m = make_mlp(gen);
        optim::SGD opt(m.params, {.lr = 0.01});
        amp::GradScaler scaler("cuda", {.enabled = is_f16});
        std::vector<double> times;
        double loss_value = 0;
        for (int s = 0; s < steps + 5; ++s) {
            const auto t0 = std::chrono::steady_clock::now();
            opt.zero_grad();
            Tensor loss;
            {
                amp::autocast guard("cuda", {.dtype = is_bf16 ? bf16 : f16, .enabled = is_f16 || is_bf16});
                loss = cross_entropy(m(x), y);
            }
            scaler.scale(loss).backward();
            scaler.step(opt);
            scaler.update();
            loss_value = loss.item();  // reads the device: the step is finished here
            const auto t1 = std::chrono::steady_clock::now();
            if (s >= 5) times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        }
        const double ms = median(times);
        if (f32_ms == 0) f32_ms = ms;
        std::printf("%-26s %10.2f %11.2fx %10.4f", mode, ms, f32_ms / ms, loss_value);
        if (const auto it = pytorch_ms.find(mode); it != pytorch_ms.end())
            std::printf(" %14.3f %17.1fx\n", it->second, ms / it->second);
        else
            std::printf(" %14s %18s\n", "-", "-");
    }
}

}  // namespace

int main(int argc, char** argv)
{
    if (cuda_device_count() == 0) {
        std::printf("SKIP: no CUDA device: %s\n", cuda_unavailable_reason().c_str());
        return 77;
    }
    bool quick = false;
    std::string pytorch_csv;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick")
            quick = true;
        else if (arg.rfind("--pytorch-csv=", 0) == 0)
            pytorch_csv = arg.substr(std::strlen("--pytorch-csv="));
        else {
            std::fprintf(stderr, "unknown argument '%s'; use --quick and --pytorch-csv=FILE\n", arg.c_str());
            return 2;
        }
    }
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("tinyamp CUDA benchmark on %s (sm_%d%d, %.0f GiB)\n", prop.name, prop.major, prop.minor,
                double(prop.totalGlobalMem) / (1 << 30));
    gemm_table(quick);
    training_table(quick, read_pytorch_csv(pytorch_csv));
    return 0;
}
