#!/usr/bin/env python3
"""Makes the torch.profiler (Kineto) traces in this folder, on a GPU host with PyTorch:

    python3 make_traces.py OUTDIR

A training loop of a 3-layer MLP (AdamW, batch 64, hidden 1024, 8 steps), profiled with
torch.profiler's schedule (wait 1, warmup 1, active 3), CPU + CUDA activities, record_shapes,
profile_memory and with_stack, exported with export_chrome_trace. Two variants, for diff:
  mlp_train.json.gz        the loop as most people write it (foreach AdamW, separate loss.item())
  mlp_train_fused.json.gz  the same model with fused AdamW and the .item() sync dropped
mlp_train.json is the first, uncompressed (the importer must read both forms).
"""
import gzip
import os
import shutil
import sys

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule


def train(out_path, fused):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, 10)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=fused)
    data = torch.randn(64, 512, device="cuda")
    target = torch.randint(0, 10, (64,), device="cuda")
    losses = []
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
                 record_shapes=True, profile_memory=True, with_stack=True,
                 on_trace_ready=lambda p: p.export_chrome_trace(out_path)) as prof:
        for step in range(8):
            with record_function("forward"):
                loss = nn.functional.cross_entropy(model(data), target)
            with record_function("backward"):
                opt.zero_grad(set_to_none=True)
                loss.backward()
            with record_function("optimizer"):
                opt.step()
            if not fused:
                losses.append(loss.item())  # a device-to-host copy and a sync every step
            prof.step()
    torch.cuda.synchronize()
    return losses


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, fused in (("mlp_train", False), ("mlp_train_fused", True)):
        path = os.path.join(out, name + ".json")
        train(path, fused)
        with open(path, "rb") as src, gzip.open(path + ".gz", "wb", compresslevel=9) as dst:
            shutil.copyfileobj(src, dst)
        if fused:
            os.remove(path)
    print("torch", torch.__version__, "on", torch.cuda.get_device_name(0))


if __name__ == "__main__":
    main()
