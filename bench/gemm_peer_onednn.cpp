#include <omp.h>

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

struct OnednnBf16Matmul::State {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    dnnl::matmul::primitive_desc plan;
    dnnl::matmul matmul;
    dnnl::memory a, b, c;  // made once without a buffer; run() points them at the caller's
    std::unordered_map<int, dnnl::memory> args;  // handles: they share a, b and c
};

OnednnBf16Matmul::OnednnBf16Matmul(std::int64_t m, std::int64_t n, std::int64_t k) : state_(std::make_unique<State>())
{
    using dnnl::memory;
    // Plain row-major layouts ("ab") for all three, as tinyamp takes them: oneDNN packs B itself on
    // every call, like tinyamp and OpenBLAS. (A pre-packed B, format_tag::any, would be faster but
    // would not be the same job.)
    const memory::desc a_desc({m, k}, memory::data_type::bf16, memory::format_tag::ab);
    const memory::desc b_desc({k, n}, memory::data_type::bf16, memory::format_tag::ab);
    const memory::desc c_desc({m, n}, memory::data_type::bf16, memory::format_tag::ab);
    state_->plan = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_desc, b_desc, c_desc), state_->engine);
    state_->matmul = dnnl::matmul(state_->plan);
    state_->a = memory(a_desc, state_->engine, DNNL_MEMORY_NONE);
    state_->b = memory(b_desc, state_->engine, DNNL_MEMORY_NONE);
    state_->c = memory(c_desc, state_->engine, DNNL_MEMORY_NONE);
    state_->args = {{DNNL_ARG_SRC, state_->a}, {DNNL_ARG_WEIGHTS, state_->b}, {DNNL_ARG_DST, state_->c}};
}

OnednnBf16Matmul::~OnednnBf16Matmul() = default;

void OnednnBf16Matmul::run(const BFloat16* a, const BFloat16* b, BFloat16* c)
{
    // oneDNN takes non-const handles; it only reads A and B.
    state_->a.set_data_handle(const_cast<BFloat16*>(a));
    state_->b.set_data_handle(const_cast<BFloat16*>(b));
    state_->c.set_data_handle(c);
    state_->matmul.execute(state_->stream, state_->args);
    state_->stream.wait();
}

std::string OnednnBf16Matmul::implementation() const { return state_->plan.impl_info_str(); }

}  // namespace tinyamp::bench
