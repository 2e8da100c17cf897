#!/usr/bin/env python3
"""The training step in the browser is the native one: for every scenario, the trace that
viz_trace_dump prints natively and the one its WebAssembly build prints under node, compared event
by event. Everything that is not a number (ops, dtypes, shapes, casts, cache hits, policies) must
be equal (tensor ids up to renumbering); numbers (value statistics, losses, scales) within a
relative 1e-5 or 1e-30 absolute: the
web build's math library (musl's exp, log, tanh) may differ from glibc's in a last bit. The native
side runs with TINYAMP_CPU=portable, the kernels the web build has.

    compare_traces.py NATIVE_VIZ_TRACE_DUMP NODE WEB_VIZ_TRACE_DUMP_JS [STEPS]

Exits 77 (skipped) when the WebAssembly build is not there (scripts/web.sh builds it), 1 when a
scenario differs, naming the first difference.
"""
import json
import math
import os
import pathlib
import subprocess
import sys

RELATIVE, ABSOLUTE = 1e-5, 1e-30


def first_difference(a, b, path="trace"):
    """None when a and b are equal (numbers within the tolerance), else where and how they differ."""
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        if type(a) is not type(b):
            return f"{path}: {a!r} natively, {b!r} in WebAssembly"
        if isinstance(a, dict):
            if a.keys() != b.keys():
                return f"{path}: keys {sorted(a.keys() ^ b.keys())} in only one of them"
            for key in a:
                found = first_difference(a[key], b[key], f"{path}.{key}")
                if found:
                    return found
            return None
        if isinstance(a, list):
            if len(a) != len(b):
                return f"{path}: {len(a)} entries natively, {len(b)} in WebAssembly"
            for i, (x, y) in enumerate(zip(a, b)):
                found = first_difference(x, y, f"{path}[{i}]")
                if found:
                    return found
            return None
        return None if a == b else f"{path}: {a!r} natively, {b!r} in WebAssembly"
    if math.isclose(a, b, rel_tol=RELATIVE, abs_tol=ABSOLUTE):
        return None
    return f"{path}: {a!r} natively, {b!r} in WebAssembly"


def renumbered(trace):
    """The trace with each tensor "id" replaced by the order in which it first appears. An id is a
    name, counted over every tensor the process made (its data loading, temporaries): two runs that
    did the same ops may count differently, and that is no difference in what was traced."""
    order = {}

    def walk(node):
        if isinstance(node, dict):
            return {k: (order.setdefault(v, len(order)) if k == "id" and isinstance(v, int) else walk(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(trace)


def largest_relative_difference(a, b):
    if isinstance(a, dict):
        return max((largest_relative_difference(a[k], b[k]) for k in a), default=0.0)
    if isinstance(a, list):
        return max((largest_relative_difference(x, y) for x, y in zip(a, b)), default=0.0)
    if isinstance(a, (int, float)) and not isinstance(a, bool) and a != b:
        return abs(a - b) / max(abs(a), abs(b))
    return 0.0


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    native, node, web = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    steps = sys.argv[4] if len(sys.argv) == 5 else "2"
    if not web.exists():
        print(f"compare_traces: skipped: no {web} (scripts/web.sh builds it)")
        return 77
    names = subprocess.run([native, "--list"], capture_output=True, text=True, check=True).stdout.split()
    failed = 0
    for name in names:
        env = dict(os.environ, TINYAMP_CPU="portable")
        ours = subprocess.run([native, name, steps], capture_output=True, text=True, env=env)
        theirs = subprocess.run([node, str(web), name, steps], capture_output=True, text=True)
        if ours.returncode or theirs.returncode:
            def last(text):  # a crashed WebAssembly program prints its whole JavaScript: the end says why
                return text.strip().splitlines()[-1][-300:] if text.strip() else ""
            print(f"FAILED: {name}: native exit {ours.returncode} {last(ours.stderr)}; web exit {theirs.returncode} {last(theirs.stderr)}")
            failed += 1
            continue
        a, b = renumbered(json.loads(ours.stdout)), renumbered(json.loads(theirs.stdout))
        events = len(a.get("events", []))
        difference = first_difference(a, b)
        if difference:
            print(f"FAILED: {name}: {difference}")
            failed += 1
        else:
            print(f"ok: {name}: {events} events equal after {steps} steps "
                  f"(largest relative difference of a number {largest_relative_difference(a, b):.2g})")
    print(f"compare_traces: {len(names) - failed} of {len(names)} scenarios equal")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
