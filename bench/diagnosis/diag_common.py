"""Shared harness of the diagnosis workloads: arguments, seeding, the timed step loop and the one
JSON line each workload prints at the end.

Step time is measured on the host: the steady steps (after the first ~20 %, which pay for
warm-up: cuDNN/cuBLAS heuristics, allocator growth, compilation) are split into a few blocks;
the device is synchronized at each block boundary and each block's wall time is divided by its
steps. Host-side causes (syncs, data loading, launch overhead) therefore count fully, which
CUDA events around GPU work would miss. The few boundary syncs sit between steps, outside every
NVTX step range, and cost at most one pipeline restart per block.
"""
import argparse
import json
import statistics
import time

import torch


def parse_args(description, default_steps, extra=None):
    """--steps, --fixed and --seed, plus whatever `extra(parser)` adds."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--steps", type=int, default=default_steps)
    parser.add_argument("--fixed", action="store_true", help="run the fixed twin")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--blocks", type=int, default=4,
                        help="timing blocks the steady steps are split into")
    if extra:
        extra(parser)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    return args


def timed_steps(step_fn, steps, blocks=4, range_name="train_step", sync=None):
    """Runs step_fn(i) for i in range(steps), each inside an NVTX range `range_name`.

    Returns per-block ms per step over the steady steps. `sync` is called at block boundaries
    (torch.cuda.synchronize by default; DDP workloads pass one that also waits for the other
    ranks so every rank's blocks cover the same steps)."""
    sync = sync or torch.cuda.synchronize
    warmup = max(2, steps // 5)
    steady = steps - warmup
    if steady < blocks:
        raise SystemExit("need at least %d steady steps, got %d" % (blocks, steady))
    # Block boundaries: equal shares of the steady steps.
    bounds = [warmup + (steady * b) // blocks for b in range(blocks + 1)]
    per_step_ms = []
    t0 = None
    for i in range(steps):
        if i in bounds:
            sync()
            t = time.perf_counter()
            if t0 is not None:
                prev = bounds[bounds.index(i) - 1]
                per_step_ms.append((t - t0) * 1e3 / (i - prev))
            t0 = t
        with torch.cuda.nvtx.range(range_name):
            step_fn(i)
    sync()
    t = time.perf_counter()
    per_step_ms.append((t - t0) * 1e3 / (steps - bounds[-2]))
    return per_step_ms


def report(workload, fixed, per_step_ms, steps, checksum, **extra):
    """Prints the workload's one JSON line (the runner takes the last line starting with '{')."""
    line = {
        "workload": workload,
        "variant": "fixed" if fixed else "planted",
        "step_ms_median": round(statistics.median(per_step_ms), 4),
        "step_ms_min": round(min(per_step_ms), 4),
        "step_ms_blocks": [round(x, 4) for x in per_step_ms],
        "steps": steps,
        "checksum": checksum,
        "device": torch.cuda.get_device_name(),
    }
    line.update(extra)
    print(json.dumps(line), flush=True)


def skipped(workload, fixed, reason):
    """The line a workload prints when the machine cannot run it (exit status stays 0)."""
    print(json.dumps({"workload": workload, "variant": "fixed" if fixed else "planted",
                      "skipped": reason}), flush=True)


def checksum_of(tensors):
    """A float that changes when the computed values change; read after timing (it syncs)."""
    return round(float(sum(t.detach().double().sum().item() for t in tensors)), 6)
