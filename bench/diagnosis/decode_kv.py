#!/usr/bin/env python3
"""Greedy decoding with a static KV cache: a 6-layer bf16 GPT (d=512), batch 2, one token per
step, as small-batch serving runs it. Each decode step is ~130 tiny kernels (a few microseconds
of GPU work each), so the step is as long as the host takes to launch them.

Planted: the decode step runs eagerly, every kernel launched from Python. Fixed: the same step
captured once in a CUDA graph (torch.cuda.CUDAGraph with static token/position buffers) and
replayed. The step keeps no values on the host (position and next token stay on the GPU), so
both variants decode the same tokens.
"""
import torch

import diag_common
from gpt_model import GPT

VOCAB, D_MODEL, LAYERS, HEADS, MAX_LEN, BATCH = 32000, 512, 6, 8, 512, 2


def main():
    args = diag_common.parse_args(__doc__, default_steps=300)
    if args.steps >= MAX_LEN:
        raise SystemExit("--steps must be below %d (the cache length)" % MAX_LEN)
    with torch.device("cuda"):
        model = GPT(VOCAB, D_MODEL, LAYERS, HEADS, MAX_LEN).to(torch.bfloat16).eval()
        head_dim = D_MODEL // HEADS
        caches = [(torch.zeros(BATCH, HEADS, MAX_LEN, head_dim, dtype=torch.bfloat16),
                   torch.zeros(BATCH, HEADS, MAX_LEN, head_dim, dtype=torch.bfloat16))
                  for _ in range(LAYERS)]
        first = torch.randint(0, VOCAB, (BATCH, 1))
        token = first.clone()                       # static input buffer
        pos = torch.zeros(1, dtype=torch.long)      # static position, advanced on the GPU
        positions = torch.arange(MAX_LEN)
        generated = torch.zeros(BATCH, MAX_LEN, dtype=torch.long)

    def decode_step():
        mask = (positions <= pos).view(1, 1, 1, MAX_LEN)
        logits = model.decode_one(token, pos, caches, mask)
        nxt = logits.argmax(-1, keepdim=True)
        generated.index_copy_(1, pos, nxt)
        token.copy_(nxt)
        pos.add_(1)

    def reset():
        for k, v in caches:
            k.zero_()
            v.zero_()
        token.copy_(first)
        pos.zero_()
        generated.zero_()

    with torch.no_grad():
        if args.fixed:
            # Warm up on a side stream (as the CUDA graphs docs ask), then capture one step.
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    decode_step()
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                decode_step()
            step = lambda _: graph.replay()
        else:
            step = lambda _: decode_step()
        reset()
        per_step = diag_common.timed_steps(step, args.steps, args.blocks, range_name="decode_step")
    diag_common.report("decode_kv", args.fixed, per_step, args.steps,
                       diag_common.checksum_of([generated]))


if __name__ == "__main__":
    main()
