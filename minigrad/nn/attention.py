"""Attention: ``scaled_dot_product_attention`` (lesson 17).

``scaled_dot_product_attention(q, k, v)`` is PyTorch's function: every query
row takes a weighted average of the value rows, weighted by the softmax of
its scaled dot products with the key rows. Masks say which keys a query may
see: a boolean ``attn_mask`` (``True`` = may attend), an additive float one
(``-inf`` hides a key), or ``is_causal`` (query ``i`` sees keys ``j <= i``).
Leading axes (batch, heads) broadcast. It runs the fused row of
``tensor/ops/attention.py``, whose memory grows as ``L + S``, not ``L * S``;
attention-weight dropout, and a float mask that wants a gradient, take the
reference composition instead (the fused kernels have no random numbers and
treat the mask as a constant).

``MultiheadAttention`` and ``multi_head_attention_forward``, which run it
once per head, live in ``nn/multi_head_attention.py``.

    >>> import minigrad as mg
    >>> q = mg.ones(2, 3, 4)
    >>> mg.nn.functional.scaled_dot_product_attention(q, q, q).shape
    (2, 3, 4)
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.nn.dropout import dropout
from minigrad.tensor import dtypes, factories
from minigrad.tensor.base import Box
from minigrad.tensor.composite import composite
from minigrad.tensor.ops.attention import fused_attention, probabilities
from minigrad.tensor.ops.broadcasting import broadcast_shape
from minigrad.tensor.tensor import Tensor


def _check(query: Any, key: Any, value: Any, attn_mask: Any, dropout_p: float,
           is_causal: bool, enable_gqa: bool) -> None:  # fmt: skip
    """PyTorch's errors, with what to do, before anything runs."""
    for name, x in (("query", query), ("key", key), ("value", value)):
        if not isinstance(x, Tensor):
            raise TypeError(
                f"scaled_dot_product_attention(): argument '{name}' must be Tensor, not "
                f"{type(x).__name__}"
            )
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead."
        )
    if not (query.dtype == key.dtype == value.dtype) or not dtypes.is_floating(query.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype} instead.\n"
            "scaled_dot_product_attention needs one floating dtype: cast with .to(mg.float32)"
        )
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise RuntimeError(
            f"scaled_dot_product_attention: query {query.shape}, key {key.shape} and value "
            f"{value.shape} do not fit: query and key need the same last axis (E), key and "
            "value the same number of rows (S): (..., L, E), (..., S, E), (..., S, Ev)"
        )
    if attn_mask is not None and is_causal:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if enable_gqa:
        for x in (query, key, value):
            if x.ndim < 3:
                raise IndexError(
                    f"Dimension out of range (expected to be in range of [-{x.ndim}, "
                    f"{x.ndim - 1}], but got -3)\nenable_gqa: the heads are axis -3, "
                    f"(..., heads, L, E); got a tensor of shape {x.shape}"
                )
        heads = query.shape[-3]
        if heads % key.shape[-3] or heads % value.shape[-3]:
            raise RuntimeError(
                "Number of heads in key and value must divide the number of heads in \n"
                f"query: {heads} heads, key {key.shape[-3]}, value {value.shape[-3]}"
            )


def _grouped(x: Tensor, heads: int) -> Tensor:
    """Grouped-query attention: each key or value head serves ``heads / its heads`` query
    heads in a row (``repeat_interleave`` along axis -3, as PyTorch's ``enable_gqa``)."""
    return x if x.shape[-3] == heads else x.repeat_interleave(heads // x.shape[-3], -3)


def _as_bias(attn_mask: Any, query: Tensor) -> Tensor | None:
    """The mask as an additive bias in the query's dtype: bool ``True`` -> 0, ``False`` -> -inf."""
    if attn_mask is None:
        return None
    if not isinstance(attn_mask, Tensor):
        attn_mask = factories.tensor(attn_mask, device=query.device)
    if attn_mask.dtype == dtypes.bool_:
        zero = factories.zeros(attn_mask.shape, dtype=query.dtype, device=query.device)
        return zero.masked_fill(~attn_mask, -math.inf)
    if not dtypes.is_floating(attn_mask.dtype) or attn_mask.dtype != query.dtype:
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {attn_mask.dtype} and  query.dtype: {query.dtype} instead."
        )
    return attn_mask


def _wants_derivative(x: Tensor) -> bool:
    """Whether a gradient or a tangent will flow into ``x``, or (inside vmap) into its batch."""
    while True:
        if x.requires_grad or x._tangents:
            return True
        if not isinstance(x.data, Box):
            return False
        x = x.data.physical


@composite("scaled_dot_product_attention")
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:  # fmt: skip
    """``softmax(query @ key.T * scale + mask) @ value``, fused: no ``(L, S)`` matrix is kept.

    ``query (..., L, E)``, ``key (..., S, E)``, ``value (..., S, Ev)`` ->
    ``(..., L, Ev)``; ``scale`` defaults to ``1 / sqrt(E)``. ``attn_mask``:
    bool (``True`` = may attend) or float (added to the scores), broadcast to
    ``(..., L, S)``. ``is_causal``: query ``i`` sees keys ``j <= i``. A query
    that may see no key gets 0. ``dropout_p`` drops attention weights (always,
    as PyTorch's function does: pass 0.0 when evaluating).

    >>> import minigrad as mg
    >>> q = mg.tensor([[1.0, 0.0], [0.0, 1.0]])
    >>> v = mg.tensor([[1.0], [3.0]])
    >>> scaled_dot_product_attention(q, q, v, is_causal=True)
    tensor([[1.    ],
            [2.3395]])
    """
    _check(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    if enable_gqa:
        key, value = _grouped(key, query.shape[-3]), _grouped(value, query.shape[-3])
    bias = _as_bias(attn_mask, query)
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    (length, e), (keys, ev) = query.shape[-2:], value.shape[-2:]
    if query.size == 0 or value.size == 0:
        # Nothing to attend with or to: PyTorch returns zeros shaped by the query alone
        # (its batch axes are not broadcast with the others').
        zero = query.sum(-1, keepdims=True) * 0 + key.sum() * 0 + value.sum() * 0
        return zero + factories.zeros(ev, dtype=query.dtype, device=query.device)
    parts = [query.shape[:-2], key.shape[:-2], value.shape[:-2]]
    if bias is not None:
        broadcast_shape(bias.shape, (length, keys))  # a mask must fit (L, S)
        parts.append(bias.shape[:-2])
    batch = broadcast_shape(*parts)
    scores_batch = broadcast_shape(*parts[:2])
    if bias is not None and broadcast_shape(scores_batch, parts[3]) != scores_batch:
        # PyTorch adds the mask to the scores q @ k.T in place: it may not enlarge them.
        wide = broadcast_shape(scores_batch, parts[3])
        raise RuntimeError(
            f"output with shape {list((*scores_batch, length, keys))} doesn't match the "
            f"broadcast shape {list((*wide, length, keys))}\nattn_mask of shape {bias.shape} "
            "has batch axes that query @ key.T does not have"
        )
    if dropout_p > 0 or (bias is not None and _wants_derivative(bias)):
        p = probabilities(query, key, bias, scale, is_causal)
        return dropout(p, dropout_p) @ value if dropout_p > 0 else p @ value
    query = query.broadcast_to((*batch, length, e))
    key = key.broadcast_to((*batch, keys, e))
    value = value.broadcast_to((*batch, keys, ev))
    return fused_attention(query, key, value, bias, scale, is_causal)
