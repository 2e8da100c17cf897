#!/usr/bin/env bash
# Configures and builds tinyamp: scripts/build.sh [BUILD_DIR] [extra CMake options...]
# BUILD_DIR defaults to build/ inside the checkout (ignored by git). TINYAMP_BUILD_TARGET=NAME
# builds that target (and what it needs) instead of everything.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build}"
shift || true
jobs="$(nproc 2>/dev/null || echo 2)"
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DTINYAMP_WERROR=ON "$@" >/dev/null
cmake --build "$build_dir" -j "$jobs" ${TINYAMP_BUILD_TARGET:+--target "$TINYAMP_BUILD_TARGET"}
