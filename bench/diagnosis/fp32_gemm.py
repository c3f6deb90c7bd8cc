#!/usr/bin/env python3
"""An fp32 MLP with large layers (4 x Linear 4096->4096 + ReLU, batch 2048), fused AdamW: a
regression/embedding model trained in full precision, as written without any precision setting.
Every step is dominated by its 12 GEMMs (forward, backward-data, backward-weight per layer).

Planted: PyTorch's default fp32 matmul precision ("highest": TF32 off), so cuBLAS runs the GEMMs
on the SIMT FMA pipes. Fixed: torch.set_float32_matmul_precision("high") (TF32 tensor cores);
same model, data and optimizer, fp32 storage everywhere.
"""
import torch
from torch import nn
from torch.nn import functional as F

import diag_common

WIDTH, LAYERS, BATCH = 4096, 4, 2048


def main():
    args = diag_common.parse_args(__doc__, default_steps=30)
    if args.fixed:
        torch.set_float32_matmul_precision("high")
    with torch.device("cuda"):
        layers = []
        for _ in range(LAYERS):
            layers += [nn.Linear(WIDTH, WIDTH), nn.ReLU()]
        model = nn.Sequential(*layers, nn.Linear(WIDTH, 1))
        inputs = torch.randn(4, BATCH, WIDTH)
        targets = torch.randn(4, BATCH, 1)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    losses = []

    def step(i):
        loss = F.mse_loss(model(inputs[i % 4]), targets[i % 4])
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.detach())

    per_step = diag_common.timed_steps(step, args.steps, args.blocks)
    diag_common.report("fp32_gemm", args.fixed, per_step, args.steps,
                       diag_common.checksum_of(losses),
                       matmul_precision=torch.get_float32_matmul_precision())


if __name__ == "__main__":
    main()
