#!/usr/bin/env python3
"""The control: a GPT-style LM (8 layers, d=1024, 16 heads, 1024-token sequences, batch 8, 133M
parameters) trained the way the performance guides say: bf16 autocast, SDPA (flash) attention,
TF32 allowed, fused AdamW, cudnn.benchmark, batches sampled on the GPU, no host reads of GPU
values inside the loop. Each step is ~20 ms of large kernels; nothing in it should be worth
fixing, so gpuscope must report no time finding above 2 % of a step (expected rule: none).
There is no fixed twin; --fixed is accepted and changes nothing.
"""
import torch

import diag_common
from gpt_model import GPT

VOCAB, D_MODEL, LAYERS, HEADS, SEQ, BATCH = 32768, 1024, 8, 16, 1024, 8


def main():
    args = diag_common.parse_args(__doc__, default_steps=30)
    torch.set_float32_matmul_precision("high")
    torch.backends.cudnn.benchmark = True
    with torch.device("cuda"):
        model = GPT(VOCAB, D_MODEL, LAYERS, HEADS, SEQ)
        corpus = torch.randint(0, VOCAB, (4_000_000,))
        offsets = torch.arange(SEQ)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, fused=True)
    gen = torch.Generator(device="cuda").manual_seed(args.seed)
    losses = []

    def step(_):
        starts = torch.randint(0, len(corpus) - SEQ - 1, (BATCH, 1), device="cuda", generator=gen)
        x, y = corpus[starts + offsets], corpus[starts + offsets + 1]
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x, y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.detach())

    per_step = diag_common.timed_steps(step, args.steps, args.blocks)
    diag_common.report("well_tuned", False, per_step, args.steps, diag_common.checksum_of(losses))


if __name__ == "__main__":
    main()
