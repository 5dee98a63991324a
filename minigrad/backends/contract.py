"""The backend contract: what every kernel must guarantee (lessons 04, 10, 11).

The tensor layer runs every primitive through these methods and nothing
else, so a new device is a new class with these methods. ``Array`` is the
backend's own array type: ``numpy.ndarray`` on the CPU, ``CudaArray`` on the
GPU. The NumPy backend is the reference: every other backend is tested
against it, element by element, dtype by dtype.

Guarantees that hold for every method:

- **fresh or read-only results.** A result may share memory with an input
  only where NumPy would return a view (``broadcast_to``, ``reshape``,
  ``transpose``, basic ``getitem``, ``diagonal``); no method ever writes into an input.
  The tensor layer relies on it: arrays are never changed after they are made.
- **NumPy's dtypes.** A result has the dtype NumPy gives for the same
  operation (``zip("lt", ...)`` is bool, float32 stays float32).
- **NumPy's broadcasting** in ``zip`` and ``where``, with broadcast inputs
  read in place (a stride of 0), never copied out.
- **IEEE values.** NaN and inf come out as NumPy's do (``scalar_functions``
  lists the cases); an error is never raised for a value.
- **safe for threads.** Two Python threads may call any method at the same
  time, on the same backend object.

    >>> from minigrad.backends.numpy_backend import NumpyBackend
    >>> isinstance(NumpyBackend(), Backend)
    True
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

Array = Any  # the backend's array type
DType = Any  # a numpy.dtype


class TracerError(RuntimeError):
    """A traced program asked for the value of a tensor that has none yet (lesson 13)."""


class StandIn:
    """An array a transform puts in a tensor in place of values: it has a shape
    and a dtype, but the values cannot be read here.

    Two later lessons make them: tracing (lesson 13) gives every tensor an
    abstract array, a shape and a dtype only; vmap (lesson 14) gives a tensor a
    batch, many values at once. The tensor layer never names either; it asks
    the stand-in through these methods, which each lesson's class overrides.
    """

    __slots__ = ()

    def values_error(self, what: str) -> Exception | None:
        """The error for ``what`` (reading values), or None to raise the usual one."""
        return None

    def like(self, shape: tuple[int, ...], dtype: DType) -> StandIn:
        """A stand-in of the same kind for a result of ``shape`` and ``dtype``."""
        raise TypeError(f"{type(self).__name__} has no result of its kind")

    def to_numpy(self) -> Any:
        """The values, where this kind of stand-in has any; else the error saying why not."""
        raise self.values_error("reading the values") or TypeError(
            f"{type(self).__name__} holds no values"
        )

    def detached(self) -> StandIn:
        """The same stand-in, cut off from every graph (``Tensor.detach``)."""
        return self

    def tensor_repr(self) -> str | None:
        """How a tensor holding this stand-in prints, or None to print its values."""
        return None


@runtime_checkable
class Backend(Protocol):
    """Kernels over raw arrays, for one device."""

    name: str  # "numpy", "numba", "cuda"
    device: str  # where its arrays live: "cpu" or "cuda"

    # -- storage -------------------------------------------------------------
    def from_numpy(self, array: Any) -> Array:
        """The backend's array holding a copy of (or, on the CPU, the same) NumPy ``array``.

        ``array`` may be a NumPy scalar (what NumPy functions return for 0-d
        inputs): it becomes a 0-d array.
        """

    def to_numpy(self, x: Array) -> Any:
        """``x`` as a ``numpy.ndarray`` in host memory (a copy if ``x`` lives elsewhere)."""

    def full(self, shape: tuple[int, ...], value: float, dtype: DType) -> Array:
        """A fresh array of ``shape`` and ``dtype``, every element ``value``."""

    # -- the four higher-order kernels -------------------------------------------
    def map(self, op: str, x: Array) -> Array:
        """``out[i] = f(x[i])`` for the scalar function named ``op`` (``scalar_functions``).

        Reads each element of ``x`` once, writes each element of a fresh
        ``out`` once; ``x`` may have any strides.
        """

    def zip(self, op: str, x: Array, y: Array) -> Array:
        """``out[i] = f(x[i], y[i])`` over the broadcast shape of ``x`` and ``y``.

        Broadcast axes are read through stride 0: the kernel never copies an
        input to make it the output's shape.
        """

    def reduce(self, op: str, x: Array, axes: tuple[int, ...], keepdims: bool) -> Array:
        """``sum``, ``prod``, ``max`` or ``min`` of ``x`` over ``axes`` (sorted, possibly empty).

        ``max``/``min`` propagate NaN. A reduction to one number is a 0-d
        array, never a scalar. The tensor layer rejects ``max`` over an
        empty axis before it gets here.
        """

    def matmul(self, a: Array, b: Array) -> Array:
        """NumPy's ``matmul``: 2-D products, batched over broadcast leading axes."""

    def scan(self, op: str, x: Array, axis: int) -> Array:
        """Running ``sum`` or ``prod`` along ``axis`` (NumPy's ``cumsum``/``cumprod``, dtypes too).

        ``out[..., i, ...]`` is the total of ``x[..., :i + 1, ...]``; the
        order in which a backend adds the terms up is its own.
        """

    # -- selection and data movement ----------------------------------------------------
    def where(self, cond: Array, x: Array, y: Array) -> Array:
        """``x[i] if cond[i] else y[i]`` over the broadcast shape of the three."""

    def astype(self, x: Array, dtype: DType) -> Array:
        """``x`` converted to ``dtype`` (NumPy's casting)."""

    def broadcast_to(self, x: Array, shape: tuple[int, ...]) -> Array:
        """``x`` read as ``shape``: a view with stride 0 along the new axes, no copy."""

    def reshape(self, x: Array, shape: tuple[int, ...]) -> Array:
        """``x`` with a new shape of the same size (a view when the layout allows)."""

    def transpose(self, x: Array, axes: tuple[int, ...]) -> Array:
        """``x`` with its axes permuted: a view, strides permuted."""

    def getitem(self, x: Array, index: object) -> Array:
        """``x[index]`` with NumPy's rules: basic indexing a view, advanced a copy."""

    def diagonal(self, x: Array, offset: int, dim1: int, dim2: int) -> Array:
        """The ``offset``-th diagonal of axes ``dim1``, ``dim2`` as the last axis: a view
        (``strides.diagonal_strides``) that can be written through where ``x`` can."""

    def scatter_add(self, shape: tuple[int, ...], index: object, values: Array) -> Array:
        """Zeros of ``shape`` with ``values`` added at ``index``; repeated positions add up."""

    def concatenate(self, xs: list[Array], axis: int) -> Array:
        """The arrays ``xs`` joined along ``axis``."""

    def windows(self, x: Array, kernel: tuple[int, ...], step: tuple[int, ...],
                dilation: tuple[int, ...]) -> Array:  # fmt: skip
        """The sliding windows over the last ``len(kernel)`` axes: a read-only view, no copy.

        Shape ``(*lead, *out, *kernel)``, element ``[..., o, k]`` is
        ``x[..., o * step + k * dilation]`` (``strides.window_strides``).
        Overlapping windows read the same memory; the copy (im2col) happens
        only when a later operation needs contiguous rows (lesson 12).
        """
