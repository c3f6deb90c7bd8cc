#!/usr/bin/env python3
"""The tiny-op loop: OPS in-place adds on 16 floats, each one kernel launch through the runtime
API (or, with --op mm, OPS 16x16 matrix products, whose cuBLAS kernels launch through the driver
API). Prints `us_per_op` measured on the host clock around the timed loop (after a warm-up and a
synchronize), so the cost a profiler adds per op is visible. With --blocks B the loop is timed in
B equal blocks (each ending with a synchronize), printed on a `block_us_per_op` line, and
`us_per_op` is the median block's.

    python3 tiny_ops.py [--ops 20000] [--warmup 2000] [--op add|mm] [--blocks 1]
                        [--torch-profiler cuda|cpu|cpu+cuda] [--torch-trace FILE]
                        [--op-observer LIB]

--torch-profiler runs the timed loop inside torch.profiler with those activities; --torch-trace
writes its trace (Chrome JSON) to FILE afterwards, outside the timing. --op-observer loads a
shared library built against this torch and calls its gpuscope_observer_install() before the
warm-up (bench/torch_observer_floor.cpp: a RecordFunction observer of every op).
"""
import argparse
import ctypes
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
    parser.add_argument("--torch-profiler", default="", choices=["", "cuda", "cpu", "cpu+cuda"])
    parser.add_argument("--torch-trace", default="")
    parser.add_argument("--op-observer", default="", help="shared library with gpuscope_observer_install()")
    parser.add_argument("--blocks", type=int, default=1,
                        help="time the loop in this many equal blocks; us_per_op is their median")
    args = parser.parse_args()
    if args.op_observer:
        ctypes.CDLL(args.op_observer, mode=ctypes.RTLD_GLOBAL).gpuscope_observer_install()
    x = torch.zeros(16, device="cuda") if args.op == "add" else torch.full((16, 16), 0.01, device="cuda")
    step = loop if args.op == "add" else mm_loop
    step(x, args.warmup)
    torch.cuda.synchronize()
    profiler = None
    if args.torch_profiler:
        from torch.profiler import ProfilerActivity, profile
        activities = [ProfilerActivity.CPU] if "cpu" in args.torch_profiler else []
        activities += [ProfilerActivity.CUDA] if "cuda" in args.torch_profiler else []
        profiler = profile(activities=activities)
        profiler.__enter__()
    per_block = args.ops // max(1, args.blocks)
    block_us = []
    for _ in range(max(1, args.blocks)):
        begin = time.perf_counter()
        step(x, per_block)
        torch.cuda.synchronize()
        block_us.append((time.perf_counter() - begin) * 1e6 / per_block)
    if profiler is not None:
        profiler.__exit__(None, None, None)
        if args.torch_trace:
            profiler.export_chrome_trace(args.torch_trace)
    ordered = sorted(block_us)
    n = len(ordered)
    median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    if n > 1:
        print("block_us_per_op " + " ".join("%.3f" % v for v in block_us))
    print("us_per_op %.3f value %.0f" % (median, x.flatten()[0].item()))


if __name__ == "__main__":
    main()
