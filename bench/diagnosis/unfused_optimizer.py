#!/usr/bin/env python3
"""A deep residual MLP (24 blocks of LayerNorm + Linear 1024->1024 + GELU + Linear 1024->1024,
146 parameter tensors, 50M parameters) trained with bf16 autocast at batch 8192: the forward and
backward keep the GPU busy (~8 ms), then the optimizer updates 146 tensors.

Planted: AdamW(foreach=False), the per-parameter loop (what code that wraps or subclasses the
optimizer, or sets foreach=False to save memory, ends up running): ~8 small kernels per
parameter, each launched from Python, about 1,200 launches per step. Fixed: AdamW(fused=True),
one multi-tensor kernel per step. Same model, data and update rule.
"""
import torch
from torch import nn
from torch.nn import functional as F

import diag_common

WIDTH, BLOCKS, BATCH, CLASSES = 1024, 24, 8192, 10


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, d)
        self.fc2 = nn.Linear(d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


def main():
    args = diag_common.parse_args(__doc__, default_steps=30)
    with torch.device("cuda"):
        model = nn.Sequential(*(Block(WIDTH) for _ in range(BLOCKS)), nn.Linear(WIDTH, CLASSES))
        inputs = torch.randn(4, BATCH, WIDTH)
        labels = torch.randint(0, CLASSES, (4, BATCH))
    if args.fixed:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=False)
    losses = []

    def step(i):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(inputs[i % 4]), labels[i % 4])
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.detach())

    per_step = diag_common.timed_steps(step, args.steps, args.blocks)
    diag_common.report("unfused_optimizer", args.fixed, per_step, args.steps,
                       diag_common.checksum_of(losses),
                       parameter_tensors=len(list(model.parameters())))


if __name__ == "__main__":
    main()
