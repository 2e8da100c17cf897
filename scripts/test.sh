#!/usr/bin/env bash
# The README's second command (and CI's): install what is missing, build, run every test (the
# package test installs tinyamp and builds an outside project against it), build the web page and
# test it in headless Chromium (scripts/web.sh, docs/web.md), build the API
# reference with Doxygen, then build again with AddressSanitizer + UndefinedBehaviorSanitizer and
# run the tests there too, once more with ThreadSanitizer for the tests whose name contains
# "thread", and last a short libFuzzer run of every file loader (scripts/fuzz.sh smoke).
#   scripts/test.sh            everything
#   scripts/test.sh --fast     the normal build's tests only (no sanitizer builds)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="$(nproc 2>/dev/null || echo 2)"
"$root/scripts/install-deps.sh"

# Each stage's header says when it began, in seconds since the start: where CI's time goes (it must
# stay well under 30 minutes on 2 cores).
stage() { echo "== $1 (at ${SECONDS} s)"; }
trap 'echo "== end, exit code $? (at ${SECONDS} s)"' EXIT

# The CUDA kernels are compiled wherever nvcc is found, GPU or not (TINYAMP_CUDA=ON); the
# walkthrough leaves them out without a GPU.
stage "Release build (warnings are errors), all tests"
"$root/scripts/build.sh" "$root/build" -DTINYAMP_CUDA=ON
(cd "$root/build" && ctest --output-on-failure -j "$jobs")

# The web page: tinyamp-viz in WebAssembly (scripts/web.sh installs Emscripten and Chromium, and
# fetches Dear ImGui, zlib and Graphviz from Debian's source packages), then its test in headless
# Chromium (tests/web/browser_check.py; skipped in the stage above, before the page existed).
stage "Web page (scripts/web.sh) and its test in headless Chromium"
"$root/scripts/web.sh"
(cd "$root/build" && ctest --output-on-failure -L '^web$')
# Its figures (transfer size, first frame, deep-bf16's frame time; measured, printed against the
# budgets of docs/web.md): in the log, beside the CPU.
figures="$root/build/visualizer/web-check/figures.json"
if [ -f "$figures" ]; then echo "web page figures ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores): $(tr -d '\n ' < "$figures")"; fi

# The speed claims (lesson 1) and the GEMM tiers depend on the CPU, so they run once for each level
# TINYAMP_CPU can cap this machine's features to: every branch of the claims is checked where the
# hardware allows. Levels that leave the same features in use (avx512 on a CPU without AVX-512,
# say) run once. The portable tier's plain loops are slow, so there only lesson 1 and the GEMM
# tests run; every other level also runs lessons 14 and 15, whose timings depend on the CPU too.
# (Every lesson already ran above, at this machine's own level, as a CTest test.)
stage "Per CPU level (TINYAMP_CPU): the GEMM tests and the lessons whose claims depend on the CPU (1, 14, 15)"
seen=""
for level in portable avx2 avx512 avx512bf16 amx; do
  features="$(TINYAMP_CPU=$level "$root/build/lessons/tinyamp-tour" --cpu | sed -n 's/^features in use: //p')"
  case " $seen " in *" [$features] "*) echo "-- TINYAMP_CPU=$level: same features as a level above ($features), not run again"; continue ;; esac
  seen="$seen [$features]"
  echo "-- TINYAMP_CPU=$level: features in use: $features"
  out="$(mktemp -d)"
  if ! TINYAMP_CPU=$level "$root/build/tests/tinyamp_tests" -sf='*gemm*,*peak_probe*,*backends/cpu*,*convert_hardware*' \
    >"$out/tests.txt" 2>&1; then
    cat "$out/tests.txt"
    echo "TINYAMP_CPU=$level: a GEMM or CPU-feature test failed (the log is above)" >&2
    exit 1
  fi
  grep '^\[doctest\] test cases:' "$out/tests.txt"
  lessons=(--lesson 1)
  [ "$level" = portable ] || lessons=(--lesson 1 --lesson 14 --lesson 15)
  if ! TINYAMP_CPU=$level "$root/build/lessons/tinyamp-tour" "${lessons[@]}" --out "$out" >"$out/log.txt" 2>&1; then
    cat "$out/log.txt"
    echo "TINYAMP_CPU=$level: a lesson's claim did not hold (the log is above)" >&2
    exit 1
  fi
  grep -E "(ok|WRONG): bf16's product|^======== [0-9]+ lesson" "$out/log.txt"
  rm -rf "$out"
done

# The API reference: Doxygen over the public headers, the README and the guides; any warning (an
# undocumented public class or function, a broken link) fails it.
stage "API reference (Doxygen, warnings are errors)"
cmake --build "$root/build" --target docs
echo "docs: $root/build/docs/html/index.html"

if [ "${1:-}" = "--fast" ]; then
  exit 0
fi

# The sanitizer build leaves out the CUDA runtime (ASan and libcudart do not mix well) and the
# `long` and `training` tests (all 2^32 conversions, and 30-epoch training runs, take many
# minutes under ASan; the Release run above did them), and the labs' mistakes (mutations of the
# solutions, checked in Release above). Nor the web page's tests: the page is WebAssembly, the
# same whatever the native build, and its browser test ran in its own stage above.
stage "ASan + UBSan build, tests not labelled long, training or web"
"$root/scripts/build.sh" "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug -DTINYAMP_SANITIZE=ON -DTINYAMP_CUDA=OFF -DTINYAMP_BUILD_BENCH=OFF \
  -DTINYAMP_LAB_MISTAKES=OFF
(cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  LSAN_OPTIONS="suppressions=$root/scripts/lsan-suppressions.txt" \
  ctest --output-on-failure -j "$jobs" -LE 'long|training|web')

# ThreadSanitizer cannot share a build with ASan. Only the tests about threads run here (doctest
# filter `*thread*`), which keeps this stage short; any data race report fails the script.
stage "ThreadSanitizer build, tests whose name contains \"thread\""
TINYAMP_BUILD_TARGET=tinyamp_thread_tests "$root/scripts/build.sh" "$root/build-tsan" -DCMAKE_BUILD_TYPE=Debug -DTINYAMP_TSAN=ON \
  -DTINYAMP_CUDA=OFF -DTINYAMP_BUILD_LESSONS=OFF -DTINYAMP_BUILD_VISUALIZER=OFF -DTINYAMP_BUILD_BENCH=OFF
TSAN_OPTIONS=halt_on_error=1 "$root/build-tsan/tests/tinyamp_thread_tests" -tc='*thread*'
# Every file loader fuzzed briefly (libFuzzer, Clang, ASan + UBSan) from the committed seed corpus:
# any crash, sanitizer report, exception other than tinyamp::Error, or broken round trip fails.
# scripts/fuzz.sh campaign runs the long version.
stage "Fuzz smoke: each loader 10 s under libFuzzer"
"$root/scripts/fuzz.sh" smoke 10
