#!/usr/bin/env bash
# Run everything of tinyamp that needs a GPU, on a machine that has one, and keep every log.
#
#   scripts/gpu-check.sh BIN_DIR OUT_DIR
#
# BIN_DIR holds binaries built with the CUDA backend (cuda_tests, cuda_bench, lesson_13, lesson_16,
# lab_05, lab_06, lab_07, lab_16, tinyamp_tests), flat, as scripts/gpu-pack.sh unpacks them; OUT_DIR
# receives one log per step and summary.txt, and OUT_DIR.tar.gz holds them all. The binaries may
# be built on another machine (nvcc needs no GPU): this script only runs them. docs/cuda.md says
# where the figures went.
set -u
bin=${1:?usage: scripts/gpu-check.sh BIN_DIR OUT_DIR}
out=${2:?usage: scripts/gpu-check.sh BIN_DIR OUT_DIR}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/packed-binaries.sh
source "$root/scripts/packed-binaries.sh"
use_packed_binaries "$bin"
# The CUDA runtime and cuBLAS the binaries were linked against (libcudart.so.13, libcublas.so.13),
# where the machine keeps them elsewhere than /usr/local/cuda.
if ldd "$bin/cuda_tests" | grep -q 'not found'; then  # elsewhere, e.g. in pip's nvidia-cublas wheel
    for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13; do
        found=$(find / -name "$lib" -not -path '/proc/*' 2>/dev/null | head -n 1)
        [ -n "$found" ] && export LD_LIBRARY_PATH="$(dirname "$found"):$LD_LIBRARY_PATH"
    done
fi

summary="$out/summary.txt"
{
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv 2>&1
    ldd "$bin/cuda_tests" | grep -E 'cuda|cublas|not found'
} > "$summary"


step cuda_tests 150 "$bin/cuda_tests" --duration=true
step lesson_16 60 "$bin/lesson_16" --out "$out/lesson_16"
step lab_16 30 "$bin/lab_16" -ts=lab16
step lab_05 30 "$bin/lab_05" -ts=lab05
step lab_06 30 "$bin/lab_06" -ts=lab06
step lab_07 30 "$bin/lab_07" -ts=lab07
step lesson_13 60 "$bin/lesson_13" --out "$out/lesson_13"
# The library's own tests that look at the GPU when there is one (device, storage, autocast, scaler).
step unit_cuda_aware 120 "$bin/tinyamp_tests" \
    -sf='*device_test*,*storage_test*,*autocast_state_test*,*grad_scaler_test*,*cast_cache_test*,*autocast_ops_test*,*cast_policy_test*,*engine_test*,*amp_scaling_test*'
# PyTorch's time for the benchmark's training step first, on the same GPU, as its peer.
peer=()
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
    step pytorch_mlp 60 python3 "$root/bench/cuda/pytorch_mlp_step.py" --csv "$out/pytorch_mlp.csv"
    peer=(--pytorch-csv="$out/pytorch_mlp.csv")
fi
step cuda_bench 150 "$bin/cuda_bench" "${peer[@]}"
# Out-of-bounds and misaligned accesses in the kernels (the out-of-memory test is left out: it
# allocates most of the GPU, which the sanitizer's shadow memory cannot match).
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ -n "$sanitizer" ]; then
    step memcheck 240 "$sanitizer" --tool memcheck --error-exitcode 1 "$bin/cuda_tests" -tce='*out of memory*'
fi
cat "$summary"
