"""SGD, Adam and AdamW: their defaults, and 10-step trajectories on two f32 parameters with given
gradients (parameter 1 has no gradient at step 4, so it must not move, nor count a step).
Every parameter value after every step is written exactly.
"""

import torch

from golden_io import as_f32, hex_values, hexf

STEPS = 10
NO_GRAD = {(4, 1)}  # (step, param) without a gradient
CONFIGS = [
    ("SGD", "plain", {"lr": 0.1}),
    ("SGD", "momentum", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", "dampening", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3}),
    ("SGD", "nesterov", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", "weight_decay", {"lr": 0.1, "weight_decay": 0.05}),
    ("SGD", "all", {"lr": 0.05, "momentum": 0.8, "weight_decay": 0.01, "nesterov": True}),
    ("Adam", "defaults", {}),
    ("Adam", "custom", {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}),
    ("AdamW", "defaults", {}),
    ("AdamW", "custom", {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}),
]
# The defaults tinyamp's options mirror; the other keys are behaviours tinyamp has fixed.
DEFAULT_KEYS = ["lr", "momentum", "dampening", "weight_decay", "nesterov", "betas", "eps", "amsgrad", "maximize"]


def initial_params():
    return [as_f32([0.7, -1.3, 2.1, 0.05, -0.4]), as_f32([1.5, -2.5, 0.3, 0.9, -0.15, 4.0])]


def grads_at(step):
    g0 = as_f32([((step * 7 + i * 3) % 11 - 5) / 9 for i in range(5)])
    g1 = as_f32([((step * 5 + i * 7) % 13 - 6) / 7 for i in range(6)])
    return [None if (step, p) in NO_GRAD else g for p, g in enumerate([g0, g1])]


def encode(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, tuple):
        return [hexf(x) for x in v]
    return hexf(v)


def defaults():
    out = {}
    for name in ["SGD", "Adam", "AdamW"]:
        d = getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)]).defaults
        out[name] = {k: encode(d[k]) for k in DEFAULT_KEYS if k in d}
    return out


def trajectory(name, options):
    shapes = [(5,), (2, 3)]
    params = [torch.tensor(v, dtype=torch.float32).reshape(s).requires_grad_() for v, s in zip(initial_params(), shapes)]
    opt = getattr(torch.optim, name)(params, **options)
    steps = []
    for step in range(STEPS):
        for p, g in zip(params, grads_at(step)):
            p.grad = None if g is None else torch.tensor(g, dtype=torch.float32).reshape(p.shape)
        opt.step()
        steps.append([hex_values(p) for p in params])
    state = []
    for p in params:
        s = opt.state[p]
        state.append({k: hex_values(v) if torch.is_tensor(v) else hexf(v) for k, v in sorted(s.items())})
    return steps, state


def make():
    runs = []
    for name, label, options in CONFIGS:
        steps, state = trajectory(name, options)
        runs.append({"optimizer": name, "label": label, "options": {k: encode(v) for k, v in options.items()},
                     "params_after_step": steps, "final_state": state})
    return {
        "scenario": "optimizers", "defaults": defaults(), "runs": runs,
        "initial_params": [[hexf(v) for v in p] for p in initial_params()], "shapes": [[5], [2, 3]],
        "grads": [[None if g is None else [hexf(v) for v in g] for g in grads_at(s)] for s in range(STEPS)],
    }
