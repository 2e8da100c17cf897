#!/usr/bin/env python3
"""Loads a tinyamp checkpoint into the README's PyTorch twin model and checks that PyTorch
predicts what tinyamp predicted on the digits test set.

    check_twin_with_torch.py CHECKPOINT TESTSET [--writer EXE]

CHECKPOINT is a tinyamp checkpoint (a safetensors file: the model's state_dict, the rest as
metadata); TESTSET is what tests/io/export_digits_twin.cpp writes (features, labels, tinyamp's
logits and predictions). With --writer, first runs `EXE CHECKPOINT TESTSET`. Exits 0 when the
twin loads strictly and agrees, 1 when not, 77 (a skip for CTest) when torch or safetensors is
not installed for this Python.
"""
import subprocess
import sys

try:
    import torch
    from safetensors import safe_open
    from safetensors.torch import load_file
except ImportError as e:
    print(f"{e} for {sys.executable}; skipping (pip install torch safetensors)")
    sys.exit(77)


def main(argv):
    args = list(argv[1:])
    if "--writer" in args:
        i = args.index("--writer")
        subprocess.run([args[i + 1]] + args[:i] + args[i + 2 :], check=True)
        del args[i : i + 2]
    if len(args) != 2:
        print(__doc__)
        return 2
    checkpoint, testset = args

    with safe_open(checkpoint, framework="pt") as f:
        metadata = f.metadata() or {}  # None for a plain state_dict file
    print(f"checkpoint format: {metadata.get('format', 'none (a plain state_dict)')}, epoch {metadata.get('epoch', '-')}")
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    model.load_state_dict(load_file(checkpoint), strict=True)  # every name, shape and dtype must fit

    data = load_file(testset)
    with torch.no_grad():
        logits = model(data["features"])
    predicted = logits.argmax(1)
    agree = (predicted == data["predicted"]).sum().item()
    total = predicted.numel()
    difference = (logits - data["logits"]).abs().max().item()
    accuracy_torch = (predicted == data["labels"]).float().mean().item()
    accuracy_tinyamp = (data["predicted"] == data["labels"]).float().mean().item()
    print(f"torch {torch.__version__}: {agree}/{total} predictions equal to tinyamp's; "
          f"largest logit difference {difference:.3g}; test accuracy torch {accuracy_torch:.4f}, tinyamp {accuracy_tinyamp:.4f}")
    # Both compute the same f32 products, summed in another order: logits agree to a few ulps.
    ok = agree == total and difference <= 1e-4 and data["logits"].dtype == torch.float32
    if not ok:
        print("MISMATCH: the PyTorch twin does not predict what tinyamp predicted")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
