"""torch.optim.lr_scheduler: StepLR, CosineAnnealingLR and LambdaLR (with nanoGPT's warmup + cosine
as its factor), on an SGD with two parameter groups, stepped as a training loop does
(optimizer.step(), then scheduler.step()). For every step (0: at construction) the lrs PyTorch set
(get_last_lr()), and for the schedulers that have one, its closed form (_get_closed_form_lr()):
PyTorch's step() uses a recursive form for StepLR and CosineAnnealingLR, tinyamp the closed form.
"""

import inspect
import math
import warnings

import torch

from golden_io import hexf

GROUP_LRS = [0.1, 6e-4]
NANOGPT = {"warmup": 10, "decay_end": 50, "min_ratio": 0.1}
CASES = [
    ("step", "StepLR", {"step_size": 3, "gamma": 0.9}, 40),
    ("cosine", "CosineAnnealingLR", {"T_max": 10, "eta_min": 0.001}, 25),
    ("cosine_eta_min_0", "CosineAnnealingLR", {"T_max": 7}, 16),
    ("nanogpt", "LambdaLR", NANOGPT, 60),
]


def nanogpt_factor(it):
    """nanoGPT's get_lr(it) / learning_rate (tests/oracle/lr_schedulers_golden_test.cpp has the same)."""
    w, d, min_ratio = NANOGPT["warmup"], NANOGPT["decay_end"], NANOGPT["min_ratio"]
    if it < w:
        return (it + 1) / (w + 1)
    if it > d:
        return min_ratio
    decay = (it - w) / (d - w)
    return min_ratio + 0.5 * (1.0 + math.cos(math.pi * decay)) * (1.0 - min_ratio)


def make_scheduler(kind, optimizer, args):
    if kind == "LambdaLR":
        return torch.optim.lr_scheduler.LambdaLR(optimizer, nanogpt_factor)
    return getattr(torch.optim.lr_scheduler, kind)(optimizer, **args)


def record(scheduler):
    entry = {"lrs": [hexf(lr) for lr in scheduler.get_last_lr()]}
    if hasattr(scheduler, "_get_closed_form_lr"):
        entry["closed_form"] = [hexf(lr) for lr in scheduler._get_closed_form_lr()]
    return entry


def make():
    cases = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the loop steps the optimizer first: PyTorch must not warn
        for name, kind, args, steps in CASES:
            params = [torch.nn.Parameter(torch.zeros(2)) for _ in GROUP_LRS]
            optimizer = torch.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, GROUP_LRS)])
            scheduler = make_scheduler(kind, optimizer, args)
            trajectory = [record(scheduler)]
            for _ in range(steps):
                optimizer.step()
                scheduler.step()
                trajectory.append(record(scheduler))
            cases.append({"case": name, "scheduler": kind, "group_lrs": [hexf(lr) for lr in GROUP_LRS],
                          "args": {k: hexf(v) if isinstance(v, float) else v for k, v in args.items()},
                          "steps": trajectory})
    lr_scheduler = torch.optim.lr_scheduler
    defaults = {"StepLR.gamma": hexf(inspect.signature(lr_scheduler.StepLR).parameters["gamma"].default),
                "CosineAnnealingLR.eta_min": hexf(inspect.signature(lr_scheduler.CosineAnnealingLR).parameters["eta_min"].default)}
    return {"scenario": "lr_schedulers", "cases": cases, "defaults": defaults}
