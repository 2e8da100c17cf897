#include <omp.h>

#include <map>
#include <stdexcept>
#include <unordered_map>

#include <dnnl.hpp>

#include "bench/gemm_peers.h"

namespace tinyamp::bench {

void onednn_set_threads(int threads) { omp_set_num_threads(threads); }

std::string onednn_description()
{
    const dnnl_version_t* v = dnnl_version();
    return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) + " (CPU runtime " +
           (v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "not OpenMP: omp_set_num_threads may not apply") + ")";
}

namespace {

dnnl::memory::data_type onednn_type(DType dtype)
{
    switch (dtype) {
    case DType::f32: return dnnl::memory::data_type::f32;
    case DType::bf16: return dnnl::memory::data_type::bf16;
    default: throw std::logic_error("OnednnMatmul: only f32 and bf16 are benchmarked against oneDNN");
    }
}

}  // namespace

struct OnednnMatmul::State {
    DType dtype;
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    dnnl::matmul::primitive_desc plan;
    dnnl::matmul matmul;
    dnnl::memory a, b, c;  // made once without a buffer; run() points them at the caller's
    std::unordered_map<int, dnnl::memory> args;  // handles: they share a, b and c
};

OnednnMatmul::OnednnMatmul(DType dtype, std::int64_t m, std::int64_t n, std::int64_t k) : state_(std::make_unique<State>())
{
    using dnnl::memory;
    state_->dtype = dtype;
    const memory::data_type type = onednn_type(dtype);
    // Plain row-major layouts ("ab") for all three, as tinyamp takes them: oneDNN packs B itself on
    // every call, like tinyamp and OpenBLAS. (A pre-packed B, format_tag::any, would be faster but
    // would not be the same job.)
    const memory::desc a_desc({m, k}, type, memory::format_tag::ab);
    const memory::desc b_desc({k, n}, type, memory::format_tag::ab);
    const memory::desc c_desc({m, n}, type, memory::format_tag::ab);
    try {
        state_->plan = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_desc, b_desc, c_desc), state_->engine);
    } catch (const dnnl::error& e) {
        // oneDNN 2.6 says "could not create a primitive descriptor iterator" when no kernel,
        // not even its reference one, takes this dtype on this CPU.
        throw std::runtime_error(std::string("oneDNN has no ") + traits(dtype).name + " matmul on this CPU (" + e.what() + ")");
    }
    state_->matmul = dnnl::matmul(state_->plan);
    state_->a = memory(a_desc, state_->engine, DNNL_MEMORY_NONE);
    state_->b = memory(b_desc, state_->engine, DNNL_MEMORY_NONE);
    state_->c = memory(c_desc, state_->engine, DNNL_MEMORY_NONE);
    state_->args = {{DNNL_ARG_SRC, state_->a}, {DNNL_ARG_WEIGHTS, state_->b}, {DNNL_ARG_DST, state_->c}};
}

OnednnMatmul::~OnednnMatmul() = default;

void OnednnMatmul::run_untyped(DType dtype, const void* a, const void* b, void* c)
{
    if (dtype != state_->dtype) throw std::logic_error("OnednnMatmul::run: buffers of another dtype than the primitive's");
    // oneDNN takes non-const handles; it only reads A and B.
    state_->a.set_data_handle(const_cast<void*>(a));
    state_->b.set_data_handle(const_cast<void*>(b));
    state_->c.set_data_handle(c);
    state_->matmul.execute(state_->stream, state_->args);
    state_->stream.wait();
}

std::string OnednnMatmul::implementation() const { return state_->plan.impl_info_str(); }

std::string onednn_unavailable_reason(DType dtype)
{
    static std::map<DType, std::string> reasons;  // asked from one thread, before the benchmarks run
    const auto known = reasons.find(dtype);
    if (known != reasons.end()) return known->second;
    std::string reason;
    try {
        OnednnMatmul probe(dtype, 16, 16, 16);
    } catch (const std::runtime_error& e) {
        reason = e.what();
    }
    return reasons[dtype] = reason;
}

bool onednn_is_reference(const std::string& implementation) { return implementation.rfind("ref", 0) == 0; }

bool onednn_uses_amx(const std::string& implementation) { return implementation.find("amx") != std::string::npos; }

}  // namespace tinyamp::bench
