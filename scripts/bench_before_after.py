#!/usr/bin/env python3
"""Times two builds of tinyamp-bench against each other, in one run: a change's cost or gain.

    scripts/bench_before_after.py BEFORE_BENCH AFTER_BENCH [--rounds N] [--filter REGEX]

BEFORE_BENCH and AFTER_BENCH are two `tinyamp-bench` programs (build one from the old commit in a
git worktree: `scripts/bench.sh` builds it in build-bench/). They run alternately, N rounds each
(default 3), on the same benchmarks (default: the GEMM at N = 512 and 1024 against OpenBLAS, and
the per-op overhead cases), so both see the same machine state and the same noise. Each figure is
the median, over the rounds, of the program's own median of repetitions. Printed per benchmark:
before, after, after/before; and for the GEMM, each build's ratio to OpenBLAS measured in the same
process, which is the figure that does not drift with the machine. A ratio within a few percent
of 1 is noise on a shared machine; the CPU is named at the top, since the figures depend on it.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

DEFAULT_FILTER = r"gemm/(tinyamp_f32|tinyamp_bf16|openblas_f32)/n:(512|1024)/|dispatch/"


def cpu_name():
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def run_once(bench, bench_filter):
    """{benchmark name: median real time in ns} from one run of `bench`."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        path = out.name
    try:
        subprocess.run([bench, f"--benchmark_filter={bench_filter}", f"--benchmark_out={path}", "--benchmark_out_format=json"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "TINYAMP_BENCH_PYTORCH": "0"})
        with open(path) as f:
            data = json.load(f)
    finally:
        os.unlink(path)
    medians = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median":
            medians[b["run_name"]] = b["real_time"] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
    return medians


def short(name):
    return name.replace("/min_time:0.150", "").replace("/min_time:0.200", "").replace("/repeats:5", "").replace("/real_time", "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--filter", default=DEFAULT_FILTER)
    args = parser.parse_args()
    for bench in (args.before, args.after):
        if not os.access(bench, os.X_OK):
            print(f"bench_before_after: {bench} is not a program; build tinyamp-bench first (scripts/bench.sh)", file=sys.stderr)
            return 2
    runs = {"before": [], "after": []}
    for r in range(args.rounds):
        for which in ("before", "after"):
            print(f"round {r + 1}/{args.rounds}: {which}", file=sys.stderr, flush=True)
            runs[which].append(run_once(getattr(args, which), args.filter))
    med = {w: {n: statistics.median(run[n] for run in runs[w] if n in run) for n in runs[w][0]} for w in runs}
    print(f"before/after on {cpu_name()}, {os.cpu_count()} logical CPUs; medians of {args.rounds} alternating rounds, each the median of 5 repetitions")
    print(f"{'benchmark':58} {'before':>12} {'after':>12} {'after/before':>13}")
    for name in sorted(med["before"]):
        if name not in med["after"]:
            continue
        b, a = med["before"][name], med["after"][name]
        unit, scale = ("us", 1e3) if b < 1e6 else ("ms", 1e6)
        print(f"{short(name):58} {b / scale:9.3f} {unit} {a / scale:9.3f} {unit} {a / b:13.3f}")
    print("GEMM time relative to OpenBLAS f32 in the same process (lower is faster):")
    for name in sorted(med["before"]):
        if not name.startswith("gemm/tinyamp"):
            continue
        peer = name.replace("tinyamp_f32", "openblas_f32").replace("tinyamp_bf16", "openblas_f32")
        if peer in med["before"] and peer in med["after"] and name in med["after"]:
            rb = med["before"][name] / med["before"][peer]
            ra = med["after"][name] / med["after"][peer]
            print(f"  {short(name):56} before {rb:6.3f}  after {ra:6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
