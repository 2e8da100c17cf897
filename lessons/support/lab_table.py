#!/usr/bin/env python3
"""The labs' counts, as docs/teaching.md shows them, made from the lesson folders so they cannot go stale.

    lab_table.py print LESSONS_DIR        the table of labs: items, checks, common mistakes, hints
    lab_table.py check LESSONS_DIR DOC    exits 1 unless DOC's table (between the markers
                                          <!-- lab table --> and <!-- end lab table -->) is the one
                                          `print` makes, and every "N labs", "A to B items",
                                          "A to B checks" and "A to B common mistakes" in DOC is true

A check is a CHECK/REQUIRE (or LAB_CHECK/LAB_REQUIRE, or one of their _THROWS... forms) in
lab_test.cpp; an item a TODO(lab NN.k) in lab.cpp; a mistake a `mistake:` line in mistakes.txt; a
hint a numbered line of hints.md.
"""
import pathlib
import re
import sys

from lab_layout import CHECK, lab_items, lab_title  # the same rules as scripts/lab and the lab check CI runs

BEGIN, END = "<!-- lab table -->", "<!-- end lab table -->"


def lab_counts(lessons):
    rows = []
    for lab in sorted(pathlib.Path(lessons).glob("[0-9][0-9]_*/lab.cpp")):
        folder, number = lab.parent, lab.parent.name[:2]
        items = lab_items(lab.read_text(encoding="utf-8"), number)
        tests = folder / "lab_test.cpp"
        checks = len(CHECK.findall(tests.read_text(encoding="utf-8"))) if tests.exists() else 0
        mistakes_file, hints_file = folder / "mistakes.txt", folder / "hints.md"
        mistakes = len(re.findall(r"^mistake:", mistakes_file.read_text(encoding="utf-8"), re.M)) if mistakes_file.exists() else 0
        hints = len(re.findall(r"^\d+\.\s", hints_file.read_text(encoding="utf-8"), re.M)) if hints_file.exists() else 0
        rows.append({"number": number, "folder": folder.name, "title": lab_title(folder), "items": len(items), "checks": checks,
                     "mistakes": mistakes, "hints": hints})
    return rows


def table(rows):
    lines = ["| lab | topic | items | checks | common mistakes caught | hints |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['number']} | [{r['title']}](../lessons/{r['folder']}/README.md) | {r['items']} | {r['checks']} "
                     f"| {r['mistakes']} | {r['hints']} |")
    total = {key: sum(r[key] for r in rows) for key in ("items", "checks", "mistakes", "hints")}
    lines.append(f"| all | {len(rows)} labs | {total['items']} | {total['checks']} | {total['mistakes']} | {total['hints']} |")
    return "\n".join(lines) + "\n"


def check(lessons, doc_path):
    rows = lab_counts(lessons)
    text = pathlib.Path(doc_path).read_text(encoding="utf-8")
    problems = []
    if BEGIN not in text or END not in text:
        problems.append(f"{doc_path} has no {BEGIN} ... {END} markers around the table of labs")
    else:
        shown = text.split(BEGIN, 1)[1].split(END, 1)[0].strip() + "\n"
        if shown != table(rows):
            problems.append(f"{doc_path}'s table of labs is stale; paste in the output of "
                            f"python3 lessons/support/lab_table.py print lessons")
    for match in re.finditer(r"\b(\d+) labs\b", text):
        if int(match.group(1)) != len(rows):
            problems.append(f"{doc_path} says '{match.group(0)}'; there are {len(rows)} labs")
    for what, key in (("items", "items"), ("checks", "checks"), ("common mistakes", "mistakes")):
        for match in re.finditer(rf"\b(\d+) (?:to|or) (\d+) {what}\b", text):
            low, high = min(r[key] for r in rows), max(r[key] for r in rows)
            if (int(match.group(1)), int(match.group(2))) != (low, high):
                problems.append(f"{doc_path} says '{match.group(0)}'; the labs have {low} to {high} {what}")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(f"{doc_path}: the table and counts of the {len(rows)} labs are current")
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "print":
        print(table(lab_counts(sys.argv[2])), end="")
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        return check(sys.argv[2], sys.argv[3])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
