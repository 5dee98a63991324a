"""The lean backward pass: the same rules, run on the backend's kernels (lessons 05-06).

A vjp rule is written once, in the operations a tensor has: ``v * out``,
``-g``, ``sum_to(g, shape)``, ``matmul(g, b.mT)``. With ``create_graph=True``
(lesson 08) it must run on real tensors, recorded, so that the gradient is
itself differentiable. With ``create_graph=False`` (nearly every training
step) nothing of that is needed: no record, no forward-mode tangents, no
checks for vmap or tracing; only the arithmetic.

So ``autograd`` hands the rules ``Raw`` values in that case: tensors that are
only a handle on a backend array. Their arithmetic (``*``, ``+``, ``-``, ``/``,
unary ``-``) goes straight to the backend's ``zip``/``map`` kernel when both
operands have one dtype and one shape (the common case in a backward pass:
a cotangent has its output's shape and dtype), skipping the operation's
dtype promotion, broadcasting and recording. Anything else a rule asks of a
``Raw`` (a reshape, a matmul, an ``apply`` of a fused primitive) is the
ordinary tensor operation, which runs unrecorded (gradient mode is off, and a
``Raw`` never requires grad) and returns a ``Raw`` again. The rules do not
know which of the two they were given: that is the operations namespace,
chosen per backward pass.

**Bare arrays.** On the CPU the hottest rows do not even need a ``Raw``:
``ARRAY_RULES`` below spells each of their cotangents as the very kernel
calls that the registry's rule ends in, on the bare arrays, one Python call
per record: matmul, transpose and broadcast_to (the backend's matmul,
transpose and sum_to kernels) at any size; add, sub, neg, mul, div, exp and
the fused tanh, sigmoid and relu derivatives (NumPy's ufuncs) below the
sizes where the backend hands them to NumPy anyway (``backend.numpy_runs``).
A test checks each against its registry rule, bit for bit.

A ``Raw`` never leaves the backward pass: what reaches ``.grad`` or the
caller of ``autograd.grad`` is a plain tensor around the same array.

    >>> import numpy as np
    >>> g = Raw._wrap(np.ones(3, np.float32), "cpu")
    >>> type(-g * g).__name__, (-g * g).data
    ('Raw', array([-1., -1., -1.], dtype=float32))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import backends
from minigrad.backends.numpy_backend import ZIPS
from minigrad.tensor.base import TensorBase
from minigrad.tensor.ops import elementwise as ew
from minigrad.tensor.ops.broadcasting import BROADCAST_TO, SUM_TO
from minigrad.tensor.ops.linalg import MATMUL
from minigrad.tensor.ops.movement import TRANSPOSE
from minigrad.tensor.tensor import Tensor

_for_device = backends.for_device


class Raw(Tensor):
    """A backend array for the rules of a lean backward pass (see the module docstring)."""

    __slots__ = ()
    # Never recorded, never differentiated: fixed here, so that making one sets
    # two fields (``data`` and ``device``), not eight.
    requires_grad = False
    grad = None
    _node = None
    _tangents = None
    _label = ""

    @classmethod
    def _wrap(cls, data: Any, device: str, requires_grad: bool = False) -> Raw:
        r = object.__new__(cls)
        r.data = data
        r.device = device
        return r

    def _zip(self, op: str, other: Any, swap: bool) -> Any:
        """``self op other`` (``other op self`` if ``swap``) on the kernel, when no promotion
        or broadcast is needed; else None (the caller takes the tensor operation)."""
        a = self.data
        t = type(other)
        if t is Raw or t is Tensor:
            b = other.data
            if b.dtype != a.dtype or b.shape != a.shape or other.device != self.device:
                return None
        elif (t is float or t is int) and a.dtype.kind == "f":
            if a.dtype.itemsize == 2 and not swap and op in ("mul", "div"):
                return None  # float16 * 3.14 takes the number in float32 (``operands``)
            b = _for_device(self.device).full((), other, a.dtype)  # a number takes our dtype
        else:
            return None
        backend = _for_device(self.device)
        r = object.__new__(Raw)
        r.data = backend.zip(op, b, a) if swap else backend.zip(op, a, b)
        r.device = self.device
        return r

    def __neg__(self) -> Any:
        a = self.data
        if a.dtype.kind != "f":
            return super().__neg__()
        r = object.__new__(Raw)
        r.data = _for_device(self.device).map("neg", a)
        r.device = self.device
        return r

    # The arithmetic operators (made by ``_operator`` below, after the class).


def _operator(op: str, name: str, swapped: bool) -> Any:
    """Raw's ``name`` (``__add__``, ``__rsub__``, ...): the common case (two Raws of one
    shape and dtype) is one kernel call and nothing else; then ``_zip``; then the
    tensor operation."""
    fallback = getattr(Tensor, name)

    def method(self: Raw, other: Any) -> Any:
        if type(other) is Raw:
            d, o = self.data, other.data
            if d.dtype == o.dtype and d.shape == o.shape and self.device == other.device:
                r = object.__new__(Raw)
                backend = _for_device(self.device)
                r.data = backend.zip(op, o, d) if swapped else backend.zip(op, d, o)
                r.device = self.device
                return r
        r = self._zip(op, other, swapped)
        return fallback(self, other) if r is None else r

    method.__name__, method.__qualname__ = name, f"Raw.{name}"
    return method


for _op, _name, _swapped in [
    ("add", "__add__", False), ("add", "__radd__", True), ("sub", "__sub__", False),
    ("sub", "__rsub__", True), ("mul", "__mul__", False), ("mul", "__rmul__", True),
    ("div", "__truediv__", False), ("div", "__rtruediv__", True),
]:  # fmt: skip
    setattr(Raw, _name, _operator(_op, _name, _swapped))

_raw_over = Raw.__rtruediv__


def _number_over_raw(self: Raw, other: Any) -> Any:
    """``number / raw`` as ``Tensor.__rtruediv__`` computes it: ``reciprocal(raw) * number``
    (PyTorch's two roundings), so that a rule gives the graph-building pass's bits."""
    if (type(other) is float or type(other) is int) and self.data.dtype.kind == "f":
        r = object.__new__(Raw)
        r.data = _for_device(self.device).map("reciprocal", self.data)
        r.device = self.device
        return r * other
    return _raw_over(self, other)


Raw.__rtruediv__ = _number_over_raw

# The reverse pass (autograd, below this module) finds the class here, as
# operations find ``Tensor`` in ``TensorBase.concrete``.
TensorBase._raw = Raw


def raw(t: Any) -> Any:
    """``t`` as a ``Raw`` if it is a tensor (a saved input, say); anything else as it is."""
    if isinstance(t, Tensor):
        r = object.__new__(Raw)
        r.data = t.data
        r.device = t.device
        return r
    return t


# -- the hottest rows on CPU arrays (see the module docstring) -----------------------------
# Each takes the cotangent ``g`` (an ndarray of float32 or float64), the record and the
# CPU backend, and returns one array (or None) per input: the very calls that the
# registry's rule makes through ``Raw`` and the tensor operations. They return None, and
# the pass takes the registry's rule, when a saved value has another dtype or shape (a
# Python number's 0-d constant, say). Inputs that need no gradient get None, as from
# ``Primitive.vjp``. The elementwise ones call NumPy, so they serve only below the sizes
# where the backend runs NumPy itself (``SMALL``); the others call the backend.
_neg, _mul, _div = np.negative, np.multiply, np.divide
_TANH_GRAD, _SIGMOID_GRAD, _RELU_GRAD = ZIPS["tanh_grad"], ZIPS["sigmoid_grad"], ZIPS["relu_grad"]


def _like(g: np.ndarray, a: Any) -> bool:
    return type(a) is np.ndarray and a.dtype is g.dtype and a.shape == g.shape


def _add(g: np.ndarray, record: Any, backend: Any) -> Any:
    return (g, g)  # (the pass skips an input that needs no gradient)


def _sub(g: np.ndarray, record: Any, backend: Any) -> Any:
    return (g, _neg(g) if record.parents[1].requires_grad else None)


def _negate(g: np.ndarray, record: Any, backend: Any) -> Any:
    return (_neg(g),)


def _times(g: np.ndarray, record: Any, backend: Any) -> Any:
    x, y = record.saved
    a, b = x.data, y.data
    shape, dtype = g.shape, g.dtype  # (_like, spelled out: this is the hottest rule)
    if not (
        type(a) is np.ndarray and type(b) is np.ndarray
        and a.dtype is dtype and b.dtype is dtype and a.shape == shape and b.shape == shape
    ):  # fmt: skip
        return None
    px, py = record.parents
    return (_mul(g, b) if px.requires_grad else None, _mul(a, g) if py.requires_grad else None)


def _divide(g: np.ndarray, record: Any, backend: Any) -> Any:
    b, out = record.saved[1].data, record.saved_out
    if not (_like(g, b) and _like(g, out)):
        return None
    px, py = record.parents
    return (
        _div(g, b) if px.requires_grad else None,
        _mul(_neg(g), _div(out, b)) if py.requires_grad else None,  # as the row (torch's rounding)
    )


def _exp(g: np.ndarray, record: Any, backend: Any) -> Any:
    out = record.saved_out
    return (_mul(g, out),) if _like(g, out) else None


def _fused(slope: Any, saved_out: bool) -> Any:
    """The rule of tanh, sigmoid (``slope(g, out)``) or relu (``slope(g, x)``)."""

    def rule(g: np.ndarray, record: Any, backend: Any) -> Any:
        y = record.saved_out if saved_out else record.saved[0].data
        return (slope(g, y),) if _like(g, y) else None

    return rule


def _matrix_product(g: np.ndarray, record: Any, backend: Any) -> Any:
    """``g @ b.T`` and ``a.T @ g`` (as ``(g.T @ a).T`` for ``b`` a transposed row-major
    matrix, see ``ops.linalg._grad_of_b``), for matrices (not stacks)."""
    x, y = record.saved
    a, b = x.data, y.data
    if not (
        type(a) is np.ndarray and type(b) is np.ndarray
        and a.ndim == 2 and b.ndim == 2 and g.ndim == 2
        and a.dtype is g.dtype and b.dtype is g.dtype
    ):  # fmt: skip
        return None
    px, py = record.parents
    ga = gb = None
    if px.requires_grad:
        ga = backend.matmul(g, backend.transpose(b, (1, 0)))
    if py.requires_grad:
        if b.flags.f_contiguous and not b.flags.c_contiguous:
            gb = backend.transpose(backend.matmul(backend.transpose(g, (1, 0)), a), (1, 0))
        else:
            gb = backend.matmul(backend.transpose(a, (1, 0)), g)
    return (ga, gb)


def _transposed(g: np.ndarray, record: Any, backend: Any) -> Any:
    axes = record.params["axes"]
    back = [0] * len(axes)  # the inverse permutation
    for i, axis in enumerate(axes):
        back[axis] = i
    return (backend.transpose(g, tuple(back)),)


def _broadcast(g: np.ndarray, record: Any, backend: Any) -> Any:
    shape = tuple(record.parents[0].shape)
    if shape == g.shape:
        return (g,)
    return (SUM_TO.forward(backend, g, shape=shape),)  # the rule's sum_to(g, shape)


#: Primitive -> (its cotangents on CPU arrays, whether only on small ones); what each call
#: stands for is beside it (``ZIPS`` is the backend's NumPy table,
#: ``minigrad.backends.elementwise_ops``).
ARRAY_RULES = {
    ew.ADD: (_add, True),  # g, g
    ew.SUB: (_sub, True),  # g, -g
    ew.NEG: (_negate, True),  # -g
    ew.MUL: (_times, True),  # g * y, x * g
    ew.DIV: (_divide, True),  # g / y, -g * (out / y)
    ew.EXP: (_exp, True),  # g * out
    ew.TANH: (_fused(_TANH_GRAD, True), True),  # tanh_grad(g, out)
    ew.SIGMOID: (_fused(_SIGMOID_GRAD, True), True),  # sigmoid_grad(g, out)
    ew.RELU: (_fused(_RELU_GRAD, False), True),  # relu_grad(g, x)
    MATMUL: (_matrix_product, False),  # matmul(g, b.mT), _grad_of_b(g, a, b)
    TRANSPOSE: (_transposed, False),  # transpose(g, argsort(axes))
    BROADCAST_TO: (_broadcast, False),  # sum_to(g, x.shape)
}
#: The backend operations the small rules stand for: NumPy must be what runs each of them.
SMALL_OPS = ("add", "sub", "neg", "mul", "div", "tanh_grad", "sigmoid_grad", "relu_grad")
Raw.ARRAY_RULES, Raw.SMALL_OPS = ARRAY_RULES, SMALL_OPS  # (where the reverse pass finds them)
