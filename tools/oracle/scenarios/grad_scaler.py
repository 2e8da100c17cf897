"""torch.amp.GradScaler("cpu"): its defaults, and a scripted 20-iteration run with infs and NaNs
injected into the (scaled) gradients, growth_interval 3, so the scale both grows and backs off.

No model: each iteration sets every parameter's gradient to scaler.scale(g) for the given g (an
f32 tensor times the 0-D f32 scale, as tinyamp's scale() does), then steps an SGD with momentum
through the scaler and updates. Iteration 7 calls unscale_ before step; the last iteration
updates with an explicit new_scale (the growth tracker is left alone).
"""

import torch

from golden_io import as_f32, hex_values, hexf

OPTIONS = {"init_scale": 1024.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 3}
SGD_OPTIONS = {"lr": 0.125, "momentum": 0.5}
ITERATIONS = 20
INJECT = {3: (1, 1, float("inf")), 4: (0, 0, float("nan")), 8: (1, 3, float("-inf")), 9: (0, 2, float("inf")),
          15: (0, 1, float("nan"))}  # iteration -> (param, element, value)
UNSCALE_FIRST = {6}
NEW_SCALE = {19: 3.0}  # an explicit new_scale, not a power of two


def grads_at(it):
    g0 = as_f32([((it * 3 + i * 5) % 7 - 3) / 16 for i in range(3)])
    g1 = as_f32([((it * 5 + i * 3) % 9 - 4) / 32 for i in range(4)])
    grads = [g0, g1]
    if it in INJECT:
        p, e, v = INJECT[it]
        grads[p][e] = v
    return grads


def defaults():
    s = torch.amp.GradScaler("cpu")
    disabled = torch.amp.GradScaler("cpu", enabled=False)
    return {
        "init_scale": hexf(s.get_scale()), "growth_factor": hexf(s.get_growth_factor()),
        "backoff_factor": hexf(s.get_backoff_factor()), "growth_interval": s.get_growth_interval(),
        "enabled": s.is_enabled(), "growth_tracker": s._get_growth_tracker(),
        "state_dict": {k: hexf(v) for k, v in s.state_dict().items()},
        "disabled_scale": hexf(disabled.get_scale()), "disabled_state_dict": disabled.state_dict(),
    }


def make():
    params = [torch.tensor(as_f32([0.5, -1.25, 2.0]), requires_grad=True),
              torch.tensor(as_f32([[1.0, -0.75], [0.25, 3.5]]), requires_grad=True)]
    initial = [hex_values(p) for p in params]
    opt = torch.optim.SGD(params, **SGD_OPTIONS)
    scaler = torch.amp.GradScaler("cpu", **OPTIONS)
    steps = []
    for it in range(ITERATIONS):
        grads = grads_at(it)
        for p, g in zip(params, grads):
            p.grad = scaler.scale(torch.tensor(g, dtype=torch.float32).reshape(p.shape))
        if it in UNSCALE_FIRST:
            scaler.unscale_(opt)
        scaler.step(opt)
        found_inf = sum(v.item() for v in scaler._found_inf_per_device(opt).values())
        scaler.update(NEW_SCALE.get(it))
        steps.append({
            "grads": [[hexf(v) for v in g] for g in grads], "unscale_first": it in UNSCALE_FIRST,
            "new_scale": hexf(NEW_SCALE[it]) if it in NEW_SCALE else None,
            "skipped": found_inf != 0, "scale": hexf(scaler.get_scale()), "growth_tracker": scaler._get_growth_tracker(),
            "params": [hex_values(p) for p in params],
        })
    return {
        "scenario": "grad_scaler", "defaults": defaults(),
        "options": {k: (hexf(v) if isinstance(v, float) else v) for k, v in OPTIONS.items()},
        "sgd": {k: hexf(v) for k, v in SGD_OPTIONS.items()},
        "initial_params": initial, "shapes": [list(p.shape) for p in params], "iterations": steps,
        "final_state_dict": {k: hexf(v) for k, v in scaler.state_dict().items()},
    }
