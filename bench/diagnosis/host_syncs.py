#!/usr/bin/env python3
"""A classifier training loop (8 residual MLP blocks, d=1024, batch 4096, bf16 autocast, fused
AdamW) carrying the monitoring and tricks people add to a loop, each of which reads a GPU value on
the host and so waits for the GPU mid-step:
  - a NaN guard on every block's output (`if not torch.isfinite(out).all()`), 8 syncs in the
    forward pass;
  - online hard-example mining with `torch.nonzero` (its output size depends on the data, so the
    host waits for it) before the backward pass;
  - a running loss with `loss.item()` and a confusion matrix from `.cpu()` predictions (numpy);
  - a debug log line that formats the gradient-norm tensor in an f-string (formatting reads it,
    even when the debug level is off).
After each sync the GPU idles until the host has launched the next work, and the host work after
it (numpy, formatting) no longer overlaps the GPU.

Fixed: the same arithmetic kept on the GPU (NaN flag, masked mean instead of nonzero, loss and
confusion matrix accumulated as tensors), read on the host every LOG_EVERY steps.
"""
import logging

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import diag_common

WIDTH, BLOCKS, BATCH, CLASSES, LOG_EVERY = 1024, 8, 4096, 10, 20
log = logging.getLogger("host_syncs")


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


def main():
    args = diag_common.parse_args(__doc__, default_steps=60)
    fixed = args.fixed
    with torch.device("cuda"):
        model = nn.Sequential(*(Block(WIDTH) for _ in range(BLOCKS)), nn.Linear(WIDTH, CLASSES))
        inputs = torch.randn(4, BATCH, WIDTH)
        labels = torch.randint(0, CLASSES, (4, BATCH))
        nonfinite = torch.zeros((), dtype=torch.bool)
        loss_sum = torch.zeros(())
        confusion_gpu = torch.zeros(CLASSES * CLASSES, dtype=torch.long)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    confusion = np.zeros((CLASSES, CLASSES), dtype=np.int64)
    state = {"running": 0.0}

    def nan_guard(module, inputs_, out):
        nonlocal nonfinite
        if fixed:
            nonfinite |= ~torch.isfinite(out).all()
        elif not torch.isfinite(out).all():
            raise FloatingPointError("non-finite activations in %s" % module.__class__.__name__)

    for block in model[:BLOCKS]:
        block.register_forward_hook(nan_guard)

    def step(i):
        nonlocal loss_sum, confusion
        x, y = inputs[i % 4], labels[i % 4]
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
        per_sample = F.cross_entropy(logits.float(), y, reduction="none")
        hard_mask = per_sample > per_sample.mean()
        if fixed:
            loss = (per_sample * hard_mask).sum() / hard_mask.sum().clamp(min=1)
        else:
            hard = torch.nonzero(hard_mask).squeeze(1)
            loss = per_sample[hard].mean()
        loss.backward()
        grad_norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        pred = logits.argmax(1)
        if fixed:
            loss_sum += loss.detach()
            confusion_gpu.add_(torch.bincount(y * CLASSES + pred, minlength=CLASSES * CLASSES))
            if (i + 1) % LOG_EVERY == 0:
                if nonfinite.item():
                    raise FloatingPointError("non-finite activations")
                state["running"] = loss_sum.item()
                log.debug(f"step {i} grad norm {grad_norm}")
        else:
            state["running"] += loss.item()
            pairs = (y * CLASSES + pred).cpu().numpy()
            confusion += np.bincount(pairs, minlength=CLASSES * CLASSES).reshape(CLASSES, CLASSES)
            log.debug(f"step {i} grad norm {grad_norm}")

    per_step = diag_common.timed_steps(step, args.steps, args.blocks)
    if fixed:
        confusion[:] = confusion_gpu.view(CLASSES, CLASSES).cpu().numpy()
        state["running"] = loss_sum.item()
    diag_common.report("host_syncs", fixed, per_step, args.steps,
                       round(state["running"], 3), confusion_total=int(confusion.sum()))


if __name__ == "__main__":
    main()
