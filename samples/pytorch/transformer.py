#!/usr/bin/env python3
"""A transformer block (scaled_dot_product_attention + MLP), fed by a DataLoader with worker
processes, trained for STEPS steps inside NVTX `train_step` ranges; optionally torch.compile'd.
Prints a checksum line so traced and untraced runs can be compared.

    python3 transformer.py [--steps 20] [--compile] [--workers 2] [--torch-profiler OPS.txt]

--torch-profiler runs the same loop under torch.profiler (CPU + CUDA) and writes the names of the
ops that launched GPU work, one per line, for comparison with what gpuscope --pytorch names.
"""
import argparse

import torch
from torch import nn
from torch.nn import functional as F


class Block(nn.Module):
    def __init__(self, dim=256, heads=8):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.norm2(x))


class Tokens(torch.utils.data.Dataset):
    def __len__(self):
        return 1 << 16

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(128, 256, generator=g)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--torch-profiler", default="")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Block().cuda()
    step_fn = torch.compile(model) if args.compile else model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = torch.utils.data.DataLoader(Tokens(), batch_size=8, num_workers=args.workers)
    profiler = None
    if args.torch_profiler:
        from torch.profiler import ProfilerActivity, profile
        profiler = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
        profiler.__enter__()
    total = torch.zeros((), device="cuda")
    for step, batch in enumerate(loader):
        if step == args.steps:
            break
        with torch.cuda.nvtx.range("train_step"):
            x = batch.cuda(non_blocking=True)
            loss = step_fn(x).pow(2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += loss.detach()
    torch.cuda.synchronize()
    if profiler is not None:
        profiler.__exit__(None, None, None)
        names = sorted({e.key for e in profiler.key_averages() if e.device_type == torch.autograd.DeviceType.CPU
                        and e.self_device_time_total > 0})
        with open(args.torch_profiler, "w") as out:
            out.write("\n".join(names) + "\n")
    print("steps %d loss_sum %.4f" % (args.steps, total.item()))


if __name__ == "__main__":
    main()
