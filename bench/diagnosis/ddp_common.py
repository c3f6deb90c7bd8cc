"""What the two DDP workloads share: process-group set-up under torchrun, the model (token
embedding, 8 residual MLP blocks, d=1024, ~80M parameters, bf16 autocast; its inputs are token
ids, so a batch is small on the host) and the report from rank 0, whose step time includes every
wait for the other rank (the gradient all-reduces)."""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn import functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

import diag_common

WIDTH, BLOCKS, TOKENS, VOCAB = 1024, 8, 8192, 8192


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


def setup(seed):
    """Returns (rank, world size, DDP model, fused AdamW) on this rank's GPU."""
    if "LOCAL_RANK" not in os.environ:
        raise SystemExit("run under torchrun --nproc-per-node 2")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    torch.manual_seed(seed)  # same initial weights on every rank (DDP also broadcasts them)
    with torch.device("cuda"):
        model = nn.Sequential(nn.Embedding(VOCAB, WIDTH), *(Block(WIDTH) for _ in range(BLOCKS)),
                              nn.Linear(WIDTH, VOCAB))
    model = DDP(model, device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    return dist.get_rank(), dist.get_world_size(), model, opt


def train_step(model, opt, x, y):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.detach()


def finish(workload, fixed, rank, per_step, steps, losses, **extra):
    """Rank 0 prints the line; then the process group is torn down on every rank."""
    checksum = diag_common.checksum_of(losses)
    if rank == 0:
        diag_common.report(workload, fixed, per_step, steps, checksum,
                           world_size=dist.get_world_size(), **extra)
    dist.destroy_process_group()
