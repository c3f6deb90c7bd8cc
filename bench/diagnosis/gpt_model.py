"""A GPT-2-style decoder written the usual way (pre-LayerNorm blocks, SDPA attention, tied
embedding), shared by gpt_lm.py (training) and decode_kv.py (decoding with a KV cache)."""
import torch
from torch import nn
from torch.nn import functional as F


class Block(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.out = nn.Linear(4 * d_model, d_model)

    def _heads(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.n_heads, -1).transpose(1, 2)

    def forward(self, x, cache=None, pos=None, mask=None):
        """Training: cache is None, causal attention over x. Decoding: x is one token per
        sequence; its k, v are written at `pos` (a 1-element long tensor on the GPU, so the
        step has no host-side values and can be captured in a CUDA graph) into the static
        cache (k, v of shape [b, heads, max_len, head_dim]) and attention runs over the whole
        cache with `mask` hiding the positions not written yet (static shapes)."""
        b, t, d = x.shape
        q, k, v = self._heads_all(self.ln1(x))
        if cache is None:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            cache_k, cache_v = cache
            cache_k.index_copy_(2, pos, k)
            cache_v.index_copy_(2, pos, v)
            y = F.scaled_dot_product_attention(q, cache_k, cache_v, attn_mask=mask)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))

    def _heads_all(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self._heads(q), self._heads(k), self._heads(v)


class GPT(nn.Module):
    def __init__(self, vocab, d_model, n_layers, n_heads, max_len):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList(Block(d_model, n_heads) for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied, as GPT-2

    def forward(self, idx, targets=None):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln_f(x))
        if targets is None:
            return logits
        return F.cross_entropy(logits.view(-1, logits.shape[-1]).float(), targets.view(-1))

    def decode_one(self, token, pos, caches, mask):
        """One decode step: token [b, 1], pos [1] (GPU), caches per block; returns logits [b, vocab]."""
        x = self.tok(token) + self.pos(pos)
        for block, cache in zip(self.blocks, caches):
            x = block(x, cache=cache, pos=pos, mask=mask)
        return self.head(self.ln_f(x))[:, -1, :]
