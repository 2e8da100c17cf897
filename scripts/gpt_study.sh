#!/usr/bin/env bash
# Reproduces the figures of docs/gpt_study.md: the character-level GPT of tinyamp-train in every
# AMP mode, then the provoked failure (attention logits grown past f16's range on purpose).
#
#   scripts/gpt_study.sh [OUT_DIR] [SEEDS...]     default: docs/gpt_study, seed 0
#
# Per seed S it writes OUT_DIR/seedS_{steps,evals,layers}.csv and OUT_DIR/seedS_*.svg (the full
# runs: f32, bf16, f16 with and without a GradScaler, the study's default size; about 5 minutes a
# mode on 2 cores), OUT_DIR/seedS_MODE_* for the FP8 modes (TINYAMP_STUDY_FP8_MODES="..." picks
# some, "" none), and OUT_DIR/provoked_ATTENTION_{steps,evals,layers}.csv and _*.svg
# (c_attn initialized at std 20, 100 steps, fused and composite attention). Builds tinyamp-train
# first if needed. The logs (the tables the study quotes) go to OUT_DIR/*.log.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/docs/gpt_study}"
shift || true
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(0)
train="$root/build/tools/train/tinyamp-train"
[ -x "$train" ] || TINYAMP_BUILD_TARGET=tinyamp-train "$root/scripts/build.sh" "$root/build"
mkdir -p "$out"

for seed in "${seeds[@]}"; do
  echo "== seed $seed: f32, bf16, f16-scaler, f16-no-scaler (the study's default size)"
  "$train" --model gpt --mode all --seed "$seed" --csv "$out/seed$seed" --plots --no-progress | tee "$out/seed$seed.log"
  # The FP8 modes (Linear layers in FP8), one run each: about 7-8 minutes for fp8-current and
  # fp8-delayed on 2 cores, about 12 for mxfp8 (its per-block scaling passes come on top).
  for mode in ${TINYAMP_STUDY_FP8_MODES:-fp8-current fp8-delayed mxfp8}; do
    echo "== seed $seed: $mode"
    "$train" --model gpt --mode "$mode" --seed "$seed" --csv "$out/seed${seed}_$mode" --plots --no-progress | tee "$out/seed${seed}_$mode.log"
  done
done

# The provoked failure: c_attn's weights at std 20 (1000 times nanoGPT's 0.02) make q and k of std
# 20 * sqrt(128) = 226 and logits q.k / sqrt(32) of std about 226^2 = 51,000 (training/gpt_model.h,
# qkv_init_std). The fused attention keeps them in f32; the composite one stores them in the
# activations' dtype.
for attention in fused composite; do
  echo "== provoked: c_attn initialized at std 20, $attention attention, 100 steps"
  "$train" --model gpt --mode all --qkv-init-std 20 --attention "$attention" --steps 100 --eval-interval 25 --sample-chars 0 \
    --csv "$out/provoked_$attention" --plots --no-progress | tee "$out/provoked_$attention.log"
done

# The tables of docs/gpt_study.md over every seed in OUT_DIR (CTest's docs_gpt_study_tables holds
# the doc to them).
python3 "$root/scripts/gpt_study_summary.py" "$out"
