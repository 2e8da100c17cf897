#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the tour: every lesson in
# order, headless, each printing what to expect, showing it and checking it; the pictures and an
# index page go to build/tour/, with the visualizer's screenshots. Options go to the tour:
# --lesson N runs one lesson.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$root/build" >/dev/null
# The visualizer's views, rendered headless, for the tour's index page (skipped if it was not built).
if [ -x "$root/build/visualizer/tinyamp-viz" ]; then
  "$root/scripts/viz-screenshots.sh" "$root/build/tour/visualizer" >/dev/null
fi
"$root/build/lessons/tinyamp-tour" --out "$root/build/tour" "$@"
