"""PyTorch's time for cuda_bench's training step, on the same GPU: the peer for its second table.

The same MLP 784 -> 2048 -> 2048 -> 10, batch 512, cross entropy, SGD (lr 0.01), in f32, f16 autocast
+ GradScaler, and bf16 autocast; TF32 off (as tinyamp's f32). Each step is timed to a synchronizing
read of the loss (loss.item()), as cuda_bench does; median of 50 steps after 5 warm-up steps.
Run by scripts/gpu-check.sh when the GPU machine has PyTorch, before cuda_bench, which prints
tinyamp / PyTorch ratios from the file it writes:
    python3 bench/cuda/pytorch_mlp_step.py [--csv FILE]      (FILE: lines "mode,ms_per_step")
"""
import argparse
import statistics
import time

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--csv", help="also write 'mode,ms_per_step' lines here, for cuda_bench --pytorch-csv")
args = parser.parse_args()
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
gen = torch.Generator().manual_seed(7)
x = torch.randn(512, 784, generator=gen).to(dev)
y = (torch.arange(512) % 10).to(dev)


def make_mlp():
    torch.manual_seed(7)
    return torch.nn.Sequential(torch.nn.Linear(784, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 2048),
                               torch.nn.ReLU(), torch.nn.Linear(2048, 10)).to(dev)


print(f"PyTorch {torch.__version__} on {torch.cuda.get_device_name(0)}: MLP 784-2048-2048-10, batch 512, SGD; "
      "median of 50 steps after 5 warm-up steps")
print(f"{'mode':<26} {'ms/step':>10} {'vs f32':>12} {'last loss':>10}")
f32_ms = None
rows = []
for mode, dtype in (("f32", None), ("f16 autocast + GradScaler", torch.float16), ("bf16 autocast", torch.bfloat16)):
    model = make_mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cuda", enabled=dtype is torch.float16)
    times = []
    for step in range(55):
        t0 = time.perf_counter()
        opt.zero_grad()
        with torch.autocast("cuda", dtype=dtype or torch.float16, enabled=dtype is not None):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        value = loss.item()
        if step >= 5:
            times.append((time.perf_counter() - t0) * 1e3)
    ms = statistics.median(times)
    f32_ms = f32_ms or ms
    print(f"{mode:<26} {ms:10.3f} {f32_ms / ms:11.2f}x {value:10.4f}")
    rows.append(f"{mode},{ms:.6f}\n")
if args.csv:
    with open(args.csv, "w") as out:
        out.writelines(rows)
