#!/usr/bin/env python3
"""Data-parallel training: an MLP (4096-wide, 4 layers) or a
transformer block (--model transformer: attention + MLP, 1024 wide) under DistributedDataParallel
with NCCL, STEPS steps each inside an NVTX range `train_step`, launched by
torchrun (one process per GPU). A planted straggler: rank --straggler-rank sleeps --straggler-ms
on the host before each step's backward pass, so every all-reduce waits for it. Rank 0 prints
one checksum line of the losses (the profiler must not change results) and each rank prints
"rank R device D" once.

    NCCL_NVLS_ENABLE=0 torchrun --nproc-per-node 2 ddp_train.py [--steps 30] [--model mlp|transformer]
        [--straggler-rank 1 --straggler-ms 20] [--kineto DIR]

--kineto DIR: record the steps with torch.profiler (CPU and CUDA) and write one Chrome trace per
rank, DIR/rank<R>.json (with Kineto's distributedInfo), for the importer's tests.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn import functional as F


class Block(nn.Module):
    """Pre-norm attention and MLP, as in a GPT layer."""

    def __init__(self, dim, heads=16):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        x = x + self.mlp(self.norm2(x))
        return self.head(x.mean(dim=1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--width", type=int, default=0, help="default 4096 (mlp), 1024 (transformer)")
    parser.add_argument("--model", choices=("mlp", "transformer"), default="mlp")
    parser.add_argument("--straggler-rank", type=int, default=-1)
    parser.add_argument("--straggler-ms", type=float, default=0.0)
    parser.add_argument("--kineto", default="")
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    print("rank %d device %d" % (rank, local_rank), flush=True)

    torch.manual_seed(0)  # the same weights on every rank, as DDP requires
    if args.model == "mlp":
        w = args.width or 4096
        model = nn.Sequential(nn.Linear(w, w), nn.ReLU(), nn.Linear(w, w), nn.ReLU(), nn.Linear(w, w), nn.ReLU(),
                              nn.Linear(w, 10)).cuda()
        shape = (256, w)
    else:
        w = args.width or 1024
        model = Block(w).cuda()
        shape = (32, 256, w)
    model = nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    generator = torch.Generator(device="cuda").manual_seed(rank)
    data = torch.randn(*shape, device="cuda", generator=generator)
    target = torch.randint(0, 10, (shape[0],), device="cuda", generator=generator)
    losses = []
    profiler = None
    if args.kineto:
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        profiler = torch.profiler.profile(activities=activities)
        profiler.start()
    for _ in range(args.steps):
        with torch.cuda.nvtx.range("train_step"):
            loss = nn.functional.cross_entropy(model(data), target)
            opt.zero_grad(set_to_none=True)
            if rank == args.straggler_rank and args.straggler_ms > 0:
                time.sleep(args.straggler_ms / 1000.0)  # the GPU drains its short queue meanwhile
            loss.backward()
            opt.step()
        losses.append(loss.detach())
    torch.cuda.synchronize()
    if profiler is not None:
        profiler.stop()
        os.makedirs(args.kineto, exist_ok=True)
        profiler.export_chrome_trace(os.path.join(args.kineto, "rank%d.json" % rank))
    total = torch.stack(losses).sum()
    dist.all_reduce(total)
    if rank == 0:
        print("losses %d last %.6f sum %.6f" % (len(losses), losses[-1].item(), total.item()), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
