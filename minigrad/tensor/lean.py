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

A ``Raw`` never leaves the backward pass: what reaches ``.grad`` or the
caller of ``autograd.grad`` is a plain tensor around the same array.

    >>> import numpy as np
    >>> g = Raw._wrap(np.ones(3, np.float32), "cpu")
    >>> type(-g * g).__name__, (-g * g).data
    ('Raw', array([-1., -1., -1.], dtype=float32))
"""

from __future__ import annotations

from typing import Any

from minigrad import backends
from minigrad.tensor.base import TensorBase
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
