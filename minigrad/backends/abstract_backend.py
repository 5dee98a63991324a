"""The abstract backend: arrays that are only a shape and a dtype (lesson 13).

Tracing a function (``minigrad.compile``) runs the real primitive rows on this
backend. Its "arrays" carry a shape and a dtype and nothing else, so every
kernel here only works out its result's shape and dtype: shape inference,
for free, from the same ``prim.forward`` code that computes in eager mode.
Nothing is computed while tracing. (PyTorch calls this the ``meta`` device;
JAX traces with ``ShapedArray``.)

Two kinds of abstract array know more:

- a **constant** (``from_numpy``, ``full``) keeps its value: the traced program
  made it from Python numbers or NumPy data, so it is known at trace time;
- an array made by a kernel call that did not go through ``apply`` (the
  reverse pass adds cotangents in place, for speed) remembers that call in
  ``made``, so the tracer can still write it down as an operation.

Reading the values of any other abstract array (``to_numpy``: what ``.item()``,
``.numpy()``, ``float()``, ``bool()`` and ``if x > 0:`` end in) raises
``TracerError``, naming the line of the user's program that asked.

**When the trace ends, its arrays expire.** A traced value that the program
stored somewhere (a global list, an attribute) outlives its trace. Every
abstract array made while a trace ran is collected (``collect``), and when the
trace ends it becomes an ``ExpiredArray`` (``expire``): any later use raises
``TracerError`` naming the traced function, never a NumPy error about an
unknown type (JAX's ``UnexpectedTracerError``).

    >>> backend = AbstractBackend()
    >>> x = AbstractArray((3, 1), np.dtype("float32"))
    >>> backend.zip("mul", x, AbstractArray((4,), np.dtype("float32")))
    AbstractArray(shape=(3, 4), dtype=float32)
    >>> backend.reduce("sum", x, (0, 1), False).shape
    ()
"""

from __future__ import annotations

import math
import os
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import numpy as np

from minigrad.backends.contract import StandIn, TracerError
from minigrad.backends.numpy_backend import NumpyBackend

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_line() -> str:
    """``file:line: code`` of the innermost stack frame outside minigrad (and Python's own)."""
    for frame in reversed(traceback.extract_stack()):
        path = os.path.abspath(frame.filename)
        if path.startswith(_PACKAGE) or "importlib" in path or frame.filename.startswith("<frozen"):
            continue
        code = f": {frame.line.strip()}" if frame.line else ""
        return f"{frame.filename}:{frame.lineno}{code}"
    return "(no line outside minigrad)"


def tracer_error(what: str) -> TracerError:
    """The error for reading a traced value, naming the user's line and the ways out."""
    return TracerError(
        f"{what} of a traced tensor: while jit or make_graph traces a function, tensors "
        f"have a shape and a dtype but no values yet.\n  at {user_line()}\n"
        "Python control flow (if, while, bool(), float(), .item(), .numpy(), print) cannot "
        "read them. Either mark the argument static (mg.jit(f, static_argnums=(i,)): "
        "one compiled program per value), or keep the choice inside the program: "
        "mg.where(cond, x, y) computes both sides and picks elementwise."
    )


# The abstract arrays made by this thread's traces, innermost trace last (see ``collect``).
_collecting = threading.local()


@contextmanager
def collect() -> Iterator[list]:
    """Gather, in the list this yields, every ``AbstractArray`` made inside the block."""
    stack = getattr(_collecting, "stack", None)
    if stack is None:
        stack = _collecting.stack = []
    made: list = []
    stack.append(made)
    try:
        yield made
    finally:
        stack.pop()


class AbstractArray(StandIn):
    """A stand-in for an array: ``shape``, ``dtype``, and a ``value`` only for constants."""

    __slots__ = ("dtype", "expired", "made", "shape", "value", "var")

    def __init__(self, shape: tuple[int, ...], dtype: Any, value: Any = None,
                 made: tuple | None = None) -> None:  # fmt: skip
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.value = value  # a NumPy array for constants, else None
        self.made = made  # (kernel name, op, inputs) for calls made outside apply
        self.var = None  # set by the tracer: the graph variable holding this array
        self.expired = None  # the traced function's name, once its trace has ended
        stack = getattr(_collecting, "stack", None)
        if stack:
            stack[-1].append(self)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))
    nbytes = property(lambda self: self.size * self.dtype.itemsize)

    def copy(self) -> AbstractArray:
        # Arrays are never changed after they are made (contract.py): a copy
        # holds the same values, so it may stand for the same variable.
        return self

    @property
    def flags(self) -> Any:
        """Read-only: code that would write into an array in place must make a new one."""
        return _FLAGS

    def __repr__(self) -> str:
        return f"AbstractArray(shape={self.shape}, dtype={self.dtype})"

    # -- what the tensor layer asks a stand-in (contract.StandIn) ---------------
    def values_error(self, what: str) -> TracerError:
        return tracer_error(what)

    def like(self, shape: tuple[int, ...], dtype: Any) -> AbstractArray:
        return AbstractArray(shape, dtype)

    def to_numpy(self) -> np.ndarray:
        """The values of a constant; any other traced value has none (``TracerError``)."""
        if self.value is not None:
            return self.value
        raise tracer_error("reading the values")


def escaped_error(where: str) -> TracerError:
    """The error for using a traced value after its trace ended."""
    return TracerError(
        f"a value traced in {where} was used after its trace ended (an escaped tracer).\n"
        f"  at {user_line()}\n"
        "While jit or make_graph traced the function, a tensor made inside it was kept "
        "outside (in a global, a list, an attribute, an optimizer's state); it holds no "
        "numbers. Return the value from the function instead, and use what the call returns."
    )


class ExpiredArray(AbstractArray):
    """An ``AbstractArray`` whose trace has ended: every use raises ``TracerError``."""

    __slots__ = ()
    _ALLOWED = frozenset({"__class__", "expired", "__repr__", "__reduce_ex__"})

    def __getattribute__(self, name: str) -> Any:
        if name in ExpiredArray._ALLOWED:
            return object.__getattribute__(self, name)
        raise escaped_error(object.__getattribute__(self, "expired"))

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise escaped_error(object.__getattribute__(self, "expired"))

    __array__ = __len__ = __iter__ = __float__ = __int__ = __index__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __neg__ = __getitem__ = _refuse
    __matmul__ = __rmatmul__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __array_ufunc__ = __array_function__ = _refuse

    def __repr__(self) -> str:
        return f"ExpiredArray(traced in {object.__getattribute__(self, 'expired')})"


def expire(arrays: list, where: str) -> None:
    """Turn ``arrays`` (collected from a trace of ``where``) into ``ExpiredArray`` objects."""
    for a in arrays:
        if type(a) is AbstractArray:
            a.expired = where
            a.__class__ = ExpiredArray


class _Flags:
    writeable = False
    c_contiguous = True


_FLAGS = _Flags()


# The reference backend's own methods, for the 16-bit floats it computes in float32
# and rounds back (lesson 15): a bare NumPy function would give float32 there.
_REFERENCE = NumpyBackend()


@cache
def _map_dtype(op: str, dtype: np.dtype) -> np.dtype:
    """The dtype NumPy's kernel gives: run it on an empty array."""
    return _REFERENCE.map(op, np.empty(0, dtype)).dtype


@cache
def _zip_dtype(op: str, x: np.dtype, y: np.dtype) -> np.dtype:
    return _REFERENCE.zip(op, np.empty(0, x), np.empty(0, y)).dtype


def _stand_in(x: Any) -> Any:
    if isinstance(x, AbstractArray):
        return _dummy(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_stand_in(a) for a in x)
    return x


def _dummy(x: Any) -> np.ndarray:
    """A NumPy array of ``x``'s shape and dtype that takes no memory (stride 0 everywhere)."""
    return np.broadcast_to(np.zeros((), x.dtype), x.shape)


class AbstractBackend:
    """The backend contract (``contract.Backend``) over shapes and dtypes only.

    A method written out below works the shape out by the rule; any other
    method of the NumPy reference (a data-movement kernel added later, such
    as ``windows``) runs on stand-in arrays of zeros that take no memory
    (stride 0), and its result's shape and dtype are read off.
    """

    name = "abstract"
    device = "abstract"

    def __getattr__(self, method: str) -> Any:
        reference = getattr(NumpyBackend(), method)

        def by_example(*args: Any, **kwargs: Any) -> Any:
            result = reference(*[_stand_in(a) for a in args], **kwargs)
            if isinstance(result, (tuple, list)):
                return type(result)(AbstractArray(r.shape, r.dtype) for r in result)
            return AbstractArray(np.shape(result), np.asarray(result).dtype)

        return by_example

    # -- storage ----------------------------------------------------------------
    def from_numpy(self, array: Any) -> AbstractArray:
        array = np.asarray(array)
        return AbstractArray(array.shape, array.dtype, value=array)

    def to_numpy(self, x: Any) -> np.ndarray:
        if not isinstance(x, AbstractArray):
            return np.asarray(x)
        if x.value is not None:
            return x.value
        raise tracer_error("reading the values")

    def full(self, shape: tuple[int, ...], value: float, dtype: Any) -> AbstractArray:
        # A broadcast view of one number: a constant of any size costs one element.
        constant = np.broadcast_to(np.asarray(value, dtype=dtype), tuple(shape))
        return AbstractArray(shape, dtype, value=constant)

    def unknown(self, shape: tuple[int, ...], dtype: Any) -> AbstractArray:
        """An array known only when the program runs (random numbers): never a constant."""
        return AbstractArray(shape, dtype)

    # -- the four higher-order kernels ----------------------------------------------
    def map(self, op: str, x: Any) -> AbstractArray:
        return AbstractArray(x.shape, _map_dtype(op, x.dtype), made=("map", op, (x,)))

    def zip(self, op: str, x: Any, y: Any) -> AbstractArray:
        shape = np.broadcast_shapes(x.shape, y.shape)
        return AbstractArray(shape, _zip_dtype(op, x.dtype, y.dtype), made=("zip", op, (x, y)))

    def reduce(self, op: str, x: Any, axes: tuple[int, ...], keepdims: bool) -> AbstractArray:
        dtype = _REFERENCE.reduce(op, np.zeros((1,) * len(x.shape), x.dtype), axes, False).dtype
        shape = tuple(
            1 if a in axes else n for a, n in enumerate(x.shape) if keepdims or a not in axes
        )
        return AbstractArray(shape, dtype)

    def scan(self, op: str, x: Any, axis: int) -> AbstractArray:
        dtype = _REFERENCE.scan(op, np.zeros(1, x.dtype), 0).dtype  # int32 sums in int64
        return AbstractArray(x.shape, dtype)

    def matmul(self, a: Any, b: Any) -> AbstractArray:
        # NumPy's rule: a 1-D operand is a row (a) or a column (b), dropped afterwards.
        left = (1, *a.shape) if len(a.shape) == 1 else a.shape
        right = (*b.shape, 1) if len(b.shape) == 1 else b.shape
        if left[-1] != right[-2]:
            raise ValueError(
                f"matmul: Input operand 1 has a mismatch in its core dimension 0 "
                f"(size {right[-2]} is different from {left[-1]})"
            )
        shape = (*np.broadcast_shapes(left[:-2], right[:-2]), left[-2], right[-1])
        if len(a.shape) == 1:
            shape = shape[:-2] + shape[-1:]
        if len(b.shape) == 1:
            shape = shape[:-1]
        return AbstractArray(shape, np.result_type(a.dtype, b.dtype))

    # -- selection and data movement ---------------------------------------------------
    def where(self, cond: Any, x: Any, y: Any) -> AbstractArray:
        shape = np.broadcast_shapes(cond.shape, x.shape, y.shape)
        return AbstractArray(shape, np.result_type(x.dtype, y.dtype))

    def astype(self, x: Any, dtype: Any) -> AbstractArray:
        return AbstractArray(x.shape, dtype)

    def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> AbstractArray:
        return AbstractArray(np.broadcast_to(_dummy(x), shape).shape, x.dtype)

    def reshape(self, x: Any, shape: tuple[int, ...]) -> AbstractArray:
        shape = tuple(shape)
        if -1 in shape:  # the one inferred size
            known = math.prod(n for n in shape if n != -1)
            shape = tuple(x.size // known if n == -1 and known else n for n in shape)
        if math.prod(shape) != math.prod(x.shape):
            size = math.prod(x.shape)
            raise ValueError(f"cannot reshape array of size {size} into shape {shape}")
        return AbstractArray(shape, x.dtype)

    def transpose(self, x: Any, axes: tuple[int, ...]) -> AbstractArray:
        return AbstractArray(np.transpose(_dummy(x), axes).shape, x.dtype)

    def getitem(self, x: Any, index: object) -> AbstractArray:
        return AbstractArray(np.asarray(_dummy(x)[index]).shape, x.dtype)

    def scatter_add(self, shape: tuple[int, ...], index: object, values: Any) -> AbstractArray:
        return AbstractArray(shape, values.dtype)

    def concatenate(self, xs: list[Any], axis: int) -> AbstractArray:
        first = xs[0]
        axis = axis % len(first.shape)
        length = sum(x.shape[axis] for x in xs)
        shape = (*first.shape[:axis], length, *first.shape[axis + 1 :])
        return AbstractArray(shape, np.result_type(*[x.dtype for x in xs]))

    # -- fused attention (lesson 17): the shapes of backends/attention.py's results ------
    def attention(self, q: Any, k: Any, v: Any, bias: Any, scale: float, causal: bool):
        return AbstractArray((*q.shape[:-1], v.shape[-1] + 1), q.dtype)

    def attention_backward(self, q: Any, k: Any, v: Any, bias: Any, packed: Any, g: Any,
                           scale: float, causal: bool) -> AbstractArray:  # fmt: skip
        (length, e), (keys, ev) = q.shape[-2:], v.shape[-2:]
        return AbstractArray((*q.shape[:-2], length * e + keys * e + keys * ev), q.dtype)
