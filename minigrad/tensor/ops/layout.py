"""More ways to lay out the same elements: t, select, tensor_split, diff (lessons 05, 12).

Every function here is a composition of the shape rows (``reshape``,
``permute``, ``broadcast_to``, ``getitem``, ``concatenate``) and, for
``diff`` and ``diag_embed``, a subtraction or a ``where``. Their derivatives
are those rows' transposes: ``select``'s gradient scatters into a zero
tensor, ``broadcast_tensors`` sums back over the copies, and so on, with
nothing written here.

    >>> import minigrad as mg
    >>> x = mg.arange(6).reshape(2, 3)
    >>> x.t().shape, x.unflatten(1, (3, 1)).shape, x.select(1, -1)
    ((3, 2), (2, 3, 1), tensor([2, 5]))
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.broadcasting import ShapeError, broadcast_shape, broadcast_to, stretch_to
from minigrad.tensor.ops.elementwise import compare, invalid_combination, where
from minigrad.tensor.ops.indexing import index_select
from minigrad.tensor.ops.movement import concatenate, getitem, permute, reshape, tensor_sequence
from minigrad.tensor.ops.padding import pad
from minigrad.tensor.ops.rearrange import movedim, narrow
from minigrad.tensor.ops.reductions import normalize_axes

__all__ = [
    "broadcast_tensors", "contiguous", "diag_embed", "diff", "dstack", "expand_as", "meshgrid",
    "repeat_interleave", "reshape_as", "select", "t", "tensor_split", "unflatten", "view_as",
]  # fmt: skip


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _axis(dim: Any, ndim: int) -> int:
    return normalize_axes(dim, ndim)[0]


# -- one tensor shaped like another --------------------------------------------------------
def view_as(input: Tensor, other: Tensor) -> Tensor:
    """``input`` reshaped to ``other``'s shape (same number of elements).

    >>> import minigrad as mg
    >>> mg.arange(4).view_as(mg.zeros((2, 2))).shape
    (2, 2)
    """
    return reshape(input, other.shape)


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    """``input`` reshaped to ``other``'s shape (PyTorch's name for ``view_as`` that may copy).

    >>> import minigrad as mg
    >>> mg.arange(4).reshape_as(mg.zeros((4, 1))).shape
    (4, 1)
    """
    return reshape(input, other.shape)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    """``input`` broadcast to ``other``'s shape; the gradient sums over the copies.

    >>> import minigrad as mg
    >>> mg.tensor([1.0, 2.0]).expand_as(mg.zeros((2, 2)))
    tensor([[1., 2.],
            [1., 2.]])
    """
    return broadcast_to(input, other.shape)


def contiguous(input: Tensor) -> Tensor:
    """``input`` itself: minigrad's operations accept any memory layout, so there is no copy to
    make (PyTorch returns ``self`` when it is contiguous already).

    >>> import minigrad as mg
    >>> x = mg.ones((2, 3)).t()
    >>> x.contiguous() is x
    True
    """
    return input


def t(input: Tensor) -> Tensor:
    """The transpose of a matrix; a vector or a 0-d tensor is returned as it is.

    >>> import minigrad as mg
    >>> mg.t(mg.tensor([[1, 2, 3]]))
    tensor([[1],
            [2],
            [3]])
    """
    x = _tensor(input)
    if x.ndim > 2:
        raise ShapeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D\n"
            "t: for stacks of matrices swap the last two axes, e.g. x.mT or x.swapaxes(-1, -2)"
        )
    return permute(x, (1, 0)) if x.ndim == 2 else x


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:
    """Split axis ``dim`` into several of ``sizes`` (one may be -1: inferred).

    >>> import minigrad as mg
    >>> mg.zeros((2, 12)).unflatten(1, (3, -1)).shape
    (2, 3, 4)
    """
    x = _tensor(input)
    sizes = tuple(sizes)
    if not sizes:
        raise ShapeError("unflatten: sizes must be non-empty")
    d = _axis(dim, x.ndim) if x.ndim else _axis(dim, 1)
    n = x.shape[d] if x.ndim else 1
    if sizes.count(-1) > 1:
        raise ShapeError("only one dimension can be inferred\nunflatten: sizes has two -1s")
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes:
        if known == 0 or n % known:
            raise ShapeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                f"{dim} ({n}) in the input tensor"
            )
        sizes = tuple(n // known if s == -1 else s for s in sizes)
    elif known != n:
        raise ShapeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
            f"{dim} ({n}) in the input tensor"
        )
    return reshape(x, (*x.shape[:d], *sizes, *x.shape[d + 1 :]))


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim``, that axis removed: ``x.select(1, 2) == x[:, 2]``.

    >>> import minigrad as mg
    >>> mg.arange(6).reshape(2, 3).select(0, -1)
    tensor([3, 4, 5])
    """
    x = _tensor(input)
    if x.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _axis(dim, x.ndim)
    index = int(index)
    n = x.shape[d]
    if not -n <= index < n:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(x.shape)} at "
            f"dimension {d}"
        )
    return getitem(x, (slice(None),) * d + (index,))


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of ``input`` along ``dim``: ``n`` nearly equal ones (the first ``size % n`` one
    longer), or cut before each index listed (NumPy's ``array_split``).

    >>> import minigrad as mg
    >>> [p.tolist() for p in mg.tensor_split(mg.arange(7), 3)]
    [[0, 1, 2], [3, 4], [5, 6]]
    >>> [p.tolist() for p in mg.arange(5).tensor_split([1, 4])]
    [[0], [1, 2, 3], [4]]
    """
    invalid_combination("tensor_split", input, indices_or_sections, *((dim,) if dim else ()),
                        signature="(Tensor input, tuple of ints indices, int dim = 0)")  # fmt: skip
    x = _tensor(input)
    if x.ndim == 0:
        raise ShapeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = _axis(dim, x.ndim)
    n = x.shape[d]
    cuts = indices_or_sections
    if isinstance(cuts, Tensor):
        if cuts.dtype.kind not in "iu":
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have integral dtype, "
                f"but got {cuts.dtype.name}"
            )
        if cuts.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {cuts.ndim} dims"
            )
        cuts = cuts.item() if cuts.ndim == 0 else cuts.tolist()
    if dtypes.is_integer(cuts):
        sections = int(cuts)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        size, extra = divmod(n, sections)
        lengths = [size + 1] * extra + [size] * (sections - extra)
        bounds = np.cumsum([0, *lengths])
        pairs = list(itertools.pairwise(bounds))
    else:
        stops = [int(i) for i in cuts]
        edges = [0, *stops, n]
        # A cut counts from the end when negative and is clipped to the axis, as a slice is.
        edges = [min(max(e + n if e < 0 else e, 0), n) for e in edges]
        pairs = [(a, max(a, b)) for a, b in itertools.pairwise(edges)]
    return tuple(narrow(x, d, int(a), int(b - a)) for a, b in pairs)


def _at_least_3d(x: Tensor) -> Tensor:
    if x.ndim == 0:
        return reshape(x, (1, 1, 1))
    if x.ndim == 1:
        return reshape(x, (1, x.shape[0], 1))
    if x.ndim == 2:
        return reshape(x, (*x.shape, 1))
    return x


def dstack(tensors: Any) -> Tensor:
    """Join along the third axis (depth), after making every input at least 3-D.

    A vector ``(n,)`` becomes ``(1, n, 1)``, a matrix ``(m, n)`` becomes ``(m, n, 1)``.

    >>> import minigrad as mg
    >>> mg.dstack([mg.tensor([1, 2]), mg.tensor([3, 4])])
    tensor([[[1, 3],
             [2, 4]]])
    """
    tensors = [_tensor(x) for x in tensor_sequence(tensors, "dstack")]
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return concatenate([_at_least_3d(x) for x in tensors], axis=2)


def _all_tensors(tensors: tuple, op: str) -> None:
    """PyTorch's refusal of anything but tensors in a list of tensors (numbers, lists)."""
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(x).__name__}\n"
                f"{op}: pass tensors, mg.{op}(a, b) (unpack a list with *); "
                "make numbers tensors with mg.tensor"
            )


def broadcast_tensors(*tensors: Any) -> tuple[Tensor, ...]:
    """Every input broadcast to their common shape.

    >>> import minigrad as mg
    >>> [x.shape for x in mg.broadcast_tensors(mg.zeros((2, 1)), mg.zeros(3))]
    [(2, 3), (2, 3)]
    """
    _all_tensors(tensors, "broadcast_tensors")
    if not tensors:
        return ()
    shape = broadcast_shape(*(x.shape for x in tensors), op="broadcast_tensors")
    return tuple(broadcast_to(x, shape) for x in tensors)  # views, as PyTorch's


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids from 1-D tensors: output ``i`` varies along axis ``i``.

    ``indexing="ij"`` (the default, as in PyTorch) gives shape ``(n1, n2, ...)``;
    ``"xy"`` swaps the first two axes (NumPy's default, for images).

    >>> import minigrad as mg
    >>> rows, cols = mg.meshgrid(mg.tensor([1, 2]), mg.tensor([7, 8, 9]), indexing="ij")
    >>> rows.shape, cols[0]
    ((2, 3), tensor([7, 8, 9]))
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    _all_tensors(tensors, "meshgrid")
    if indexing is not None and not isinstance(indexing, str):
        raise TypeError(
            f"meshgrid(): argument 'indexing' must be str, not {type(indexing).__name__}\n"
            'meshgrid: indexing is "ij" (the default) or "xy"'
        )
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if len({x.dtype for x in tensors}) > 1:
        raise RuntimeError(
            "meshgrid expects all tensors to have the same dtype\n"
            f"meshgrid: got {', '.join(str(x.dtype) for x in tensors)}; convert them with .to()"
        )
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    for x in tensors:
        if x.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {x.shape}"
            )
    flat = [reshape(x, -1) for x in tensors]
    swap = indexing == "xy" and len(flat) >= 2
    if swap:
        flat[0], flat[1] = flat[1], flat[0]
    shape = tuple(x.shape[0] for x in flat)
    grids = [
        broadcast_to(reshape(x, [-1 if k == i else 1 for k in range(len(flat))]), shape)
        for i, x in enumerate(flat)
    ]
    if swap:  # built for (y, x, ...): hand them back in the order given
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def repeat_interleave(input: Any, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:  # fmt: skip
    """Each element (or slice along ``dim``) repeated ``repeats`` times in a row.

    ``repeats`` is a number or one count per slice. With ``dim=None`` the input
    is flattened first. Given only a tensor of counts, the result repeats
    ``arange(len(counts))`` by them. The gradient sums over each element's copies.

    >>> import minigrad as mg
    >>> mg.repeat_interleave(mg.tensor([1, 2]), 2), mg.tensor([[1, 2]]).repeat_interleave(
    ...     mg.tensor([1, 3]), dim=1)
    (tensor([1, 1, 2, 2]), tensor([[1, 2, 2, 2]]))
    """
    x = _tensor(input)
    if repeats is None:  # repeat_interleave(counts): the positions, each count times
        if x.dtype.kind not in "iu":
            kind = {"bool": "Bool", "float32": "Float", "float64": "Double"}[x.dtype.name]
            raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{kind}'")
        if x.ndim != 1:
            raise RuntimeError(
                "repeat_interleave only accept 1D vector as repeat\n"
                f"repeat_interleave: got counts of shape {x.shape}"
            )
        counts = x._numpy()
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        positions = np.repeat(np.arange(len(counts), dtype=counts.dtype), counts)
        return Tensor.concrete(positions, device=x.device)  # in the counts' dtype, as PyTorch
    if dim is None:
        x, d = reshape(x, -1), 0
    elif x.ndim == 0:  # PyTorch's message, which counts the repeats' axis too
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    else:
        d = _axis(dim, x.ndim)
    n = x.shape[d]
    counts = repeats._numpy() if isinstance(repeats, Tensor) else np.asarray(repeats)
    if counts.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if counts.dtype.kind not in "iu":
        raise RuntimeError(
            f"repeat_interleave: repeats must be whole numbers, got {counts.dtype.name}"
        )
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    if counts.ndim == 1 and counts.size != n and counts.size != 1:
        raise RuntimeError("repeats must have the same size as input along dim")
    positions = np.repeat(np.arange(n), np.broadcast_to(counts, (n,)))
    if output_size is not None and output_size != positions.size:
        raise RuntimeError(
            f"allocated size does not match required size\nrepeat_interleave: output_size="
            f"{output_size}, but the counts add up to {positions.size}"
        )
    return index_select(x, d, Tensor.concrete(positions, device=x.device))


def diff(input: Any, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None):
    """The ``n``-th forward difference along ``dim``: ``out[i] = x[i + 1] - x[i]``.

    ``prepend`` and ``append`` are joined on first (broadcast on every other
    axis when they are numbers). On bools the difference is ``!=`` (as in PyTorch).

    >>> import minigrad as mg
    >>> mg.diff(mg.tensor([1, 4, 9, 16])), mg.diff(mg.tensor([1, 4, 9, 16]), n=2)
    (tensor([3, 5, 7]), tensor([2, 2]))
    """
    x = _tensor(input)
    if x.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = _axis(dim, x.ndim)
    if not dtypes.is_integer(n) or n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if n == 0:  # PyTorch's answer: the input itself, nothing joined on
        return x
    parts = []
    for extra in (prepend, append):
        if extra is None:
            parts.append(None)
            continue
        extra = _tensor(extra)
        if extra.ndim == 0:  # a number: one slice of it
            extra = stretch_to(extra, (*x.shape[:d], 1, *x.shape[d + 1 :]))
        parts.append(extra)
    pieces = [p for p in (parts[0], x, parts[1]) if p is not None]
    if len(pieces) > 1:
        x = concatenate(pieces, axis=d)
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        later, earlier = narrow(x, d, 1, m - 1), narrow(x, d, 0, m - 1)
        x = compare("ne", later, earlier) if x.dtype == dtypes.bool_ else later - earlier
    return x


def diag_embed(input: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices whose diagonal (``offset`` above it for > 0) holds the last axis of ``input``.

    The new pair of axes sits at ``dim1`` (rows) and ``dim2`` (columns) of the
    result. Off the diagonal the result is 0, whatever ``input`` holds (NaN
    included): a ``where``, not a product with the identity.

    >>> import minigrad as mg
    >>> mg.diag_embed(mg.tensor([1.0, 2.0]))
    tensor([[1., 0.],
            [0., 2.]])
    >>> mg.diag_embed(mg.tensor([5]), offset=1)
    tensor([[0, 5],
            [0, 0]])
    """
    x = _tensor(input)
    ndim = x.ndim + 1
    d1, d2 = _axis(dim1, ndim), _axis(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(
            f"diagonal dimensions cannot be identical {dim1}, {dim2}\n"
            "diag_embed: dim1 and dim2 name the rows and columns of the new matrices"
        )
    if x.ndim == 0:
        x = reshape(x, 1)
    k = int(offset)
    n = x.shape[-1]
    m = n + (k if k >= 0 else -k)
    # Column c of row r holds x[c - k] (for k >= 0) or x[c] (for k < 0) where c - r == k.
    padded = pad(x, (k, 0) if k >= 0 else (0, -k))
    rows, cols = np.arange(m)[:, None], np.arange(m)[None, :]
    mask = Tensor.concrete(cols - rows == k, device=x.device)
    spread = stretch_to(reshape(padded, (*padded.shape[:-1], 1, m)), (*padded.shape[:-1], m, m))
    out = where(mask, spread, Tensor.concrete(np.zeros((), x.dtype), device=x.device))
    return movedim(out, (-2, -1), (d1, d2))
