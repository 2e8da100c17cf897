#!/usr/bin/env bash
# Pack what scripts/cpu-tier-check.sh runs, with the libraries a bare machine lacks:
#
#   scripts/cpu-tier-pack.sh BUILD_DIR BENCH_BUILD_DIR ARCHIVE.tar.xz
#
# BUILD_DIR has tinyamp_tests, tinyamp-tour and tinyamp-train, BENCH_BUILD_DIR tinyamp-bench (scripts/bench.sh
# builds it in build-bench). On the other machine: mkdir B && tar xJf ARCHIVE -C B &&
# scripts/cpu-tier-check.sh B OUT.
set -euo pipefail
build=${1:?usage: scripts/cpu-tier-pack.sh BUILD_DIR BENCH_BUILD_DIR ARCHIVE.tar.xz}
bench_build=${2:?usage: scripts/cpu-tier-pack.sh BUILD_DIR BENCH_BUILD_DIR ARCHIVE.tar.xz}
archive=$(realpath -m "${3:?usage: scripts/cpu-tier-pack.sh BUILD_DIR BENCH_BUILD_DIR ARCHIVE.tar.xz}")
cmake --build "$build" -j"$(nproc)" --target tinyamp_tests tinyamp-tour tinyamp-train
cmake --build "$bench_build" -j"$(nproc)" --target tinyamp-bench
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib" "$stage/graphviz"
strip -o "$stage/tinyamp_tests" "$build/tests/tinyamp_tests"
strip -o "$stage/tinyamp-tour" "$build/lessons/tinyamp-tour"
strip -o "$stage/tinyamp-train" "$build/tools/train/tinyamp-train"
strip -o "$stage/tinyamp-bench" "$bench_build/bench/tinyamp-bench"
# Every library outside glibc, libstdc++ and the CUDA runtime (which a GPU machine has).
for b in "$stage"/tinyamp*; do
    ldd "$b" | awk '$3 ~ /^\// {print $3}' | grep -v -E '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so|/usr/local/cuda' || true
done | sort -u | while read -r lib; do cp -L "$lib" "$stage/lib/"; done
plugins=$(dirname "$(ldconfig -p | awk '/libgvc.so.6 / {print $NF; exit}')")/graphviz
cp -L "$plugins/libgvplugin_core.so.6" "$plugins/libgvplugin_dot_layout.so.6" "$stage/graphviz/"
GVBINDIR="$stage/graphviz" dot -c
tar cJf "$archive" -C "$stage" .
ls -la "$archive"
