#!/usr/bin/env bash
# Pack what scripts/gpu-check.sh runs into one archive, to carry to a GPU machine that has the
# CUDA runtime but not this project's build or Graphviz:
#
#   scripts/gpu-pack.sh BUILD_DIR ARCHIVE.tar.xz
#
# BUILD_DIR: a build with the CUDA backend (nvcc needs no GPU). The binaries are stripped; the
# lessons' Graphviz libraries and its two plugins (dot layout, SVG) travel in lib/ and graphviz/.
# On the GPU machine: mkdir B && tar xJf ARCHIVE -C B && scripts/gpu-check.sh B OUT.
set -euo pipefail
build=${1:?usage: scripts/gpu-pack.sh BUILD_DIR ARCHIVE.tar.xz}
archive=$(realpath -m "${2:?usage: scripts/gpu-pack.sh BUILD_DIR ARCHIVE.tar.xz}")
targets=(cuda_tests cuda_bench tinyamp_tests lesson_13 lesson_16 lab_05 lab_06 lab_07 lab_16)
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for t in "${targets[@]}"; do
    strip -o "$stage/$t" "$(find "$build" -type f -name "$t" -perm -u+x | head -n 1)"
done
# Graphviz for the lessons' pictures, where the lessons were built with it.
if ldd "$stage/lesson_16" | grep -q libgvc; then
    mkdir -p "$stage/lib" "$stage/graphviz"
    for lib in $(ldd "$stage/lesson_16" | awk '/libgvc|libcgraph|libcdt|libpathplan|libltdl|libexpat|libz\./ {print $3}'); do
        cp -L "$lib" "$stage/lib/"
    done
    plugins=$(dirname "$(ldconfig -p | awk '/libgvc.so.6 / {print $NF; exit}')")/graphviz
    cp -L "$plugins/libgvplugin_core.so.6" "$plugins/libgvplugin_dot_layout.so.6" "$stage/graphviz/"
    GVBINDIR="$stage/graphviz" dot -c  # the plugin list (config6a) for these two alone
fi
tar cJf "$archive" -C "$stage" .
ls -la "$archive"
