#!/usr/bin/env bash
# The web page: tinyamp-viz compiled to WebAssembly (the library with its portable kernels on one
# thread, Graphviz's dot layout, Dear ImGui), as a static site any web server can serve.
#
#   scripts/web.sh                 installs what is missing, builds, writes build-web/site/
#   scripts/web.sh --serve         then serves build-web/site/ on http://127.0.0.1:8000/ (Ctrl-C stops)
#
# Open build-web/site/index.html through a web server (browsers refuse WebAssembly from file://):
# `python3 -m http.server -d build-web/site 8000`, then http://127.0.0.1:8000/. Stages, each a
# progress line (the logs in build-web/): packages (scripts/install-deps.sh --web), the sources of
# Dear ImGui and zlib from Debian (scripts/web/debian-source.sh), Graphviz for WebAssembly
# (scripts/web/graphviz-wasm.sh), zlib, the page's build (emcmake: visualizer/web/), the site.
# docs/web.md explains each part and what it costs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
serve=0
for arg in "$@"; do
  case "$arg" in
    --serve) serve=1 ;;
    *) echo "web: unknown option '$arg' (the only option is --serve)" >&2; exit 2 ;;
  esac
done
out="$root/build-web"
deps="$out/_deps"
site="$out/site"
mkdir -p "$deps"
started=$SECONDS
step() { printf '==== %s  (at %dm%02ds)\n' "$1" $(((SECONDS - started) / 60)) $(((SECONDS - started) % 60)); }
if [ -d /usr/share/nodejs ]; then export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"; fi  # Debian's emcc runs node with Debian's acorn

step "1. Packages: Emscripten, the source tools, Chromium"
"$root/scripts/install-deps.sh" --web --quiet

step "2. Sources from Debian: Dear ImGui 1.86, zlib 1.2.13"
imgui="$("$root/scripts/web/debian-source.sh" imgui 1.86+ds-1 "$deps")"
zlib_src="$("$root/scripts/web/debian-source.sh" zlib 1:1.2.13.dfsg-1 "$deps")"
echo "web: $imgui, $zlib_src"

step "3. Graphviz's dot layout for WebAssembly"
GRAPHVIZ_WASM_CACHE="$deps" "$root/scripts/web/graphviz-wasm.sh" "$deps/graphviz"

step "4. zlib for WebAssembly (the data sets are gzip files)"
zlib="$deps/zlib"
if [ ! -f "$zlib/lib/libz.a" ]; then
  mkdir -p "$zlib/lib" "$zlib/include" "$zlib/obj"
  for name in adler32 compress crc32 deflate gzclose gzlib gzread gzwrite infback inffast inflate inftrees trees uncompr zutil; do
    emcc -O2 -DHAVE_UNISTD_H -c "$zlib_src/$name.c" -o "$zlib/obj/$name.o"
  done
  emar rcs "$zlib/lib/libz.a" "$zlib/obj/"*.o
  cp "$zlib_src/zlib.h" "$zlib_src/zconf.h" "$zlib/include/"
fi
echo "web: $zlib/lib/libz.a"

# nlohmann-json is header-only: its headers and CMake package, copied from Debian's (installed by
# install-deps), so that the build does not put /usr/include (glibc's headers) on the path.
nlohmann="$deps/nlohmann"
if [ ! -f "$nlohmann/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake" ]; then
  mkdir -p "$nlohmann/include" "$nlohmann/share/cmake"
  cp -r /usr/include/nlohmann "$nlohmann/include/"
  cp -r /usr/share/cmake/nlohmann_json "$nlohmann/share/cmake/"
fi

step "5. The page: the library, the visualizer and Dear ImGui with em++"
build="$out/cmake"
if [ ! -f "$build/CMakeCache.txt" ]; then
  emcmake cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTINYAMP_CUDA=OFF -DTINYAMP_WERROR=ON \
    -DTINYAMP_BUILD_TESTS=OFF -DTINYAMP_BUILD_LESSONS=OFF \
    "-Dnlohmann_json_DIR=$nlohmann/share/cmake/nlohmann_json" "-DZLIB_LIBRARY=$zlib/lib/libz.a" "-DZLIB_INCLUDE_DIR=$zlib/include" \
    "-DTINYAMP_WEB_GRAPHVIZ_DIR=$deps/graphviz" "-DTINYAMP_WEB_IMGUI_DIR=$imgui" > "$out/configure.log" 2>&1 ||
    { echo "web: configuring failed; the end of $out/configure.log:" >&2; tail -n 30 "$out/configure.log" >&2; exit 1; }
fi
python3 "$root/scripts/show_progress.py" build "$out/build.log" cmake --build "$build" -j "${JOBS:-2}" --target tinyamp-viz-web viz-trace-dump-node

step "6. The site: $site"
rm -rf "$site.tmp"
mkdir -p "$site.tmp"
cp "$build/visualizer/web/tinyamp-viz."{js,wasm,data} "$root/visualizer/web/viz.html" "$site.tmp/"
# The tour (each lesson's results and pictures): the walkthrough's build/tour, else run by the
# native build's tinyamp-tour when there is one; the front page and each lesson link the live page.
tour=()
if [ -f "$root/build/tour/index.html" ]; then
  cp -r "$root/build/tour" "$site.tmp/tour"
  # Its page again, with the lessons' texts as this checkout has them.
  if [ -x "$root/build/lessons/tinyamp-tour" ]; then "$root/build/lessons/tinyamp-tour" --out "$site.tmp/tour" --index > /dev/null; fi
  tour=(--tour "$site.tmp/tour")
elif [ -x "$root/build/lessons/tinyamp-tour" ]; then
  echo "web: running the native tour for its pages (log: $out/tour.log)"
  status=0
  "$root/build/lessons/tinyamp-tour" --out "$site.tmp/tour" > "$out/tour.log" 2>&1 || status=$?
  if [ "$status" -eq 0 ] || [ "$status" -eq 77 ]; then  # 77: a lesson skipped (no GPU)
    tour=(--tour "$site.tmp/tour")
  else
    echo "web: the tour failed (exit $status; $out/tour.log): the site has no tour pages" >&2
    rm -rf "$site.tmp/tour"
  fi
else
  echo "web: no tour pages: ./scripts/walkthrough.sh writes build/tour; run this again after it"
fi
python3 "$root/visualizer/web/make_index.py" "$site.tmp/index.html" "${tour[@]}"
rm -rf "$site"
mv "$site.tmp" "$site"
python3 - "$site" <<'PY'
import gzip, pathlib, sys
site = pathlib.Path(sys.argv[1])
files = sorted(p for p in site.iterdir() if p.is_file())
raw = sum(p.stat().st_size for p in files)
packed = sum(len(gzip.compress(p.read_bytes(), 9)) for p in files)
for p in files:
    print(f"  {p.name:<22} {p.stat().st_size / 1e6:7.2f} MB")
print(f"web: the site is {raw / 1e6:.2f} MB, {packed / 1e6:.2f} MB gzip-compressed (what a server sends that compresses)")
PY
echo "web: done in $((SECONDS - started)) s. Serve it: python3 -m http.server -d $site 8000, then open http://127.0.0.1:8000/"
if [ "$serve" -eq 1 ]; then
  exec python3 -m http.server -d "$site" --bind 127.0.0.1 8000
fi
