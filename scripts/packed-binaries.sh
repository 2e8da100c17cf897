# Sourced by the scripts that carry tinyamp's binaries to a machine that cannot build them (a lent
# GPU machine: no compiler packages, no network): gpu-pack.sh / gpu-check.sh and
# cpu-tier-pack.sh / cpu-tier-check.sh. The pack side calls pack_binaries; the run side sets
# $root, $out (a folder) and $summary (a file), then calls use_packed_binaries and step.

# pack_binaries ARCHIVE BINARY...: strips each binary into one folder, adds every library they
# link that a bare machine may lack (all but glibc, libstdc++ and the CUDA runtime, which a GPU
# machine has) in lib/, and, where Graphviz is among them, its two plugins the lessons use (dot
# layout, SVG) in graphviz/; then packs the folder as ARCHIVE (tar.xz).
pack_binaries() {
    local archive=$1 stage binary
    shift
    stage=$(mktemp -d)
    mkdir -p "$stage/lib"
    for binary in "$@"; do strip -o "$stage/$(basename "$binary")" "$binary"; done
    for binary in "$@"; do
        ldd "$binary" | awk '$3 ~ /^\// {print $3}' |
            grep -v -E '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so|/usr/local/cuda' || true
    done | sort -u | while read -r lib; do cp -L "$lib" "$stage/lib/"; done
    if [ -e "$stage/lib/libgvc.so.6" ]; then
        local plugins
        plugins=$(dirname "$(ldconfig -p | awk '/libgvc.so.6 / {print $NF; exit}')")/graphviz
        mkdir -p "$stage/graphviz"
        cp -L "$plugins/libgvplugin_core.so.6" "$plugins/libgvplugin_dot_layout.so.6" "$stage/graphviz/"
        GVBINDIR="$stage/graphviz" dot -c  # the plugin list (config6a) for these two alone
    fi
    tar cJf "$archive" -C "$stage" .
    rm -rf "$stage"
    ls -la "$archive"
}

# use_packed_binaries BIN_DIR: the environment the unpacked binaries need: the project's data,
# the CUDA runtime where the machine has it, and what pack_binaries put in lib/ and graphviz/.
use_packed_binaries() {
    local bin=$1 dir
    export TINYAMP_DATA_DIR="$root/data"
    for dir in /usr/local/cuda/lib64 /usr/local/cuda/lib "$bin/lib"; do
        [ -d "$dir" ] && export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    done
    [ -d "$bin/graphviz" ] && export GVBINDIR="$bin/graphviz"
    return 0
}

# step NAME TIMEOUT COMMAND...: runs one step with a time limit, its output in $out/NAME.log, its
# exit code, time and last lines in the summary; then archives $out as $out.tar.gz, so that a run
# stopped by a time limit still leaves the logs of every step so far.
step() {
    local name=$1 limit=$2
    shift 2
    local start=$SECONDS
    timeout "$limit" "$@" > "$out/$name.log" 2>&1
    local rc=$?
    printf '%-16s rc=%-3d %4ds\n' "$name" "$rc" $((SECONDS - start)) >> "$summary"
    tail -n 4 "$out/$name.log" | sed "s/^/    /" >> "$summary"
    tar czf "$out.tar.gz" -C "$out" .
}
