#!/usr/bin/env bash
# Pack what scripts/gpu-check.sh runs into one archive, to carry to a GPU machine that has the
# CUDA runtime but not this project's build or Graphviz:
#
#   scripts/gpu-pack.sh BUILD_DIR ARCHIVE.tar.xz
#
# BUILD_DIR: a build with the CUDA backend (nvcc needs no GPU; on a machine without one, configure
# it with -DTINYAMP_CUDA=ON, as scripts/test.sh's build/ is). The binaries are stripped; the
# libraries a bare machine lacks (Graphviz for the lessons, with two plugins) travel beside them
# (scripts/packed-binaries.sh).
# On the GPU machine: mkdir B && tar xJf ARCHIVE -C B && scripts/gpu-check.sh B OUT.
set -euo pipefail
build=${1:?usage: scripts/gpu-pack.sh BUILD_DIR ARCHIVE.tar.xz}
archive=$(realpath -m "${2:?usage: scripts/gpu-pack.sh BUILD_DIR ARCHIVE.tar.xz}")
targets=(cuda_tests cuda_bench tinyamp_tests lesson_13 lesson_16 lab_05 lab_06 lab_07 lab_16)
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
binaries=()
for t in "${targets[@]}"; do binaries+=("$(find "$build" -type f -name "$t" -perm -u+x | head -n 1)"); done
# shellcheck source=scripts/packed-binaries.sh
source "$(dirname "$0")/packed-binaries.sh"
pack_binaries "$archive" "${binaries[@]}"
