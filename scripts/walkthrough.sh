#!/usr/bin/env bash
# The README's first command: install what is missing, build what the lessons need, and run the
# tour: every lesson in order, headless, each printing what to expect, showing it and checking it.
# Lesson 1 is built and run first, so it is on screen while little has been built; then the other
# lessons and the visualizer are built and the tour goes on. The pictures and an index page go to
# build/tour/, with the visualizer's screenshots. The tests, benchmarks and (without a GPU) the
# CUDA kernels are left to scripts/test.sh. It ends with the times each part took.
#
#   scripts/walkthrough.sh              everything, lesson 1 first
#   scripts/walkthrough.sh --lesson N   builds the tour and runs lesson N only (repeatable)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
out="$build/tour"
start=$SECONDS
since() { local s=$(($SECONDS - $1)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
part() { printf '\n==== %s  (at %s)\n' "$1" "$(since "$start")"; }

part "1. Packages: installing what is missing"
"$root/scripts/install-deps.sh" --quiet
packages_done=$SECONDS

failed=0
first_lesson_at=""
if [ $# -eq 0 ]; then
  part "2. Building the library and lesson 1 (the longest wait: a few minutes on 2 cores)"
  TINYAMP_BUILD_TARGET=lesson_01 "$root/scripts/build.sh" "$build"
  first_built=$SECONDS
  part "3. Lesson 1"
  first_lesson_at="$(since "$start")"
  "$build/lessons/lesson_01" --out "$out" || failed=$?
fi

part "4. Building the other lessons and the visualizer"
targets="tinyamp-tour"
# The visualizer is built where its libraries were found (configure leaves it out otherwise).
if cmake --build "$build" --target help 2>/dev/null | grep -q 'tinyamp-viz'; then targets="$targets tinyamp-viz"; fi
rest_started=$SECONDS
TINYAMP_BUILD_TARGET="$targets" "$root/scripts/build.sh" "$build"
built_at=$SECONDS

if [ -x "$build/visualizer/tinyamp-viz" ]; then
  part "5. The visualizer's views, rendered headless for the tour's index page"
  if ! "$root/scripts/viz-screenshots.sh" "$out/visualizer" >"$build/viz-screenshots.log" 2>&1; then
    cat "$build/viz-screenshots.log"
    echo "walkthrough: the visualizer's screenshots failed (the log is above); the tour goes on without them" >&2
  fi
fi

part "6. The tour"
lessons=("$@")
if [ $# -eq 0 ]; then
  # Lesson 1 ran above: the rest, in order.
  for n in $("$build/lessons/tinyamp-tour" --list | awk '$1 != 1 {print $1}'); do lessons+=(--lesson "$n"); done
fi
[ -n "$first_lesson_at" ] || first_lesson_at="$(since "$start")"
status=0
"$build/lessons/tinyamp-tour" --out "$out" "${lessons[@]}" || status=$?
[ "$status" -eq 77 ] || [ "$status" -eq 0 ] || failed=$status  # 77: every lesson asked for was skipped (no GPU)

part "Done"
echo "first lesson on screen after $first_lesson_at; tour done after $(since "$start")"
times="  packages $((packages_done - start)) s"
[ -z "${first_built:-}" ] || times="$times, building the library and lesson 1 $((first_built - packages_done)) s"
times="$times, building the other lessons and the visualizer $((built_at - rest_started)) s, the screenshots and the tour $(($SECONDS - built_at)) s"
echo "$times"
echo "Open $out/index.html for every lesson's pictures. Next: the labs, README.md \"Start here\"."
if [ "$failed" -ne 0 ] && [ "$failed" -ne 77 ]; then
  echo "walkthrough: a lesson's claim did not hold (see above): that is a bug in tinyamp or in the lesson" >&2
  exit 1
fi
