#!/usr/bin/env python3
"""A torch.compile'd model trained at a small batch: 8 residual MLP blocks (d=512), batch 32,
bf16 autocast, fused AdamW. Inductor fuses the element-wise work, but each step still launches
~100 kernels of a few microseconds each plus the compiled wrappers' Python, so the GPU waits on
the host.

Planted: torch.compile(model) (default mode). Fixed: torch.compile(model, mode="reduce-overhead"),
which replays the compiled forward and backward from CUDA graphs. Same model, data and optimizer.

Needs a C compiler and triton on the machine; when compilation fails the workload prints a
"skipped" line and exits 0.
"""
import torch
from torch import nn
from torch.nn import functional as F

import diag_common

D_MODEL, BLOCKS, BATCH, CLASSES = 512, 8, 32, 100


class ResidualMLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(*(ResidualMLP(D_MODEL) for _ in range(BLOCKS)))
        self.head = nn.Linear(D_MODEL, CLASSES)

    def forward(self, x, y):
        return F.cross_entropy(self.head(self.blocks(x)), y)


def main():
    args = diag_common.parse_args(__doc__, default_steps=200)
    with torch.device("cuda"):
        model = Net()
        data = torch.randn(args.steps, BATCH, D_MODEL)
        labels = torch.randint(0, CLASSES, (args.steps, BATCH))
    mode = "reduce-overhead" if args.fixed else "default"
    compiled = torch.compile(model, mode=mode)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    losses = []

    def step(i):
        torch.compiler.cudagraph_mark_step_begin()  # a new iteration (no-op without CUDA graphs)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = compiled(data[i], labels[i])
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        # clone: CUDA-graph outputs are overwritten by the next replay.
        losses.append(loss.detach().clone())

    try:
        per_step = diag_common.timed_steps(step, args.steps, args.blocks)
    except Exception as e:  # inductor/triton missing or failing on this machine
        diag_common.skipped("compiled", args.fixed,
                            "torch.compile failed: %s: %s" % (type(e).__name__, str(e)[:200]))
        return
    diag_common.report("compiled", args.fixed, per_step, args.steps,
                       diag_common.checksum_of(losses), mode=mode)


if __name__ == "__main__":
    main()
