#!/usr/bin/env bash
# Issue 18's checks on a machine whose CPU may have AMX but which cannot build tinyamp (a lent GPU
# machine: no compiler packages, no network): the GEMM tests, lessons 1, 14 and 15 and the benchmark
# with the AMX tier turned on (TINYAMP_CPU=amx), on two cores of distinct physical cores, as on this
# project's 2-core machines. Without AMX it stops after saying what the CPU has.
#
#   scripts/cpu-tier-check.sh BIN_DIR OUT_DIR
#
# CPU_TIER_CHECK_BENCH=0 leaves the benchmark out.
#
# BIN_DIR: tinyamp_tests, tinyamp-tour, tinyamp-train, tinyamp-bench and tinyamp-amx-tuning (any build: the
# tiers are chosen at run time) with lib/ holding the libraries the machine lacks (OpenBLAS, oneDNN, Google Benchmark,
# Graphviz) and graphviz/ its plugins, as scripts/cpu-tier-pack.sh packs them.
set -u
bin=${1:?usage: scripts/cpu-tier-check.sh BIN_DIR OUT_DIR}
out=${2:?usage: scripts/cpu-tier-check.sh BIN_DIR OUT_DIR}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/packed-binaries.sh
source "$root/scripts/packed-binaries.sh"
use_packed_binaries "$bin"
summary="$out/summary.txt"

# Two logical CPUs on distinct physical cores (not two hyperthreads of one core).
cores=$(lscpu -p=CPU,CORE | grep -v '^#' | sort -t, -k2,2n -u | head -n 2 | cut -d, -f1 | paste -sd, -)
{
    date -u
    lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core)'
    echo "flags: $(grep -o -w -E 'amx_[a-z0-9]+|avx512_bf16|avx512_fp16|avx512f|f16c|fma' /proc/cpuinfo | sort -u | tr '\n' ' ')"
    echo "cores used: $cores"
    for level in "" avx512bf16 amx; do
        echo "TINYAMP_CPU=$level: $(TINYAMP_CPU=$level "$bin/tinyamp-tour" --cpu 2>&1 | grep -E 'features in use|AMX|amx' | tr '\n' ' ')"
    done
} > "$summary" 2>&1
cat "$summary"
grep -q -w amx_bf16 /proc/cpuinfo || { echo "no amx_bf16 on this CPU: nothing more to check"; exit 0; }


export TINYAMP_CPU=amx
step gemm_tests 240 taskset -c "$cores" "$bin/tinyamp_tests" -sf='*gemm*,*peak_probe*,*backends/cpu*,*convert_hardware*'
step lessons 180 taskset -c "$cores" "$bin/tinyamp-tour" --lesson 1 --lesson 14 --lesson 15 --out "$out/lessons"

# Everything else that multiplies in bf16 on the CPU, with AMX in use: every test case of the library
# (in 8 slices side by side), the whole tour on two cores, and CI's training runs.
all_tests() {
    local total pids=() rc=0 i
    total=$("$bin/tinyamp_tests" --count | sed -n 's/.*unskipped test cases passing the current filters: \([0-9]*\).*/\1/p')
    for i in 0 1 2 3 4 5 6 7; do
        "$bin/tinyamp_tests" --first=$((i * total / 8 + 1)) --last=$(((i + 1) * total / 8)) > "$out/all_tests_$i.log" 2>&1 &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do wait "${pids[$i]}" || { rc=1; echo "slice $i failed:"; grep -B3 -A12 -E 'ERROR|FATAL' "$out/all_tests_$i.log"; }; done
    cat "$out"/all_tests_*.log | grep -E '^\[doctest\] (test cases|assertions)'
    return $rc
}
export bin out; export -f all_tests; step all_tests 300 bash -c all_tests
step tour 240 taskset -c "$cores" "$bin/tinyamp-tour" --out "$out/tour"
training() {
    local train="$bin/tinyamp-train" rc=0 mode
    for mode in f32 bf16 f16-scaler; do
        "$train" --model mlp --mode $mode --epochs 30 --expect-accuracy 0.965 --no-progress | tail -n 3 || rc=1
    done
    "$train" --model mlp --mode fp8 --epochs 30 --expect-accuracy 0.96 --no-progress | tail -n 3 || rc=1
    "$train" --model cnn --mode all --epochs 3 --expect-accuracy 0.8 --no-progress | tail -n 6 || rc=1
    "$train" --model gpt --mode all --steps 40 --n-layer 2 --n-head 2 --n-embd 32 --block-size 32 --batch-size 8 --lr 3e-3 \
        --warmup-steps 5 --eval-interval 20 --sample-chars 0 --expect-val-loss 3.3 --no-progress | tail -n 8 || rc=1
    return $rc
}
export -f training; step training 300 bash -c training
[ "${CPU_TIER_CHECK_BENCH:-1}" = 0 ] && { cat "$summary"; exit 0; }
peer=()
if python3 -c 'import torch' 2>/dev/null; then
    TINYAMP_CPU= step pytorch_peer 240 taskset -c "$cores" python3 "$root/bench/pytorch_peer.py"
    mv "$out/pytorch_peer.log" "$out/pytorch.json" && peer=(--pytorch-results="$out/pytorch.json")
fi
step bench 300 taskset -c "$cores" "$bin/tinyamp-bench" "${peer[@]}"
# Where a 512^3 bf16 product's time goes, thread by thread (docs/kernels.md, "Tuning on a Xeon").
if [ -x "$bin/tinyamp-amx-tuning" ]; then
    step amx_phases 120 taskset -c "$cores" "$bin/tinyamp-amx-tuning" --phases --sizes 512 --threads 1,2 --reps 4
fi
cat "$summary"
