#!/usr/bin/env bash
# Installs the Debian packages tinyamp needs, and only those that are missing.
# Safe to run again and again: when everything is present it only asks dpkg, and returns at once
# (as any user). Installing needs root: as another user it uses sudo where sudo works, and
# otherwise prints the exact command to ask an administrator for. Debian 12 bookworm (other
# systems: docs/building.md).
#
#   scripts/install-deps.sh           what the library, tools and tests need
#   scripts/install-deps.sh --bench   that, plus the benchmark-only packages (scripts/bench.sh)
#   scripts/install-deps.sh --quiet   apt's output goes to a log; one line says what is installed
set -euo pipefail

with_bench=0
quiet=0
for arg in "$@"; do
  case "$arg" in
    --bench) with_bench=1 ;;
    --quiet) quiet=1 ;;
    *) echo "install-deps: unknown option '$arg' (the options are --bench: also the benchmark packages; --quiet: apt's output to a log)" >&2; exit 2 ;;
  esac
done

packages=(
  g++ cmake make pkg-config  # the build
  ninja-build                # Ninja: the build's one-line progress, and quick rebuilds of one lab
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
)
if [ "$with_bench" -eq 1 ]; then
  packages+=(
    libbenchmark-dev         # Google Benchmark: the timing loops of tinyamp-bench
    libopenblas-dev          # OpenBLAS sgemm: the f32 GEMM peer
    libdnnl-dev              # oneDNN: the bf16 GEMM peer
  )
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
  # sudo that works without a password, or can ask for one on this terminal.
  if command -v sudo >/dev/null && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
    as_root=(sudo)
  else
    echo "install-deps: these packages are missing, and installing them needs root: ${missing[*]}" >&2
    echo "install-deps: ask an administrator to run (or run it as root):" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi

# Another apt-get may hold the lock (unattended upgrades, a parallel job): wait for it.
apt_opts=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
install() {
  "${as_root[@]}" apt-get "${apt_opts[@]}" update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends "${missing[@]}"
}
if [ "$quiet" -eq 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  install
  exit 0
fi
log="$(mktemp "${TMPDIR:-/tmp}/tinyamp-install-deps.XXXXXX.log")"
printf 'install-deps: installing %d package(s) (%s) ... ' "${#missing[@]}" "${missing[*]}"
started=$SECONDS
if install >"$log" 2>&1; then
  echo "done in $((SECONDS - started)) s"
  rm -f "$log"
else
  status=$?
  echo "FAILED"
  tail -n 40 "$log"
  echo "install-deps: apt-get failed (exit $status); its whole output is in $log" >&2
  exit "$status"
fi
