#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the walkthrough.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$root/build" >/dev/null
"$root/build/examples/dtypes"
