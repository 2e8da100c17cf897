#!/usr/bin/env bash
# A student's session, scripted (CTest: student_session): a student tree is made from this
# checkout; `lab list` shows lab 13 unchecked; `lab check 13` fails, naming the items not done;
# a wrong solution (one of lab 13's listed mistakes) fails with the student's values and the
# mistake's name in the output; the solution passes; `lab list` shows 3/3; hints come one level
# at a time; `lab reset 13` gives back the lab as handed out and keeps the student's version;
# `lab grade` writes valid JSON in Gradescope's shape. Where MPI is installed, lab 21 (2 processes
# under mpiexec, started by lab_21 itself) fails on the stubs and passes with its solution.
#
#   student_session_test.sh SOURCE_DIR WORK_DIR
#
# The student tree's build is configured without optimisation, CUDA or the visualizer (the
# quickest library build: this test is about the student's path, not the library's speed).
set -euo pipefail
source_dir="$(cd "$1" && pwd)"
work="$2"
rm -rf "$work"
mkdir -p "$work"
tree="$work/tree"
lab13=lessons/13_grad_scaler_dynamics

step() { printf '\n---- %s\n' "$*"; }
fail() { echo "student_session: FAILED: $*" >&2; exit 1; }
expect_in() {  # expect_in FILE TEXT WHAT
  grep -qF -- "$2" "$1" || { cat "$1"; fail "$3: the output above lacks \"$2\""; }
}

step "student tree"
"$source_dir/scripts/student-tree.sh" "$tree" >"$work/tree.txt"
[ -z "$(git -C "$tree" status --porcelain)" ] || fail "the student tree is not a clean git repository"
git -C "$tree" rev-parse -q --verify student-start >/dev/null || fail "the student tree has no tag student-start"
[ ! -e "$tree/$lab13/mistakes.txt" ] || fail "the student tree has lab 13's mistakes.txt, which quotes the solution"
grep -q "BEGIN SOLUTION" "$tree/$lab13/lab.cpp" && fail "the student tree's lab 13 still holds its solution"

cmake_generator=()
command -v ninja >/dev/null && cmake_generator=(-G Ninja)
cmake -S "$tree" -B "$tree/build" "${cmake_generator[@]}" -DCMAKE_BUILD_TYPE=None -DTINYAMP_CUDA=OFF \
  -DTINYAMP_BUILD_VISUALIZER=OFF >"$work/configure.txt" 2>&1 || { cat "$work/configure.txt"; fail "configuring the student tree"; }
lab() { (cd "$tree" && scripts/lab "$@"); }

step "lab list, before any check"
lab list >"$work/list0.txt"
grep -E '^13 .* -/3 .* not checked yet' "$work/list0.txt" >/dev/null || { cat "$work/list0.txt"; fail "lab list should show lab 13 as -/3, not checked yet"; }

step "lab check 13, nothing written yet"
if lab check 13 >"$work/check0.txt" 2>&1; then cat "$work/check0.txt"; fail "lab check 13 passed on the stubs"; fi
expect_in "$work/check0.txt" "lab 13.1: not done yet" "an item not written is named"
expect_in "$work/check0.txt" "0 of 3 item(s) done" "the summary counts items"

step "a wrong 13.1: the tracker counted after the comparison (a listed mistake)"
python3 "$source_dir/lessons/support/mistakes.py" apply "$source_dir/$lab13/mistakes.txt" 1 \
  "$source_dir/$lab13/lab.cpp" "$tree/$lab13/lab.cpp"
if lab check 13.1 >"$work/check1.txt" 2>&1; then cat "$work/check1.txt"; fail "a wrong 13.1 passed"; fi
expect_in "$work/check1.txt" "{65536, 65536, 65536, 32768, 32768} == {65536, 65536, 131072, 65536, 65536}" \
  "the failure shows what the student's code returned beside what it should have"
expect_in "$work/check1.txt" "mistake: counting the clean step after comparing with growth_interval" "the failure names the mistake"
expect_in "$work/check1.txt" "Stuck? scripts/lab hint 13.1" "the failure points at the hints"

step "the solution"
cp "$source_dir/$lab13/lab.cpp" "$tree/$lab13/lab.cpp"
lab check 13 >"$work/check2.txt" 2>&1 || { cat "$work/check2.txt"; fail "the solution does not pass lab check 13"; }
expect_in "$work/check2.txt" "3 of 3 item(s) done" "the solution's summary"
lab list >"$work/list1.txt"
grep -E '^13 .* 3/3 +([0-9]+)/\1 +just now' "$work/list1.txt" >/dev/null || { cat "$work/list1.txt"; fail "lab list should show lab 13 at 3/3, every check passed, just now"; }

step "hints, one level at a time"
lab hint 13.3 >"$work/hint1.txt"
lab hint 13.3 >"$work/hint2.txt"
expect_in "$work/hint1.txt" "Hint 1 of 3 for lab 13.3" "the first hint"
expect_in "$work/hint2.txt" "Hint 2 of 3 for lab 13.3" "the second hint, asked again"

step "lab grade (this tree, lab 13)"
lab grade --lab 13 --out "$work/grades" >"$work/grade.txt" 2>&1 || { cat "$work/grade.txt"; fail "lab grade"; }
python3 - "$work/grades/results.json" <<'EOF' || fail "lab grade's results.json is not what Gradescope reads"
import json, sys
results = json.load(open(sys.argv[1]))
tests = results["tests"]
assert len(tests) == 3, tests
for test in tests:
    assert set(test) >= {"name", "score", "max_score", "output"}, test
    assert test["name"].startswith("lab 13."), test
    assert test["score"] == test["max_score"] == 1.0, test
assert results["score"] == 3.0, results
EOF

step "lab reset 13"
lab reset 13 >"$work/reset.txt"
git -C "$tree" diff --quiet student-start -- "$lab13/lab.cpp" || fail "after lab reset 13, lab.cpp differs from the tree as handed out"
kept=("$tree/$lab13"/lab.cpp.before-reset-*)
cmp -s "${kept[0]}" "$source_dir/$lab13/lab.cpp" || fail "lab reset did not keep the student's version beside lab.cpp"
expect_in "$work/reset.txt" "is as handed out again" "lab reset says what it did"

if command -v mpiexec >/dev/null; then
  lab21=lessons/21_amp_across_processes
  step "lab check 21: 2 processes under mpiexec, nothing written yet"
  if lab check 21 >"$work/check21.txt" 2>&1; then cat "$work/check21.txt"; fail "lab check 21 passed on the stubs"; fi
  expect_in "$work/check21.txt" "(2 processes: " "lab 21 shows the mpiexec command it runs"
  expect_in "$work/check21.txt" "lab 21.2: not done yet" "an item not written is named"
  expect_in "$work/check21.txt" "0 of 3 item(s) done" "the summary counts lab 21's items"
  step "lab 21's solution"
  cp "$source_dir/$lab21/lab.cpp" "$tree/$lab21/lab.cpp"
  lab check 21 >"$work/check21b.txt" 2>&1 || { cat "$work/check21b.txt"; fail "the solution does not pass lab check 21"; }
  expect_in "$work/check21b.txt" "3 of 3 item(s) done" "lab 21's solution passes on both ranks"
else
  echo "student_session: no mpiexec here: lab 21 (2 processes) not tried"
fi

echo "student_session: passed"
