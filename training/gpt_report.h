#pragma once
// What tinyamp-train --model gpt prints and writes: a line per evaluation with the per-block
// ranges, the closing comparison table of the modes, and the SVG pictures of the curves.

#include <string>
#include <utility>
#include <vector>

#include "training/gpt_trainer.h"

namespace tinyamp::train {

/// One finished run: its settings and what it measured.
struct GptRunRecord {
    GptTrainConfig config;
    GptResult result;
};

/// "f16-scaler step  300  train 2.1234  val 2.2345  logit max 12.3 (L0) ... act max ... f16 overflow 0.00%"
void print_gpt_eval(const GptTrainConfig& config, const GptEval& eval);

/// The table of the runs: final val loss, skipped steps, the largest attention logit and
/// activation seen, f16 overflow, median step time and tokens per second, peak memory.
void print_gpt_summary(const std::vector<GptRunRecord>& runs);

/// Writes PREFIX_loss.svg (validation loss against step, one line per run), PREFIX_logits.svg
/// (the largest |attention logit| of any block against step, log scale, f16's 65504 marked) and,
/// when a run has a GradScaler, PREFIX_scale.svg (its scale against step); the folder of
/// \p prefix is created if missing. Returns the paths written.
std::vector<std::string> write_gpt_plots(const std::vector<GptRunRecord>& runs, const std::string& prefix);

}  // namespace tinyamp::train
