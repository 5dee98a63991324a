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
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.composite import composite
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.primitive import Primitive, shifted
from minigrad.tensor.record import apply


def _along(t: Tensor, axis: int | None) -> Tensor:
    """The sum of ``t`` along ``axis``, kept as a size-1 axis; ``t`` itself for a 0-d input.

    ``axis`` None means "the input is 0-d: the sum is over no axis", never
    "over every axis": inside vmap the rule runs on the whole batch, and a sum
    over all of its axes would mix the examples.
    """
    return t if axis is None else t.sum(axis, keepdims=True)


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


# Both rules read only the output. softmax's Jacobian diag(s) - s s^T is
# symmetric, so its two readings are one function; log_softmax's is I - 1 s^T,
# whose transpose is written out.
LOG_SOFTMAX = Primitive(
    "log_softmax",
    _log_softmax_forward,
    vjp=lambda g, out, inputs, needs, axis: (g - out.exp() * _along(g, axis),),
    jvp=lambda ts, out, inputs, axis: ts[0] - _along(out.exp() * ts[0], axis),
    saves=("out",),
    batch=lambda xs, batched, axis: apply(LOG_SOFTMAX, (xs[0],), axis=_past_batch(axis)),
)


def _past_batch(axis: int | None) -> int | None:
    """The axis of one example, in a batch whose axis 0 is the batch (None: no axis)."""
    return None if axis is None else shifted((axis,))[0]


def _softmax_derivative(v, out, axis):
    return out * (v - _along(v * out, axis))


SOFTMAX = Primitive(
    "softmax",
    _softmax_forward,
    vjp=lambda g, out, inputs, needs, axis: (_softmax_derivative(g, out, axis),),
    jvp=lambda ts, out, inputs, axis: _softmax_derivative(ts[0], out, axis),
    saves=("out",),
    batch=lambda xs, batched, axis: apply(SOFTMAX, (xs[0],), axis=_past_batch(axis)),
)


_TORCH_DTYPE_NAMES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes


def _prepared(x: Tensor, axis: int, op: str) -> tuple[Tensor, int | None, bool]:
    """``x``, its one axis (None for a 0-d ``x``), and whether that axis is empty.

    Integer and bool ``x`` are refused with PyTorch's error, which names its kernel.
    """
    x = x if isinstance(x, Tensor) else Tensor.concrete(x)
    axes = normalize_axes(axis, x.ndim)  # a 0-d tensor accepts 0 and -1 only, as PyTorch
    axis = axes[0] if axes else None
    if not dtypes.is_floating(x.dtype):
        kernel = f"{op}_lastdim_kernel_impl" if axis in (None, x.ndim - 1) else f"{op}_kernel_impl"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_TORCH_DTYPE_NAMES[x.dtype.name]}'\n"
            f"{op}: convert first, e.g. x.to(mg.float32), or give dtype=mg.float32"
        )
    return x, axis, axis is not None and x.shape[axis] == 0


@composite("log_softmax")
@dtypes.in_float32
def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``x - logsumexp(x)`` along ``axis``: log-probabilities, finite for huge scores.

    >>> import minigrad as mg
    >>> log_softmax(mg.tensor([0.0, -1000.0]))
    tensor([    0., -1000.])
    """
    x, axis, empty = _prepared(x, axis, "log_softmax")
    if empty:  # no scores: an empty result, as PyTorch (there is no max to shift by)
        return x * 0
    return apply(LOG_SOFTMAX, (x,), axis=axis)


@composite("softmax")
@dtypes.in_float32
def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``axis``: scores -> probabilities that sum to 1.

    >>> import minigrad as mg
    >>> softmax(mg.tensor([1000.0, 1000.0]))
    tensor([0.5, 0.5])
    """
    x, axis, empty = _prepared(x, axis, "softmax")
    if empty:
        return x * 0
    return apply(SOFTMAX, (x,), axis=axis)
