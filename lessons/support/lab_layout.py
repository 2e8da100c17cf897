"""How the lab scripts read a lab folder (lessons/NN_topic/), one rule each, shared by scripts/lab,
check_labs.py, lab_table.py and strip_solutions.py so they cannot disagree:

  - an item is a `TODO(lab NN.k)` comment in lab.cpp;
  - a check is a CHECK/REQUIRE (or LAB_CHECK/LAB_REQUIRE, or one of their _THROWS... forms) in
    lab_test.cpp;
  - the lab's title is the first line of the lesson's README.md, without "# Lesson NN:";
  - a lab whose lab.h includes tinyamp/distributed/ runs on 2 processes (lab 21): its own
    programs, not the `labs` program, and only where MPI was found.
"""
import re

TODO = re.compile(r"TODO\(lab (\d\d)\.(\d+)\)")
CHECK = re.compile(r"\b(?:LAB_)?(?:CHECK|REQUIRE)(?:_[A-Z_]+)?\s*\(")


def lab_items(lab_source, number):
    """The items ("13.1", "13.2", ...) that lab NN's lab.cpp text marks with TODO, in order."""
    return sorted({f"{n}.{k}" for n, k in TODO.findall(lab_source) if n == number},
                  key=lambda item: int(item.split(".")[1]))


def lab_title(folder):
    """The lesson's title from its README.md's first line (the folder's name without one)."""
    readme = folder / "README.md"
    if not readme.exists():
        return folder.name
    first_line = readme.read_text(encoding="utf-8").splitlines()[0]
    return re.sub(r"^#\s*(Lesson\s+\d+\s*[:\u2014-]\s*)?", "", first_line).strip()


def runs_on_two_processes(folder):
    """Whether the lab in `folder` runs on 2 processes under mpiexec (its lab.h uses tinyamp::distributed)."""
    header = folder / "lab.h"
    return header.exists() and "tinyamp/distributed/" in header.read_text(encoding="utf-8")
