#!/usr/bin/env python3
"""No two source files of the library share a base name across folders (issue 40): a search for
`elementwise.h` must find one file, and a name must say which floor's file it is. Checks
tinyamp/, kernels/ and training/: the files of one base name (`x.h`, `x.cpp`, `x.cu`, `x.cuh`) must all be in
one folder. Exits 1 naming each name found in more than one folder, unless it is listed in
scripts/name_collisions_allowed.txt (the collisions that predate the check, each to be renamed);
a listed name that no longer collides fails too, so the list only shrinks.

    check_name_collisions.py [ROOT]     ROOT: the checkout (default: this script's parent's parent)
"""
import collections
import pathlib
import sys

SOURCE_SUFFIXES = {".h", ".cpp", ".cu", ".cuh"}
CHECKED = ("tinyamp", "kernels", "training")


def folders_by_name(root):
    """Each base name of a source file under CHECKED -> the folders holding one."""
    names = collections.defaultdict(set)
    for top in CHECKED:
        for path in sorted((root / top).rglob("*")):
            if path.is_file() and path.suffix in SOURCE_SUFFIXES:
                names[path.stem].add(path.parent.relative_to(root).as_posix())
    return names


def allowed_names(root):
    listed = root / "scripts" / "name_collisions_allowed.txt"
    if not listed.exists():
        return set()
    return {line.split()[0] for line in listed.read_text().splitlines() if line.strip() and not line.startswith("#")}


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    names = folders_by_name(root)
    collisions = {name: sorted(folders) for name, folders in names.items() if len(folders) > 1}
    allowed = allowed_names(root)
    problems = []
    for name, folders in sorted(collisions.items()):
        if name not in allowed:
            problems.append(f"'{name}' names files in {len(folders)} folders: {', '.join(folders)}; "
                            f"name each for what it holds (e.g. kernels for the work they do)")
    for name in sorted(allowed - collisions.keys()):
        problems.append(f"'{name}' is listed in scripts/name_collisions_allowed.txt but no longer collides: take it off the list")
    for problem in problems:
        print("check_name_collisions: " + problem)
    print(f"check_name_collisions: {len(collisions)} base name(s) in more than one folder of {' and '.join(CHECKED)}, "
          f"{len(collisions.keys() & allowed)} of them listed (to be renamed); {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
