#!/usr/bin/env bash
# The README's benchmark command: installs what is missing (the build's packages plus Google
# Benchmark, OpenBLAS and oneDNN), builds tinyamp-bench in Release in build-bench/, and runs it:
# GEMM GFLOP/s and ratios against OpenBLAS and oneDNN, per-op overhead, digits epoch time, one
# summary at the end (about 2 minutes on 2 cores; docs/benchmarks.md explains every figure).
#   scripts/bench.sh                                     everything
#   scripts/bench.sh --benchmark_filter='gemm/.*/n:1024'   a subset (any Google Benchmark flag passes through)
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
cmake --build "$build_dir" -j "$jobs" --target tinyamp-bench

echo "== $build_dir/bench/tinyamp-bench $*"
exec "$build_dir/bench/tinyamp-bench" "$@"
