#!/usr/bin/env python3
"""Fails when a folder that must stay readable in one sitting grows past its line budget.

    scripts/check_line_budget.py                  check every folder of BUDGETS below
    scripts/check_line_budget.py FOLDER LIMIT     check one folder against LIMIT (CTest also runs
                                                  it with a limit too small, to see it fail)

A line of code is a line with something on it besides whitespace and comments (// and /* */):
blank lines and documentation are free, so the budget never argues against explaining the code.
Each file's count is printed, largest first, so an overrun shows where to look.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# tinyamp/amp/ is what a student reads to learn autocast (with the FP8 region of lessons 17-19),
# tinyamp/scaler/ GradScaler (CONTRIBUTING.md).
BUDGETS = {"tinyamp/amp": 900, "tinyamp/scaler": 900}
SOURCE_SUFFIXES = (".h", ".cpp", ".cu", ".cuh")


def code_lines(text):
    """Lines that hold code once comments are removed (string literals are not parsed: a "//" or
    "/*" inside a string would count its line as a comment, which these sources do not have)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return sum(1 for line in text.splitlines() if line.split("//", 1)[0].strip())


def check(folder, limit):
    path = os.path.join(ROOT, folder)
    if not os.path.isdir(path):
        print(f"check_line_budget: no folder {folder}", file=sys.stderr)
        return False
    counts = []
    for name in sorted(os.listdir(path)):
        if name.endswith(SOURCE_SUFFIXES):
            with open(os.path.join(path, name), encoding="utf-8") as source:
                counts.append((code_lines(source.read()), name))
    total = sum(count for count, _ in counts)
    for count, name in sorted(counts, reverse=True):
        print(f"  {count:5d}  {folder}/{name}")
    verdict = "within" if total <= limit else "OVER"
    print(f"{folder}/: {total} lines of code, {verdict} its budget of {limit}")
    if total > limit:
        print(f"check_line_budget: {folder}/ has {total - limit} lines of code too many: move what is not the algorithm "
              "(text formats, explanations, device plumbing) to the floor it belongs to, or say in CONTRIBUTING.md why "
              "the budget must grow", file=sys.stderr)
    return total <= limit


def main():
    args = sys.argv[1:]
    if len(args) == 2:
        budgets = {args[0].rstrip("/"): int(args[1])}
    elif not args:
        budgets = BUDGETS
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0 if all([check(folder, limit) for folder, limit in budgets.items()]) else 1


if __name__ == "__main__":
    sys.exit(main())
