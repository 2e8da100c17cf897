#!/usr/bin/env python3
"""PyTorch as a peer of tinyamp-bench: the same cases, timed the same way, printed as JSON.

    python3 bench/pytorch_peer.py > pytorch.json                  every case
    python3 bench/pytorch_peer.py --filter='gemm/.*/n:256' > ...  a subset (tinyamp-bench's filter)

scripts/bench.sh runs it when `import torch` works and passes the file to tinyamp-bench
(--pytorch-results=FILE), which prints tinyamp / PyTorch ratios in its summary. Nothing else needs
it: no test, no CI step. Each figure is the median over repetitions after a warm-up, as
tinyamp-bench's are. The cases, named as tinyamp-bench names the tinyamp case they pair with:

  gemm/pytorch_{f32,bf16}/n:N/threads:T  torch.mm on N x N, N = 256..2048, 1 and 2 threads
  dispatch/linear_forward/{plain,autocast}  nn.Linear(8, 8) forward on x [4, 8] (weight requires
                                            grad), autocast region entered once around the loop
  digits_epoch/{f32,bf16}                   one training epoch of the digits MLP as tinyamp-train
                                            runs it: 64-256-256-10, batch 64, SGD lr 0.05 momentum
                                            0.9, 1437 training samples; bf16 = under autocast
  gpt_step/{f32,bf16}                       one training step of the GPT of docs/gpt_study.md as
                                            tinyamp-train --model gpt runs it: nanoGPT's model with 4
                                            blocks, 4 heads, width 128, context 128, untied head,
                                            exact GELU, F.scaled_dot_product_attention; batch 16 of
                                            the King James text; AdamW (betas 0.9/0.99, decay 0.1 on
                                            2-D weights) with a LambdaLR, clip_grad_norm_ at 1;
                                            bf16 = forward and loss under autocast, backward outside
"""
import argparse
import gzip
import json
import math
import os
import re
import statistics
import sys
import time
import warnings

warnings.filterwarnings("ignore", message="Failed to initialize NumPy")  # torch without numpy is fine here
import torch  # noqa: E402

SIZES = (256, 512, 1024, 2048)
THREADS = (1, 2)
DEFAULT_THREADS = 2  # tinyamp-bench's dispatch and digits cases run on 2 threads
SLOWEST_CALL_S = 5.0  # a GEMM call predicted slower than this is skipped (a slow bf16 path)
CASE_BUDGET_S = 6.0  # fewer repetitions when 5 would take longer than this
DATA_DIR = os.environ.get("TINYAMP_DATA_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
DATA = os.path.join(DATA_DIR, "digits.csv.gz")  # where tinyamp-train reads it
TEXT = os.path.join(DATA_DIR, "kjv_1mb.txt.gz")  # the GPT's text
GPT_WARMUP_STEPS, GPT_TIMED_STEPS = 2, 8  # as bench/gpt_step_bench.cpp


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def median_time(step, repetitions=5, min_time=0.15, budget_s=CASE_BUDGET_S):
    """Median seconds per call of step(): a warm-up call, then repetitions of at least min_time each
    (fewer repetitions, at least one, when they would take longer than budget_s)."""
    start = time.perf_counter()
    step()
    per_call = time.perf_counter() - start
    if per_call < min_time:  # a fast step: count how many calls fill a quarter of min_time
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < min_time / 4:
            step()
            calls += 1
        per_call = (time.perf_counter() - start) / calls
    calls = max(1, math.ceil(min_time / per_call))
    repetitions = max(1, min(repetitions, int(budget_s / (per_call * calls))))
    times = []
    for _ in range(repetitions):
        start = time.perf_counter()
        for _ in range(calls):
            step()
        times.append((time.perf_counter() - start) / calls)
    return {"median_s": statistics.median(times), "repetitions": repetitions}


def gemm_cases(wanted, results, skipped, probe):
    torch.manual_seed(20261121)
    for dtype, name in ((torch.float32, "f32"), (torch.bfloat16, "bf16")):
        for threads in THREADS:
            gflops = probe[f"{name}_gflops"]  # then the previous N's: predicts the next one's time
            for n in SIZES:
                case = f"gemm/pytorch_{name}/n:{n}/threads:{threads}"
                if not wanted(case):
                    continue
                predicted_s = 2 * n**3 / (gflops * 1e9)
                if predicted_s > SLOWEST_CALL_S:
                    skipped[case] = f"one call would take about {predicted_s:.0f} s (it ran at {gflops:.1f} GFLOP/s on a smaller N)"
                    log(f"  {case:40} skipped: {skipped[case]}")
                    continue
                torch.set_num_threads(threads)
                a = (torch.rand(n, n) * 2 - 1).to(dtype)  # uniform in [-1, 1), as tinyamp-bench's inputs
                b = (torch.rand(n, n) * 2 - 1).to(dtype)
                results[case] = median_time(lambda: torch.mm(a, b))
                gflops = 2 * n**3 / results[case]["median_s"] / 1e9
                log(f"  {case:40} {results[case]['median_s'] * 1e3:10.3f} ms  ({gflops:.1f} GFLOP/s)")


def dispatch_cases(wanted, results):
    torch.set_num_threads(DEFAULT_THREADS)
    torch.manual_seed(0)
    fc = torch.nn.Linear(8, 8)
    x = torch.randn(4, 8)
    for mode in ("plain", "autocast"):
        case = f"dispatch/linear_forward/{mode}"
        if not wanted(case):
            continue
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=mode == "autocast"):
            results[case] = median_time(lambda: fc(x), min_time=0.2)
        log(f"  {case:40} {results[case]['median_s'] * 1e6:10.3f} us")


def load_digits():
    """data/digits.csv.gz split as tinyamp's train_test_split does: ceil(20 %) to test, the rest to train."""
    with gzip.open(DATA, "rt") as f:
        rows = [[float(v) for v in line.split(",")] for line in f if line.strip()]
    data = torch.tensor(rows)
    features, labels = data[:, :64] / 16.0, data[:, 64].long()
    order = torch.randperm(len(rows), generator=torch.Generator().manual_seed(0))
    test_count = math.ceil(len(rows) * 0.2)
    train = order[test_count:]  # 1437 samples (another shuffle than tinyamp's generator; the same sizes)
    return features[train].contiguous(), labels[train].contiguous()


def digits_cases(wanted, results):
    cases = [m for m in ("f32", "bf16") if wanted(f"digits_epoch/{m}")]
    if not cases:
        return
    torch.set_num_threads(DEFAULT_THREADS)
    features, labels = load_digits()
    for mode in cases:
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                    torch.nn.Linear(256, 10))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        shuffle = torch.Generator().manual_seed(0)

        def epoch():  # the training steps only, as tinyamp-bench times tinyamp-train's epoch
            order = torch.randperm(len(labels), generator=shuffle)
            for start in range(0, len(labels), 64):
                batch = order[start:start + 64]
                optimizer.zero_grad()
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=mode == "bf16"):
                    loss = torch.nn.functional.cross_entropy(model(features[batch]), labels[batch])
                loss.backward()  # outside the region, as PyTorch recommends and tinyamp-train does
                optimizer.step()
                loss.item()

        case = f"digits_epoch/{mode}"
        results[case] = median_time(epoch, repetitions=9, min_time=0, budget_s=15)  # an epoch a repetition, as tinyamp-bench
        log(f"  {case:40} {results[case]['median_s'] * 1e3:10.3f} ms")


class Block(torch.nn.Module):
    """nanoGPT's block, as training/gpt_model.cpp's GptBlock: x + attn(ln_1(x)), then x + mlp(ln_2(x))."""

    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.ln_1, self.ln_2 = torch.nn.LayerNorm(width), torch.nn.LayerNorm(width)
        self.c_attn, self.attn_proj = torch.nn.Linear(width, 3 * width), torch.nn.Linear(width, width)
        self.c_fc, self.c_proj = torch.nn.Linear(width, 4 * width), torch.nn.Linear(4 * width, width)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.attn_proj(y.transpose(1, 2).contiguous().view(b, t, c))
        return x + self.c_proj(torch.nn.functional.gelu(self.c_fc(self.ln_2(x))))


class Gpt(torch.nn.Module):
    def __init__(self, vocab, context=128, layers=4, heads=4, width=128):
        super().__init__()
        self.wte, self.wpe = torch.nn.Embedding(vocab, width), torch.nn.Embedding(context, width)
        self.blocks = torch.nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.ln_f, self.lm_head = torch.nn.LayerNorm(width), torch.nn.Linear(width, vocab, bias=False)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def gpt_cases(wanted, results):
    cases = [m for m in ("f32", "bf16") if wanted(f"gpt_step/{m}")]
    if not cases:
        return
    torch.set_num_threads(DEFAULT_THREADS)
    with gzip.open(TEXT, "rt", encoding="utf-8") as f:
        text = f.read()
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    tokens = torch.tensor([index[c] for c in text])
    train = tokens[:int(len(tokens) * 0.9)]
    batch, context = 16, 128
    for mode in cases:
        torch.manual_seed(0)
        model = Gpt(len(chars), context)
        decay = [p for p in model.parameters() if p.dim() >= 2]
        no_decay = [p for p in model.parameters() if p.dim() < 2]
        optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}], lr=1e-3,
                                      betas=(0.9, 0.99))
        schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: min(1.0, (it + 1) / 101))  # the warmup's shape

        def step():
            starts = torch.randint(len(train) - context - 1, (batch,))
            x = torch.stack([train[s:s + context] for s in starts])
            y = torch.stack([train[s + 1:s + 1 + context] for s in starts])
            optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=mode == "bf16"):
                logits = model(x)
                loss = torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
            loss.backward()  # outside the region, as tinyamp-train does
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            loss.item()

        for _ in range(GPT_WARMUP_STEPS):
            step()
        case = f"gpt_step/{mode}"
        results[case] = median_time(step, repetitions=GPT_TIMED_STEPS, min_time=0, budget_s=30)  # a step a repetition, as tinyamp-bench
        log(f"  {case:40} {results[case]['median_s'] * 1e3:10.3f} ms")


def probe_gflops(dtype, n=256):
    """torch.mm at N = 256 on one thread, always run: tells tinyamp-bench whether bf16 has a fast path here."""
    torch.set_num_threads(1)
    a, b = torch.rand(n, n).to(dtype), torch.rand(n, n).to(dtype)
    return 2 * n**3 / median_time(lambda: torch.mm(a, b), repetitions=3, min_time=0.05)["median_s"] / 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--filter", default="", help="a regular expression, as tinyamp-bench's --benchmark_filter (- in front: all but)")
    args = parser.parse_args()
    pattern, negate = args.filter, args.filter.startswith("-")
    pattern = pattern[1:] if negate else pattern
    if pattern in ("", "all"):
        pattern = "."

    def wanted(case):
        return bool(re.search(pattern, case)) != negate

    log(f"PyTorch {torch.__version__} (CPU capability {torch.backends.cpu.get_cpu_capability()}), cases matching '{args.filter or 'all'}':")
    results, skipped = {}, {}
    probe = {"n": 256, "threads": 1, "f32_gflops": probe_gflops(torch.float32), "bf16_gflops": probe_gflops(torch.bfloat16)}
    gemm_cases(wanted, results, skipped, probe)
    dispatch_cases(wanted, results)
    digits_cases(wanted, results)
    gpt_cases(wanted, results)
    json.dump({"peer": "PyTorch", "torch_version": torch.__version__, "cpu_capability": torch.backends.cpu.get_cpu_capability(),
               "mm_probe": probe, "results": results, "skipped": skipped}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
