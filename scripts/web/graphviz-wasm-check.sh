#!/usr/bin/env bash
# Checks the WebAssembly build of Graphviz's dot layout against Debian's native libgvc: the same
# program (scripts/web/graphviz_wasm_check.cpp) is built with em++ against DEST and run with node,
# and built natively against the system's libgvc with the system's dot_layout and core plugins;
# for every DOT file in scripts/web/graphviz-wasm-samples (graphs as tinyamp's Trace::to_dot()
# writes them) plus one that does not parse, both must print the same layout.
#
#   scripts/web/graphviz-wasm-check.sh [DEST]     (DEST: default build-web/graphviz)
#
# It first runs scripts/web/graphviz-wasm.sh DEST, which does nothing when DEST is built.
# "The same": the program prints every coordinate with 17 digits (node centers and sizes, edge
# control points, arrow tips, label positions, cluster boxes), then `dot -Tdot` of the layout.
# Words must be equal; numbers must agree within 1e-9 points. Expect the node centers to be
# equal bit for bit, and a few node sizes and edge ends to differ in their last bits: shapes.c
# computes polygon corners with sin, cos, atan2 and hypot, whose last bit differs between glibc's
# libm and Emscripten's (musl's), and the sizes and clipped edge ends come from those corners.
# The summary counts the numbers that are not equal bit for bit, by the kind of line.
# Exit status: 0 equal, 1 a difference (the first ones are printed), 2 cannot run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
me="graphviz-wasm-check"
dest="${1:-$root/build-web/graphviz}"
samples="$root/scripts/web/graphviz-wasm-samples"
out="$root/build-web/graphviz-wasm-check"
if [ -d /usr/share/nodejs ]; then export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"; fi

for tool in em++ node g++ gcc pkg-config python3; do
  command -v "$tool" >/dev/null || { echo "$me: $tool is missing" >&2; exit 2; }
done
pkg-config --exists libgvc || { echo "$me: the native libgvc is missing (Debian: apt-get install libgraphviz-dev)" >&2; exit 2; }
plugins="$(pkg-config --variable=libdir libgvc)/graphviz"
for plugin in dot_layout core; do
  [ -e "$plugins/libgvplugin_$plugin.so.6" ] || { echo "$me: $plugins/libgvplugin_$plugin.so.6 is missing (Debian: libgvc6)" >&2; exit 2; }
done

"$root/scripts/web/graphviz-wasm.sh" "$dest"
dest="$(cd "$dest" && pwd)"
if native_version="$(dpkg-query -W -f '${Version}' libgvc6 2>/dev/null)" \
   && ! grep -qF "graphviz $native_version " "$dest/share/graphviz-wasm/BUILDINFO.txt"; then
  echo "$me: note: the native libgvc6 is $native_version, not the version DEST was built from ($(head -n 1 "$dest/share/graphviz-wasm/BUILDINFO.txt"))"
fi

mkdir -p "$out"
check="$root/scripts/web/graphviz_wasm_check.cpp"
builtins="$root/scripts/web/graphviz-wasm/builtins.c"
# Natively: the same plugin table, filled with the system's plugins (linked by path; they are
# loaded with dlopen otherwise).
read -ra cflags <<< "$(pkg-config --cflags libgvc)"
read -ra libs <<< "$(pkg-config --libs libgvc)"
gcc -O2 -c "${cflags[@]}" "$builtins" -o "$out/builtins.o"
g++ -std=c++17 -O2 "${cflags[@]}" "$check" "$out/builtins.o" \
  "$plugins/libgvplugin_dot_layout.so.6" "$plugins/libgvplugin_core.so.6" -Wl,-rpath,"$plugins" \
  "${libs[@]}" -o "$out/check-native"
# WebAssembly, with the flags of DEST's pkg-config file, for node: NODERAWFS to read the DOT
# files, synchronous compilation because Emscripten 3.1.6's loader otherwise fetches the .wasm
# with Node 18+'s fetch(), which refuses a file path.
read -ra cflags <<< "$(PKG_CONFIG_LIBDIR="$dest/lib/pkgconfig" pkg-config --cflags libgvc)"
read -ra libs <<< "$(PKG_CONFIG_LIBDIR="$dest/lib/pkgconfig" pkg-config --libs libgvc)"
em++ -std=c++17 -O2 "${cflags[@]}" "$check" "${libs[@]}" -sALLOW_MEMORY_GROWTH=1 -sNODERAWFS=1 -sWASM_ASYNC_COMPILATION=0 -o "$out/check.js"

printf 'digraph broken {\n  a -> ;\n}\n' > "$out/broken.dot"
status=0
for dot in "$samples"/*.dot "$out/broken.dot"; do
  name="$(basename "$dot" .dot)"
  "$out/check-native" "$dot" > "$out/$name.native.txt" || true
  node "$out/check.js" "$dot" > "$out/$name.wasm.txt" || true
  python3 - "$name" "$out/$name.native.txt" "$out/$name.wasm.txt" <<'EOF' || status=1
import re, sys
name, native_path, wasm_path = sys.argv[1:]
native, wasm = open(native_path).read().splitlines(), open(wasm_path).read().splitlines()
number = re.compile(r'(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.])')  # not the 4 of e4 or bf16
problems, numbers, last_bit, largest, kinds = [], 0, 0, 0.0, {}
if len(native) != len(wasm):
    problems.append(f"{len(native)} lines natively, {len(wasm)} in WebAssembly")
for i, (a, b) in enumerate(zip(native, wasm), 1):
    if a == b:
        numbers += len(number.findall(a))
        continue
    if number.sub('#', a) != number.sub('#', b):
        problems.append(f"line {i}:\n    native: {a}\n    wasm:   {b}")
        continue
    first, keyword = a.split()[0], None
    for ta, tb in zip(a.split(), b.split()):
        if not number.search(ta):
            keyword = ta
            continue
        for x, y in zip(number.findall(ta), number.findall(tb)):
            numbers += 1
            if x == y:
                continue
            last_bit += 1
            kind = {"node": "node centers" if keyword == "at" else "node sizes", "edge": "edge points",
                    "cluster": "cluster boxes", "graph": "graph box"}.get(first, "-Tdot attributes")
            kinds[kind] = kinds.get(kind, 0) + 1
            largest = max(largest, abs(float(x) - float(y)))
            if abs(float(x) - float(y)) > 1e-9:
                problems.append(f"line {i}: {x} natively, {y} in WebAssembly:\n    native: {a}\n    wasm:   {b}")
summary = next((l for l in native if l.startswith(("graph ", "error:"))), "(no layout)")
counts = {k: sum(l.startswith(k + " ") for l in native) for k in ("node", "edge", "cluster")}
if problems:
    print(f"{name}: DIFFERENT ({len(problems)} differences); the first ones:")
    for p in problems[:5]: print("  " + p)
    sys.exit(1)
what = (f"{counts['node']} nodes, {counts['edge']} edges, {counts['cluster']} clusters, {numbers} numbers"
        if not summary.startswith("error:") else "the same message: " + summary[len("error: "):])
if summary.startswith("error:"):
    extra = ""
elif last_bit:
    extra = (f"; {last_bit} differ in their last bits, at most {largest:.2g} pt ("
             + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + ")")
else:
    extra = "; all bit for bit"
print(f"{name}: equal: {what}{extra}")
EOF
done

# For the record: the native layout tinyamp-viz gets (gvContext(): every installed plugin, so
# Debian's pango plugin measures the labels with real fonts) is not the one above.
sample="$samples/mlp_bf16_trace.dot"
"$out/check-native" --system-plugins "$sample" > "$out/system-plugins.txt" || true
echo "$me: note: with gvContext() and all of Debian's plugins (pango measures text), mlp_bf16_trace lays out as"\
  "'$(grep -m1 '^graph ' "$out/system-plugins.txt" | cut -d' ' -f3-)' instead of '$(grep -m1 '^graph ' "$out/mlp_bf16_trace.native.txt" | cut -d' ' -f3-)'"
if [ "$status" -ne 0 ]; then
  echo "$me: FAILED: the WebAssembly layout differs from the native one (outputs in $out)" >&2
  exit 1
fi
echo "$me: the WebAssembly build lays out as Debian's native libgvc does (outputs in $out)"
