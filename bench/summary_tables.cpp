#include "bench/summary_tables.h"

#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bench/digits_epoch_bench.h"
#include "bench/dispatch_bench.h"
#include "bench/gemm_bench.h"
#include "bench/gemm_peers.h"
#include "bench/gpt_step_bench.h"
#include "bench/machine_header.h"
#include "bench/pytorch_results.h"
#include "bench/result_collector.h"

namespace tinyamp::bench {

namespace {

using backends::cpu::Bf16Speed;

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* pattern, ...)
{
    char buffer[512];
    va_list args;
    va_start(args, pattern);
    std::vsnprintf(buffer, sizeof buffer, pattern, args);
    va_end(args);
    return buffer;
}

// Counts how often a target was met, and remembers the worst case, for the closing lines.
struct TargetTally {
    std::string text;
    int met = 0, judged = 0;
    double worst = 0;
    std::string worst_where;

    // `higher_is_better`: a ratio that must reach `goal`; otherwise a time that must stay below it.
    std::string judge(double value, double goal, bool higher_is_better, const std::string& where)
    {
        const bool ok = higher_is_better ? value >= goal : value <= goal;
        const bool worse = judged == 0 || (higher_is_better ? value < worst : value > worst);
        if (worse) {
            worst = value;
            worst_where = where;
        }
        ++judged;
        met += ok;
        return ok ? "met" : "MISS";
    }
};

std::string cell(std::optional<double> value, const char* pattern, int width)
{
    return value ? format(pattern, *value) : format("%*s", width, "-");
}

std::optional<double> ratio(std::optional<double> a, std::optional<double> b)
{
    if (!a || !b || *b == 0) return std::nullopt;
    return *a / *b;
}

// How a ratio against a peer is judged in one row.
struct Verdict {
    double goal = 0;      ///< the target; 0: none (for information)
    bool unfair = false;  ///< the peer runs a slow path here: the ratio is marked "*", never judged
};

// The summary's state: what it prints from, the tallies of the targets, and the targets that could
// not be judged on this machine, with why.
class Summary {
public:
    Summary(std::ostream& out, const ResultCollector& results, const MachineInfo& machine, const PytorchResults* pytorch,
            const Targets& targets)
        : out_(out), results_(results), machine_(machine), pytorch_(pytorch), targets_(targets)
    {
    }

    int print()
    {
        out_ << "\n== Summary: " << machine_.hardware.cpu_name << "; " << machine_.tiers() << "; AMX " << machine_.amx << '\n';
        if (!pytorch_) out_ << "PyTorch: not measured in this run (scripts/bench.sh runs bench/pytorch_peer.py where torch is installed).\n";
        print_gemm_f32();
        print_gemm_low_precision();
        print_dispatch();
        print_digits();
        print_gpt_step();
        print_noise();
        return print_targets();
    }

private:
    std::ostream& out_;
    const ResultCollector& results_;
    const MachineInfo& machine_;
    const PytorchResults* pytorch_;
    const Targets& targets_;
    std::vector<TargetTally> tallies_;
    std::vector<std::string> not_judged_;  // "what: why"

    // True when a benchmark whose name starts with `prefix` ran (the others were filtered out).
    bool any_ran(const std::string& prefix) const
    {
        for (const auto& [name, timing] : results_.all())
            if (name.rfind(prefix, 0) == 0 && !timing.seconds.empty()) return true;
        return false;
    }

    std::optional<double> median_seconds(const std::string& name) const
    {
        const Timing* t = results_.find(name);
        if (!t) return std::nullopt;
        return t->median();
    }

    std::optional<double> gemm_gflops(GemmImpl impl, std::int64_t n, int threads) const
    {
        const std::optional<double> s = median_seconds(gemm_bench_name(impl, n, threads));
        if (!s) return std::nullopt;
        return gemm_flops(n) / *s / 1e9;
    }

    std::optional<double> pytorch_gemm_gflops(const char* dtype, std::int64_t n, int threads) const
    {
        if (!pytorch_) return std::nullopt;
        const std::optional<double> s =
            pytorch_->find(format("gemm/pytorch_%s/n:%lld/threads:%d", dtype, static_cast<long long>(n), threads));
        if (!s) return std::nullopt;
        return gemm_flops(n) / *s / 1e9;
    }

    std::string onednn_label(GemmImpl impl, std::int64_t n, int threads) const
    {
        const Timing* t = results_.find(gemm_bench_name(impl, n, threads));
        return t ? t->label : "";
    }

    static std::string gflops_cell(std::optional<double> value, int width)
    {
        return value ? format("%*.1f", width, *value) : format("%*s", width, "-");
    }

    // A peer's GFLOP/s, then tinyamp / peer followed by its verdict: "met"/"MISS" against a goal
    // (rows from gemm_min_n), "*" when the peer is not a fair comparison, blank for information.
    std::string peer(std::optional<double> peer_gflops, std::optional<double> ours, int width, const Verdict& verdict, bool applies,
                     TargetTally* tally, const std::string& where)
    {
        const std::optional<double> r = ratio(ours, peer_gflops);
        std::string mark;
        if (r && verdict.unfair)
            mark = "*";
        else if (r && verdict.goal > 0 && applies && tally)
            mark = tally->judge(*r, verdict.goal, true, where);
        const char* pattern = !r || *r < 99.995 ? "%5.2f" : *r < 9999.5 ? "%5.0f" : "%5.0e";  // 5 wide: 0.95, 112, 1e+04
        return gflops_cell(peer_gflops, width) + "  " + cell(r, pattern, 5) + format(" %-4s", mark.c_str());
    }

    static std::string where(std::int64_t n, int threads)
    {
        return format("N=%lld, %d thread%s", static_cast<long long>(n), threads, threads > 1 ? "s" : "");
    }

    void print_onednn_implementations(GemmImpl impl, const char* dtype)
    {
        std::set<std::string> impls;
        for (std::int64_t n : kGemmSizes)
            for (int threads : kGemmThreads)
                if (std::string label = onednn_label(impl, n, threads); !label.empty()) impls.insert(label);
        const std::string why = onednn_unavailable_reason(impl == GemmImpl::onednn_f32 ? f32 : bf16);
        if (!why.empty()) out_ << "  oneDNN " << dtype << ": no peer here: " << why << ".\n";
        for (const std::string& label : impls)
            out_ << "  oneDNN " << dtype << " implementation: " << label
                 << (onednn_is_reference(label) ? " = oneDNN's reference loops (no fast kernel on this CPU): * not a fair peer comparison" : "")
                 << '\n';
    }

    // The GEMM cases of PyTorch whose name holds `key` that bench/pytorch_peer.py left out, and why.
    void print_pytorch_skipped(const std::string& key)
    {
        if (!pytorch_) return;
        for (const auto& [name, why] : pytorch_->skipped)
            if (name.find(key) != std::string::npos) out_ << "  PyTorch left out " << name << ": " << why << '\n';
    }

    void print_gemm_f32()
    {
        TargetTally blas_tally{format("tinyamp f32 >= %.2fx OpenBLAS sgemm", targets_.f32_vs_openblas)};
        std::vector<std::string> rows;
        for (std::int64_t n : kGemmSizes)
            for (int threads : kGemmThreads) {
                const auto ours = gemm_gflops(GemmImpl::tinyamp_f32, n, threads), blas = gemm_gflops(GemmImpl::openblas_f32, n, threads),
                           dnnl = gemm_gflops(GemmImpl::onednn_f32, n, threads);
                const auto torch = pytorch_gemm_gflops("f32", n, threads);
                if (!ours && !blas && !dnnl && !torch) continue;
                const bool applies = n >= targets_.gemm_min_n;
                std::string row = format("  %4lld %2d | ", static_cast<long long>(n), threads) + gflops_cell(ours, 11) + " | " +
                                  peer(blas, ours, 8, {targets_.f32_vs_openblas}, applies, &blas_tally, where(n, threads)) + " | " +
                                  peer(dnnl, ours, 10, {0, onednn_is_reference(onednn_label(GemmImpl::onednn_f32, n, threads))}, applies,
                                       nullptr, "");
                if (pytorch_) row += " | " + peer(torch, ours, 11, {}, applies, nullptr, "");
                rows.push_back(row);
            }
        if (rows.empty()) return;
        out_ << "\nGEMM f32 on " << machine_.hardware.cpu_name << ", tinyamp's f32 tier " << machine_.hardware.f32_tier
             << ": C = A B, square N x N, row-major;\nGFLOP/s = 2 N^3 / median time (higher is better); ratio = tinyamp / the peer\n"
             << "   N thr | tinyamp f32 | OpenBLAS  ratio      | oneDNN f32  ratio      " << (pytorch_ ? "| PyTorch f32  ratio" : "") << '\n';
        for (const std::string& row : rows) out_ << row << '\n';
        out_ << format("  Target from N = %lld: tinyamp f32 >= %.2fx OpenBLAS (met / MISS); the other ratios are for information.\n",
                       static_cast<long long>(targets_.gemm_min_n), targets_.f32_vs_openblas);
        print_onednn_implementations(GemmImpl::onednn_f32, "f32");
        print_pytorch_skipped("pytorch_f32");
        tallies_.push_back(blas_tally);
    }

    // The verdict on tinyamp bf16 / oneDNN bf16 in one row, from the implementation oneDNN chose.
    Verdict onednn_bf16_verdict(const std::string& label)
    {
        if (label.empty()) return {};
        if (onednn_is_reference(label)) return {0, true};
        if (onednn_uses_amx(label) && !machine_.amx_in_use) return {};  // AMX against vector units: said in the notes
        return {targets_.bf16_vs_onednn};
    }

    // Below the f16/bf16 table: oneDNN's implementations, and why a comparison is not fair or not
    // judged here (oneDNN on AMX or its reference loops, PyTorch's bf16, no peer, no speed-up goal).
    void print_low_precision_notes(const std::set<std::string>& amx_peer, const std::set<std::string>& reference,
                                   const std::string& torch_unfair, bool onednn_judged, bool speedup_judged)
    {
        print_onednn_implementations(GemmImpl::onednn_bf16, "bf16");
        if (!amx_peer.empty()) {
            const std::string why = "oneDNN multiplies on AMX tiles here (" + *amx_peer.begin() + ") while tinyamp's amx tier is off (" +
                                    machine_.amx + ")";
            out_ << "  tinyamp bf16 / oneDNN bf16 is tinyamp's vector units against oneDNN's matrix engine: " << why << ".\n";
            not_judged_.push_back("tinyamp bf16 >= oneDNN bf16: " + why);
        }
        if (!reference.empty())
            not_judged_.push_back("tinyamp bf16 >= oneDNN bf16: oneDNN runs its reference loops here (" + *reference.begin() +
                                  "), not a fair peer comparison");
        if (!torch_unfair.empty()) out_ << "  * PyTorch bf16: not a fair peer comparison: " << torch_unfair << ".\n";
        print_pytorch_skipped("pytorch_bf16");
        if (!onednn_judged) {
            const std::string why = onednn_unavailable_reason(bf16);
            if (!why.empty()) not_judged_.push_back("tinyamp bf16 >= oneDNN bf16: no oneDNN bf16 peer on this CPU");
        }
        if (!speedup_judged)
            not_judged_.push_back(std::string("tinyamp bf16 faster than tinyamp f32: bf16 products are ") +
                                  backends::cpu::bf16_speed_name(machine_.hardware.bf16_speed) + " on this CPU (see the expectation below)");
    }

    void print_gemm_low_precision()
    {
        const bool amx = machine_.amx_in_use;
        const Bf16Speed speed = machine_.hardware.bf16_speed;
        TargetTally onednn_tally{format("tinyamp bf16%s >= %.2fx oneDNN bf16", amx ? " (amx)" : "", targets_.bf16_vs_onednn)};
        // 0: no target, where bf16 products cannot be faster than f32 here.
        const double speedup_goal = speed == Bf16Speed::several_times_faster ? targets_.bf16_vs_f32_amx
                                    : speed == Bf16Speed::faster             ? targets_.bf16_vs_f32_dot
                                                                             : 0.0;
        TargetTally speedup_tally{format("tinyamp bf16%s >= %.1fx tinyamp f32", amx ? " (amx)" : "", speedup_goal)};
        const std::string torch_unfair = pytorch_ ? pytorch_->bf16_unfair_reason() : "";
        std::vector<std::string> rows;
        std::set<std::string> amx_peer;   // oneDNN implementations on AMX while tinyamp's amx tier is off
        std::set<std::string> reference;  // oneDNN's reference loops
        for (std::int64_t n : kGemmSizes)
            for (int threads : kGemmThreads) {
                const auto f16 = gemm_gflops(GemmImpl::tinyamp_f16, n, threads), ours = gemm_gflops(GemmImpl::tinyamp_bf16, n, threads),
                           f32_gflops = gemm_gflops(GemmImpl::tinyamp_f32, n, threads),
                           dnnl = gemm_gflops(GemmImpl::onednn_bf16, n, threads);
                const auto torch = pytorch_gemm_gflops("bf16", n, threads);
                if (!f16 && !ours && !dnnl && !torch) continue;
                const bool applies = n >= targets_.gemm_min_n;
                const std::string label = onednn_label(GemmImpl::onednn_bf16, n, threads);
                if (onednn_uses_amx(label) && !amx) amx_peer.insert(label);
                if (onednn_is_reference(label)) reference.insert(label);
                std::string row = format("  %4lld %2d | ", static_cast<long long>(n), threads) + gflops_cell(f16, 11) + " | " +
                                  gflops_cell(ours, 12) + " | " +
                                  peer(dnnl, ours, 11, onednn_bf16_verdict(label), applies, &onednn_tally, where(n, threads)) + " | ";
                if (pytorch_) row += peer(torch, ours, 12, {0, !torch_unfair.empty()}, applies, nullptr, "") + " | ";
                const std::optional<double> speedup = ratio(ours, f32_gflops);
                std::string mark;
                if (speedup && speedup_goal > 0 && applies) mark = speedup_tally.judge(*speedup, speedup_goal, true, where(n, threads));
                rows.push_back(row + cell(speedup, "%5.2f", 5) + format(" %s", mark.c_str()));
            }
        if (rows.empty()) return;
        out_ << "\nGEMM f16 and bf16 on " << machine_.hardware.cpu_name << ", tinyamp's tiers f16 " << machine_.f16_tier << " and bf16 "
             << machine_.hardware.bf16_tier << ": the same products, f32 accumulation;\nGFLOP/s (higher is better); ratio = tinyamp bf16 / the peer\n"
             << "   N thr | tinyamp f16 | tinyamp bf16 | oneDNN bf16  ratio      " << (pytorch_ ? "| PyTorch bf16  ratio      " : "")
             << "| bf16/f32\n";
        for (const std::string& row : rows) out_ << row << '\n';
        out_ << "  bf16/f32 = tinyamp bf16 / tinyamp f32 (the GEMM f32 table). Targets from N = " << targets_.gemm_min_n << " (met / MISS)";
        if (amx) out_ << ", with the amx tier in use";
        out_ << ".\n";
        print_low_precision_notes(amx_peer, reference, torch_unfair, onednn_tally.judged > 0, speedup_goal != 0);
        tallies_.push_back(onednn_tally);
        tallies_.push_back(speedup_tally);
    }

    void print_dispatch()
    {
        TargetTally linear_tally{format("Linear(8,8) forward under autocast <= %.1f us (set on a Zen 5)", targets_.linear_autocast_us)};
        if (!any_ran("dispatch/")) return;
        out_ << "\nPer-op overhead on " << machine_.hardware.cpu_name
             << ", microseconds per call (lower is better); autocast = amp::autocast(\"cpu\"), bf16\n"
             << "  case                             plain  autocast  autocast/plain  how the region is entered\n";
        for (DispatchCase c : kDispatchCases) {
            const auto us = [&](bool autocast) -> std::optional<double> {
                const std::optional<double> s = median_seconds(dispatch_bench_name(c, autocast));
                if (!s) return std::nullopt;
                return *s * 1e6;
            };
            const auto plain = us(false), with_autocast = us(true);
            if (!plain && !with_autocast) continue;
            std::string verdict;
            if (c == DispatchCase::linear_forward && with_autocast)
                verdict = format("  target <= %.1f us: %s", targets_.linear_autocast_us,
                                 linear_tally.judge(*with_autocast, targets_.linear_autocast_us, false, "").c_str());
            out_ << format("  %-31s", dispatch_case_label(c)) << cell(plain, "%6.2f", 6) << cell(with_autocast, "%10.2f", 10)
                 << cell(ratio(with_autocast, plain), "%16.2f", 16) << "  " << dispatch_autocast_note(c) << verdict << '\n';
        }
        if (pytorch_) {
            const auto us = [](std::optional<double> s) { return s ? std::optional(*s * 1e6) : std::nullopt; };
            const std::string plain_name = dispatch_bench_name(DispatchCase::linear_forward, false),
                              autocast_name = dispatch_bench_name(DispatchCase::linear_forward, true);
            const auto plain = us(pytorch_->find(plain_name)), with_autocast = us(pytorch_->find(autocast_name));
            if (plain || with_autocast)
                out_ << format("  %-31s", "PyTorch: Linear(8,8) forward") << cell(plain, "%6.2f", 6) << cell(with_autocast, "%10.2f", 10)
                     << cell(ratio(with_autocast, plain), "%16.2f", 16) << "  torch.autocast(\"cpu\", bf16), entered once, around the loop\n"
                     << format("  %-31s", "tinyamp / PyTorch, Linear(8,8)") << cell(ratio(us(median_seconds(plain_name)), plain), "%6.2f", 6)
                     << cell(ratio(us(median_seconds(autocast_name)), with_autocast), "%10.2f", 10) << "  (for information)\n";
        }
        tallies_.push_back(linear_tally);
    }

    // A row per mode that ran: tinyamp's median in ms, and where PyTorch ran its median and
    // tinyamp / PyTorch, judged against `goal` (at most), or "*" where PyTorch's bf16 is no fair
    // peer. `row_end(bf16_mode, seconds)` adds to a row.
    void print_peer_rows(std::string (*name_of)(bool), const std::array<std::optional<double>, 2>& seconds, double goal,
                         TargetTally& tally, const std::function<std::string(bool, double)>& row_end = {})
    {
        const std::string torch_unfair = pytorch_ ? pytorch_->bf16_unfair_reason() : "";
        for (bool bf16_mode : {false, true}) {
            const std::optional<double> s = seconds[bf16_mode];
            if (!s) continue;
            out_ << format("  %-4s %9.2f", bf16_mode ? "bf16" : "f32", *s * 1e3);
            if (pytorch_) {
                const std::optional<double> torch = pytorch_->find(name_of(bf16_mode));
                const std::optional<double> r = ratio(s, torch);
                std::string mark;
                if (r) mark = bf16_mode && !torch_unfair.empty() ? "*" : tally.judge(*r, goal, false, bf16_mode ? "bf16 mode" : "f32 mode");
                out_ << (torch ? format("%10.2f", *torch * 1e3) : format("%10s", "-")) << cell(r, "%17.2f", 17) << ' '
                     << format("%-4s", mark.c_str());
            }
            if (row_end) out_ << row_end(bf16_mode, *s);
            out_ << '\n';
        }
    }

    void print_digits()
    {
        TargetTally f32_tally{format("digits epoch in f32 <= %.1f ms (set on a Zen 5)", targets_.digits_f32_epoch_ms)};
        const bool bf16_can_be_faster = machine_.hardware.bf16_speed != Bf16Speed::not_faster;
        // Issue 41: faster where bf16 has its own arithmetic, no slower where it is widened to f32.
        TargetTally bf16_tally{bf16_can_be_faster ? "digits epoch in bf16 faster than in f32" : "digits epoch in bf16 no slower than in f32"};
        TargetTally torch_tally{format("digits epoch <= %.1fx PyTorch's, same mode", targets_.digits_vs_pytorch)};
        const std::optional<double> f32_s = median_seconds(digits_bench_name(false)), bf16_s = median_seconds(digits_bench_name(true));
        if (!f32_s && !bf16_s) return;
        const std::string torch_unfair = pytorch_ ? pytorch_->bf16_unfair_reason() : "";
        const Timing* t = results_.find(digits_bench_name(f32_s ? false : true));
        out_ << "\nDigits MLP on " << machine_.hardware.cpu_name << " (bf16 GEMM tier " << machine_.hardware.bf16_tier
             << "), one training epoch as tinyamp-train --model mlp runs it\n(64-256-256-10, batch 64, 1437 samples), milliseconds (median of "
             << (t ? t->seconds.size() : 0) << " epochs after a warm-up; lower is better)\n"
             << "  mode   tinyamp" << (pytorch_ ? "   PyTorch  tinyamp/PyTorch" : "") << '\n';
        print_peer_rows(digits_bench_name, {f32_s, bf16_s}, targets_.digits_vs_pytorch, torch_tally, [&](bool bf16_mode, double s) {
            return bf16_mode ? std::string()
                             : format("  target tinyamp f32 <= %.1f ms: %s", targets_.digits_f32_epoch_ms,
                                      f32_tally.judge(s * 1e3, targets_.digits_f32_epoch_ms, false, "").c_str());
        });
        if (const auto speedup = ratio(f32_s, bf16_s))
            out_ << format("  tinyamp f32/bf16 = %.2fx: target %s (%s tier): %s\n", *speedup, bf16_tally.text.c_str(),
                           machine_.hardware.bf16_tier.c_str(), bf16_tally.judge(*speedup, 1.0, true, "").c_str());
        if (pytorch_)
            out_ << format("  Target tinyamp <= %.1fx PyTorch's epoch in the same mode (PyTorch's loop does only the training step; "
                           "tinyamp-train's epoch\n  also counts zero gradients and reads memory counters at every step).\n",
                           targets_.digits_vs_pytorch);
        if (pytorch_ && bf16_s && !torch_unfair.empty()) {
            out_ << "  * PyTorch bf16: not a fair peer comparison: " << torch_unfair << ".\n";
            not_judged_.push_back(
                format("digits epoch in bf16 <= %.1fx PyTorch's: PyTorch has no fast bf16 kernel on this CPU", targets_.digits_vs_pytorch));
        }
        tallies_.push_back(f32_tally);
        tallies_.push_back(bf16_tally);
        tallies_.push_back(torch_tally);
    }

    // The GPT step against PyTorch's in the same mode, and bf16 against f32 (issue 41's targets).
    void print_gpt_step()
    {
        const std::optional<double> f32_s = median_seconds(gpt_step_bench_name(false)), bf16_s = median_seconds(gpt_step_bench_name(true));
        if (!f32_s && !bf16_s) return;
        TargetTally torch_tally{format("GPT step <= %.1fx PyTorch's, same mode", targets_.gpt_vs_pytorch)};
        const Bf16Speed speed = machine_.hardware.bf16_speed;
        TargetTally bf16_tally{speed == Bf16Speed::not_faster ? std::string("GPT step in bf16 no slower than in f32")
                                                              : format("GPT step in bf16 >= %.1fx faster than in f32", targets_.gpt_bf16_speedup)};
        const std::string torch_unfair = pytorch_ ? pytorch_->bf16_unfair_reason() : "";
        const Timing* t = results_.find(gpt_step_bench_name(f32_s ? false : true));
        out_ << "\nGPT step on " << machine_.hardware.cpu_name << " (" << machine_.tiers() << "; bf16 GEMM tier " << machine_.hardware.bf16_tier
             << "), one training step as tinyamp-train --model gpt runs it\n(4 blocks, 4 heads, width 128, context 128, batch 16, AdamW, "
                "clip 1), milliseconds (median of "
             << (t ? t->seconds.size() : 0) << " steps after 2 warm-up steps; lower is better)\n"
             << "  mode   tinyamp" << (pytorch_ ? "   PyTorch  tinyamp/PyTorch" : "") << '\n';
        print_peer_rows(gpt_step_bench_name, {f32_s, bf16_s}, targets_.gpt_vs_pytorch, torch_tally);
        if (const auto speedup = ratio(f32_s, bf16_s)) {
            const bool faster_needed = speed != Bf16Speed::not_faster;
            out_ << format("  tinyamp f32/bf16 = %.2fx: target %s: %s\n", *speedup, bf16_tally.text.c_str(),
                           bf16_tally.judge(*speedup, faster_needed ? targets_.gpt_bf16_speedup : 1.0, true, "").c_str());
        }
        if (pytorch_ && bf16_s && !torch_unfair.empty()) out_ << "  * PyTorch bf16: not a fair peer comparison: " << torch_unfair << ".\n";
        tallies_.push_back(torch_tally);
        tallies_.push_back(bf16_tally);
    }

    void print_noise()
    {
        std::vector<std::pair<double, std::string>> spreads;
        for (const auto& [name, timing] : results_.all())
            if (!timing.seconds.empty()) spreads.emplace_back(timing.spread(), name);
        if (spreads.empty()) return;
        std::sort(spreads.rbegin(), spreads.rend());
        out_ << "\nNoise: (slowest - fastest) / median over the repetitions; the noisiest benchmarks:\n";
        for (std::size_t i = 0; i < std::min<std::size_t>(3, spreads.size()); ++i)
            out_ << format("  %5.1f%%  %s\n", spreads[i].first * 100, spreads[i].second.c_str());
    }

    int print_targets()
    {
        int missed = 0;
        out_ << "\nTargets on " << machine_.hardware.cpu_name << " (" << machine_.tiers() << "; benchmarks, not tests):\n";
        if (std::none_of(tallies_.begin(), tallies_.end(), [](const TargetTally& t) { return t.judged > 0; }))
            out_ << "  none judged in this run (their benchmarks were filtered out, or N was below " << targets_.gemm_min_n << ")\n";
        for (const TargetTally& t : tallies_) {
            if (t.judged == 0) continue;
            const bool all_met = t.met == t.judged;
            missed += !all_met;
            out_ << format("  %-62s %-7s", t.text.c_str(), all_met ? "met" : "NOT MET");
            if (t.judged > 1) out_ << format(" (met in %d of %d rows; worst %.2f at %s)", t.met, t.judged, t.worst, t.worst_where.c_str());
            out_ << '\n';
        }
        if (!not_judged_.empty()) {
            out_ << "Not judged on this machine:\n";
            for (const std::string& line : not_judged_) out_ << "  " << line << '\n';
        }
        if (machine_.hardware.bf16_speed == Bf16Speed::not_faster)
            out_ << "Expectation for bf16 here, instead of a speed target: " << machine_.hardware.expectation << '\n';
        return missed;
    }
};

}  // namespace

int print_summary(std::ostream& out, const ResultCollector& results, const MachineInfo& machine, const PytorchResults* pytorch,
                  const Targets& targets)
{
    return Summary(out, results, machine, pytorch, targets).print();
}

}  // namespace tinyamp::bench
