#!/usr/bin/env python3
"""The tables of docs/gpt_study.md over every seed that scripts/gpt_study.sh has run.

    python3 scripts/gpt_study_summary.py [OUT_DIR]              default: docs/gpt_study
    python3 scripts/gpt_study_summary.py --check DOC [OUT_DIR]  DOC holds every table row (CTest)

Reads OUT_DIR/seedS_evals.csv and seedS_layers.csv (the four AMP modes of seed S) and
OUT_DIR/seedS_MODE_evals.csv / _layers.csv (an FP8 mode), the skipped steps from the matching
.log (the summary table tinyamp-train prints last), and prints one Markdown table per group of
modes: the validation loss at 500 / 1000 / 1500 steps (mean over the seeds), the final loss of
each seed and its difference from f32's on the same seed, and the worst over seeds, evaluations
and blocks of the ranges the study measures. Standard library only.
"""
import csv
import glob
import os
import re
import sys
from collections import defaultdict

AMP_MODES = ["f32", "bf16", "f16-scaler", "f16-no-scaler"]
FP8_MODES = ["fp8-current", "fp8-delayed", "mxfp8"]
CHECKPOINTS = [500, 1000, 1500]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def skipped_steps(log_path):
    """mode -> skipped steps, from the last summary table of a tinyamp-train log."""
    skipped = {}
    if not os.path.exists(log_path):
        return skipped
    in_table = False
    for line in open(log_path):
        if line.startswith("mode ") and "val loss" in line and "skipped" in line:
            in_table, skipped = True, {}
            continue
        if in_table:
            fields = line.split()
            if len(fields) >= 3 and re.fullmatch(r"[\w-]+", fields[0]) and re.fullmatch(r"\d+", fields[2]):
                skipped[fields[0]] = int(fields[2])
            else:
                in_table = False
    return skipped


def collect(out_dir):
    """(mode, seed) -> {'val': {step: loss}, 'logit', 'act', 'nonfinite', 'grad_lost', 'skipped'}."""
    runs = {}
    for evals_path in sorted(glob.glob(os.path.join(out_dir, "seed*_evals.csv"))):
        prefix = evals_path[: -len("_evals.csv")]
        match = re.fullmatch(r"seed(\d+)(?:_([\w-]+))?", os.path.basename(prefix))
        if not match:
            continue
        seed = int(match.group(1))
        skipped = skipped_steps(prefix + ".log")
        for row in read_csv(evals_path):
            run = runs.setdefault((row["mode"], seed), {"val": {}, "logit": 0.0, "act": 0.0, "nonfinite": 0, "grad_lost": 0.0})
            run["val"][int(row["step"])] = float(row["val_loss"])
            run["skipped"] = skipped.get(row["mode"])
        layers_path = prefix + "_layers.csv"
        if not os.path.exists(layers_path):
            continue
        for row in read_csv(layers_path):
            run = runs.get((row["mode"], seed))
            if run is None:
                continue
            value = float(row["max_abs"])
            if row["quantity"] == "attention_logits":
                run["logit"] = max(run["logit"], value)
            elif row["quantity"] == "activations":
                run["act"] = max(run["act"], value)
            elif row["quantity"] == "grad_underflow":
                run["grad_lost"] = max(run["grad_lost"], value)
            if row.get("nonfinite"):
                run["nonfinite"] += int(float(row["nonfinite"]))
    return runs


def table(runs, modes):
    seeds = sorted({seed for (mode, seed) in runs if mode in modes})
    if not seeds:
        return ""
    lines = [
        "| mode | seeds | mean val loss at 500 / 1000 / 1500 | final val loss per seed | minus f32's, same seed | skipped steps | max \\|attention logit\\| | max \\|activation\\| | non-finite values | gradient elements lost (worst block) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for mode in modes:
        mine = [(seed, runs[(mode, seed)]) for seed in seeds if (mode, seed) in runs]
        if not mine:
            continue
        means = []
        for step in CHECKPOINTS:
            values = [run["val"][step] for _, run in mine if step in run["val"]]
            means.append(f"{sum(values) / len(values):.4f}" if len(values) == len(mine) else "-")
        finals = [run["val"].get(CHECKPOINTS[-1]) for _, run in mine]
        # What the mode costs: its final loss against f32's on the same seed (the seeds differ
        # from each other by far more than the modes of one seed do).
        f32_finals = [runs.get(("f32", seed), {"val": {}})["val"].get(CHECKPOINTS[-1]) for seed, _ in mine]
        versus_f32 = " / ".join("-" if v is None or f is None else f"{v - f:+.4f}" for v, f in zip(finals, f32_finals))
        skipped = [run.get("skipped") for _, run in mine]
        lines.append(
            "| {} | {} | {} | {} | {} | {} | {:.1f} | {:.2f} | {} | {:.4f} % |".format(
                mode,
                ", ".join(str(seed) for seed, _ in mine),
                " / ".join(means),
                " / ".join("-" if v is None else f"{v:.4f}" for v in finals),
                versus_f32,
                " / ".join("?" if s is None else str(s) for s in skipped),
                max(run["logit"] for _, run in mine),
                max(run["act"] for _, run in mine),
                sum(run["nonfinite"] for _, run in mine),
                100 * max(run["grad_lost"] for _, run in mine),
            )
        )
    return "\n".join(lines) + "\n"


def main():
    args = sys.argv[1:]
    doc = None
    if args[:1] == ["--check"]:
        if len(args) < 2:
            sys.exit("usage: gpt_study_summary.py --check DOC [OUT_DIR]")
        doc, args = args[1], args[2:]
    out_dir = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "gpt_study")
    runs = collect(out_dir)
    if not runs:
        sys.exit(f"gpt_study_summary: no seed*_evals.csv in {out_dir}: run scripts/gpt_study.sh first")
    tables = [table(runs, AMP_MODES), table(runs, FP8_MODES)]
    if doc:
        # The study's tables are what the committed CSV files say: every row printed here is in DOC.
        text = open(doc).read()
        missing = [line for t in tables for line in t.splitlines() if line.startswith("| ") and line not in text]
        for line in missing:
            print(f"{doc} lacks this row of the tables {out_dir} gives (rerun this script and paste its tables):\n  {line}")
        sys.exit(1 if missing else 0)
    print("### The four AMP modes over seeds\n")
    print(tables[0])
    if tables[1]:
        print("### The FP8 modes over seeds\n")
        print(tables[1])
    print("(Validation loss in nats per character on 4 fixed batches; '-' where a run has not reached that step;")
    print("the ranges are the largest over seeds, evaluations and blocks.)")


if __name__ == "__main__":
    main()
