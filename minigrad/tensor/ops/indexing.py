"""Reading and adding along an axis by index tensors: gather and scatter_add (lesson 05).

``gather(x, dim, index)`` reads, for every position ``p`` of ``index``, the
element of ``x`` at ``p`` with its ``dim``-th coordinate replaced by
``index[p]``. For a matrix and ``dim=1``: ``out[i][j] = x[i][index[i][j]]``.
``scatter_add`` is the same walk in the other direction: it *adds* each
value into the position that ``gather`` would have read.

The two are each other's transpose. Gather is linear in ``x`` (the index
only says where to read), so its vector-Jacobian product sends every
cotangent element back to where its value came from, adding where one element
was read twice: a scatter-add. And the transpose of scatter-add is a gather.
So the two rows below say only that, in Tensor operations, and second
derivatives and forward mode follow. The index is an *input* of both rows
(not a fixed parameter), with no derivative: a traced program can take it as
an argument, and a record keeps the index tensor it needs and nothing else.

Everything else here is built from those two rows: ``index_select`` and
``take_along_dim`` are gathers with a broadcast index, and ``masked_fill`` is a
``where``. (So are ``sort`` and ``topk``, in ``sorting.py``: a gather at the
positions a sort found.)

    >>> import minigrad as mg
    >>> x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> mg.gather(x, 1, mg.tensor([[1, 1], [0, 1]]))
    tensor([[2., 2.],
            [3., 4.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.broadcasting import ShapeError, broadcast_shape, stretch_to
from minigrad.tensor.ops.elementwise import add, compare, no_numbers, where
from minigrad.tensor.ops.movement import astype, getitem, reshape
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.primitive import Primitive, moved_to_front
from minigrad.tensor.record import apply


class IndexBoundsError(IndexError, RuntimeError):
    """An index tensor names a position outside the axis (PyTorch raises a RuntimeError)."""


class IndexDtypeError(TypeError, RuntimeError):
    """An index or mask of the wrong dtype (PyTorch raises a RuntimeError)."""


# PyTorch names dtypes in these messages by their C types.
_C_NAMES = {"int64": "long int", "int32": "int", "float32": "float", "float64": "double"}


def along(index: np.ndarray, dim: int, size: int) -> tuple[np.ndarray, ...]:
    """The NumPy index that reads ``x[p_0, ..., index[p], ..., p_n]`` at every position ``p``.

    Every axis but ``dim`` is walked by an ``arange`` that broadcasts along
    its own axis only (an open mesh); axis ``dim`` reads ``index``. Entries
    must lie in ``[0, size)``.

    >>> [part.tolist() for part in along(np.array([[2, 0]]), 1, 3)]
    [[[0]], [[2, 0]]]
    """
    if index.size:
        low, high = index.min(), index.max()
        if low < 0 or high >= size:
            bad = int(low if low < 0 else high)
            raise IndexBoundsError(
                f"index {bad} is out of bounds for dimension {dim} with size {size}\n"
                f"indices along dimension {dim} count from 0 to {size - 1}"
            )
    ndim = index.ndim
    return tuple(
        index if axis == dim else np.arange(n).reshape([n if k == axis else 1 for k in range(ndim)])
        for axis, n in enumerate(index.shape)
    )


def _host(backend: Any, index: Any) -> np.ndarray:
    """The index's values on the host, where positions are worked out (as
    ``backend.getitem`` does for every advanced index): free on the CPU, one
    copy from a GPU. While a program is traced (lesson 13) the index has no
    values yet and only the result's shape and dtype are wanted: zeros do."""
    try:
        return np.asarray(backend.to_numpy(index))
    except TracerError:
        return np.zeros(index.shape, np.int64)


def _gather_forward(backend, x, index, dim):
    return backend.getitem(x, along(_host(backend, index), dim, x.shape[dim]))


def _scatter_forward(backend, values, index, dim, shape):
    return backend.scatter_add(shape, along(_host(backend, index), dim, shape[dim]), values)


# Linear in the values (input 0) with the index (input 1) fixed: the
# multilinear form, whose forward mode applies the row to the values' tangent
# and leaves the index alone. The rules read the index, so the record keeps it.
GATHER = Primitive(
    "gather",
    _gather_forward,
    multilinear=(
        lambda g, x, index, dim: apply(SCATTER_ADD_ALONG, (g, index), dim=dim, shape=x.shape),
        None,
    ),
    saves=(1,),
    batch=lambda xs, batched, dim: apply(GATHER, _both_batched(xs, batched), dim=dim + 1),
)
SCATTER_ADD_ALONG = Primitive(
    "scatter_add_along",
    _scatter_forward,
    multilinear=(lambda g, values, index, dim, shape: apply(GATHER, (g, index), dim=dim), None),
    saves=(1,),
    batch=lambda xs, batched, dim, shape: _scatter_batch(_both_batched(xs, batched), dim, shape),
)


def _scatter_batch(operands: tuple, dim: int, shape: tuple) -> Any:
    # The batch size is read after both operands have the batch axis in front:
    # the values may be the unbatched one (one source for every example).
    values = operands[0]
    return apply(SCATTER_ADD_ALONG, operands, dim=dim + 1, shape=(values.shape[0], *shape))


def _both_batched(xs: list, batched: list) -> tuple:
    """Values and index, each with the batch axis in front (lesson 14)."""
    size = next(len(x) for x, b in zip(xs, batched) if b)
    return tuple(moved_to_front(x, b, size) for x, b in zip(xs, batched))


# -- checking arguments -------------------------------------------------------------------
def as_tensor(value: Any, like: Tensor | None = None) -> Tensor:
    """``value`` as a tensor (on ``like``'s device), a tensor unchanged."""
    if isinstance(value, Tensor):
        return value
    device = like.device if like is not None else "cpu"
    return Tensor.concrete(value, device=device)


def _index_tensor(index: Any, op: str, like: Tensor) -> Tensor:
    index = as_tensor(index, like)
    if index.dtype.kind not in "iu" or index.dtype == dtypes.bool_:
        raise IndexDtypeError(
            f"{op}(): Expected dtype int32/int64 for index\n"
            f"got {index.dtype.name}; positions are whole numbers, e.g. "
            f"mg.tensor([0, 2]) or x.argsort()"
        )
    if index.device != like.device:
        # Positions are data, not values to differentiate: they follow the input
        # (as when indexing x[idx] with a CPU index), rather than raise.
        index = index.to(like.device)
    return index


def dim_argument(dim: Any, axis: Any, ndim: int, default: Any = None) -> int:
    """One axis, named ``dim`` (PyTorch) or ``axis`` (NumPy), checked against ``ndim``."""
    if axis is not None:
        if dim is not None and dim != default:
            raise TypeError("give the axis once: as dim= (PyTorch) or axis= (NumPy), not both")
        dim = axis
    if ndim == 0:
        normalize_axes(dim, 0)
        return 0
    return normalize_axes(dim, ndim)[0]


def _same_ndim(x: Tensor, index: Tensor, op: str) -> None:
    if index.ndim != x.ndim:
        raise ShapeError(
            "Index tensor must have the same number of dimensions as "
            f"{'self' if op.startswith('scatter') else 'input'} tensor\n"
            f"{op}: input has shape {x.shape} ({x.ndim} dimensions), index has shape "
            f"{index.shape} ({index.ndim})"
        )


def _fits(index: Tensor, x: Tensor, dim: int, op: str, src: Tensor | None = None) -> None:
    """Off ``dim``, the index may be no larger than ``x`` (nor, anywhere, than ``src``)."""
    bad_x = [d for d in range(x.ndim) if d != dim and index.shape[d] > x.shape[d]]
    bad_src = [] if src is None else [d for d in range(x.ndim) if index.shape[d] > src.shape[d]]
    if not bad_x and not bad_src:
        return
    where_ = f"dimension {(bad_x or bad_src)[0]}"
    if src is None:
        first = (
            f"Size does not match at {where_} expected index {list(index.shape)} to be no "
            f"larger than self {list(x.shape)} apart from dimension {dim}"
        )
    else:
        first = (
            f"Expected index {list(index.shape)} to be no larger than self {list(x.shape)} "
            f"apart from dimension {dim} and to be no larger size than src {list(src.shape)}"
        )
    raise ShapeError(f"{first}\n{op}: the index's shape bounds what is read, at {where_}")


# -- gather and scatter_add -------------------------------------------------------------
def gather(x: Tensor, dim: int, index: Any, *, axis: Any = None) -> Tensor:
    """Read ``x`` along ``dim`` at ``index``: ``out[i][j] = x[i][index[i][j]]`` for ``dim=1``.

    ``index`` has as many dimensions as ``x``; off ``dim`` it may be smaller
    than ``x`` (it then reads the leading part). Differentiable in ``x``: the
    gradient is a ``scatter_add`` of the cotangent.

    >>> import minigrad as mg
    >>> mg.gather(mg.tensor([10.0, 20.0, 30.0]), 0, mg.tensor([2, 2, 0]))
    tensor([30., 30., 10.])
    """
    x = as_tensor(x)
    index = _index_tensor(index, "gather", x)
    dim = dim_argument(dim, axis, x.ndim)
    if x.ndim == 0:  # a 0-d input reads as one element along axis 0 (as in PyTorch)
        flat = gather(reshape(x, 1), 0, reshape(index, -1))
        return reshape(flat, index.shape)
    _same_ndim(x, index, "gather")
    _fits(index, x, dim, "gather")
    return apply(GATHER, (x, index), dim=dim)


def scatter_add(x: Tensor, dim: int, index: Any, src: Any, *, axis: Any = None) -> Tensor:
    """``x`` with ``src[p]`` added at the position ``gather`` would read for ``index[p]``.

    Out of place (PyTorch's ``x.scatter_add``, not ``scatter_add_``): repeated
    positions add up. ``src`` may be larger than ``index``; its leading part is
    used. Differentiable in ``x`` (slope 1) and in ``src`` (a gather).

    >>> import minigrad as mg
    >>> mg.zeros(3).scatter_add(0, mg.tensor([0, 0, 2]), mg.tensor([1.0, 2.0, 5.0]))
    tensor([3., 0., 5.])
    """
    x = as_tensor(x)
    if not isinstance(src, Tensor):
        raise TypeError(
            f"scatter_add(): argument 'src' (position 3) must be Tensor, not "
            f"{dtypes.type_name(src)}\nto add one number at every index, give "
            f"mg.full(index.shape, value)"
        )
    index = _index_tensor(index, "scatter_add", x)
    dim = dim_argument(dim, axis, x.ndim)
    if src.dtype != x.dtype:
        raise IndexDtypeError(
            f"scatter(): Expected self.dtype to be equal to src.dtype\n"
            f"scatter_add: self is {x.dtype.name}, src is {src.dtype.name}; convert one with "
            f".to(...)"
        )
    if x.ndim == 0:
        return reshape(scatter_add(reshape(x, 1), 0, reshape(index, -1), reshape(src, -1)), ())
    _same_ndim(x, index, "scatter_add")
    if src.ndim != x.ndim:
        raise ShapeError(
            f"Index tensor must have the same number of dimensions as src tensor\n"
            f"scatter_add: src has shape {src.shape}, index {index.shape}"
        )
    _fits(index, x, dim, "scatter_add", src)
    if src.shape != index.shape:
        src = getitem(src, tuple(slice(0, n) for n in index.shape))
    return add(x, apply(SCATTER_ADD_ALONG, (src, index), dim=dim, shape=x.shape))


def index_select(x: Tensor, dim: int, index: Any, *, axis: Any = None) -> Tensor:
    """The slices of ``x`` at positions ``index`` (1-D) along ``dim``, in that order.

    >>> import minigrad as mg
    >>> mg.index_select(mg.tensor([[1.0, 2.0, 3.0]]), 1, mg.tensor([2, 0])).tolist()
    [[3.0, 1.0]]
    """
    x = as_tensor(x)
    index = _index_tensor(index, "index_select", x)
    if index.ndim > 1:
        raise IndexError(
            f"index_select(): Index is supposed to be a vector\ngot an index of shape "
            f"{index.shape}; for a per-element choice use mg.gather or mg.take_along_dim"
        )
    dim = dim_argument(dim, axis, x.ndim)
    if x.ndim == 0:
        if index.size != 1:
            raise ShapeError(
                f"index_select(): Index to scalar can have only 1 value, got {index.size} value(s)"
            )
        return gather(x, 0, reshape(index, ()))  # a 0-d result, as PyTorch's
    k = index.size
    shape = (*x.shape[:dim], k, *x.shape[dim + 1 :])
    spread = reshape(index, [k if d == dim else 1 for d in range(x.ndim)])
    return gather(x, dim, stretch_to(spread, shape))


def take_along_dim(x: Tensor, indices: Any, dim: int | None = None, *, axis: Any = None):
    """Read ``x`` at ``indices`` along ``dim`` (NumPy's ``take_along_axis``).

    Unlike ``gather``, the shapes off ``dim`` broadcast, and negative indices
    count from the end. With ``dim=None``, both are flattened first.

    >>> import minigrad as mg
    >>> x = mg.tensor([[3.0, 1.0, 2.0]])
    >>> mg.take_along_dim(x, x.argsort(dim=1), dim=1)
    tensor([[1., 2., 3.]])
    """
    no_numbers("take_along_dim", x, indices, names=("input", "indices"))
    x = as_tensor(x)
    indices = _index_tensor(indices, "take_along_dim", x)
    if dim is None and axis is None:
        x, indices, dim = reshape(x, -1), reshape(indices, -1), 0
    else:
        dim = dim_argument(dim, axis, x.ndim)
        if x.ndim == 0:
            x, indices = reshape(x, 1), reshape(indices, -1)
        if indices.ndim != x.ndim:
            raise ShapeError(
                "torch.take_along_dim(): input and indices should have the same number of "
                f"dimensions, but got {x.ndim} dimensions for input, and {indices.ndim} "
                f"dimensions for indices\ntake_along_dim: shapes {x.shape} and {indices.shape}"
            )
        off = [1 if d == dim else n for d, n in enumerate(x.shape)]
        off_index = [1 if d == dim else n for d, n in enumerate(indices.shape)]
        common = broadcast_shape(tuple(off), tuple(off_index), op="take_along_dim")
        x = stretch_to(x, tuple(x.shape[dim] if d == dim else n for d, n in enumerate(common)))
        indices = stretch_to(
            indices, tuple(indices.shape[dim] if d == dim else n for d, n in enumerate(common))
        )
    n = x.shape[dim]
    indices = where(compare("lt", indices, 0), add(indices, n), indices)  # -1 is the last
    return apply(GATHER, (x, indices), dim=dim)


def masked_fill(x: Tensor, mask: Any, value: Any) -> Tensor:
    """``x`` with ``value`` wherever the bool ``mask`` (broadcast) is True.

    ``value`` is a number or a 0-d tensor (then differentiable too).

    >>> import minigrad as mg
    >>> mg.tensor([1.0, 2.0, 3.0]).masked_fill(mg.tensor([True, False, True]), 0.0)
    tensor([0., 2., 0.])
    """
    x = as_tensor(x)
    mask = as_tensor(mask, x)
    if mask.dtype != dtypes.bool_:
        raise IndexDtypeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{_C_NAMES.get(mask.dtype.name, mask.dtype.name)}\n"
            "make one with a comparison, e.g. x.masked_fill(x < 0, 0.0)"
        )
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ShapeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s).\nfor a value per element use mg.where(mask, y, x)"
            )
        value = astype(value, x.dtype)
    else:
        value = Tensor.concrete(np.asarray(value).astype(x.dtype), device=x.device)
    return where(mask, value, x)
