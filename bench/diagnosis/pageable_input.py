#!/usr/bin/env python3
"""Training on a dataset preloaded into host RAM as float32 (precomputed features, decoded
images): each step slices a 50 MB batch (256 x 3 x 128 x 128) and moves it to the GPU. Model: a
patch-embedding conv followed by 4 residual MLP blocks over the 64 patches, bf16 autocast, fused
AdamW; a few milliseconds of GPU work per step, so the copy is a large part of the step.

Planted: the host tensor is ordinary (pageable) memory and the batch goes up with .cuda(): the
driver stages it through its own pinned buffer at a fraction of the link's speed and the host
waits for it. Fixed: the dataset is pinned once at start-up (.pin_memory()) and the batch goes up
with .cuda(non_blocking=True), a direct DMA at full link speed. Same data, same order.
"""
import torch
from torch import nn
from torch.nn import functional as F

import diag_common

BATCH, SIZE, PATCH, D_MODEL, BLOCKS, CLASSES, BATCHES_IN_RAM = 256, 128, 16, 256, 4, 100, 4


class PatchMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Conv2d(3, D_MODEL, PATCH, PATCH)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(D_MODEL), nn.Linear(D_MODEL, 4 * D_MODEL), nn.GELU(),
                          nn.Linear(4 * D_MODEL, D_MODEL)) for _ in range(BLOCKS))
        self.head = nn.Linear(D_MODEL, CLASSES)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)      # [batch, patches, d]
        for block in self.blocks:
            x = x + block(x)
        return self.head(x.mean(1))


def main():
    args = diag_common.parse_args(__doc__, default_steps=50)
    gen = torch.Generator().manual_seed(args.seed)
    data = torch.rand(BATCHES_IN_RAM, BATCH, 3, SIZE, SIZE, generator=gen)
    labels = torch.randint(0, CLASSES, (BATCHES_IN_RAM, BATCH), generator=gen)
    if args.fixed:
        data, labels = data.pin_memory(), labels.pin_memory()
    with torch.device("cuda"):
        model = PatchMLP()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    losses = []

    def step(i):
        x = data[i % BATCHES_IN_RAM].cuda(non_blocking=args.fixed)
        y = labels[i % BATCHES_IN_RAM].cuda(non_blocking=args.fixed)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.detach())

    per_step = diag_common.timed_steps(step, args.steps, args.blocks)
    diag_common.report("pageable_input", args.fixed, per_step, args.steps,
                       diag_common.checksum_of(losses),
                       batch_mb=round(data[0].numel() * data.element_size() / 2**20, 1))


if __name__ == "__main__":
    main()
