#!/usr/bin/env python3
"""An all-reduce bandwidth sweep, as nccl-tests' all_reduce_perf measures it, for checking the
bandwidth gpuscope's Ranks section reports: for each size (float32, 1 MiB to --max-mib MiB,
doubling) it runs --warmup all-reduces, then --iters timed ones between two CUDA events, and rank
0 prints one line per size:

    sweep SIZE_BYTES RANKS TIME_US ALGBW_GBS BUSBW_GBS

(time per all-reduce, averaged over the iterations; bus bandwidth = algorithm bandwidth x
2(n-1)/n, nccl-tests' definition). One all-reduce at a time (each waits for the previous), so the
NCCL kernels are the operations gpuscope matches across ranks.

    NCCL_NVLS_ENABLE=0 torchrun --nproc-per-node 4 allreduce_sweep.py [--max-mib 1024]
"""
import argparse
import os

import torch
import torch.distributed as dist


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-mib", type=int, default=1024)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--iters", type=int, default=20)
    args = parser.parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    rank, n = dist.get_rank(), dist.get_world_size()
    mib = 1
    while mib <= args.max_mib:
        x = torch.ones(mib * (1 << 20) // 4, dtype=torch.float32, device="cuda")
        for _ in range(args.warmup):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(args.iters):
            dist.all_reduce(x)
        end.record()
        torch.cuda.synchronize()
        seconds = start.elapsed_time(end) / 1000.0 / args.iters
        size = x.numel() * 4
        algbw = size / seconds / 1e9
        if rank == 0:
            print("sweep %d %d %.1f %.2f %.2f" % (size, n, seconds * 1e6, algbw, algbw * 2 * (n - 1) / n), flush=True)
        del x
        mib *= 2
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
