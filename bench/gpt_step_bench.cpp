#include "bench/gpt_step_bench.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "bench/library_switch.h"
#include "bench/per_mode_benchmarks.h"
#include "training/gpt_trainer.h"

namespace tinyamp::bench {

namespace {

constexpr int kWarmupSteps = 2;  // the first steps also pay for first-touch page faults and pool start-up
constexpr int kTimedSteps = 8;   // one Google Benchmark repetition each

// What the timed steps of one mode left behind for the breakdown.
struct StepProfile {
    trace::OpTimes ops;
    double step_seconds = 0;  // the steps' own measure (GptStep::seconds), summed
    int steps = 0;
};

std::array<StepProfile, 2> profiles;  // [bf16]

// The study's run (training/gpt_trainer.h's defaults) in f32 or bf16, made once per mode and
// warmed up; each repetition of the benchmark then runs its next step.
train::GptStepper& stepper(bool bf16)
{
    static std::array<std::unique_ptr<train::GptStepper>, 2> steppers;
    if (!steppers[bf16]) {
        train::GptTrainConfig config;
        config.mode = bf16 ? train::Mode::bf16 : train::Mode::f32;
        steppers[bf16] = std::make_unique<train::GptStepper>(config);
        for (int i = 0; i < kWarmupSteps; ++i) steppers[bf16]->step();
    }
    return *steppers[bf16];
}

void time_gpt_step(benchmark::State& state, bool bf16)
{
    wait_when_library_changes(Library::tinyamp);
    set_num_threads(2);  // tinyamp's default, and PyTorch's in bench/pytorch_peer.py
    train::GptStepper& run = stepper(bf16);
    StepProfile& profile = profiles[bf16];
    for (auto _ : state) {
        trace::OpTimingRecorder timing(profile.ops);
        const train::GptStep step = run.step();
        state.SetIterationTime(step.seconds);
        profile.step_seconds += step.seconds;
        ++profile.steps;
    }
}

// The kind of work a timed piece is (trace/op_timing.h's keys: an op's name, a backward node's
// name and " backward", "AdamW.step", "clip_grad_norm_").
const char* kind_of(std::string key)
{
    const std::string suffix = " backward";
    if (key.size() > suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0)
        key.resize(key.size() - suffix.size());
    static const std::map<std::string, const char*> kinds = {
        {"linear", "GEMM"}, {"matmul", "GEMM"}, {"mm", "GEMM"}, {"bmm", "GEMM"}, {"addmm", "GEMM"},
        {"scaled_dot_product_attention", "attention"}, {"softmax", "attention"},
        {"layer_norm", "normalization"},
        {"gelu", "elementwise"}, {"add", "elementwise"}, {"sub", "elementwise"}, {"mul", "elementwise"}, {"div", "elementwise"},
        {"tanh", "elementwise"}, {"exp", "elementwise"}, {"relu", "elementwise"},
        {"cross_entropy", "loss"}, {"embedding", "embedding"}, {"to", "casts"},
        {"AdamW.step", "optimizer"}, {"clip_grad_norm_", "optimizer"},
    };
    const auto it = kinds.find(key);
    return it == kinds.end() ? "other ops" : it->second;
}

// The pieces that took longest in f32 or bf16, ms per step in each: which op a change should move.
void print_slowest_keys(std::ostream& out)
{
    std::map<std::string, std::array<double, 2>> ms;
    for (bool bf16 : {false, true})
        for (const auto& [key, time] : profiles[bf16].ops.by_key)
            if (profiles[bf16].steps > 0) ms[key][bf16] = time.seconds * 1e3 / profiles[bf16].steps;
    std::vector<std::pair<double, std::string>> slowest;
    for (const auto& [key, both] : ms) slowest.emplace_back(std::max(both[0], both[1]), key);
    std::sort(slowest.rbegin(), slowest.rend());
    out << "  the slowest pieces (ms per step, f32 / bf16):";
    for (std::size_t i = 0; i < std::min<std::size_t>(10, slowest.size()); ++i) {
        const auto& both = ms[slowest[i].second];
        char cell[96];
        std::snprintf(cell, sizeof cell, "%s %s %.1f / %.1f", i % 3 == 0 ? "\n   " : ";", slowest[i].second.c_str(), both[0], both[1]);
        out << cell;
    }
    out << '\n';
}

}  // namespace

std::string gpt_step_bench_name(bool bf16) { return bf16 ? "gpt_step/bf16" : "gpt_step/f32"; }

void register_gpt_step_benchmarks()
{
    register_per_mode(gpt_step_bench_name, time_gpt_step, kTimedSteps);
}

void print_gpt_step_breakdown(std::ostream& out)
{
    if (profiles[0].steps == 0 && profiles[1].steps == 0) return;
    // ms per step by kind, [bf16]; "other ops" lists the keys it holds.
    std::array<std::map<std::string, double>, 2> ms;
    std::set<std::string> other_keys;
    for (bool bf16 : {false, true}) {
        const StepProfile& p = profiles[bf16];
        if (p.steps == 0) continue;
        for (const auto& [key, time] : p.ops.by_key) {
            ms[bf16][kind_of(key)] += time.seconds * 1e3 / p.steps;
            if (std::string(kind_of(key)) == "other ops") other_keys.insert(key);
        }
        ms[bf16]["outside ops (dispatch, engine, graph)"] = (p.step_seconds - p.ops.total_seconds()) * 1e3 / p.steps;
        ms[bf16]["= the step"] = p.step_seconds * 1e3 / p.steps;
    }
    out << "\nGPT step by kind of work (trace::OpTimingRecorder over the timed steps; ms per step, share of the step):\n"
        << "  kind                                       f32            bf16\n";
    const char* order[] = {"GEMM",  "attention", "normalization", "elementwise", "loss",  "embedding",
                           "casts", "optimizer", "other ops",     "outside ops (dispatch, engine, graph)", "= the step"};
    for (const char* kind : order) {
        out << "  " << kind << std::string(40 - std::string(kind).size(), ' ');
        for (bool bf16 : {false, true}) {
            const auto it = ms[bf16].find(kind);
            const double total = ms[bf16].count("= the step") ? ms[bf16]["= the step"] : 0;
            char cell[32];
            if (it == ms[bf16].end() || total <= 0)
                std::snprintf(cell, sizeof cell, "%16s", "-");
            else
                std::snprintf(cell, sizeof cell, "%9.1f %5.1f%%", it->second, 100 * it->second / total);
            out << cell;
        }
        out << '\n';
    }
    print_slowest_keys(out);
    if (!other_keys.empty()) {
        out << "  other ops:";
        for (const std::string& key : other_keys) out << ' ' << key << ';';
        out << '\n';
    }
}

}  // namespace tinyamp::bench
