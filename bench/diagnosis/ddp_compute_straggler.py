#!/usr/bin/env python3
"""DDP on 2 GPUs (torchrun --nproc-per-node 2): 8 residual MLP blocks, 8192 tokens per rank,
bf16, fused AdamW; ~7 ms of GPU work per step on each rank.

Planted: rank 1 also runs a frozen "monitor" network on its batch every step (8 bf16 4096x4096
layers over 8192 rows, ~2 TFLOP, several ms), e.g. a metric or teacher model someone enabled on
one rank only. Rank 0 reaches every gradient all-reduce early and waits: rank 1 is the
straggler, late by the monitor's GPU time each step (timed with CUDA events; rank 0's
JSON line carries it as monitor_ms). Fixed: no rank runs the monitor; everything
else is identical.

    torchrun --nproc-per-node 2 ddp_compute_straggler.py [--fixed] [--steps N]
"""
import statistics

import torch
import torch.distributed as dist
from torch import nn

import ddp_common
import diag_common

MONITOR_WIDTH, MONITOR_LAYERS = 4096, 8


def main():
    args = diag_common.parse_args(__doc__, default_steps=40)
    rank, world, model, opt = ddp_common.setup(args.seed)
    gen = torch.Generator(device="cuda").manual_seed(args.seed + rank)
    with torch.device("cuda"):
        inputs = torch.randint(0, ddp_common.VOCAB, (4, ddp_common.TOKENS), generator=gen)
        labels = torch.randint(0, ddp_common.VOCAB, (4, ddp_common.TOKENS), generator=gen)
        monitor = nn.Sequential(*(nn.Linear(MONITOR_WIDTH, MONITOR_WIDTH, bias=False)
                                  for _ in range(MONITOR_LAYERS))).to(torch.bfloat16)
        monitor_in = torch.randn(ddp_common.TOKENS, MONITOR_WIDTH, dtype=torch.bfloat16,
                                 generator=gen)
    run_monitor = rank == 1 and not args.fixed
    losses, monitor_out, monitor_events = [], [], []

    def step(i):
        if run_monitor:
            # The plant's own GPU time, by CUDA events around it: what the straggler's cause
            # should come out as.
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            with torch.no_grad():
                monitor_out.append(monitor(monitor_in).float().mean())
            end.record()
            monitor_events.append((start, end))
        losses.append(ddp_common.train_step(model, opt, inputs[i % 4], labels[i % 4]))

    per_step = diag_common.timed_steps(step, args.steps, args.blocks)
    steady = monitor_events[max(2, args.steps // 5):]
    monitor_ms = statistics.median(s.elapsed_time(e) for s, e in steady) if steady else 0.0
    # Rank 0 prints the line: it gets rank 1's figure through an all-reduce (0 on rank 0).
    shared = torch.tensor([monitor_ms], device="cuda")
    dist.all_reduce(shared)
    ddp_common.finish("ddp_compute_straggler", args.fixed, rank, per_step, args.steps, losses,
                      straggler_rank=None if args.fixed else 1,
                      monitor_ms=round(shared.item(), 4))


if __name__ == "__main__":
    main()
