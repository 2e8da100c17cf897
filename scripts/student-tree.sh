#!/usr/bin/env bash
# Emits the student tree for a class: a copy of this checkout in which every lab's solution,
# between `BEGIN SOLUTION` and `END SOLUTION` in lessons/NN_topic/lab.cpp, is replaced by a
# statement that fails the lab's tests with "lab NN.k is not done yet".
#
#   scripts/student-tree.sh DEST        (DEST must not exist yet)
#
# Students then build as usual and run one lab with  build/lessons/lab_02,  or every lab with
#   ctest -L lab -E labs_student_tree_fails
# (that test checks that stubbed labs fail, so in a student tree it fails by design).
# docs/teaching.md walks an instructor through a session and grading.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -ne 1 ]; then
  echo "usage: scripts/student-tree.sh DEST   (a folder that does not exist yet)" >&2
  exit 2
fi
dest="$1"
if [ -e "$dest" ]; then
  echo "student-tree: $dest already exists; give a new folder, so nothing of yours is overwritten" >&2
  exit 1
fi
command -v python3 >/dev/null || { echo "student-tree: needs python3 (scripts/install-deps.sh installs it)" >&2; exit 1; }

# Build in a temporary folder and move it into place at the end: no half-made tree on failure.
staging="$(mktemp -d "$(dirname "$(realpath -m "$dest")")/.student-tree.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # The tracked files only: no build folders, no local clutter.
  git -C "$root" ls-files -z | (cd "$root" && xargs -0 cp --parents -t "$staging")
else
  cp -a "$root/." "$staging/"
  rm -rf "$staging"/build*
fi
count=0
for lab in "$staging"/lessons/[0-9][0-9]_*/lab.cpp; do
  python3 "$root/lessons/support/strip_solutions.py" "$lab" "$lab"
  count=$((count + 1))
done
mv "$staging" "$dest"
trap - EXIT
echo "student tree in $dest: $count labs with their solutions taken out"
echo "build it with  $dest/scripts/build.sh  and run a lab with  $dest/build/lessons/lab_02"
