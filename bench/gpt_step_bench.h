#pragma once
// One training step of the small GPT of docs/gpt_study.md, exactly as tinyamp-train --model gpt
// runs it (training/gpt_trainer.h: 4 blocks, 4 heads, width 128, context 128, batch 16, AdamW,
// clipping at 1), in f32 and under bf16 autocast; bench/pytorch_peer.py times the same model in
// PyTorch. While the steps are timed, trace::OpTimingRecorder notes where their time goes, and
// print_gpt_step_breakdown sorts it by kind of op (GEMM, attention, normalization, ...).

#include <iosfwd>
#include <string>

namespace tinyamp::bench {

/// "gpt_step/f32" or "gpt_step/bf16".
std::string gpt_step_bench_name(bool bf16);

void register_gpt_step_benchmarks();

/// The time per step by kind of op, f32 beside bf16, for the steps that ran (nothing when none did).
void print_gpt_step_breakdown(std::ostream& out);

}  // namespace tinyamp::bench
