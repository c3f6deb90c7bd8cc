#!/usr/bin/env python3
"""The tiny-op loop: OPS in-place adds on 16 floats, each one kernel launch through the runtime
API (or, with --op mm, OPS 16x16 matrix products, whose cuBLAS kernels launch through the driver
API). Prints `us_per_op` measured on the host clock around the timed loop (after a warm-up and a
synchronize), so the cost a profiler adds per op is visible.

    python3 tiny_ops.py [--ops 20000] [--warmup 2000] [--op add|mm] [--torch-profiler cuda|cpu+cuda]
"""
import argparse
import time

import torch


def loop(x, n):
    for _ in range(n):
        x.add_(1)


def mm_loop(x, n):
    out = torch.empty_like(x)
    for _ in range(n):
        torch.mm(x, x, out=out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops", type=int, default=20000)
    parser.add_argument("--warmup", type=int, default=2000)
    parser.add_argument("--op", default="add", choices=["add", "mm"])
    parser.add_argument("--torch-profiler", default="", choices=["", "cuda", "cpu+cuda"])
    args = parser.parse_args()
    x = torch.zeros(16, device="cuda") if args.op == "add" else torch.full((16, 16), 0.01, device="cuda")
    step = loop if args.op == "add" else mm_loop
    step(x, args.warmup)
    torch.cuda.synchronize()
    profiler = None
    if args.torch_profiler:
        from torch.profiler import ProfilerActivity, profile
        activities = [ProfilerActivity.CUDA] + ([ProfilerActivity.CPU] if args.torch_profiler == "cpu+cuda" else [])
        profiler = profile(activities=activities)
        profiler.__enter__()
    begin = time.perf_counter()
    step(x, args.ops)
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - begin
    if profiler is not None:
        profiler.__exit__(None, None, None)
    print("us_per_op %.3f value %.0f" % (elapsed * 1e6 / args.ops, x.flatten()[0].item()))


if __name__ == "__main__":
    main()
