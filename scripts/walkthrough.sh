#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the tour: every lesson in
# order, headless, each printing what to expect, showing it and checking it; the pictures and an
# index page go to build/tour/. Options go to the tour: --lesson N runs one lesson.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$root/build" >/dev/null
"$root/build/lessons/tinyamp-tour" --out "$root/build/tour" "$@"
