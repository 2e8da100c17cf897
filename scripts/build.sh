#!/usr/bin/env bash
# Configures and builds tinyamp: scripts/build.sh [BUILD_DIR] [extra CMake options...]
# BUILD_DIR defaults to build/ inside the checkout (ignored by git). TINYAMP_BUILD_TARGET="A B"
# builds those targets (and what they need) instead of everything.
#
# A new build folder uses Ninja when it is installed (scripts/install-deps.sh installs it); a
# folder configured before keeps its generator. Each stage shows one progress line (percent,
# step, time, the file being compiled) and keeps its whole output in BUILD_DIR/configure.log and
# BUILD_DIR/build.log; a failure prints the end of that log. TINYAMP_VERBOSE=1 prints everything.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build}"
shift || true
jobs="$(nproc 2>/dev/null || echo 2)"

generator=()
if [ ! -f "$build_dir/CMakeCache.txt" ] && command -v ninja >/dev/null; then
  generator=(-G Ninja)
fi
targets=()
for target in ${TINYAMP_BUILD_TARGET:-}; do targets+=(--target "$target"); done

# Each stage through scripts/show_progress.py (one line, a log), or as it is without python3.
stage() {
  local label="$1" log="$2"
  shift 2
  if [ "${TINYAMP_VERBOSE:-0}" = 1 ] || ! command -v python3 >/dev/null; then
    "$@"
  else
    python3 "$root/scripts/show_progress.py" "$label" "$log" "$@"
  fi
}
mkdir -p "$build_dir"
stage configure "$build_dir/configure.log" \
  cmake -S "$root" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTINYAMP_WERROR=ON "$@"
stage build "$build_dir/build.log" cmake --build "$build_dir" -j "$jobs" "${targets[@]}"
