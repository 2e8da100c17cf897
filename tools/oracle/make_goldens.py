#!/usr/bin/env python3
"""Runs tinyamp's conformance scenarios in PyTorch and writes the golden JSON the C++ tests compare
against (tests/oracle/goldens/). Needs torch 2.3 or newer; CPU only. See README.md.

    python3 tools/oracle/make_goldens.py [--out DIR] [--only SCENARIO ...]
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

MIN_TORCH = (2, 3)


def check_torch():
    try:
        import torch
    except ImportError:
        sys.exit("make_goldens.py needs PyTorch (torch >= 2.3, the CPU build is enough): pip install torch")
    major, minor = (int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    if (major, minor) < MIN_TORCH:
        sys.exit(f"make_goldens.py needs torch >= {MIN_TORCH[0]}.{MIN_TORCH[1]} (torch.amp.GradScaler('cpu'), CPU autocast "
                 f"in f16); this is torch {torch.__version__}")
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)  # one summation order, whatever the machine
    return torch


def main():
    torch = check_torch()
    from golden_io import write_golden
    from scenarios import autocast_dtypes, clip_grad, grad_scaler, losses, lr_schedulers, optimizers, type_promotion

    scenarios = {
        "autocast_dtypes": autocast_dtypes.make,
        "grad_scaler": grad_scaler.make,
        "optimizers": optimizers.make,
        "losses": losses.make,
        "type_promotion": type_promotion.make,
        "clip_grad_norm": clip_grad.make,
        "lr_schedulers": lr_schedulers.make,
    }
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(HERE, "..", "..", "tests", "oracle", "goldens"))
    parser.add_argument("--only", nargs="*", choices=sorted(scenarios), help="write only these scenarios")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.only or scenarios:
        path = write_golden(args.out, name, scenarios[name]())
        print(f"wrote {os.path.relpath(path)} (torch {torch.__version__})")


if __name__ == "__main__":
    main()
