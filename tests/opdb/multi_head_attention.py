"""Correctness-database rows: ``multi_head_attention_forward`` (see ``opdb/__init__.py``).

Every tensor argument the function differentiates is a drawn input: query,
key, value, the packed (or separate) projection weights and biases, the
output projection, and in the variants ``bias_k``/``bias_v`` and
``static_k``/``static_v``. Sequences are batched ``(L, N, E)`` or unbatched,
with ``L``, ``S`` and ``N`` from 0 (an empty axis) to 3; ``need_weights`` and
``average_attn_weights`` are drawn, so both the explicit-weights path and the
fused ``scaled_dot_product_attention`` path run. Masks (boolean or additive,
2-D or per head, and a key-padding mask) are constants closed over by both
functions; they never hide every key of a row (that row is NaN in PyTorch's
explicit path, which ``tests/nn/test_transformer_layers.py`` checks).
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st
from torch.nn.attention import SDPBackend, sdpa_kernel

import minigrad as mg
from opdb.strategies import Case, _viewed, inputs, normal

F = mg.nn.functional
TF = torch.nn.functional


def _constant(array, like):
    if array is None:
        return None
    if isinstance(like, torch.Tensor):
        return torch.from_numpy(array).to(like.dtype if array.dtype != np.bool_ else torch.bool)
    return mg.tensor(array, dtype=like.dtype if array.dtype != np.bool_ else mg.bool_)


def _masks(draw, rng, kind, batched, length, keys, n, heads):
    """An attention mask and a key-padding mask of ``kind``; key 0 is never hidden."""
    if kind is None:
        return None, None
    # (PyTorch reshapes a per-head or padding mask with a -1, which an empty mask cannot
    # give when N * heads > 1: both raise.) Empty problems take a 2-D mask.
    empty = n * length * keys == 0
    per_head = not empty and draw(st.booleans())
    shape = (n * heads, length, keys) if per_head else (length, keys)
    padding_shape = (n, keys) if batched else (keys,)
    if kind == "bool":
        attn, padding = rng.random(shape) > 0.6, rng.random(padding_shape) > 0.6
        attn[..., :1] = padding[..., :1] = False
    else:
        attn = np.where(rng.random(shape) > 0.3, rng.standard_normal(shape), -np.inf)
        padding = np.where(rng.random(padding_shape) > 0.3, 0.0, -np.inf)
        attn[..., :1] = padding[..., :1] = 0.0
    which = "attn" if empty else draw(st.sampled_from(["attn", "padding", "both"]))
    return (attn if which != "padding" else None), (padding if which != "attn" else None)


@st.composite
def mha_case(draw, separate=False, bias_kv=False, static=False, masks=None):
    heads, head_dim = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    e = heads * head_dim
    length, keys = draw(st.integers(0, 3)), draw(st.integers(0 if not static else 1, 3))
    batched, n = draw(st.booleans()), draw(st.integers(0, 2))
    n = n if batched else 1
    ek, ev = (draw(st.integers(1, 3)), draw(st.integers(1, 3))) if separate else (e, e)
    seq = lambda rows, width: (rows, n, width) if batched else (rows, width)
    shapes = [seq(length, e), seq(keys, ek), seq(keys, ev)]
    if separate:
        shapes += [(e, e), (e, ek), (e, ev)]
    else:
        shapes += [(3 * e, e)]
    has_bias = draw(st.booleans())
    shapes += [(3 * e,)] if has_bias else []
    shapes += [(e, e), (e,)]
    if bias_kv:
        shapes += [(1, 1, e), (1, 1, e)] if draw(st.booleans()) else [(e,), (e,)]
    if static:
        shapes += [(n * heads, keys, head_dim), (n * heads, keys, head_dim)]
    arrays, views, rng = draw(inputs(shapes, [normal] * len(shapes)))
    add_zero_attn = bias_kv and draw(st.booleans())
    need_weights, average = draw(st.booleans()), draw(st.booleans())
    attn, padding = _masks(draw, rng, masks, batched, length, keys, n, heads)
    # The causal hint needs the causal mask and a square, unpadded problem.
    causal = masks is None and not bias_kv and length == keys and draw(st.booleans())
    if causal:
        attn = np.triu(np.full((length, keys), -np.inf), 1)

    def run(f, *xs):
        xs = list(xs)
        query, key, value = xs[:3]
        rest = xs[3:]
        if separate:
            (wq, wk, wv), rest = rest[:3], rest[3:]
            packed = None
        else:
            (packed,), rest = rest[:1], rest[1:]
            wq = wk = wv = None
        (b,), rest = (rest[:1], rest[1:]) if has_bias else ((None,), rest)
        (wo, bo), rest = rest[:2], rest[2:]
        (bk, bv), rest = (rest[:2], rest[2:]) if bias_kv else ((None, None), rest)
        sk, sv = rest[:2] if static else (None, None)
        out, weights = f(query, key, value, e, heads, packed, b, bk, bv, add_zero_attn, 0.0,
                         wo, bo, training=False, key_padding_mask=_constant(padding, query),
                         need_weights=need_weights, attn_mask=_constant(attn, query),
                         use_separate_proj_weight=separate, q_proj_weight=wq,
                         k_proj_weight=wk, v_proj_weight=wv, static_k=sk, static_v=sv,
                         average_attn_weights=average, is_causal=causal)  # fmt: skip
        return out if weights is None else (out, weights)

    def torch_run(*xs):
        # PyTorch's fused CPU kernel has no second derivative; its math kernel (the same
        # values) has, so second derivatives are compared on every path.
        with sdpa_kernel(SDPBackend.MATH):
            return run(TF.multi_head_attention_forward, *xs)

    return Case(
        _viewed(lambda *xs: run(F.multi_head_attention_forward, *xs), views),
        _viewed(torch_run, views),
        arrays,
    )


KEY = "nn.functional.multi_head_attention_forward"
CASES = {
    KEY: mha_case(),
    f"{KEY}:separate": mha_case(separate=True),
    f"{KEY}:bias_kv": mha_case(bias_kv=True),
    f"{KEY}:static": mha_case(static=True),
    f"{KEY}:bool_masks": mha_case(masks="bool"),
    f"{KEY}:float_masks": mha_case(masks="float"),
}
NOT_SMOOTH: set[str] = set()
NO_GRAD: set[str] = set()
FIRST_ORDER_ONLY: set[str] = set()
