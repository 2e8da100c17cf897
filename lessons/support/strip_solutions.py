#!/usr/bin/env python3
"""Turns a lab's solution file into the student's: every block between a `BEGIN SOLUTION` line
and an `END SOLUTION` line is replaced by one statement that throws NotDone for the lab item
named by the nearest `TODO(lab NN.k)` above it, so the student's build compiles and each
unfinished item fails its tests with "lab NN.k is not done yet".

    strip_solutions.py SOLUTION_FILE STUDENT_FILE     (STUDENT_FILE may be SOLUTION_FILE: in place)

Exits 1, naming the file and line, when the markers do not pair up or a block has no TODO above it.
"""
import sys

from lab_layout import TODO


def strip(lines, name):
    out, item, begin = [], None, None
    for number, line in enumerate(lines, 1):
        todo = TODO.search(line)
        if "BEGIN SOLUTION" in line:
            if begin is not None:
                raise ValueError(f"{name}:{number}: BEGIN SOLUTION inside the block opened at line {begin}")
            if item is None:
                raise ValueError(f"{name}:{number}: BEGIN SOLUTION with no TODO(lab NN.k) line above it")
            begin = number
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f'{indent}throw tinyamp::lesson::NotDone("{item}");\n')
        elif "END SOLUTION" in line:
            if begin is None:
                raise ValueError(f"{name}:{number}: END SOLUTION without a BEGIN SOLUTION")
            begin = None
        elif begin is None:
            out.append(line)
            if todo:
                item = f"lab {todo.group(1)}.{todo.group(2)}"
    if begin is not None:
        raise ValueError(f"{name}:{begin}: BEGIN SOLUTION is never closed by END SOLUTION")
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, target = sys.argv[1], sys.argv[2]
    with open(source, encoding="utf-8") as f:
        lines = f.readlines()
    try:
        student = strip(lines, source)
    except ValueError as problem:
        print(f"strip_solutions: {problem}", file=sys.stderr)
        sys.exit(1)
    with open(target + ".tmp", "w", encoding="utf-8") as f:
        f.writelines(student)
    import os
    os.replace(target + ".tmp", target)


if __name__ == "__main__":
    main()
