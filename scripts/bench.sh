#!/usr/bin/env bash
# The README's benchmark command: installs what is missing (the build's packages plus Google
# Benchmark, OpenBLAS and oneDNN), builds tinyamp-bench in Release in build-bench/, and runs it:
# the CPU and the GEMM tier in use, GEMM GFLOP/s and ratios against OpenBLAS and oneDNN, per-op
# overhead, digits epoch and GPT step times, one summary at the end (about 3 minutes on 2 cores;
# docs/benchmarks.md explains every figure).
# Where PyTorch is installed (`python3 -c 'import torch'` works), bench/pytorch_peer.py first times
# the same cases in PyTorch and the summary adds tinyamp / PyTorch ratios. PyTorch is never required.
# In a virtual environment: TINYAMP_BENCH_PYTHON=../torchenv/bin/python scripts/bench.sh
#   scripts/bench.sh                                     everything
#   scripts/bench.sh --benchmark_filter='gemm/.*/n:1024'   a subset (any Google Benchmark flag passes
#                                                        through; the filter also picks PyTorch's cases)
#   TINYAMP_BENCH_PYTORCH=0 scripts/bench.sh             without PyTorch, even where it is installed
#   TINYAMP_BENCH_PYTHON=PATH scripts/bench.sh           PyTorch from that Python (a venv's bin/python)
# Run it on a quiet machine: other work on the same cores changes the figures, two-thread ones most.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$root/build-bench"
jobs="$(nproc 2>/dev/null || echo 2)"

"$root/scripts/install-deps.sh" --bench

# The benchmarks need no CUDA and no tests: leave both out, so the build is short.
configure_log="$(cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DTINYAMP_WERROR=ON -DTINYAMP_CUDA=OFF \
  -DTINYAMP_BUILD_TESTS=OFF -DTINYAMP_BUILD_BENCH=ON 2>&1)" || { echo "$configure_log" >&2; exit 1; }
if ! grep -q '^TINYAMP_BENCH_ENABLED:INTERNAL=ON' "$build_dir/CMakeCache.txt"; then
  echo "bench: CMake left the benchmarks out:" >&2
  echo "$configure_log" | grep 'tinyamp: benchmarks' >&2 || true
  exit 1
fi
cmake --build "$build_dir" -j "$jobs" --target tinyamp-bench tinyamp-amx-tuning tinyamp-f32-tuning  # the tuning tools: docs/kernels.md

# PyTorch as a peer, where it is installed. It runs first, alone, so neither run takes the other's cores.
pytorch_results=()
python="${TINYAMP_BENCH_PYTHON:-python3}"
if [ "${TINYAMP_BENCH_PYTORCH:-1}" = 0 ]; then
  echo "PyTorch: left out (TINYAMP_BENCH_PYTORCH=0)"
elif ! "$python" -c 'import torch' >/dev/null 2>&1; then
  echo "PyTorch not found by $python: no PyTorch peer in this run (pip install torch adds it; for a virtual" \
    "environment, TINYAMP_BENCH_PYTHON=path/to/venv/bin/python)"
else
  filter=""
  for arg in "$@"; do
    case "$arg" in --benchmark_filter=*) filter="${arg#--benchmark_filter=}" ;; esac
  done
  results_file="$build_dir/pytorch-results.json"
  echo "== $python bench/pytorch_peer.py --filter='$filter' > $results_file"
  if "$python" "$root/bench/pytorch_peer.py" --filter="$filter" >"$results_file"; then
    pytorch_results=(--pytorch-results="$results_file")
  else
    echo "PyTorch: bench/pytorch_peer.py failed (exit $?): no PyTorch peer in this run"
  fi
fi

echo "== $build_dir/bench/tinyamp-bench ${pytorch_results[*]} $*"
exec "$build_dir/bench/tinyamp-bench" "${pytorch_results[@]}" "$@"
