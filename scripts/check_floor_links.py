#!/usr/bin/env python3
"""Fails when compiled code on a floor calls a function defined on a floor above it.

    scripts/check_floor_links.py BUILD_DIR [ROOT]

scripts/check_floors.py holds the includes; this holds the calls the includes cannot show: a
function declared low and defined high, such as Tensor's op methods, declared in
tinyamp/tensor/tensor.h and defined with the ops (tinyamp/ops/view_ops.cpp). It reads the library's
object files in BUILD_DIR (CMake's CMakeFiles/tinyamp.dir and kernels' tinyamp_kernels.dir) with
`nm`, places each on the floor of its source file (scripts/floors.txt in ROOT, the checkout by
default), and fails on an object that needs a symbol defined only by objects on higher floors.
A template or inline function that a lower object also defines is not a call upward.

The calls the design allows are listed, with the reason, in scripts/floor_links_allowed.txt
(one: the virtual AccumulateGrad::apply, docs/architecture.md); a listed call that no longer
reaches up fails too, so the list only shrinks.
"""
import os
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_floors  # noqa: E402  (read_table, floor_of)

OBJECT_FOLDERS = {  # CMake's object folder of a target -> the source folder its paths start from
    os.path.join("CMakeFiles", "tinyamp.dir"): "",
    os.path.join("kernels", "CMakeFiles", "tinyamp_kernels.dir"): "kernels/",
}
DEFINED = set("TWVDBRGSiu")  # nm -P types of a global definition (uppercase, plus weak, indirect, unique)


def objects(build_dir):
    """(source path, object path) for each object of the library."""
    for folder, prefix in OBJECT_FOLDERS.items():
        top = os.path.join(build_dir, folder)
        for here, _, files in os.walk(top):
            for name in sorted(files):
                if name.endswith(".o") and not name.startswith("cmake_pch"):
                    relative = os.path.relpath(os.path.join(here, name), top).replace(os.sep, "/")
                    yield prefix + relative[: -len(".o")], os.path.join(here, name)


def symbols(path):
    """(defined, undefined): the global symbols `path` defines and the ones it needs."""
    out = subprocess.run(["nm", "-P", path], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind in ("U", "w", "v"):
            undefined.add(name)
        elif kind in DEFINED:
            defined.add(name)
    return defined, undefined


def read_allowed(path):
    """The demangled symbols that may reach up (the first field of each line; # starts a comment)."""
    if not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8") as listed:
        return {line.split("#", 1)[0].strip() for line in listed if line.split("#", 1)[0].strip()}


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout
    return out.splitlines() if out else list(names)


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    build_dir = os.path.abspath(argv[0])
    root = os.path.abspath(argv[1]) if len(argv) > 1 else check_floors.ROOT
    floors = check_floors.read_table(os.path.join(root, "scripts", "floors.txt"))
    names = [name for name, _ in floors]

    placed = []  # (source, floor, defined, undefined)
    for source, path in objects(build_dir):
        if not os.path.exists(os.path.join(root, source)):
            continue  # left over from a file since moved or removed
        floor = check_floors.floor_of(source, floors)
        if floor is None:
            print(f"no floor: {source} (its object {path}); add its folder to scripts/floors.txt")
            return 1
        placed.append((source, floor, *symbols(path)))
    if not placed:
        print(f"check_floor_links: no object files of the library under {build_dir}; build it first", file=sys.stderr)
        return 2

    lowest_definer = {}  # symbol -> (floor, source) of the lowest object defining it
    for source, floor, defined, _ in placed:
        for name in defined:
            if name not in lowest_definer or floor < lowest_definer[name][0]:
                lowest_definer[name] = (floor, source)

    upward = defaultdict(list)  # (source, its floor, definer, its floor) -> symbols
    for source, floor, _, undefined in placed:
        for name in undefined:
            if name in lowest_definer and lowest_definer[name][0] > floor:
                target_floor, target = lowest_definer[name]
                upward[(source, floor, target, target_floor)].append(name)

    allowed = read_allowed(os.path.join(root, "scripts", "floor_links_allowed.txt"))
    seen_allowed, failures = set(), 0
    for (source, floor, target, target_floor), found in sorted(upward.items()):
        for readable in demangle(sorted(found)):
            if readable in allowed:
                seen_allowed.add(readable)
                continue
            failures += 1
            print(f"reaches up: {source} (floor {names[floor]}) calls {readable}, defined only in {target} "
                  f"(floor {names[target_floor]}); move the caller up, or hand the function down (as the "
                  f"dispatcher hands the autocast layer its cast)")
    for readable in sorted(allowed - seen_allowed):
        failures += 1
        print(f"no longer reaches up: {readable}; remove it from scripts/floor_links_allowed.txt")
    print(f"check_floor_links: {len(placed)} object files, {failures} call(s) to a floor above not allowed, "
          f"{len(seen_allowed)} allowed (scripts/floor_links_allowed.txt)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
