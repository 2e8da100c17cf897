#!/usr/bin/env bash
# Installs the Debian packages tinyamp needs, and only those that are missing.
# Safe to run again and again: when everything is present it only asks dpkg, and returns at once
# (as any user: root is needed only to install). Debian 12 bookworm only: on any other system it
# installs nothing and says so; docs/building.md, "Other systems", lists the packages there.
#
#   scripts/install-deps.sh           what the library, tools and tests need
#   scripts/install-deps.sh --bench   that, plus the benchmark-only packages (scripts/bench.sh)
#   scripts/install-deps.sh --web     that, plus what the web page needs (scripts/web.sh): Emscripten,
#                                     the tools that build Graphviz from source, Chromium for its test
#   scripts/install-deps.sh --quiet   apt's output goes to a log file in ${TMPDIR:-/tmp}; one
#                                     progress line instead (on failure: the log's last 40 lines),
#                                     or one line saying that every package is installed
# The options combine (--bench --web --quiet).
#
# Installing needs root. As root it runs apt-get. As another user it uses sudo when sudo can run
# here: without a password (`sudo -n true` succeeds), or with a terminal on which sudo can ask for
# one. Otherwise it prints the missing packages and the one command to run as root, and exits 1.
set -euo pipefail

valid_options="--bench (also the benchmark packages), --web (also the web page's), --quiet (apt's output to a log file, one progress line)"
with_bench=0
with_web=0
quiet=0
for arg in "$@"; do
  case "$arg" in
    --bench) with_bench=1 ;;
    --web) with_web=1 ;;
    --quiet) quiet=1 ;;
    *) echo "install-deps: unknown option '$arg'; the valid options are $valid_options" >&2; exit 2 ;;
  esac
done

packages=(
  g++ cmake make pkg-config  # the build
  ninja-build                # Ninja: the build's one-line progress and faster no-op rebuilds
  git                        # the student tree is a git repository (scripts/lab reset)
  doctest-dev                # the unit tests
  nlohmann-json3-dev         # trace export to JSON
  zlib1g-dev                 # reading the gzip data sets (data/digits.csv.gz)
  graphviz                   # dot: the trace's graph pictures (and the docs' diagrams)
  doxygen                    # the API reference (the `docs` target)
  libgraphviz-dev            # Graphviz in-process: the lessons' SVG graphs
  python3                    # the labs: strips the solutions for the student tree, checks both
  libcli11-dev               # command-line options of tinyamp-train
  python3-numpy              # a test reads checkpoints with NumPy, as users will
  libimgui-dev               # the visualizer's GUI: Dear ImGui 1.86 (brings stb, which writes its PNGs)
  libsdl2-dev                # the visualizer's window and input
  libgl1-mesa-dri            # OpenGL in software (llvmpipe), so the visualizer renders with no GPU
  libegl1 libegl-mesa0       # EGL: SDL's offscreen driver renders headless screenshots with it
  fonts-dejavu-core          # the visualizer's font (arrows such as f32→bf16)
  clang libclang-rt-14-dev   # Clang with libFuzzer and its sanitizers: the loaders' fuzz targets (scripts/fuzz.sh)
  openmpi-bin libopenmpi-dev # Open MPI: tinyamp::distributed and its tests under mpirun (2 processes, loopback)
)
if [ "$with_bench" -eq 1 ]; then
  packages+=(
    libbenchmark-dev         # Google Benchmark: the timing loops of tinyamp-bench
    libopenblas-dev          # OpenBLAS sgemm: the f32 GEMM peer
    libdnnl-dev              # oneDNN: the bf16 GEMM peer
  )
fi
if [ "$with_web" -eq 1 ]; then
  packages+=(
    emscripten               # em++: the library, the visualizer and Dear ImGui to WebAssembly (3.1.6, offline)
    dpkg-dev                 # dpkg-source: unpacks Debian's source packages (Dear ImGui, zlib, Graphviz) with their patches
    bison flex               # Graphviz's DOT and HTML-label parsers, generated as its own build does
    chromium chromium-driver python3-selenium  # the page's test in a real, headless browser
  )
fi

# The list is Debian 12's and was tried only there. Elsewhere some names differ (docs/building.md,
# "Other systems", gives each system's list, marked untested), so on any other system this script
# installs nothing: it says so and returns 0,
# and scripts/walkthrough.sh and scripts/test.sh go on to CMake, which names what is missing.
# shellcheck source=/dev/null
os_name=$( (. /etc/os-release && echo "${ID:-?} ${VERSION_ID:-?}") 2>/dev/null || echo "unknown")
if [ "$os_name" != "debian 12" ] || ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
  echo "install-deps: this system is '$os_name', not Debian 12: nothing checked or installed." >&2
  echo "install-deps: docs/building.md, \"Other systems\", lists the packages to install here." >&2
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  [ "$quiet" -eq 0 ] || echo "install-deps: all ${#packages[@]} packages are installed"
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    why="sudo is not installed"
  elif sudo -n true 2>/dev/null; then
    why=""
  elif (exec </dev/tty) 2>/dev/null; then
    why=""
    sudo -v  # asks for the password now, before any output is redirected
  else
    why="sudo needs a password and there is no terminal to ask for it"
  fi
  if [ -n "$why" ]; then
    {
      echo "install-deps: ${#missing[@]} package(s) missing: ${missing[*]}"
      echo "install-deps: installing them needs root, and $why."
      echo "install-deps: have this line run by a user who may use sudo (or by root, without 'sudo'), then run this script again:"
      echo "sudo apt-get install -y --no-install-recommends ${missing[*]}"
    } >&2
    exit 1
  fi
  as_root=(sudo)
fi

# Another apt-get may hold the lock (unattended upgrades, a parallel job): wait for it.
apt_opts=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
apt_install() {
  "${as_root[@]}" apt-get "${apt_opts[@]}" update -qq &&
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends "${missing[@]}"
}

if [ "$quiet" -eq 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  apt_install
  exit 0
fi

log=$(mktemp "${TMPDIR:-/tmp}/install-deps.XXXXXX.log")
printf 'install-deps: installing %d packages (%s), log %s ... ' "${#missing[@]}" "${missing[*]}" "$log"
start=$SECONDS
status=0
apt_install >"$log" 2>&1 </dev/null || status=$?
if [ "$status" -eq 0 ]; then
  echo "done in $((SECONDS - start)) s"
  exit 0
fi
echo "failed after $((SECONDS - start)) s"
{
  echo "install-deps: apt-get failed (exit status $status); the last 40 lines of its log:"
  tail -n 40 "$log"
  echo "install-deps: the whole log: $log"
} >&2
exit "$status"
