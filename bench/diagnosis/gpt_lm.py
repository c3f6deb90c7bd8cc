#!/usr/bin/env python3
"""GPT-2-small-sized LM training (124M parameters, bf16 autocast, SDPA), fine-tuning-sized
batches: 8 sequences of 512 tokens, batches cut from a token stream on the host as nanoGPT's
get_batch does (pinned, non_blocking).

Planted: AdamW with PyTorch's default implementation (for-each: about ten multi-tensor passes
over all 124M parameters per step, each reading and writing fp32 state). Fixed: AdamW(fused=True),
one pass. Both update the same parameters with the same arithmetic.

Why not `loss.item()` every step, the usual suspect: at this size the loop is GPU-bound (the
host launches a step's ~800 kernels faster than the GPU runs them), so a sync at the end of the
step only costs the restart of the queue, tens of microseconds of a ~15 ms step; the optimizer
passes cost milliseconds. host_syncs.py plants syncs where they do cost.
"""
import torch

import diag_common
from gpt_model import GPT

VOCAB, D_MODEL, LAYERS, HEADS, SEQ, BATCH = 50304, 768, 12, 12, 512, 8


def main():
    args = diag_common.parse_args(__doc__, default_steps=30)
    with torch.device("cuda"):
        model = GPT(VOCAB, D_MODEL, LAYERS, HEADS, SEQ)
    if args.fixed:
        opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, fused=True)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)

    # A "tokenized corpus" in host memory; batches are random windows of it.
    gen = torch.Generator().manual_seed(args.seed)
    corpus = torch.randint(0, VOCAB, (2_000_000,), generator=gen)

    def get_batch():
        ix = torch.randint(len(corpus) - SEQ - 1, (BATCH,), generator=gen)
        x = torch.stack([corpus[i:i + SEQ] for i in ix])
        y = torch.stack([corpus[i + 1:i + 1 + SEQ] for i in ix])
        return (x.pin_memory().to("cuda", non_blocking=True),
                y.pin_memory().to("cuda", non_blocking=True))

    losses = []

    def step(_):
        x, y = get_batch()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x, y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.detach())

    per_step = diag_common.timed_steps(step, args.steps, args.blocks)
    diag_common.report("gpt_lm", args.fixed, per_step, args.steps,
                       diag_common.checksum_of(losses))


if __name__ == "__main__":
    main()
