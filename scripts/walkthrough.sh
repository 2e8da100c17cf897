#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the walkthrough: the
# dtypes tour, then three epochs of the digits MLP in each of the four precision modes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$root/build" >/dev/null
"$root/build/examples/dtypes"
echo
echo "== Training the digits MLP for 3 epochs in f32, bf16, f16 + GradScaler and f16 alone"
echo "   (tools/train; the 30-epoch figures are in docs/training.md)"
"$root/build/tools/train/tinyamp-train" --mode all --epochs 3
