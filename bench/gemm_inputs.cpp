#include "bench/gemm_inputs.h"

#include <map>
#include <random>

namespace tinyamp::bench {

namespace {

std::vector<float> uniform_values(std::int64_t count, std::mt19937_64& engine)
{
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(static_cast<std::size_t>(count));
    for (float& v : values) v = uniform(engine);
    return values;
}

template <class T>
std::vector<T> rounded_to(const std::vector<float>& values)
{
    std::vector<T> out;
    out.reserve(values.size());
    for (float v : values) out.push_back(T(v));
    return out;
}

}  // namespace

GemmInputs make_gemm_inputs(std::int64_t m, std::int64_t n, std::int64_t k)
{
    std::mt19937_64 engine(kGemmInputSeed);
    GemmInputs in;
    in.m = m;
    in.n = n;
    in.k = k;
    in.a = uniform_values(m * k, engine);
    in.b = uniform_values(k * n, engine);
    in.a_f16 = rounded_to<Half>(in.a);
    in.b_f16 = rounded_to<Half>(in.b);
    in.a_bf16 = rounded_to<BFloat16>(in.a);
    in.b_bf16 = rounded_to<BFloat16>(in.b);
    return in;
}

const GemmInputs& square_gemm_inputs(std::int64_t n)
{
    static std::map<std::int64_t, GemmInputs> cache;  // the benchmarks run on one thread
    auto it = cache.find(n);
    if (it == cache.end()) it = cache.emplace(n, make_gemm_inputs(n, n, n)).first;
    return it->second;
}

}  // namespace tinyamp::bench
