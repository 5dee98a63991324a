"""Scaled dot-product attention as one row of the table, fused (lesson 17).

Attention of queries ``q (..., L, E)`` over keys ``k (..., S, E)`` and values
``v (..., S, Ev)`` is three rows composed:

    p = softmax(scale * q @ k.T + bias),   out = p @ v

``reference_attention`` below is exactly that composition: clear, and
differentiable any way the table allows (reverse, forward, higher order,
vmap), but reverse mode keeps the ``(L, S)`` probabilities ``p`` of every
head until the backward pass. The row ``scaled_dot_product_attention`` is
the same function as *one* primitive whose kernels (``backends/attention.py``
and its numba and CUDA versions) never hold the ``(L, S)`` matrix: they tile
the keys with an online softmax, save only the output and the log-sum-exp
``lse`` of each query row, and recompute the score tiles in the backward
pass. A row returns one array, so the row's output is ``(out | lse)`` side
by side, ``(..., L, Ev + 1)``; ``scaled_dot_product_attention`` in
``nn/attention.py`` returns the first ``Ev`` columns.

What the row's rules say (the registry's entry):

- **reverse mode**: the fused backward kernel, itself a row
  (``scaled_dot_product_attention_backward``, no derivative), so ``jit``
  traces it like any other operation;
- **higher order** (a backward pass recorded with ``create_graph=True``):
  the kernel has no derivative, so the rule is then the derivative of the
  reference composition, written out in differentiable rows (it holds
  ``(L, S)``, as any second derivative of attention must);
- **forward mode**: the reference composition's derivative as well;
- **vmap**: the fused row itself, on the batch as one more leading axis.

The bias (an additive mask) is a constant of the row; a mask that requires
a gradient takes the reference composition (``nn/attention.py`` decides).

    >>> import minigrad as mg
    >>> q = k = v = mg.ones((1, 2, 4))
    >>> fused_attention(q, k, v, None, 0.5, False)
    tensor([[[1., 1., 1., 1.],
             [1., 1., 1., 1.]]])
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.tensor.factories import arange
from minigrad.tensor.mode import is_grad_enabled
from minigrad.tensor.ops.movement import concatenate
from minigrad.tensor.ops.softmax import softmax
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply
from minigrad.tensor.tensor import Tensor


# -- the reference composition ----------------------------------------------------------
def causal_mask(length: int, keys: int, device: str = "cpu") -> Tensor:
    """``True`` where query ``i`` may see key ``j``: ``j <= i`` (PyTorch's top-left triangle).

    >>> causal_mask(2, 3)
    tensor([[ True, False, False],
            [ True,  True, False]])
    """
    return arange(keys, device=device)[None, :] <= arange(length, device=device)[:, None]


def scores(q: Tensor, k: Tensor, bias: Tensor | None, scale: float, causal: bool) -> Tensor:
    """``scale * q @ k.T + bias``, with ``-inf`` where causality hides a key: ``(..., L, S)``."""
    s = (q @ k.swapaxes(-1, -2)) * scale
    if bias is not None:
        s = s + bias
    if causal:
        s = s.masked_fill(~causal_mask(q.shape[-2], k.shape[-2], q.device), -math.inf)
    return s


def probabilities(q: Tensor, k: Tensor, bias: Tensor | None, scale: float, causal: bool) -> Tensor:
    """The softmax of the scores over keys; a row whose every key is masked is all 0 (as PyTorch).

    (softmax of a row of ``-inf`` is ``0 / 0``: such rows are replaced by 0
    before the softmax and multiplied by 0 after, so no NaN reaches a gradient.)
    """
    s = scores(q, k, bias, scale, causal)
    if s.shape[-1] == 0:
        return s
    seen = s.detach().amax(-1, keepdims=True) > -math.inf
    return softmax(s.masked_fill(~seen, 0.0), -1) * seen


def reference_attention(q: Tensor, k: Tensor, v: Tensor, bias: Tensor | None, scale: float,
                        causal: bool) -> Tensor:  # fmt: skip
    """``softmax(scale * q @ k.T + bias) @ v``, composed of rows: the reference the kernels match.

    >>> import minigrad as mg
    >>> q = mg.tensor([[[1.0, 0.0]]]); k = mg.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    >>> reference_attention(q, k, mg.tensor([[[1.0], [0.0]]]), None, 1.0, False)
    tensor([[[0.7311]]])
    """
    return probabilities(q, k, bias, scale, causal) @ v


# -- the fused row ------------------------------------------------------------------------
def _forward(backend: Any, q: Any, k: Any, v: Any, *bias: Any, scale: float, causal: bool):
    return backend.attention(q, k, v, bias[0] if bias else None, scale, causal)


def _reference_vjp(g: Tensor, q: Tensor, k: Tensor, v: Tensor, bias: Tensor | None,
                   scale: float, causal: bool) -> tuple:  # fmt: skip
    """The derivative of the reference composition, in rows (so it is differentiable again).

    With ``p`` the probabilities and ``g = (g_out | g_lse)``:
    ``dv = p.T g_out``, ``dp = g_out v.T``, ``ds = p (dp - sum(p dp) + g_lse)``,
    ``dq = scale ds k``, ``dk = scale ds.T q``.
    """
    ev = v.shape[-1]
    p = probabilities(q, k, bias, scale, causal)
    g_out, g_lse = g[..., :ev], g[..., ev:]
    dp = g_out @ v.swapaxes(-1, -2)
    ds = p * (dp - (p * dp).sum(-1, keepdims=True) + g_lse)
    return (ds @ k) * scale, (ds.swapaxes(-1, -2) @ q) * scale, p.swapaxes(-1, -2) @ g_out


def _vjp(g: Tensor, out: Tensor, inputs: tuple, needs: Any, scale: float, causal: bool):
    q, k, v, *bias = inputs
    # create_graph=True, or tangents to carry (forward over reverse): the backward
    # kernel has no derivative of its own, the reference composition's rule has.
    if is_grad_enabled() or any(x._tangents for x in (g, *inputs)):
        grads = _reference_vjp(g, q, k, v, bias[0] if bias else None, scale, causal)
        return (*grads, *[None for _ in bias])
    flat = apply(ATTENTION_BACKWARD, (q, k, v, *bias, out, g), scale=scale, causal=causal)
    (length, e), (keys, ev) = q.shape[-2:], v.shape[-2:]
    batch = flat.shape[:-1]
    dq = flat[..., : length * e].reshape(*batch, length, e)
    dk = flat[..., length * e : (length + keys) * e].reshape(*batch, keys, e)
    dv = flat[..., (length + keys) * e :].reshape(*batch, keys, ev)
    return (dq, dk, dv, *[None for _ in bias])


def _jvp(tangents: Any, out: Tensor, inputs: tuple, scale: float, causal: bool) -> Tensor:
    """The reference composition's tangent: ``(dp @ v + p @ tv | sum(p ds))``."""
    q, k, v, *bias = inputs
    tq, tk, tv = tangents[:3]
    p = probabilities(q, k, bias[0] if bias else None, scale, causal)
    ds = None
    if tq is not None:
        ds = (tq @ k.swapaxes(-1, -2)) * scale
    if tk is not None:
        term = (q @ tk.swapaxes(-1, -2)) * scale
        ds = term if ds is None else ds + term
    t_lse = None if ds is None else (p * ds).sum(-1, keepdims=True)
    t_out = None if ds is None else (p * (ds - t_lse)) @ v
    if tv is not None:
        t_out = p @ tv if t_out is None else t_out + p @ tv
    if t_lse is None:
        t_lse = t_out[..., :1] * 0
    return concatenate([t_out, t_lse], -1)


def _with_batch(xs: list, batched: list) -> list:
    """The row's inputs with the vmap axis in front of each: q, k, v (and the rest) broadcast to
    it; a batched bias gets size-1 axes after it, so its own batch axes line up with q's."""
    size = next(len(x) for x, b in zip(xs, batched) if b)
    ndim = max(x.ndim - 1 if b else x.ndim for x, b in zip(xs[:3], batched[:3])) + 1
    out = []
    for i, (x, b) in enumerate(zip(xs, batched)):
        if i == 3 and len(xs) in (4, 6):  # the bias: it broadcasts by its own rule
            if b and x.ndim < ndim:
                x = x.reshape(size, *(1,) * (ndim - x.ndim), *x.shape[1:])
            out.append(x)
            continue
        out.append(x if b else x.broadcast_to((size, *x.shape)))
    return out


ATTENTION = Primitive(
    "scaled_dot_product_attention",
    _forward,
    vjp=_vjp,
    jvp=_jvp,
    saves=("inputs", "out"),
    batch=lambda xs, batched, **params: apply(ATTENTION, tuple(_with_batch(xs, batched)), **params),
)


def _backward_forward(backend: Any, q, k, v, *rest, scale: float, causal: bool):
    *bias, packed, g = rest
    return backend.attention_backward(q, k, v, bias[0] if bias else None, packed, g, scale,
                                      causal)  # fmt: skip


# The fused backward pass, as a row of its own so that jit traces it: no derivative.
ATTENTION_BACKWARD = Primitive(
    "scaled_dot_product_attention_backward",
    _backward_forward,
    batch=lambda xs, batched, **params: apply(
        ATTENTION_BACKWARD, tuple(_with_batch(xs, batched)), **params
    ),
)


def fused_attention(q: Tensor, k: Tensor, v: Tensor, bias: Tensor | None, scale: float,
                    causal: bool) -> Tensor:  # fmt: skip
    """The fused row's output ``(..., L, Ev)``; q, k, v share batch axes."""
    inputs = (q, k, v) if bias is None else (q, k, v, bias)
    return apply(ATTENTION, inputs, scale=float(scale), causal=bool(causal))[..., : v.shape[-1]]
