#!/usr/bin/env bash
# Emits the student tree for a class: a copy of this checkout in which every lab's solution,
# between `BEGIN SOLUTION` and `END SOLUTION` in lessons/NN_topic/lab.cpp, is replaced by a
# statement that fails the lab's tests with "lab NN.k is not done yet".
#
#   scripts/student-tree.sh DEST        (DEST must not exist yet)
#
# The tree is a git repository with one commit, tagged student-start: `git diff` shows a student's
# work, and `scripts/lab reset NN` gives back a lab as handed out. Each lab's mistakes.txt (the
# solution's common mistakes, which quote the solution) is left out.
#
# Students then work with the lab command:  scripts/lab list,  scripts/lab check 02,
# scripts/lab hint 02.1.  docs/teaching.md walks an instructor through a session and grading.
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
# safe.directory: a checkout owned by another user (an instructor's, read by a student) is still read.
checkout_git=(git -c safe.directory="$root" -C "$root")
if "${checkout_git[@]}" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # The tracked files only: no build folders, no local clutter.
  "${checkout_git[@]}" ls-files -z | (cd "$root" && xargs -0 cp --parents -t "$staging")
else
  cp -a "$root/." "$staging/"
  rm -rf "$staging"/build* "$staging/.git"  # no build folders, and no history (it holds the solutions)
fi
count=0
for lab in "$staging"/lessons/[0-9][0-9]_*/lab.cpp; do
  python3 "$root/lessons/support/strip_solutions.py" "$lab" "$lab"
  rm -f "$(dirname "$lab")/mistakes.txt"
  count=$((count + 1))
done
if command -v git >/dev/null; then
  git -C "$staging" init -q
  git -C "$staging" add -A
  git -C "$staging" -c user.name="tinyamp student tree" -c user.email="student-tree@tinyamp.invalid" \
    commit -q -m "The labs as handed out (scripts/student-tree.sh)"
  git -C "$staging" tag student-start
else
  echo "student-tree: git is not installed, so the tree has no history: scripts/lab reset will not work" >&2
fi
mv "$staging" "$dest"
trap - EXIT
echo "student tree in $dest: $count labs with their solutions taken out, a git repository tagged student-start"
echo "start with:  cd $dest && scripts/lab list  and  scripts/lab check 01"
