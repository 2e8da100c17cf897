#!/usr/bin/env python3
"""The lab check CI runs: for every lessons/NN_topic/lab.cpp,
  - lab_test.cpp has a doctest suite "labNN" with at least 3 checks;
  - the solution build passes that suite (and runs at least one test case of it);
  - the student build (solutions stripped) fails that suite, and every item it stubs,
    TODO(lab NN.k), shows up in the failures as "lab NN.k is not done yet".

    check_labs.py LESSONS_DIR LABS_BINARY LABS_STUDENT_BINARY

A lab on 2 processes (its lab.h uses tinyamp/distributed/, lab_layout.runs_on_two_processes) is not
in `labs`: its own programs lab_NN and lab_NN_student, beside it, are checked instead; where they
were not built (no MPI) the check says so and goes on.
"""
import pathlib
import re
import subprocess
import sys

from lab_layout import CHECK, lab_items, runs_on_two_processes

CASES = re.compile(r"test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed")


def run(binary, suite):
    result = subprocess.run([binary, f"-ts={suite}", "--no-colors"], capture_output=True, text=True, timeout=300)
    return result.returncode, result.stdout + result.stderr


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    lessons, solution, student = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    problems, labs, unchecked = [], sorted(lessons.glob("[0-9][0-9]_*/lab.cpp")), []
    if not labs:
        problems.append(f"no lab.cpp under {lessons}")
    for lab in labs:
        number = lab.parent.name[:2]
        suite = f"lab{number}"
        solution_binary, student_binary = solution, student
        if runs_on_two_processes(lab.parent):
            folder = pathlib.Path(solution).parent
            solution_binary, student_binary = str(folder / f"lab_{number}"), str(folder / f"lab_{number}_student")
            if not pathlib.Path(solution_binary).exists():
                print(f"{suite}: runs on 2 processes and was not built here (no MPI): not checked")
                unchecked.append(suite)
                continue
        items = [f"lab {item}" for item in lab_items(lab.read_text(encoding="utf-8"), number)]
        test_file = lab.parent / "lab_test.cpp"
        tests = test_file.read_text() if test_file.exists() else ""
        checks = len(CHECK.findall(tests))
        if not items:
            problems.append(f"{lab}: no TODO(lab {number}.k) items")
        if f'TEST_SUITE("{suite}")' not in tests:
            problems.append(f'{test_file}: no TEST_SUITE("{suite}")')
        if checks < 3:
            problems.append(f"{test_file}: {checks} checks; a lab needs at least 3")
        code, output = run(solution_binary, suite)
        cases = CASES.search(output)
        if code != 0 or not cases or int(cases.group(1)) == 0:
            problems.append(f"{suite}: the solution does not pass (exit {code}):\n{output[-2000:]}")
        code, output = run(student_binary, suite)
        missing = [item for item in items if f"{item} is not done yet" not in output]
        if code == 0:
            problems.append(f"{suite}: the student build passes, but it should fail every item it stubs")
        if missing:
            problems.append(f"{suite}: the student build's failures never mention {', '.join(missing)}")
        print(f"{suite}: {len(items)} items, {checks} checks; solution passes; student build fails"
              + ("" if not missing else f" (but not on {', '.join(missing)})"))
    if problems:
        print("\n".join(["", "lab check FAILED:"] + problems), file=sys.stderr)
        sys.exit(1)
    print(f"lab check passed: {len(labs) - len(unchecked)} labs" + (f" ({', '.join(unchecked)} not built here)" if unchecked else ""))


if __name__ == "__main__":
    main()
