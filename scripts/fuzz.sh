#!/usr/bin/env bash
# Fuzzes every file loader with libFuzzer (Clang), built with ASan + UBSan in build-fuzz/:
# safetensors, checkpoints, policy tables and trace JSON (fuzz/*_fuzz.cpp say what each checks).
#
#   scripts/fuzz.sh smoke [SECONDS]    each target for SECONDS (default 20) from the seed corpus
#                                      (scripts/test.sh runs this; new inputs are thrown away)
#   scripts/fuzz.sh campaign [RUNS]    each target for RUNS executions (default 1000000); the
#                                      corpus grows in build-fuzz/corpus/TARGET, crashes land in
#                                      build-fuzz/crashes/TARGET; a summary line per target
#   scripts/fuzz.sh seeds              writes the seed corpus fuzz/corpus/ again
#
# A crash, a leak, a sanitizer report or a broken property (fuzz_support.h) stops the target
# with the input saved, and this script fails. Replay one: build-fuzz/fuzz/fuzz_TARGET FILE.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz"
mode="${1:-smoke}"
targets=(safetensors checkpoint policy_table trace_json)

cxx="$(command -v clang++ || command -v clang++-14 || true)"
cc="$(command -v clang || command -v clang-14 || true)"
[ -n "$cxx" ] && [ -n "$cc" ] || { echo "fuzz: clang++ is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
CC="$cc" CXX="$cxx" cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTINYAMP_FUZZ=ON -DTINYAMP_CUDA=OFF \
  -DTINYAMP_BUILD_TESTS=OFF -DTINYAMP_BUILD_LESSONS=OFF -DTINYAMP_BUILD_VISUALIZER=OFF >/dev/null
jobs="$(nproc 2>/dev/null || echo 2)"
cmake --build "$build" -j "$jobs" --target fuzz_make_seeds "${targets[@]/#/fuzz_}"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
case "$mode" in
  seeds)
    "$build/fuzz/fuzz_make_seeds" "$root/fuzz/corpus"
    ;;
  smoke)
    seconds="${2:-20}"
    for t in "${targets[@]}"; do
      work="$(mktemp -d)"
      cp -r "$root/fuzz/corpus/$t/." "$work/"
      echo "-- fuzz_$t: ${seconds} s from $(ls "$root/fuzz/corpus/$t" | wc -l) seed(s)"
      if ! "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/" "$work" >"$work/log.txt" 2>&1; then
        tail -n 60 "$work/log.txt"
        echo "fuzz: fuzz_$t failed; the input that did it is in $work (crash-*, leak-*, timeout-*)" >&2
        exit 1
      fi
      grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$work/log.txt" | tr '\n' ' '
      echo
      rm -rf "$work"
    done
    ;;
  campaign)
    runs="${2:-1000000}"
    for t in "${targets[@]}"; do
      corpus="$build/corpus/$t" crashes="$build/crashes/$t"
      mkdir -p "$corpus" "$crashes"
      start=$(date +%s)
      status=0
      "$build/fuzz/fuzz_$t" -runs="$runs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" \
        "$corpus" "$root/fuzz/corpus/$t" >"$build/$t.log" 2>&1 || status=$?
      executed="$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/$t.log")"
      echo "fuzz_$t: ${executed:-?} executions in $(( $(date +%s) - start )) s, corpus $(ls "$corpus" | wc -l) files, $(ls "$crashes" | wc -l) crash file(s), exit $status (log: $build/$t.log)"
      [ "$status" -eq 0 ] || { tail -n 40 "$build/$t.log"; exit 1; }
    done
    ;;
  *)
    echo "fuzz: unknown mode '$mode' (smoke [SECONDS], campaign [RUNS] or seeds)" >&2
    exit 2
    ;;
esac
