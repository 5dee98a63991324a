"""Positions, a pre-norm transformer block, a small GPT and its KV cache (lesson 17).

Attention is blind to order: permute the keys and values together and the
output does not change. A sequence model adds to each token's vector a
vector for its *position*: ``LearnedPositions`` (a table, one learned row
per position, GPT-2's) or ``SinusoidalPositions`` (fixed sines and cosines
of geometrically spaced frequencies, the original transformer's, which need
no training and whose offsets are linear maps of each other).

A ``TransformerBlock`` is two residual branches, each behind a normalization
("pre-norm", GPT-2's order, which trains without a warm-up):

    x = x + attention(norm1(x))          tokens exchange information
    x = x + mlp(norm2(x))                each token computes alone (Linear, GELU, Linear)

``GPT`` stacks blocks between a token embedding plus positions and a final
norm and linear head that scores the next character; causal attention makes
every position predict the next one, all at once.

**Generation** adds one token at a time. Recomputing the whole prefix for
each new token repeats all the work of the previous step; but the keys and
values of the earlier tokens do not change (causal attention: a token never
sees a later one), so a ``KVCache`` keeps them per layer and each step
computes the new token's query, key and value only and appends them.

    >>> import minigrad as mg
    >>> model = GPT(vocab_size=5, block_size=8, dim=8, heads=2, layers=1)
    >>> model(mg.tensor([[1, 2, 3]])).shape
    (1, 3, 5)
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.nn.activation import GELU
from minigrad.nn.attention import scaled_dot_product_attention
from minigrad.nn.embedding import Embedding
from minigrad.nn.linear import Linear
from minigrad.nn.module import Module, Sequential
from minigrad.nn.multi_head_attention import MultiheadAttention
from minigrad.nn.normalization import LayerNorm
from minigrad.nn.parameter import Parameter
from minigrad.tensor import dtypes, factories
from minigrad.tensor.tensor import Tensor


def sinusoidal_table(length: int, dim: int) -> Any:
    """``table[p, 2i] = sin(p / 10000^(2i/dim))``, ``table[p, 2i+1] = cos(...)``: ``(length, dim)``.

    >>> sinusoidal_table(2, 4).numpy().round(3).tolist()
    [[0.0, 1.0, 0.0, 1.0], [0.841, 0.54, 0.01, 1.0]]
    """
    import numpy as np

    position = np.arange(length)[:, None]
    frequency = np.exp(-math.log(10000.0) * np.arange(0, dim, 2) / dim)
    table = np.zeros((length, dim))
    table[:, 0::2] = np.sin(position * frequency)
    table[:, 1::2] = np.cos(position * frequency)[:, : dim // 2]
    return factories.tensor(table, dtype=dtypes.float32)


class SinusoidalPositions(Module):
    """Adds the fixed sinusoidal vector of each position: ``x[:, t] + table[start + t]``.

    >>> import minigrad as mg
    >>> SinusoidalPositions(16, 4)(mg.zeros(1, 2, 4))[0, 1].numpy().round(3).tolist()
    [0.841, 0.54, 0.01, 1.0]
    """

    def __init__(self, max_len: int, dim: int, dtype: Any = dtypes.float32) -> None:
        super().__init__()
        self.register_buffer("table", sinusoidal_table(max_len, dim).to(dtype), persistent=False)

    def forward(self, x: Tensor, start: int = 0) -> Tensor:
        return x + self.table[start : start + x.shape[-2]]


class LearnedPositions(Module):
    """Adds a learned vector per position (a table of ``max_len`` rows, N(0, 0.02^2) at first).

    >>> import minigrad as mg
    >>> LearnedPositions(16, 4)(mg.zeros(2, 3, 4)).shape
    (2, 3, 4)
    """

    def __init__(self, max_len: int, dim: int, dtype: Any = dtypes.float32) -> None:
        super().__init__()
        table = factories.generator().normal(0.0, 0.02, size=(max_len, dim))
        self.weight = Parameter(factories.tensor(table, dtype=dtype))

    def forward(self, x: Tensor, start: int = 0) -> Tensor:
        length = x.shape[-2]
        if start + length > len(self.weight):
            raise IndexError(
                f"LearnedPositions: positions {start}..{start + length - 1} asked of a table "
                f"of {len(self.weight)}; make max_len larger or feed a shorter sequence"
            )
        return x + self.weight[start : start + length]


class KVCache:
    """The keys and values of every token so far, per layer: ``(N, heads, max_len, head_dim)``.

    ``append(layer, k, v)`` writes the new tokens' keys and values after the
    ones stored and returns all of them so far (a view, no copy); ``advance``
    moves the position once every layer has appended.
    """

    def __init__(self, layers: int, batch: int, heads: int, max_len: int, head_dim: int,
                 dtype: Any = dtypes.float32) -> None:  # fmt: skip
        shape = (batch, heads, max_len, head_dim)
        self.keys = [factories.zeros(shape, dtype=dtype) for _ in range(layers)]
        self.values = [factories.zeros(shape, dtype=dtype) for _ in range(layers)]
        self.length = 0  # tokens stored

    def append(self, layer: int, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
        start, stop = self.length, self.length + k.shape[-2]
        if stop > self.keys[layer].shape[-2]:
            raise IndexError(
                f"KVCache is full: {stop} tokens asked of {self.keys[layer].shape[-2]}"
            )
        self.keys[layer][:, :, start:stop] = k
        self.values[layer][:, :, start:stop] = v
        return self.keys[layer][:, :, :stop], self.values[layer][:, :, :stop]

    def advance(self, tokens: int) -> None:
        self.length += tokens


class TransformerBlock(Module):
    """Pre-norm block: ``x + attn(norm1(x))``, then ``x + mlp(norm2(x))``; the MLP uses GELU.

    Attention is causal. ``forward(x, cache=None, layer=0)``: with a
    ``KVCache`` the block attends over the cached keys and values too.

    >>> import minigrad as mg
    >>> TransformerBlock(8, 2)(mg.zeros(1, 3, 8)).shape
    (1, 3, 8)
    """

    def __init__(self, dim: int, heads: int, mlp_ratio: int = 4, dropout: float = 0.0,
                 norm: type[Module] = LayerNorm, dtype: Any = dtypes.float32) -> None:  # fmt: skip
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = norm(dim, dtype=dtype), norm(dim, dtype=dtype)
        self.attn = MultiheadAttention(dim, heads, dropout=dropout, batch_first=True, dtype=dtype)
        self.mlp = Sequential(Linear(dim, mlp_ratio * dim, dtype=dtype), GELU(),
                              Linear(mlp_ratio * dim, dim, dtype=dtype))  # fmt: skip

    def _attention(self, x: Tensor, cache: KVCache | None, layer: int) -> Tensor:
        """Causal self-attention of ``x (N, L, D)`` through ``self.attn``'s projections."""
        n, length, dim = x.shape
        w, b = self.attn.in_proj_weight, self.attn.in_proj_bias
        qkv = (x @ w.T + b).reshape(n, length, 3, self.heads, dim // self.heads)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]  # each (N, heads, L, head_dim)
        p_drop = self.attn.dropout if self.training else 0.0
        if cache is None or cache.length == 0:
            if cache is not None:
                k, v = cache.append(layer, k, v)
            out = scaled_dot_product_attention(q, k, v, dropout_p=p_drop, is_causal=True)
        else:
            k, v = cache.append(layer, k, v)
            mask = None  # one new token sees every cached one; several see a shifted triangle
            if length > 1:
                keys = k.shape[-2]
                mask = factories.arange(keys)[None, :] <= (factories.arange(length)[:, None]
                                                          + (keys - length))  # fmt: skip
            out = scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p_drop)
        return self.attn.out_proj(out.transpose(0, 2, 1, 3).reshape(n, length, dim))

    def forward(self, x: Tensor, cache: KVCache | None = None, layer: int = 0) -> Tensor:
        x = x + self._attention(self.norm1(x), cache, layer)
        return x + self.mlp(self.norm2(x))


class GPT(Module):
    """A decoder-only transformer: embedding + positions, ``layers`` blocks, norm, linear head.

    ``forward(ids (N, L), cache=None)`` -> next-token scores ``(N, L, vocab_size)``.
    ``generate(ids, steps, cache=True)`` samples ``steps`` more tokens.
    """

    def __init__(self, vocab_size: int, block_size: int, dim: int = 64, heads: int = 4,
                 layers: int = 2, dropout: float = 0.0, positions: str = "learned",
                 dtype: Any = dtypes.float32) -> None:  # fmt: skip
        super().__init__()
        self.block_size, self.heads, self.layers = block_size, heads, layers
        self.embed = Embedding(vocab_size, dim, dtype=dtype)
        self.positions = (LearnedPositions(block_size, dim, dtype) if positions == "learned"
                          else SinusoidalPositions(block_size, dim, dtype))  # fmt: skip
        self.blocks = Sequential(*[TransformerBlock(dim, heads, dropout=dropout, dtype=dtype)
                                   for _ in range(layers)])  # fmt: skip
        self.norm = LayerNorm(dim, dtype=dtype)
        self.head = Linear(dim, vocab_size, dtype=dtype)

    def forward(self, ids: Any, cache: KVCache | None = None) -> Tensor:
        start = 0 if cache is None else cache.length
        x = self.positions(self.embed(ids), start)
        for i, block in enumerate(self.blocks):
            x = block(x, cache, i)
        if cache is not None:
            cache.advance(x.shape[1])
        return self.head(self.norm(x))

    def new_cache(self, batch: int) -> KVCache:
        """An empty cache for ``batch`` sequences of up to ``block_size`` tokens."""
        dim = self.embed.embedding_dim
        return KVCache(self.layers, batch, self.heads, self.block_size, dim // self.heads,
                       self.head.weight.dtype)  # fmt: skip

    def generate(self, ids: Any, steps: int, cache: bool = True, temperature: float = 1.0,
                 greedy: bool = False) -> Tensor:  # fmt: skip
        """``ids (N, L)`` followed by ``steps`` sampled tokens; with ``cache`` one token per step.

        Without the cache every step runs the whole sequence so far (at most
        ``block_size`` tokens); with it, each step runs the new token only, and
        when the cache is full it starts again from the last ``block_size // 2``
        tokens (so past ``block_size`` tokens the two see different windows).
        """
        import numpy as np

        from minigrad.tensor.mode import no_grad

        tokens = np.asarray(ids.numpy() if isinstance(ids, Tensor) else ids, dtype=np.int64)
        rng = factories.generator()
        with no_grad():
            kv = self.new_cache(len(tokens)) if cache else None
            feed = tokens
            for _ in range(steps):
                if kv is None:
                    feed = tokens[:, -self.block_size :]
                elif kv.length + feed.shape[1] > self.block_size:
                    # The cache is full: start a new one from the last half window.
                    kv = self.new_cache(len(tokens))
                    feed = tokens[:, -(self.block_size // 2) :]
                scores = self(factories.tensor(feed), kv)[:, -1].numpy() / temperature
                if greedy:
                    nxt = scores.argmax(-1)
                else:
                    p = np.exp(scores - scores.max(-1, keepdims=True))
                    p /= p.sum(-1, keepdims=True)
                    nxt = np.array([rng.choice(len(row), p=row) for row in p])
                tokens = np.concatenate([tokens, nxt[:, None]], 1)
                feed = nxt[:, None]
        return factories.tensor(tokens)
