#!/usr/bin/env bash
# Renders the guides' diagrams: every docs/diagrams/NAME.dot becomes docs/images/NAME.svg.
# The .dot files are the sources (edit those), except docs/diagrams/floors.dot, which
# scripts/check_floors.py --dot writes from scripts/floors.txt and the code's #include lines, so the
# floors drawn in docs/architecture.md cannot drift from the code. The SVGs are committed so the
# guides show them on any Markdown viewer. The test `docs_diagrams_current` fails when an SVG is
# older than its source, or floors.dot older than the includes.
#   scripts/docs-diagrams.sh            render them all
#   scripts/docs-diagrams.sh --check    render into a temp folder and compare; exit 1 if any differs
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
check=0
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  *) echo "docs-diagrams: unknown option '$1' (the only option is --check)" >&2; exit 2 ;;
esac
command -v dot >/dev/null || { echo "docs-diagrams: Graphviz 'dot' is missing (scripts/install-deps.sh installs it)" >&2; exit 2; }

out="$root/docs/images"
if [ "$check" -eq 1 ]; then
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi
stale=0
floors="$(python3 "$root/scripts/check_floors.py" --dot)"
if [ "$check" -eq 1 ]; then
  if [ "$floors" != "$(cat "$root/docs/diagrams/floors.dot" 2>/dev/null)" ]; then
    echo "docs-diagrams: docs/diagrams/floors.dot is not what scripts/check_floors.py --dot gives for the code now: run scripts/docs-diagrams.sh" >&2
    stale=1
  fi
else
  printf '%s\n' "$floors" > "$root/docs/diagrams/floors.dot"
fi
for source in "$root"/docs/diagrams/*.dot; do
  [ -e "$source" ] || continue
  name="$(basename "$source" .dot)"
  dot -Tsvg "$source" -o "$out/$name.svg.tmp"
  mv "$out/$name.svg.tmp" "$out/$name.svg"
  if [ "$check" -eq 1 ] && ! cmp -s "$out/$name.svg" "$root/docs/images/$name.svg"; then
    echo "docs-diagrams: docs/images/$name.svg is not the rendering of docs/diagrams/$name.dot: run scripts/docs-diagrams.sh" >&2
    stale=1
  fi
done
# dot measures text with the font fontconfig gives for "Helvetica"; the SVGs were rendered where
# that is DejaVu Sans (fonts-dejavu-core, which install-deps installs). Another font there (e.g.
# ttf-bitstream-vera's) moves every box, and this check fails with no change to any .dot file.
if [ "$stale" -ne 0 ] && command -v fc-match >/dev/null; then
  helvetica="$(fc-match -f '%{family[0]}' Helvetica 2>/dev/null || true)"
  if [ -n "$helvetica" ] && [ "$helvetica" != "DejaVu Sans" ]; then
    echo "docs-diagrams: note: here \"Helvetica\" is drawn with '$helvetica', not DejaVu Sans as where the SVGs were made;" \
         "if no .dot changed, that is the difference (fc-match Helvetica; remove the font, or re-render and compare)" >&2
  fi
fi
exit "$stale"
