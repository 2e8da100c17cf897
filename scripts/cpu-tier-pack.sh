#!/usr/bin/env bash
# Pack what scripts/cpu-tier-check.sh runs, with the libraries a bare machine lacks:
#
#   scripts/cpu-tier-pack.sh BUILD_DIR BENCH_BUILD_DIR ARCHIVE.tar.xz
#
# BUILD_DIR has tinyamp_tests, tinyamp-tour and tinyamp-train, BENCH_BUILD_DIR tinyamp-bench and
# tinyamp-amx-tuning (scripts/bench.sh builds them in build-bench). On the other machine: mkdir B && tar xJf ARCHIVE -C B &&
# scripts/cpu-tier-check.sh B OUT.
set -euo pipefail
build=${1:?usage: scripts/cpu-tier-pack.sh BUILD_DIR BENCH_BUILD_DIR ARCHIVE.tar.xz}
bench_build=${2:?usage: scripts/cpu-tier-pack.sh BUILD_DIR BENCH_BUILD_DIR ARCHIVE.tar.xz}
archive=$(realpath -m "${3:?usage: scripts/cpu-tier-pack.sh BUILD_DIR BENCH_BUILD_DIR ARCHIVE.tar.xz}")
cmake --build "$build" -j"$(nproc)" --target tinyamp_tests tinyamp-tour tinyamp-train
cmake --build "$bench_build" -j"$(nproc)" --target tinyamp-bench tinyamp-amx-tuning
# shellcheck source=scripts/packed-binaries.sh
source "$(dirname "$0")/packed-binaries.sh"
pack_binaries "$archive" "$build/tests/tinyamp_tests" "$build/lessons/tinyamp-tour" "$build/tools/train/tinyamp-train" \
    "$bench_build/bench/tinyamp-bench" "$bench_build/bench/tinyamp-amx-tuning"
