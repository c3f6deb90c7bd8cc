#!/usr/bin/env python3
"""A training loop: a 3-layer MLP, AdamW, STEPS steps, each inside an NVTX range
`train_step`. Prints one checksum line of the final losses so a traced run can be compared with
an untraced one (the profiler must not change results).

    python3 mlp_train.py [--steps 50] [--profile-range START:STOP]

--profile-range calls torch.cuda.profiler.start() before step START and stop() after step STOP-1
(for capture-range tests).
"""
import argparse

import torch
from torch import nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--profile-range", default="")
    args = parser.parse_args()
    start, stop = (int(x) for x in args.profile_range.split(":")) if args.profile_range else (-1, -1)

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, 10)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randn(64, 512, device="cuda")
    target = torch.randint(0, 10, (64,), device="cuda")
    losses = []
    for step in range(args.steps):
        if step == start:
            torch.cuda.profiler.start()
        with torch.cuda.nvtx.range("train_step"):
            loss = nn.functional.cross_entropy(model(data), target)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        losses.append(loss.detach())
        if step == stop - 1:
            torch.cuda.profiler.stop()
    torch.cuda.synchronize()
    print("losses %d last %.6f sum %.6f" % (len(losses), losses[-1].item(), torch.stack(losses).sum().item()))


if __name__ == "__main__":
    main()
