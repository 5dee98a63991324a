"""PyTorch's other spellings of moves and maps minigrad already has (lessons 05-06).

NumPy users reach for ``absolute``, ``swapaxes``, ``ravel``, ``fliplr``,
``hsplit``, ``column_stack``, ``inner`` or ``rad2deg``, and PyTorch answers to
those names too. Each one here is a composition of existing rows (``flip``,
``transpose``, ``reshape``, ``concatenate``, ``tensor_split``, ``tensordot``,
arithmetic) or one row (``logaddexp2``, beside ``logaddexp``), so its
derivatives, forward mode, vmap and jit come from theirs; only PyTorch's
checks of the arguments are written here.

    >>> import minigrad as mg
    >>> x = mg.arange(6).reshape(2, 3)
    >>> mg.fliplr(x).tolist(), mg.rot90(x).shape, [p.shape for p in mg.hsplit(x, 3)]
    ([[2, 1, 0], [5, 4, 3]], (3, 2), [(2, 1), (2, 1), (2, 1)])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.arithmetic import _not_for
from minigrad.tensor.ops.broadcasting import ShapeError
from minigrad.tensor.ops.contractions import tensordot
from minigrad.tensor.ops.elementwise import abs as _abs
from minigrad.tensor.ops.elementwise import compare, neg, operands, sub, tensor_arguments, where
from minigrad.tensor.ops.layout import tensor_split
from minigrad.tensor.ops.math import LOGADDEXP2, sin
from minigrad.tensor.ops.movement import concatenate, getitem, reshape, tensor_sequence, transpose
from minigrad.tensor.ops.rearrange import chunk, flip, movedim, split, vstack
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.record import apply
from minigrad.tensor.record import full_like as _full_like

__all__ = [
    "absolute", "atleast_1d", "atleast_2d", "atleast_3d", "column_stack", "deg2rad", "dsplit",
    "fill", "fliplr", "flipud", "gradient", "hsplit", "inner", "logaddexp2", "negative",
    "positive", "rad2deg", "ravel", "rot90", "row_stack", "rsub", "scalar_tensor", "sinc",
    "split_with_sizes", "swapaxes", "swapdims", "unsafe_chunk", "unsafe_split", "vsplit",
]  # fmt: skip


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


# -- other names of maps ----------------------------------------------------------------------
def absolute(input: Any) -> Tensor:
    """``abs`` (PyTorch's alias).

    >>> import minigrad as mg
    >>> mg.absolute(mg.tensor([-1.5, 2.0]))
    tensor([1.5, 2. ])
    """
    return _abs(input)


def negative(input: Any) -> Tensor:
    """``neg``, ``-input`` (PyTorch's alias).

    >>> import minigrad as mg
    >>> mg.negative(mg.tensor([1, -2]))
    tensor([-1,  2])
    """
    return neg(input)


def positive(input: Any) -> Tensor:
    """``input`` itself (as PyTorch's, the same tensor); bool tensors are refused.

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, -2.0])
    >>> mg.positive(x) is x
    True
    """
    x = _tensor(input)
    if x.dtype == np.dtype(bool):
        raise RuntimeError(
            "The `+` operator, on a bool tensor is not supported.\n"
            "positive: convert the mask first, e.g. x.to(mg.int64)"
        )
    return x


def _in_float(x: Tensor) -> Tensor:
    """``x``, or ``x`` in the default float dtype when it holds integers or bools."""
    return x if dtypes.is_floating(x.dtype) else x.to(dtypes.DEFAULT_FLOAT)


def rad2deg(input: Any) -> Tensor:
    """Radians to degrees, ``input * 180 / pi`` (integers and bools give floats).

    >>> import minigrad as mg
    >>> mg.rad2deg(mg.tensor([3.141592653589793, -1.0], dtype=mg.float64))
    tensor([180.    , -57.2958], dtype=float64)
    """
    return _in_float(_tensor(input)) * (180.0 / math.pi)


def deg2rad(input: Any) -> Tensor:
    """Degrees to radians, ``input * pi / 180`` (integers and bools give floats).

    >>> import minigrad as mg
    >>> mg.deg2rad(mg.tensor([180, 90]))
    tensor([3.1416, 1.5708])
    """
    return _in_float(_tensor(input)) * (math.pi / 180.0)


def sinc(input: Any) -> Tensor:
    """The normalized sinc, ``sin(pi x) / (pi x)``, 1 at 0 (slope 0 there, as PyTorch's).

    >>> import minigrad as mg
    >>> mg.sinc(mg.tensor([0.0, 0.5, 1.0], dtype=mg.float64))
    tensor([1.    , 0.6366, 0.    ], dtype=float64)
    """
    x = _in_float(_tensor(input))
    zero = compare("eq", x, 0)
    # 0 is read as 1 on the other side of the ``where``: no 0/0 there, in value or gradient
    scaled = where(zero, 1.0, x) * math.pi
    return where(zero, 1.0, sin(scaled) / scaled)


def logaddexp2(input: Any, other: Any) -> Tensor:
    """``log2(2**x + 2**y)`` without overflow; floats only (as in PyTorch).

    >>> import minigrad as mg
    >>> mg.logaddexp2(mg.tensor([1.0, 3.0]), mg.tensor([1.0, -1000.0]))
    tensor([2., 3.])
    """
    tensor_arguments("logaddexp2", input, other)
    x, y = operands("logaddexp2", input, other)
    _not_for("logaddexp2", x, "bi", "logaddexp2_cpu")
    return apply(LOGADDEXP2, (x, y))


# -- other names of moves ---------------------------------------------------------------------
def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """``transpose(input, axis0, axis1)`` (NumPy's name, which PyTorch keeps).

    >>> import minigrad as mg
    >>> mg.swapaxes(mg.zeros((2, 3, 4)), 0, 2).shape
    (4, 3, 2)
    """
    return transpose(_tensor(input), axis0, axis1)


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """``transpose(input, dim0, dim1)`` (PyTorch's alias).

    >>> import minigrad as mg
    >>> mg.zeros((2, 3)).swapdims(0, 1).shape
    (3, 2)
    """
    return transpose(_tensor(input), dim0, dim1)


def ravel(input: Tensor) -> Tensor:
    """The elements in one row, ``reshape(input, -1)``.

    >>> import minigrad as mg
    >>> mg.ravel(mg.tensor([[1, 2], [3, 4]]))
    tensor([1, 2, 3, 4])
    """
    return reshape(_tensor(input), -1)


def _at_least(input: Tensor, ndim: int, op: str) -> Tensor:
    x = _tensor(input)
    if x.ndim < ndim:
        raise RuntimeError(f"Input must be >= {ndim}-d.\n{op}: got a tensor of shape {x.shape}")
    return x


def fliplr(input: Tensor) -> Tensor:
    """Columns in reverse order, ``flip(input, 1)`` (input at least 2-D).

    >>> import minigrad as mg
    >>> mg.fliplr(mg.tensor([[1, 2], [3, 4]]))
    tensor([[2, 1],
            [4, 3]])
    """
    return flip(_at_least(input, 2, "fliplr"), (1,))


def flipud(input: Tensor) -> Tensor:
    """Rows in reverse order, ``flip(input, 0)`` (input at least 1-D).

    >>> import minigrad as mg
    >>> mg.flipud(mg.tensor([[1, 2], [3, 4]]))
    tensor([[3, 4],
            [1, 2]])
    """
    return flip(_at_least(input, 1, "flipud"), (0,))


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    """Rotated by 90 degrees ``k`` times in the plane of ``dims``, from the first axis toward
    the second (negative ``k`` turns the other way).

    >>> import minigrad as mg
    >>> mg.rot90(mg.tensor([[1, 2], [3, 4]]))
    tensor([[2, 4],
            [1, 3]])
    """
    x = _tensor(input)
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(
            f"expected total rotation dims == 2, but got dims = {len(dims)}\n"
            "rot90: name the two axes of the plane, e.g. dims=(0, 1)"
        )
    if x.ndim < 2:
        raise RuntimeError(
            f"expected total dims >= 2, but got total dims = {x.ndim}\n"
            f"rot90: got a tensor of shape {x.shape}"
        )
    a, b = (normalize_axes(d, x.ndim)[0] for d in dims)
    if a == b:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {a} and dim1 = {b}\n"
            "rot90: name two different axes"
        )
    turns = k % 4
    if turns == 1:
        return transpose(flip(x, (b,)), a, b)
    if turns == 2:
        return flip(x, (a, b))
    if turns == 3:
        return transpose(flip(x, (a,)), a, b)
    return x


def _grown(t: Tensor, ndim: int) -> Tensor:
    """``t`` with axes of size 1 added (in front, and for 3-D also behind) up to ``ndim``."""
    if t.ndim >= ndim:
        return t
    if ndim == 3:
        return reshape(t, (1, 1, 1) if t.ndim == 0 else (1, t.size, 1) if t.ndim == 1
                       else (*t.shape, 1))  # fmt: skip
    return reshape(t, (1,) * (ndim - t.ndim) + t.shape)


def _at_least_nd(tensors: tuple, ndim: int) -> Any:
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return _grown(tensors[0], ndim)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return tuple(_grown(_tensor(t), ndim) for t in tensors)


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least one axis (a 0-d one becomes shape ``(1,)``).

    One tensor in, one out; several (or a list), a tuple.

    >>> import minigrad as mg
    >>> mg.atleast_1d(mg.tensor(3.0)).shape
    (1,)
    """
    return _at_least_nd(tensors, 1)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least two axes: ``()`` -> ``(1, 1)``, ``(n,)`` -> ``(1, n)``.

    >>> import minigrad as mg
    >>> mg.atleast_2d(mg.zeros(3)).shape
    (1, 3)
    """
    return _at_least_nd(tensors, 2)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least three axes: ``(n,)`` -> ``(1, n, 1)``, ``(m, n)`` ->
    ``(m, n, 1)``.

    >>> import minigrad as mg
    >>> mg.atleast_3d(mg.zeros((2, 3))).shape
    (2, 3, 1)
    """
    return _at_least_nd(tensors, 3)


def column_stack(tensors: Any) -> Tensor:
    """Tensors side by side as columns: a 0-d or 1-D one becomes a column, then all join
    along axis 1.

    >>> import minigrad as mg
    >>> mg.column_stack([mg.tensor([1, 2]), mg.tensor([[3], [4]])])
    tensor([[1, 3],
            [2, 4]])
    """
    tensors = [_tensor(t) for t in tensor_sequence(tensors, "column_stack")]
    if not tensors:
        raise ShapeError("column_stack expects a non-empty TensorList")
    columns = [reshape(t, (t.size, 1)) if t.ndim < 2 else t for t in tensors]
    return concatenate(columns, 1)


def row_stack(tensors: Any) -> Tensor:
    """``vstack`` (PyTorch's alias): 1-D tensors become rows, then join along axis 0.

    >>> import minigrad as mg
    >>> mg.row_stack([mg.tensor([1, 2]), mg.tensor([3, 4])]).shape
    (2, 2)
    """
    return vstack(tensor_sequence(tensors, "row_stack"))


def _split(input: Tensor, sections: Any, op: str, need: int, dim: int,
           method: bool = False) -> tuple[Tensor, ...]:  # fmt: skip
    """``method``: called as ``x.hsplit(...)``, whose errors PyTorch writes without ``input``."""
    x = _tensor(input)
    if x.ndim < need:
        raise RuntimeError(
            f"torch.{op} requires a tensor with at least {need} dimension, but got a tensor "
            f"with {x.ndim} dimensions!\n{op}: got a tensor of shape {x.shape}"
        )
    if isinstance(sections, (str, bytes, float)) or sections is None:
        got, own = ("", "") if method else ("Tensor, ", "Tensor input, ")
        raise TypeError(
            f"{op}() received an invalid combination of arguments - got ({got}"
            f"{dtypes.type_name(sections)}), but expected one of:\n"
            f" * ({own}int sections)\n * ({own}tuple of ints indices)"
        )
    if dtypes.is_integer(sections) and not isinstance(sections, bool):
        n = x.shape[dim]
        if sections == 0 or n % sections:
            raise RuntimeError(
                f"torch.{op} attempted to split along dimension {dim}, but the size of the "
                f"dimension {n} is not divisible by the split_size {sections}!\n"
                f"{op}: give a section count that divides {n}, or a list of indices"
            )
    return tensor_split(x, sections, dim)


def hsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """Split into columns: along axis 1 (axis 0 for a 1-D tensor); a number of sections
    must divide that axis, a list of indices cuts before each.

    >>> import minigrad as mg
    >>> [p.tolist() for p in mg.hsplit(mg.arange(6), [1, 4])]
    [[0], [1, 2, 3], [4, 5]]
    """
    x = _tensor(input)
    return _split(x, indices_or_sections, "hsplit", 1, 1 if x.ndim > 1 else 0)


def vsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """Split into rows, along axis 0 of a tensor of at least 2 axes.

    >>> import minigrad as mg
    >>> [p.shape for p in mg.vsplit(mg.zeros((4, 2)), 2)]
    [(2, 2), (2, 2)]
    """
    return _split(input, indices_or_sections, "vsplit", 2, 0)


def dsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """Split in depth, along axis 2 of a tensor of at least 3 axes.

    >>> import minigrad as mg
    >>> [p.shape for p in mg.dsplit(mg.zeros((1, 2, 4)), [1])]
    [(1, 2, 1), (1, 2, 3)]
    """
    return _split(input, indices_or_sections, "dsplit", 3, 2)


def split_method(x: Tensor, indices_or_sections: Any, op: str) -> tuple[Tensor, ...]:
    """``x.hsplit(...)``, ``x.vsplit(...)``, ``x.dsplit(...)`` (``op``): the function's split,
    with the errors PyTorch gives for the method (no ``input`` among the arguments).

    >>> import minigrad as mg
    >>> [p.shape for p in split_method(mg.zeros((1, 2, 4)), [1], "dsplit")]
    [(1, 2, 1), (1, 2, 3)]
    """
    need, dim = {"hsplit": (1, 1 if x.ndim > 1 else 0), "vsplit": (2, 0), "dsplit": (3, 2)}[op]
    return _split(x, indices_or_sections, op, need, dim, method=True)


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``Tensor.unfold``: the windows of ``size`` elements along ``dimension``, one every
    ``step``; the windows take that axis's place and their elements a new last axis.

    >>> import minigrad as mg
    >>> mg.arange(5).unfold(0, 2, 2)
    tensor([[0, 1],
            [2, 3]])
    """
    x = _tensor(input)
    d = normalize_axes(dimension, max(x.ndim, 1))[0]
    n = x.shape[d] if x.ndim else 1
    if size > n:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {n} but size is {size}\n"
            f"unfold: windows of {size} do not fit an axis of {n}"
        )
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0\nunfold: give a positive step")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0\nunfold: give a size of 0 or more")
    if x.ndim == 0:  # one window of the element (or none of it)
        return getitem(reshape(x, (1,)), slice(0, size))
    count = (n - size) // step + 1
    at = np.arange(count)[:, None] * step + np.arange(size)[None, :]
    windows = getitem(x, (slice(None),) * d + (Tensor.concrete(at, device=x.device),))
    return movedim(windows, d + 1, -1)


def _numbers(x: Tensor) -> Tensor:
    return x if dtypes.is_floating(x.dtype) else x.to(dtypes.DEFAULT_FLOAT)


def _along(values: Any, d: int, ndim: int) -> Any:
    """A 1-D tensor of values for axis ``d``, shaped to broadcast along it."""
    return reshape(values, (-1,) + (1,) * (ndim - d - 1))


def _gradient_axis(f: Tensor, d: int, step: Any, edge_order: int) -> Tensor:
    """The derivative along axis ``d`` (NumPy's and PyTorch's formulas): central differences
    inside, one-sided ones of ``edge_order`` at the two ends; ``step`` a number (uniform
    spacing) or a 1-D tensor of coordinates."""
    n, nd = f.shape[d], f.ndim

    def part(start: int, stop: int | None) -> Tensor:
        return getitem(f, (slice(None),) * d + (slice(start, stop),))

    if not isinstance(step, Tensor):
        h = step
        inside = (part(2, None) - part(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first = (part(1, 2) - part(0, 1)) / h
            last = (part(n - 1, n) - part(n - 2, n - 1)) / h
        else:
            first = (-3 * part(0, 1) + 4 * part(1, 2) - part(2, 3)) / (2 * h)
            last = (part(n - 3, n - 2) - 4 * part(n - 2, n - 1) + 3 * part(n - 1, n)) / (2 * h)
        return concatenate([first, inside, last], d)
    x = step
    dx = x[1:] - x[:-1]
    a1, a2 = dx[:-1], dx[1:]  # the steps before and after each inner point
    inside = (
        _along(-a2 / (a1 * (a1 + a2)), d, nd) * part(0, n - 2)
        + _along((a2 - a1) / (a1 * a2), d, nd) * part(1, n - 1)
        + _along(a1 / (a2 * (a1 + a2)), d, nd) * part(2, None)
    )
    if edge_order == 1:
        first = (part(1, 2) - part(0, 1)) / _along(dx[:1], d, nd)
        last = (part(n - 1, n) - part(n - 2, n - 1)) / _along(dx[-1:], d, nd)
    else:
        h1, h2 = dx[:1], dx[1:2]
        first = (
            _along(-(2 * h1 + h2) / (h1 * (h1 + h2)), d, nd) * part(0, 1)
            + _along((h1 + h2) / (h1 * h2), d, nd) * part(1, 2)
            + _along(-h1 / (h2 * (h1 + h2)), d, nd) * part(2, 3)
        )
        h1, h2 = dx[-2:-1], dx[-1:]
        last = (
            _along(h2 / (h1 * (h1 + h2)), d, nd) * part(n - 3, n - 2)
            + _along(-(h2 + h1) / (h1 * h2), d, nd) * part(n - 2, n - 1)
            + _along((2 * h2 + h1) / (h2 * (h1 + h2)), d, nd) * part(n - 1, n)
        )
    return concatenate([first, inside, last], d)


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1
             ) -> tuple[Tensor, ...]:  # fmt: skip
    """The derivative of sampled values along each of ``dim`` (all axes by default): central
    differences inside, one-sided at the ends (``edge_order`` 1 or 2), as PyTorch's.

    ``spacing``: one number for every axis, one per axis, or per axis a 1-D tensor of the
    samples' coordinates (unevenly spaced samples).

    >>> import minigrad as mg
    >>> mg.gradient(mg.tensor([1.0, 4.0, 9.0, 16.0]))
    (tensor([3., 4., 6., 7.]),)
    >>> mg.gradient(mg.tensor([1.0, 4.0, 9.0]), spacing=(mg.tensor([0.0, 1.0, 3.0]),))
    (tensor([3.    , 2.8333, 2.5   ]),)
    """
    x = _tensor(input)
    if edge_order not in (1, 2):
        raise RuntimeError(
            "torch.gradient only supports edge_order=1 and edge_order=2.\n"
            f"gradient: got edge_order={edge_order!r}"
        )
    if x.ndim == 0:
        return ()
    if spacing is None:  # PyTorch's "unspecified": unit steps
        spacing = 1
    given = dim is not None
    dims = [dim] if isinstance(dim, int) else list(range(x.ndim)) if dim is None else list(dim)
    axes = [normalize_axes(d, x.ndim)[0] for d in dims]
    for k, d in enumerate(axes):
        if d in axes[:k]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if isinstance(spacing, (list, tuple)):
        steps = list(spacing)
        if len(steps) != len(axes):
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
                "and dim arguments to have the same length, but got a spacing argument of "
                f"length {len(steps)} and a dim argument of length {len(axes)}."
                if given
                else "torch.gradient expected spacing to be unspecified, a scalar, or a list "
                f"of length equal to 'self.dim() = {x.ndim}', since dim argument was not "
                f"given, but got a list of length {len(steps)}"
            )
    else:
        steps = [spacing] * len(axes)
    for d in axes:
        if x.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1\n"
                f"gradient: axis {d} has {x.shape[d]} samples, edge_order={edge_order}"
            )
    out = []
    for d, step in zip(axes, steps):
        if isinstance(step, Tensor) and step.ndim == 0:
            step = step.item()
        if isinstance(step, Tensor) and step.shape != (x.shape[d],):
            raise RuntimeError(
                f"torch.gradient expected the coordinates of axis {d} to be a 1-D tensor of "
                f"{x.shape[d]} values, one per sample, but got shape {step.shape}"
            )
        if isinstance(step, Tensor):
            step = _numbers(step)
        out.append(_gradient_axis(x, d, step, edge_order))  # (bools: the subtraction refuses)
    return tuple(out)


# -- a contraction ----------------------------------------------------------------------------
def inner(input: Any, other: Any) -> Tensor:
    """The sum of products over the last axes of both (a 0-d input multiplies instead).

    The result's shape is ``input.shape[:-1] + other.shape[:-1]``.

    >>> import minigrad as mg
    >>> mg.inner(mg.tensor([1.0, 2.0]), mg.tensor([[1.0, 0.0], [3.0, 4.0]]))
    tensor([ 1., 11.])
    """
    tensor_arguments("inner", input, other)
    x, y = _tensor(input), _tensor(other)
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    if x.shape[-1] != y.shape[-1]:
        raise ShapeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(x.shape)} and {list(y.shape)}\ninner: the last axes are summed together"
        )
    if x.dtype == np.dtype(bool) and y.dtype == np.dtype(bool):
        raise NotImplementedError(
            "\"dot\" not implemented for 'Bool'\ninner: convert first, e.g. x.to(mg.int64)"
        )
    return tensordot(x, y, dims=([-1], [-1]))


# -- other names of subtraction, splits and filling ---------------------------------
def rsub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input`` (subtraction with its operands reversed, PyTorch's ``rsub``).

    >>> import minigrad as mg
    >>> mg.rsub(mg.tensor([1.0, 2.0]), 5.0, alpha=2)
    tensor([3., 1.])
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"rsub() received an invalid combination of arguments - got "
            f"({_kind(input)}, {_kind(other)}), but expected one of:\n"
            " * (Tensor input, Tensor other, *, Number alpha = 1)\n"
            " * (Tensor input, Number other, Number alpha = 1)"
        )
    return sub(other, input, alpha=alpha)


def _kind(value: Any) -> str:
    return "Tensor" if isinstance(value, Tensor) else dtypes.type_name(value)


def split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of the given sizes along ``dim``; the sizes must add up to that axis's size.

    >>> import minigrad as mg
    >>> [p.tolist() for p in mg.split_with_sizes(mg.arange(5), [2, 3])]
    [[0, 1], [2, 3, 4]]
    """
    x = _tensor(input)
    d = normalize_axes(dim, max(x.ndim, 1))[0]
    sizes = [int(n) for n in split_sizes]
    n = x.shape[d] if x.ndim else 1
    if sum(sizes) != n:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
            f"at dimension {d}), but got split_sizes={sizes}"
        )
    return split(x, sizes, d)


def unsafe_split(input: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``split`` (PyTorch's version whose pieces skip view tracking; here the same)."""
    return split(_tensor(input), split_size, dim)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``chunk`` (PyTorch's version whose pieces skip view tracking; here the same)."""
    return chunk(_tensor(input), chunks, dim)


def fill(input: Any, value: Any) -> Tensor:
    """A tensor like ``input`` (shape, dtype) holding ``value`` everywhere: a number or a
    0-d tensor, whose gradient is the sum of the result's (``input`` gets none).

    >>> import minigrad as mg
    >>> mg.fill(mg.tensor([1, 2]), 3.7)
    tensor([3, 3])
    """
    x = _tensor(input)
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{value.ndim} dimensions."
        )
    filled = value.to(x.dtype) if isinstance(value, Tensor) else _full_like(x, value)
    everywhere = compare("eq", _full_like(x, 0), 0)
    return where(everywhere, filled, x)


def scalar_tensor(s: Any, *, dtype: Any = None, device: str | None = None,
                  requires_grad: bool = False) -> Tensor:  # fmt: skip
    """A 0-d tensor holding the number ``s`` (float32 unless ``dtype`` says otherwise).

    >>> import minigrad as mg
    >>> mg.scalar_tensor(3), mg.scalar_tensor(True).dtype
    (tensor(3.), dtype('float32'))
    """
    dtype = dtypes.DEFAULT_FLOAT if dtype is None else dtypes.as_dtype(dtype)
    out = Tensor.concrete(np.asarray(s, dtype=dtype), device=device or "cpu")
    return out.requires_grad_(True) if requires_grad else out
