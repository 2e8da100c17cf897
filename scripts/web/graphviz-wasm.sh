#!/usr/bin/env bash
# Graphviz's dot layout for the browser: builds static WebAssembly libraries of Graphviz from
# Debian's source package with Emscripten and installs them under DEST, with Debian's header
# layout (DEST/include/graphviz), pkg-config files and a CMake package (DEST/lib/cmake/GraphvizWasm).
# Only what the dot layout needs is built: cdt, cgraph, pathplan, xdot, gvc (with common, pack,
# label, ortho), and the dot_layout and core plugins linked in, no libltdl, expat, zlib, cairo,
# gd or pango. docs/web.md ("Graphviz in WebAssembly") says what is left out and why.
#
#   scripts/web/graphviz-wasm.sh DEST
#
# Stages (each skipped when its work is already done, so a second run is quick):
#   fetch     the source package, unpacked with Debian's patches applied, into the cache
#             (scripts/web/debian-source.sh: a deb-src line of its own; the system's apt
#             configuration is not touched)
#   generate  config.h, bison/flex parsers, color and font tables (as Graphviz's Makefile.am)
#   build     emcmake cmake + cmake --build on scripts/web/graphviz-wasm/CMakeLists.txt
#   install   into DEST
# Environment:
#   GRAPHVIZ_WASM_CACHE   cache folder (default: build-web/_deps of the checkout)
#   GRAPHVIZ_DEB_VERSION  Debian version of the graphviz source package (default 2.42.2-7+deb12u1,
#                         the one Debian 12 ships; a point release may replace it on the mirror)
#   GRAPHVIZ_DEB_SOURCE   the deb-src line (debian-source.sh's DEBIAN_SOURCE_LINE; default: bookworm
#                         main on deb.debian.org, signed by the debian-archive-keyring)
#   GRAPHVIZ_WASM_OPT     optimization flags for the Graphviz sources (default -O2)
#   JOBS                  parallel compile jobs (default 2)
# Needs: emscripten (Debian's 3.1.6 works offline), cmake, ninja or make, bison, flex, perl,
# dpkg-source (dpkg-dev), apt-get; network access to the Debian mirror for the first fetch only.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/scripts/web/graphviz-wasm"
me="graphviz-wasm"

if [ $# -ne 1 ] || [ "${1:0:1}" = "-" ]; then
  echo "usage: scripts/web/graphviz-wasm.sh DEST   (installs DEST/include/graphviz, DEST/lib/*.a)" >&2
  exit 2
fi
mkdir -p "$1"
dest="$(cd "$1" && pwd)"
version="${GRAPHVIZ_DEB_VERSION:-2.42.2-7+deb12u1}"
upstream="${version%-*}"
upstream="${upstream#*:}"
cache="${GRAPHVIZ_WASM_CACHE:-$root/build-web/_deps}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"
work="$cache/graphviz-$version"
log="$work/build.log"
jobs="${JOBS:-2}"
opt="${GRAPHVIZ_WASM_OPT:--O2}"
deb_source="${GRAPHVIZ_DEB_SOURCE:-deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main}"

# Debian's emcc runs node with Debian's JavaScript modules (acorn); a node that is not Debian's
# does not find them without this.
if [ -d /usr/share/nodejs ]; then export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"; fi

missing=()
for tool in emcc emcmake emar cmake bison flex perl awk dpkg-source apt-get; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "$me: missing ${missing[*]} (Debian: apt-get install emscripten cmake ninja-build bison flex perl dpkg-dev)" >&2
  exit 2
fi
generator="Unix Makefiles"
command -v ninja >/dev/null && generator="Ninja"

mkdir -p "$work"
printf '\n##### %s: scripts/web/graphviz-wasm.sh %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" "$dest" >> "$log"
started=$SECONDS
stage_name=""
stage() {  # stage N NAME WHAT: the progress line; the log gets a header with the time so far
  stage_name="$2"
  printf '%s: [%s/4] %-8s %s\n' "$me" "$1" "$2" "$3"
  printf '=== [%s/4] %s (at %d s): %s\n' "$1" "$2" "$((SECONDS - started))" "$3" >> "$log"
}
failed() {
  echo "$me: the $stage_name stage failed; the end of $log:" >&2
  tail -n 25 "$log" | cut -c 1-400 | sed 's/^/  /' >&2
}
trap failed ERR

# --- 1. fetch and unpack ------------------------------------------------------------------
stage 1 fetch "graphviz $version: Debian's source package, its patches applied (scripts/web/debian-source.sh)"
src="$(DEBIAN_SOURCE_LINE="$deb_source" "$root/scripts/web/debian-source.sh" graphviz "$version" "$cache")"
dsc="$(ls "$work/package/graphviz_"*.dsc | head -n 1)"

# --- 2. generate ----------------------------------------------------------------------------
gen="$work/generated"
if [ -f "$gen/.generated" ] && ! [ "$here/config.h" -nt "$gen/.generated" ]; then
  stage 2 generate "in the cache ($gen)"
else
  stage 2 generate "config.h, parsers (bison, flex), color and font tables"
  rm -rf "$gen"
  mkdir -p "$gen/cgraph" "$gen/common" "$gen/core"
  cp "$here/config.h" "$gen/config.h"
  # graphviz_version.h: the lines of config.h that Graphviz's Makefile.am keeps.
  grep -E '^#define .*(PACKAGE|VERSION|GVPLUGIN)' "$gen/config.h" > "$gen/graphviz_version.h"
  # The version date: Debian's build has no git history, so autogen.sh sets it to 0.
  echo '#define BUILDDATE "0"' > "$gen/builddate.h"
  (
    # cgraph's DOT grammar and scanner, renamed yy -> aag as lib/cgraph/Makefile.am does.
    cd "$gen/cgraph"
    bison -y -dv "$src/lib/cgraph/grammar.y"
    sed 's/yy/aag/g; s/unsigned long int/uint64_t/g; s/unsigned long/uint64_t/g' y.tab.c > grammar.c
    sed 's/yy/aag/g; s/unsigned long int/uint64_t/g; s/unsigned long/uint64_t/g' y.tab.h > grammar.h
    flex -i "$src/lib/cgraph/scan.l"
    sed 's/yy/aag/g' lex.yy.c | sed '/extern.*isatty/d' > scan.c
    rm -f y.tab.c y.tab.h y.output lex.yy.c
    # HTML-like labels' grammar (yy -> html), and the color and font tables (lib/common/Makefile.am).
    cd "$gen/common"
    bison -y -dv "$src/lib/common/htmlparse.y"
    sed 's/yy/html/g; s/unsigned long int/uint64_t/g; s/unsigned long/uint64_t/g' y.tab.c > htmlparse.c
    sed 's/yy/html/g; s/unsigned long int/uint64_t/g; s/unsigned long/uint64_t/g' y.tab.h > htmlparse.h
    rm -f y.tab.c y.tab.h y.output
    awk -f "$src/awk/brewer.awk" "$src/lib/common/brewer_colors" > brewer_lib
    awk -f "$src/awk/svgcolor.awk" "$src/lib/common/svgcolor_names" > svgcolor_lib
    cat brewer_lib svgcolor_lib "$src/lib/common/color_names" | LC_ALL=C sort > color_lib
    awk -f "$src/awk/colortbl.awk" color_lib > colortbl.h
    cp "$src/lib/common/ps_fontmap.txt" ps_font_equiv.h
    perl "$src/lib/common/mksvgfonts.pl" "$src/lib/common/fontmap.cfg" "$src/lib/common/ps_font_equiv.txt" \
      | LC_ALL=C sort >> ps_font_equiv.h
    # The core plugin's PostScript prologue as a C string array (plugin/core/Makefile.am).
    cd "$gen/core"
    awk -f "$src/awk/stringize.awk" "$src/plugin/core/ps.txt" > ps.h
  ) >> "$log" 2>&1
  touch "$gen/.generated"
fi

# --- 3. build -------------------------------------------------------------------------------
build="$work/build-emscripten"
# Built already: with the same flags, and nothing in scripts/web/graphviz-wasm changed since.
if [ -f "$build/.built" ] && [ "$(cat "$build/.built")" = "$opt" ] \
   && [ -z "$(find "$here" "$gen" -newer "$build/.built" -print -quit)" ]; then
  stage 3 build "in the cache ($build)"
else
  stage 3 build "emcc $opt, $jobs jobs: cdt cgraph pathplan xdot gvc dot_layout core"
  if [ ! -f "$build/CMakeCache.txt" ]; then
    emcmake cmake -S "$here" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE= \
      "-DGRAPHVIZ_SOURCE_DIR=$src" "-DGRAPHVIZ_GENERATED_DIR=$gen" "-DGRAPHVIZ_WASM_OPT=$opt" >> "$log" 2>&1
  else
    cmake "-DGRAPHVIZ_WASM_OPT=$opt" "-DGRAPHVIZ_SOURCE_DIR=$src" "$build" >> "$log" 2>&1
  fi
  cmake --build "$build" -j "$jobs" >> "$log" 2>&1
  printf '%s' "$opt" > "$build/.built"
fi

# --- 4. install -----------------------------------------------------------------------------
stage 4 install "$dest (include/graphviz, lib/*.a, lib/pkgconfig, lib/cmake/GraphvizWasm)"
cmake --install "$build" --prefix "$dest" >> "$log" 2>&1
mkdir -p "$dest/share/graphviz-wasm"
{
  echo "Graphviz ${upstream} from Debian's source package graphviz ${version} ($(basename "$dsc"))"
  echo "built by scripts/web/graphviz-wasm.sh with $(emcc --version 2>/dev/null | head -n 1)"
  echo "compile flags: $opt -w; libraries: cdt cgraph pathplan xdot gvc gvplugin_dot_layout gvplugin_core gvplugin_builtins"
  echo "link: -lgvplugin_builtins -lgvplugin_dot_layout -lgvplugin_core -lgvc -lxdot -lpathplan -lcgraph -lcdt"
} > "$dest/share/graphviz-wasm/BUILDINFO.txt"
trap - ERR
echo "=== done (at $((SECONDS - started)) s)" >> "$log"
size="$(du -ch "$dest"/lib/lib*.a | tail -n 1 | cut -f 1)"
echo "$me: done in $((SECONDS - started)) s: $dest/lib ($size of .a); log: $log"
