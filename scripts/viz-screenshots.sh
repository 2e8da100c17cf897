#!/usr/bin/env bash
# Renders the visualizer's screenshots headless (SDL's offscreen driver: no display needed) into
# a folder: scripts/viz-screenshots.sh [OUT_DIR] (default docs/images). The docs use these real
# screenshots; the walkthrough renders them into build/tour/visualizer/ for the tour's index page.
# Needs a build: scripts/build.sh (TINYAMP_VIZ=path overrides where tinyamp-viz is).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/docs/images}"
viz="${TINYAMP_VIZ:-$root/build/visualizer/tinyamp-viz}"
if [ ! -x "$viz" ]; then
  echo "viz-screenshots: $viz is not built (run scripts/build.sh; the visualizer needs scripts/install-deps.sh's SDL2 and Dear ImGui)" >&2
  exit 1
fi
mkdir -p "$out"
export SDL_VIDEODRIVER=offscreen
shot() { "$viz" --screenshot "$out/$1" --frames 3 "${@:2}"; }
# --zoom 1: the first view (at the readable zoom) centred on the selected node, not the drawing's top-left.
# 1. The forward pass under bf16 autocast, stopped at the first micro-batch's loss: the weights'
#    casts (magenta tags), bf16 linears, the loss back in f32.
shot viz_forward_bf16.png --scenario mlp-bf16 --steps 3 --position 14 --select linear --zoom 1
# 2. The whole step, with a backward linear selected: its gradients come back in bf16, and the
#    casts' backward turns them into the f32 gradients of the f32 weights.
shot viz_backward_bf16.png --scenario mlp-bf16 --steps 3 --position end --select backward:linear --zoom 1
# 3. The inspector on an f32 training's gradient: the log2|x| histogram against f16's range.
shot viz_inspector_histogram.png --scenario mlp-f32 --steps 10 --position end --select backward:AccumulateGrad
# 4. f16 with a GradScaler that starts too high: its first view, the first step's overflow (every
#    value of the last Linear's backward inf, the step skipped); then after 40 steps, skipped steps
#    (red x), the scale halving and then growing every growth_interval clean steps.
shot viz_scaler_overflow.png --scenario mlp-f16-scaler
shot viz_scaler.png --scenario mlp-f16-scaler --steps 40 --position end --select backward:linear
# 5. The policy table: the CUDA lists, editable.
shot viz_policy_table.png --scenario mlp-f16-scaler --steps 5 --tab policy
# 6. A large graph up close: the deep scenario at 2x its first view's zoom on the timeline's linear
#    (--select none: not the scenario's opening node), with
#    the minimap framing the part in view.
shot viz_deep_zoomed.png --scenario deep-bf16 --position 60 --select none --zoom 2
# 7. The deep scenario's first view: one box per layer and pass, its casts on a badge, the
#    backward column beside the forward one, neither cut; the first layer selected.
shot viz_deep_folded.png --scenario deep-bf16
# 8. FP8 training: a forward fp8_linear under delayed scaling after a few steps, its input and
#    weight casts in the inspector (amax history, log2|x * scale| against E4M3's range); a taller
#    window so both sections show.
shot viz_fp8_delayed.png --scenario mlp-fp8-delayed --steps 5 --select fp8_linear --size 1280x1000
# 9. The gpt scenario: one transformer block under f16 autocast with a GradScaler, the fused
#    attention selected (its f16 output against f16's range), then its backward.
shot viz_gpt.png --scenario gpt --steps 5 --select scaled_dot_product_attention --zoom 1 --size 1280x1000
shot viz_gpt_backward.png --scenario gpt --steps 5 --select backward:scaled_dot_product_attention --zoom 1 --size 1280x1000
# 10. The recorded ddp-bf16 scenario (rank 0 of a 2-rank DistributedDataParallel step): the first
#     backward all_reduce selected, its f32 gradient leaving the rank in bf16 (the hexagons), the
#     bytes sent in the inspector.
shot viz_ddp_bf16.png --scenario ddp-bf16 --zoom 1 --size 1280x900
