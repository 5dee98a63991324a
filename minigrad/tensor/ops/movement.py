"""The shape rows of the primitive table: moving numbers, not changing them (lessons 04-05).

Each of these only rearranges elements, so each backward rearranges the
cotangent back: ``reshape`` reshapes it back, ``transpose`` applies the inverse
permutation, indexing scatters it into zeros (adding where an index repeats,
since a repeated element was used twice), ``concatenate`` slices it apart.
Their forward-mode rules apply the same rearrangement to the tangent.
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Any

import numpy as np

from minigrad import backends
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.base import note_view
from minigrad.tensor.mode import current
from minigrad.tensor.ops.broadcasting import ShapeError
from minigrad.tensor.ops.elementwise import no_numbers
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.primitive import Primitive, moved_to_front, shifted
from minigrad.tensor.record import apply

# Every row here is linear: forward mode moves the tangent as the values were
# moved, reverse mode moves the cotangent back (the transpose).
# Batched (lesson 14), each acts on every example: the batch axis stays in front.
RESHAPE = Primitive(
    "reshape",
    lambda backend, x, shape: backend.reshape(x, shape),
    linear=(lambda g, x, shape: reshape(g, x.shape),),
    batch=lambda xs, batched, shape: apply(RESHAPE, (xs[0],), shape=(len(xs[0]), *shape)),
)
TRANSPOSE = Primitive(
    "transpose",
    lambda backend, x, axes: backend.transpose(x, axes),
    linear=(lambda g, x, axes: transpose(g, tuple(int(a) for a in np.argsort(axes))),),
    batch=lambda xs, batched, axes: apply(TRANSPOSE, (xs[0],), axes=(0, *shifted(axes))),
)
# Reading elements out and adding them back in are each other's transpose.
GETITEM = Primitive(
    "getitem",
    lambda backend, x, index: backend.getitem(x, index),
    linear=(lambda g, x, index: apply(SCATTER_ADD, (g,), index=index, shape=x.shape),),
    batch=lambda xs, batched, index: _getitem_batched(xs[0], index),
)
SCATTER_ADD = Primitive(
    "scatter_add",
    lambda backend, values, index, shape: backend.scatter_add(shape, index, values),
    linear=(lambda g, values, index, shape: apply(GETITEM, (g,), index=index),),
    batch=lambda xs, batched, index, shape: _scatter_add_batched(xs[0], index, shape),
)
ASTYPE = Primitive(
    "astype",
    lambda backend, x, dtype: backend.astype(x, dtype),
    linear=(lambda g, x, dtype: astype(g, x.dtype),),
    batch=lambda xs, batched, dtype: apply(ASTYPE, (xs[0],), dtype=dtype),
)
# The output lives on ``device``; apply() places it there (see record.apply).
TO_DEVICE = Primitive(
    "to",
    lambda backend, x, device: backends.for_device(device).from_numpy(backend.to_numpy(x)),
    linear=(lambda g, x, device: to_device(g, x.device),),
    batch=lambda xs, batched, device: apply(TO_DEVICE, (xs[0],), device=device),
)


# A diagonal is a view too (new strides, no copy); its transpose puts the cotangent
# back on the diagonal of zeros.
DIAGONAL = Primitive(
    "diagonal",
    lambda backend, x, offset, dim1, dim2: backend.diagonal(x, offset, dim1, dim2),
    linear=(lambda g, x, offset, dim1, dim2: _onto_diagonal(g, x.shape, offset, dim1, dim2),),
    batch=lambda xs, batched, offset, dim1, dim2: apply(
        DIAGONAL, (xs[0],), offset=offset, dim1=dim1 + 1, dim2=dim2 + 1
    ),
)


def diagonal_positions(n1: int, n2: int, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the ``offset``-th diagonal of an ``n1`` x ``n2`` matrix.

    >>> diagonal_positions(2, 3, 1)
    (array([0, 1]), array([1, 2]))
    """
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    steps = np.arange(length)
    return (steps, steps + offset) if offset >= 0 else (steps - offset, steps)


def _onto_diagonal(g: Tensor, shape: tuple, offset: int, dim1: int, dim2: int) -> Tensor:
    """Zeros of ``shape`` with ``g`` on the diagonal that ``DIAGONAL`` reads (its transpose):
    the two axes moved last, ``g`` added at the diagonal's positions, the axes moved back."""
    order = (*(d for d in range(len(shape)) if d not in (dim1, dim2)), dim1, dim2)
    index = (Ellipsis, *diagonal_positions(shape[dim1], shape[dim2], offset))
    out = apply(SCATTER_ADD, (g,), index=index, shape=tuple(shape[d] for d in order))
    return transpose(out, tuple(int(a) for a in np.argsort(order)))


def _concat_transpose(g, *inputs, axis):
    cotangents, start = [], 0
    for x in inputs:
        index = (slice(None),) * axis + (slice(start, start + x.shape[axis]),)
        cotangents.append(apply(GETITEM, (g,), index=index) if x.requires_grad else None)
        start += x.shape[axis]
    return tuple(cotangents)


def _concat_batched(xs: list, batched: list, axis: int) -> Tensor:
    size = next(len(x) for x, b in zip(xs, batched) if b)
    parts = tuple(moved_to_front(x, b, size) for x, b in zip(xs, batched))
    return apply(CONCATENATE, parts, axis=axis + 1)


CONCATENATE = Primitive(
    "concatenate",
    lambda backend, *xs, axis: backend.concatenate(list(xs), axis),
    linear=_concat_transpose,
    batch=_concat_batched,
)


# -- indexing a batch: x[index] of every example is x[:, index] of the batch, except
# that NumPy moves the axes of advanced indices to the front when a slice (here
# the batch's) separates them; then the batch axis is moved back to the front.
def _batch_axis_after(index: tuple) -> int:
    """Where ``x[(slice(None), *index)]`` puts the batch axis (0, or after moved axes)."""
    arrays = [i for i, part in enumerate(index) if hasattr(part, "shape")]
    if not arrays:
        return 0  # basic indexing keeps the axes in order
    advanced = [i for i, part in enumerate(index) if i in arrays or dtypes.is_integer(part)]
    if advanced == list(range(advanced[0], advanced[-1] + 1)):
        return 0  # side by side: their axes stay where they are, after the batch
    shapes = [
        (int(np.count_nonzero(index[i])),) if index[i].dtype == np.bool_ else index[i].shape
        for i in arrays
    ]
    return len(np.broadcast_shapes(*shapes))


def _moved_axis(x: Tensor, source: int, destination: int) -> Tensor:
    order = [a for a in range(x.ndim) if a != source]
    order.insert(destination, source)
    return transpose(x, tuple(order))


def _getitem_batched(x: Tensor, index: Any) -> Tensor:
    index = index if isinstance(index, tuple) else (index,)
    out = apply(GETITEM, (x,), index=(slice(None), *index))
    return _moved_axis(out, _batch_axis_after(index), 0)


def _scatter_add_batched(values: Tensor, index: Any, shape: tuple[int, ...]) -> Tensor:
    index = index if isinstance(index, tuple) else (index,)
    size = len(values)
    values = _moved_axis(values, 0, _batch_axis_after(index))
    return apply(SCATTER_ADD, (values,), index=(slice(None), *index), shape=(size, *shape))


def sizes(given: tuple, op: str, argument: str = "size", inferred: bool = False) -> tuple[int, ...]:
    """The sizes of a shape, given as ``f(2, 3)`` or ``f((2, 3))``, checked.

    Each size must be an integer (Python's or NumPy's) and at least 0; with
    ``inferred`` (``reshape``), one size may be -1. A float is never truncated
    and a string never parsed: ``zeros(2.7)`` is a mistake, so it is an error,
    with PyTorch's first line.

    >>> import numpy as np
    >>> sizes((2, np.int64(3)), "zeros"), sizes(((2, 3),), "zeros"), sizes((), "zeros")
    ((2, 3), (2, 3), ())
    >>> sizes((2.7,), "zeros")
    Traceback (most recent call last):
    ...
    TypeError: zeros(): argument 'size' (position 1) must be tuple of ints, not float
    got 2.7; give whole numbers, e.g. zeros(2, 3) or zeros((2, 3))
    """
    hint = f"give whole numbers, e.g. {op}(2, 3) or {op}((2, 3))"
    if len(given) == 1 and not dtypes.is_integer(given[0]):
        if not isinstance(given[0], (tuple, list)):
            raise TypeError(
                f"{op}(): argument '{argument}' (position 1) must be tuple of ints, "
                f"not {dtypes.type_name(given[0])}\ngot {given[0]!r}; {hint}"
            )
        given = tuple(given[0])
    for pos, n in enumerate(given):
        if not dtypes.is_integer(n):
            raise TypeError(
                f"{op}(): argument '{argument}' (position 1) must be tuple of ints, but found "
                f"element of type {dtypes.type_name(n)} at pos {pos}\ngot {given!r}; {hint}"
            )
    shape = tuple(int(n) for n in given)
    for pos, n in enumerate(shape):
        if inferred and n < -1:
            raise ShapeError(
                f"invalid shape dimension {n} at index {pos} of shape {list(shape)}\n"
                f"{op}: sizes count elements, so each is >= 0 (or -1, once, to infer it)"
            )
        if n < 0 and not inferred:
            raise ShapeError(
                f"Trying to create tensor with negative dimension {n}: {list(shape)}\n"
                f"{op}: the size at position {pos} is negative; sizes count elements (>= 0)"
            )
    if inferred and shape.count(-1) > 1:
        raise ShapeError(
            f"only one dimension can be inferred\n{op}: {list(shape)} has more than one -1"
        )
    return shape


def strided_sizes(size: Any, stride: Any, op: str) -> tuple[int, ...]:
    """The sizes given to ``empty_strided``-like factories, checked with their strides as
    PyTorch checks them (one stride per axis, none negative). minigrad lays every tensor out
    row after row, so the strides are checked and then not used.

    >>> strided_sizes((2, 3), (1, 2), "empty_strided")
    (2, 3)
    """
    for argument, given in (("size", size), ("stride", stride)):
        if not isinstance(given, (tuple, list)):
            raise TypeError(
                f"{op}(): argument '{argument}' (position {1 + (argument == 'stride')}) must be "
                f"tuple of ints, not {dtypes.type_name(given)}"
            )
    for pos, n in enumerate(stride):
        if not dtypes.is_integer(n):
            raise TypeError(
                f"{op}(): argument 'stride' (position 2) must be tuple of ints, but found "
                f"element of type {dtypes.type_name(n)} at pos {pos}"
            )
    strides = tuple(int(n) for n in stride)
    if len(strides) != len(size):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
            f"({len(strides)})"
        )
    if any(n < 0 for n in strides):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and "
            f"strides={list(strides)}"
        )
    return sizes((tuple(size),), op)


def reshape(x: Tensor, *shape: Any) -> Tensor:
    """The same elements in a new shape (one size may be -1: inferred).

    >>> import minigrad as mg
    >>> mg.arange(6).reshape(2, -1).shape
    (2, 3)
    """
    shape = sizes(shape, "reshape", argument="shape", inferred=True)
    known = math.prod(n for n in shape if n != -1)
    if -1 in shape:
        if known == 0 and x.size == 0:
            raise ShapeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        if known == 0 or x.size % known:
            raise ShapeError(f"shape '{list(shape)}' is invalid for input of size {x.size}")
        shape = tuple(x.size // known if n == -1 else n for n in shape)
    elif known != x.size:
        raise ShapeError(
            f"shape '{list(shape)}' is invalid for input of size {x.size}\n"
            f"(reshape of a tensor of shape {x.shape})"
        )
    if shape == x.shape:
        return x
    out = apply(RESHAPE, (x,), shape=shape)
    # What a recorded in-place change may need (inplace.py).
    note_view(out, x, RESHAPE, {"shape": shape}, current().grad_enabled)
    return out


def transpose(x: Tensor, *axes: Any) -> Tensor:
    """Swap two axes: ``x.transpose(dim0, dim1)``, PyTorch's ``transpose``.

    Two axes always mean "swap these two", whatever ``x.ndim`` (so
    ``transpose(0, 1)`` of a matrix is its transpose, as in PyTorch). Also, as
    minigrad extras: no axes reverse them all (``x.T``), and a whole order, as
    one tuple or three or more axes, permutes (NumPy's ``transpose``;
    ``permute`` is PyTorch's spelling).

    >>> import minigrad as mg
    >>> mg.zeros((2, 3)).transpose(0, 1).shape, mg.zeros((2, 3, 4)).transpose(-1, 0).shape
    ((3, 2), (4, 3, 2))
    """
    if len(axes) == 2 and not isinstance(axes[0], (tuple, list)):
        return swapaxes(x, *axes)
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    if not axes:
        axes = tuple(reversed(range(x.ndim)))
    if len(axes) != x.ndim:
        raise ValueError(f"transpose: axes {axes} don't match a tensor of shape {x.shape}")
    axes = tuple(normalize_axes(a, x.ndim)[0] for a in axes)
    if sorted(axes) != list(range(x.ndim)):
        raise ValueError(f"transpose: {axes} is not a permutation of the axes of {x.shape}")
    if axes == tuple(range(x.ndim)):
        return x
    out = apply(TRANSPOSE, (x,), axes=axes)
    note_view(out, x, TRANSPOSE, {"axes": axes}, current().grad_enabled)
    return out


def permute(x: Tensor, *axes: Any) -> Tensor:
    """Reorder the axes: ``axes`` names every axis of ``x`` once (PyTorch's ``permute``).

    Unlike ``transpose``, two axes never mean "swap these two": ``permute``
    needs the whole order, so a missing axis is an error, not a guess.

    >>> import minigrad as mg
    >>> mg.zeros((2, 3, 4)).permute(2, 0, 1).shape
    (4, 2, 3)
    """
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    if len(axes) != x.ndim:
        raise ShapeError(
            "permute(): number of dimensions in the tensor input does not match the length of "
            f"the desired ordering of dimensions i.e. input.dim() = {x.ndim} is not equal to "
            f"len(dims) = {len(axes)}\npermute: name every axis of the shape {x.shape} once, "
            f"e.g. permute{tuple(reversed(range(x.ndim)))}"
        )
    order = [normalize_axes(a, x.ndim)[0] for a in axes]
    if len(set(order)) != len(order):
        raise ShapeError(f"permute(): duplicate dims are not allowed.\npermute: got {axes}")
    return transpose(x, tuple(order))


def swapaxes(x: Tensor, a: int, b: int) -> Tensor:
    """Exchange axes ``a`` and ``b``."""
    if x.ndim == 0:  # 0 and -1 are valid names of no axis (as in PyTorch)
        normalize_axes(a, 0), normalize_axes(b, 0)
        return x
    a, b = normalize_axes(a, x.ndim)[0], normalize_axes(b, x.ndim)[0]
    axes = list(range(x.ndim))
    axes[a], axes[b] = axes[b], axes[a]
    return transpose(x, tuple(axes))


def squeeze(x: Tensor, axis: Any = None, *, dim: Any = None) -> Tensor:
    """Drop size-1 axes (all of them, or the ones named)."""
    axis = dim if dim is not None else axis
    if axis is None:
        axes = tuple(i for i, n in enumerate(x.shape) if n == 1)
    else:
        axes = tuple(a for a in normalize_axes(axis, x.ndim) if x.shape[a] == 1)
    return reshape(x, tuple(n for i, n in enumerate(x.shape) if i not in axes))


def unsqueeze(x: Tensor, axis: int) -> Tensor:
    """Insert a size-1 axis at ``axis`` (negative counts from the end of the result)."""
    no_numbers("unsqueeze", x)
    axis = normalize_axes(axis, x.ndim + 1)[0]
    return reshape(x, (*x.shape[:axis], 1, *x.shape[axis:]))


def _raw_index(index: Any, device: str) -> Any:
    """Index parts that are tensors become raw arrays the backend can use."""
    if isinstance(index, tuple):
        return tuple(_raw_index(part, device) for part in index)
    if isinstance(index, Tensor):
        if index.dtype.kind == "f":
            raise IndexError(
                f"tensors used as indices must be long, int or bool tensors (got {index.dtype})"
            )
        return index._numpy() if device == "cpu" else index.data
    if isinstance(index, list):
        return np.asarray(index)
    return index


def index_error(error: Exception, shape: tuple, index: Any) -> IndexError:
    """NumPy's IndexError for ``x[index]`` with PyTorch's first line (``"dimension"``, not
    ``"axis"``; ``"tensor of dimension N"``, not ``"array"``), x's shape on the next."""
    text = str(error)
    too_many = re.match(r"too many indices for array: array is (\d+)-dimensional", text)
    if too_many and not shape and dtypes.is_integer(index):
        text = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")  # fmt: skip
    elif too_many:
        text = f"too many indices for tensor of dimension {too_many.group(1)}"
    else:
        text = re.sub(r"out of bounds for axis (\d+)", r"out of bounds for dimension \1", text)
    return IndexError(f"{text}\n(indexing a tensor of shape {shape})")


def getitem(x: Tensor, index: Any) -> Tensor:
    """``x[index]``: basic slicing, integer-array and boolean-mask indexing.

    >>> import minigrad as mg
    >>> mg.arange(5)[mg.tensor([0, 0, 3])]
    tensor([0, 0, 3])
    """
    index = _raw_index(index, x.device)
    try:
        out = apply(GETITEM, (x,), index=index)
    except IndexError as error:
        raise index_error(error, x.shape, index) from None
    # A basic index makes a view, as in PyTorch.
    note_view(out, x, GETITEM, {"index": index}, current().grad_enabled)
    return out


def tensor_sequence(tensors: Any, op: str) -> list:
    """The tensors that cat, stack and their kin join: a list or a tuple, as PyTorch takes.

    A tensor would be read as the sequence of its rows and a generator consumed
    once, so both are refused, with PyTorch's message.

    >>> import minigrad as mg
    >>> mg.stack(mg.ones(2, 3))
    Traceback (most recent call last):
      ...
    TypeError: stack(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor
    stack: give a list or tuple of tensors, e.g. list(x) for the rows of x
    """
    if isinstance(tensors, (list, tuple)):
        return list(tensors)
    kind = "Tensor" if isinstance(tensors, Tensor) else dtypes.type_name(tensors)
    raise TypeError(
        f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not {kind}\n"
        f"{op}: give a list or tuple of tensors, e.g. list(x) for the rows of x"
    )


def concatenate(tensors: Any, axis: int = 0, *, dim: Any = None) -> Tensor:
    """Join tensors along an existing axis.

    >>> import minigrad as mg
    >>> mg.concatenate([mg.ones(2), mg.zeros(1)]).shape
    (3,)
    """
    tensors = tensor_sequence(tensors, "concatenate")
    if not tensors:
        raise ValueError(
            "torch.cat(): expected a non-empty list of Tensors\nconcatenate: nothing to join"
        )
    if dim is not None:
        axis = dim
    for k, t in enumerate(tensors):
        if t is None or isinstance(t, (numbers.Number, str)):
            raise TypeError(
                f"expected Tensor as element {k} in argument 0, but got {type(t).__name__}"
            )
    tensors = [t if isinstance(t, Tensor) else Tensor.concrete(t) for t in tensors]
    if len({t.dtype for t in tensors}) > 1:  # one dtype, as PyTorch promotes (never broadcast)
        common = dtypes.result_dtype([t.dtype for t in tensors], [])
        tensors = [astype(t, common) for t in tensors]
    # PyTorch's legacy rule: a 1-D empty tensor joins anything (it is left out of the
    # checks, and joins as an empty piece of the others' shape: still in the graph).
    kept = [t for t in tensors if t.shape != (0,)]
    legacy = bool(kept) and len(kept) < len(tensors)
    every, tensors = tensors, kept if legacy else tensors
    first = tensors[0]
    if first.ndim == 0:
        raise ShapeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    axis = normalize_axes(axis, first.ndim)[0]
    shapes = [t.shape for t in tensors]
    for k, t in enumerate(tensors):
        if t.ndim != first.ndim:
            raise ShapeError(
                f"Tensors must have same number of dimensions: got {first.ndim} and {t.ndim}\n"
                f"concatenate: shapes {shapes}"
            )
        for i, (a, b) in enumerate(zip(first.shape, t.shape)):
            if i != axis and a != b:
                raise ShapeError(
                    f"Sizes of tensors must match except in dimension {axis}. Expected size {a} "
                    f"but got size {b} for tensor number {k} in the list.\n"
                    f"concatenate: shapes {shapes}"
                )
    if legacy:
        empty = (*first.shape[:axis], 0, *first.shape[axis + 1 :])
        tensors = [t.reshape(empty) if t.shape == (0,) else t for t in every]
    return apply(CONCATENATE, tuple(tensors), axis=axis)


def stack(tensors: Any, axis: int = 0, *, dim: Any = None) -> Tensor:
    """Join equally shaped tensors along a new axis."""
    tensors = tensor_sequence(tensors, "stack")
    if dim is not None:
        axis = dim
    for k, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise ShapeError(
                "stack expects each tensor to be equal size, but got "
                f"{list(tensors[0].shape)} at entry 0 and {list(t.shape)} at entry {k}"
            )
    return concatenate([unsqueeze(t, axis) for t in tensors], axis=axis)


def astype(x: Tensor, dtype: Any) -> Tensor:
    """The same values in another dtype (differentiable between float types)."""
    dtype = dtypes.as_dtype(dtype)
    if x.dtype == dtype:
        return x
    out = apply(ASTYPE, (x,), dtype=dtype)
    if not dtypes.is_floating(dtype):  # an integer result carries no derivative
        out = out.detach()
    return out


def to_device(x: Tensor, device: str) -> Tensor:
    """The same values on ``device`` ("cpu" or "cuda"); gradients flow back."""
    if device not in ("cpu", "cuda"):
        raise ValueError(f"unknown device {device!r}; minigrad knows 'cpu' and 'cuda'")
    if x.device == device:
        return x
    return apply(TO_DEVICE, (x,), device=device)
