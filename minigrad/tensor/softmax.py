"""Softmax and log-softmax as rows of the primitive table (lessons 06, 10).

Written as compositions (subtract the max, exp, sum, log), the chain rule
through the parts gives the right derivative, at the price of six recorded
operations forward and about ten backward. As primitives, each records one
node, and its rules are short. With ``s = softmax(x)`` and sums along the
axis, kept as size 1:

- ``log_softmax``: out = x - logsumexp(x); cotangent ``g - s * sum(g)``,
  tangent ``t - sum(s * t)``;
- ``softmax``: out = s; cotangent ``s * (g - sum(g * s))``, tangent
  ``s * (t - sum(s * t))``.

The forward pass is built from the backend contract's own kernels (max,
subtract, exp, sum, log), so every backend runs it. A single fused numba
kernel was measured and does not pay: its per-element ``exp`` is a libm
call, slower than NumPy's SIMD ``exp`` (lesson 10).

The rules are Tensor operations, so second derivatives come by composition.
"""

from __future__ import annotations

from minigrad.tensor import dtypes
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.reductions import normalize_axes
from minigrad.tensor.tensor import Tensor, apply


def _along(t: Tensor, axis: int | None) -> Tensor:
    """The sum of ``t`` along ``axis`` (None for a 0-d tensor), kept as a size-1 axis."""
    return t.sum(axis, keepdims=True)


def _shifted(backend, x, axes):
    """``x - max(x)`` along ``axes`` on raw arrays: every exp of it is at most 1."""
    return backend.zip("sub", x, backend.reduce("max", x, axes, True))


def _log_softmax_forward(backend, x, axis):
    axes = (axis,) if axis is not None else ()
    shifted = _shifted(backend, x, axes)
    total = backend.reduce("sum", backend.map("exp", shifted), axes, True)
    return backend.zip("sub", shifted, backend.map("log", total))


def _softmax_forward(backend, x, axis):
    axes = (axis,) if axis is not None else ()
    e = backend.map("exp", _shifted(backend, x, axes))
    return backend.zip("div", e, backend.reduce("sum", e, axes, True))


LOG_SOFTMAX = Primitive(
    "log_softmax",
    _log_softmax_forward,
    vjps=(lambda g, out, x, axis: g - out.exp() * _along(g, axis),),
    jvps=(lambda t, out, x, axis: t - _along(out.exp() * t, axis),),
)
SOFTMAX = Primitive(
    "softmax",
    _softmax_forward,
    vjps=(lambda g, out, x, axis: out * (g - _along(g * out, axis)),),
    jvps=(lambda t, out, x, axis: out * (t - _along(out * t, axis)),),
)


def _prepared(x: Tensor, axis: int, op: str) -> tuple[Tensor, int | None]:
    x = x if isinstance(x, Tensor) else Tensor(x)
    if not dtypes.is_floating(x.dtype):
        x = x.to(dtypes.DEFAULT_FLOAT)
    axis = normalize_axes(axis, x.ndim)[0] if x.ndim else None
    if axis is not None and x.shape[axis] == 0:
        raise RuntimeError(f"{op}(): axis {axis} of a tensor of shape {x.shape} is empty")
    return x, axis


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``x - logsumexp(x)`` along ``axis``: log-probabilities, finite for huge scores.

    >>> import minigrad as mg
    >>> log_softmax(mg.tensor([0.0, -1000.0]))
    tensor([    0., -1000.])
    """
    x, axis = _prepared(x, axis, "log_softmax")
    return apply(LOG_SOFTMAX, (x,), axis=axis)


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``axis``: scores -> probabilities that sum to 1.

    >>> import minigrad as mg
    >>> softmax(mg.tensor([1000.0, 1000.0]))
    tensor([0.5, 0.5])
    """
    x, axis = _prepared(x, axis, "softmax")
    return apply(SOFTMAX, (x,), axis=axis)
