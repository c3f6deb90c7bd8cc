#!/usr/bin/env python3
"""DDP on 2 GPUs (torchrun --nproc-per-node 2), the model of ddp_compute_straggler.py; each rank
builds its batch on the host every step (a slice of its shard, collated and pinned) and copies it
up non_blocking.

Planted: rank 1's shard is slow to read: its batch preparation waits READ_DELAY_MS more per step
(a sleep standing in for slow storage or a slow decode; deterministic, unlike real I/O) before it
launches any work. The host otherwise needs ~3 ms per step against ~7 ms of GPU work, so a
shorter delay would hide in the queued work; 8 ms makes rank 1's host the bottleneck, it reaches
the gradient all-reduces late and rank 0 waits. Fixed: rank 1
reads as fast as rank 0. Same data, same model.

    torchrun --nproc-per-node 2 ddp_data_straggler.py [--fixed] [--steps N]
"""
import time

import torch

import ddp_common
import diag_common

READ_DELAY_MS = 8.0


def main():
    args = diag_common.parse_args(__doc__, default_steps=40)
    rank, world, model, opt = ddp_common.setup(args.seed)
    gen = torch.Generator().manual_seed(args.seed + rank)
    shard = torch.randint(0, ddp_common.VOCAB, (4 * ddp_common.TOKENS,), generator=gen)
    shard_labels = torch.randint(0, ddp_common.VOCAB, (4 * ddp_common.TOKENS,), generator=gen)
    slow_reader = rank == 1 and not args.fixed
    losses = []

    def load_batch(i):
        if slow_reader:
            time.sleep(READ_DELAY_MS / 1e3)
        rows = slice((i % 4) * ddp_common.TOKENS, (i % 4 + 1) * ddp_common.TOKENS)
        x, y = shard[rows].pin_memory(), shard_labels[rows].pin_memory()
        return x.cuda(non_blocking=True), y.cuda(non_blocking=True)

    def step(i):
        x, y = load_batch(i)
        losses.append(ddp_common.train_step(model, opt, x, y))

    per_step = diag_common.timed_steps(step, args.steps, args.blocks)
    ddp_common.finish("ddp_data_straggler", args.fixed, rank, per_step, args.steps, losses,
                      straggler_rank=None if args.fixed else 1, read_delay_ms=READ_DELAY_MS)


if __name__ == "__main__":
    main()
