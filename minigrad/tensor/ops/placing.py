"""Writing values into a copy of a tensor at chosen places (lessons 05-06).

PyTorch's ``index_copy``, ``index_reduce``, ``put``, ``masked_scatter`` and the
``*_scatter`` family (``diagonal_scatter``, ``select_scatter``,
``slice_scatter``, ``as_strided_scatter``) each return ``input`` with some
of its elements replaced. Every one is a composition of rows the registry
has: the places are positions (whole numbers) found from the arguments,
and the writing is ``scatter`` or ``scatter_reduce`` (``scattering.py``),
whose derivatives are written once there: ``input``'s gradient is zero
where something was written, the written values gather theirs. Only
PyTorch's checks of the arguments, in PyTorch's order, are written here.

    >>> import minigrad as mg
    >>> mg.zeros((2, 3)).index_copy(1, mg.tensor([2, 0]), mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[2., 0., 1.],
            [4., 0., 3.]])
    >>> mg.select_scatter(mg.zeros((2, 2)), mg.tensor([5.0, 6.0]), 0, -1)
    tensor([[0., 0.],
            [5., 6.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.broadcasting import broadcast_shape, stretch_to
from minigrad.tensor.ops.contractions import diagonal
from minigrad.tensor.ops.counterparts import _outside
from minigrad.tensor.ops.elementwise import add, compare, where
from minigrad.tensor.ops.indexing import dim_argument
from minigrad.tensor.ops.layout import select
from minigrad.tensor.ops.matrix_products import _SCALAR_NAMES
from minigrad.tensor.ops.movement import getitem, reshape
from minigrad.tensor.ops.rearrange import clone
from minigrad.tensor.ops.scattering import scatter, scatter_reduce

__all__ = [
    "as_strided_scatter",
    "diagonal_scatter",
    "index_copy",
    "index_reduce",
    "masked_scatter",
    "put",
    "select_scatter",
    "slice_scatter",
]


def _name(dtype: np.dtype) -> str:
    """PyTorch's name of a dtype in its messages (``Float``, ``Long``)."""
    return _SCALAR_NAMES.get(dtype.name, dtype.name)


def _tensors(op: str, *named: tuple[str, int, Any]) -> None:
    """PyTorch's TypeError for the first of ``(name, position, value)`` not a tensor."""
    for name, position, value in named:
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
                f"{dtypes.type_name(value)}\n{op} takes {name} as a tensor, e.g. "
                f"mg.tensor([0, 2])"
            )


def _along(index: Tensor, dim: int, shape: tuple) -> Tensor:
    """A vector of positions along ``dim`` spread to ``shape`` (``index``'s length there)."""
    lined = reshape(index, [index.size if a == dim else 1 for a in range(len(shape))])
    return stretch_to(lined, shape)


def _wrapped(positions: Tensor, n: int) -> Tensor:
    """Negative positions counted from the end (``-1`` is ``n - 1``)."""
    return where(compare("lt", positions, 0), add(positions, n), positions)


def _outside_from_zero(index: Tensor, n: int) -> int | None:
    """The first position of ``index`` outside ``[0, n)`` (PyTorch counts no position from
    the end here), where the values are known; or None."""
    try:
        values = np.asarray(index.detach().numpy()).reshape(-1)
    except TracerError:
        return None
    bad = np.flatnonzero((values < 0) | (values >= n))
    return int(values[bad[0]]) if bad.size else None


def _spaced(sizes: list) -> str:
    return " ".join(str(n) for n in sizes)


# -- index_copy, index_reduce -------------------------------------------------------------------
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``input`` with slice ``index[k]`` along ``dim`` replaced by ``source``'s slice ``k``.

    ``index`` holds int64 positions from 0 to ``input.shape[dim] - 1``; where one
    repeats, the slice written last stays (as on PyTorch's CPU). Gradients: ``input``'s
    is zero on the replaced slices, ``source`` gathers its slices' (every writer's).

    >>> import minigrad as mg
    >>> mg.index_copy(mg.zeros(4), 0, mg.tensor([3, 0]), mg.tensor([1.0, 2.0]))
    tensor([2., 0., 0., 1.])
    """
    _tensors("index_copy", ("input", 1, input), ("index", 3, index), ("source", 4, source))
    d = dim_argument(dim, None, input.ndim)
    op = "index_copy_()"
    if index.ndim > 1:
        raise IndexError(
            f"{op}: Index should have dimension 1 or 0 (got {index.ndim})\n"
            f"index_copy: index has shape {index.shape}; give a vector of positions"
        )
    k = index.size
    if source.ndim == 0 and k != 1:
        raise IndexError(
            f"{op}: When source is scalar, index should have one element (got {k})\n"
            "index_copy: a 0-d source fills one slice"
        )
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError(
            f"{op}: When source and destination are not scalars, their dimensionality must "
            f"match. Source dimensionality ({source.ndim}), destination dimensionality "
            f"({input.ndim})\nindex_copy: source has shape {source.shape}, input {input.shape}"
        )
    if index.dtype != dtypes.int64:
        raise RuntimeError(
            f"{op}: Expected a long tensor for index, but got {_name(index.dtype)}\n"
            "index_copy: make the positions int64, e.g. index.to(mg.int64)"
        )
    if source.dtype != input.dtype:
        raise RuntimeError(
            f"{op}: self and source expected to have the same dtype, but got (self) "
            f"{_name(input.dtype)} and (source) {_name(source.dtype)}\n"
            "index_copy: convert one first, e.g. source.to(input.dtype)"
        )
    rest_x = [n for a, n in enumerate(input.shape) if a != d]
    rest_s = [n for a, n in enumerate(source.shape) if a != d]
    if rest_x != rest_s:
        raise RuntimeError(
            f"{op}: Source/destination tensor must have same slice shapes. Destination slice "
            f"shape: {_spaced(rest_x)} at dimension {d} and source slice shape: "
            f"{_spaced(rest_s)} at dimension 0.\nindex_copy: source has shape "
            f"{source.shape}, input {input.shape}; they differ only along dim {d}"
        )
    if source.ndim and k != source.shape[d]:
        raise IndexError(
            f"{op}: Number of indices ({k}) should be equal to source.size(dim) "
            f"({source.shape[d]})\nindex_copy: one position for each slice of source"
        )
    n = input.shape[d] if input.ndim else 1
    bad = _outside_from_zero(index, n)
    if bad is not None:
        raise IndexError(
            f"{op}: index {bad} is out of bounds for dimension {d} with size {n}\n"
            f"index_copy: positions count from 0 to {n - 1}"
        )
    x = input if input.ndim else reshape(input, 1)
    want = tuple(k if a == d else m for a, m in enumerate(x.shape))
    out = scatter(x, d, _along(index, d, want), reshape(source, want))
    return out if input.ndim else reshape(out, ())


INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:  # fmt: skip
    """``input`` with the slices of ``source`` combined by ``reduce`` into slice ``index[k]``
    along ``dim``: ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``; with
    ``include_self=False`` a slice written to forgets ``input``'s values.

    ``scatter_reduce`` along ``dim`` with ``index`` spread over ``source``'s shape, so its
    gradients (shared among ties for ``amax``/``amin``) and integer means (rounded down).

    >>> import minigrad as mg
    >>> x = mg.ones((2, 2))
    >>> mg.index_reduce(x, 1, mg.tensor([0, 0]), mg.tensor([[2.0, 3.0], [4.0, 5.0]]), "prod")
    tensor([[ 6.,  1.],
            [20.,  1.]])
    """
    _tensors("index_reduce", ("input", 1, input), ("index", 3, index), ("source", 4, source))
    if reduce not in INDEX_REDUCTIONS:
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}.\nindex_reduce: for sums use index_add"
        )
    d = dim_argument(dim, None, input.ndim)
    op = "index_reduce_()"
    if index.ndim > 1:
        raise IndexError(
            f"{op}: Index is supposed to be a vector, but got dim: {index.ndim} with type: "
            f"{_name(index.dtype)} and size: {list(index.shape)}\n"
            "index_reduce: give a vector of positions"
        )
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(
            f"{op}: Expected dtype int32/int64 for index but got: {_name(index.dtype)}\n"
            "index_reduce: make the positions integers, e.g. index.to(mg.int64)"
        )
    if source.dtype != input.dtype:
        raise RuntimeError(
            f"{op}: self ({_name(input.dtype)}) and source ({_name(source.dtype)}) must have "
            "the same scalar type\nindex_reduce: convert one first, e.g. source.to(input.dtype)"
        )
    if d != 0 and d >= source.ndim:
        raise RuntimeError(
            f"{op}: Indexing dim {d} is out of bounds of the source tensor with dim "
            f"{source.ndim}\nindex_reduce: source has shape {source.shape}"
        )
    k = index.size
    along_source = source.shape[d] if source.ndim else 1
    if k != along_source:
        raise RuntimeError(
            f"{op}: Number of indices ({k}) should be equal to source.size(dim): "
            f"({along_source}), for dim: {d}\nindex_reduce: one position per slice of source"
        )
    rest_x, rest_s = list(input.shape), list(source.shape)
    if input.ndim and source.ndim:
        del rest_x[d], rest_s[d]
    if rest_x != rest_s:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(input.shape)} source.shape = "
            f"{list(source.shape)}\nindex_reduce: they differ only along dim {d}"
        )
    n = input.shape[d] if input.ndim else 1
    if _outside_from_zero(index, n) is not None:
        raise IndexError(
            f"index out of range in self\nindex_reduce: positions count from 0 to {n - 1}"
        )
    if input.dtype == dtypes.bool_:  # PyTorch's kernels that take no bools, in its order
        kernel = ("index_reduce_func_exclude_input_init" if not include_self else
                  "index_func_" if input.ndim <= 1 else "div_floor_cpu" if reduce == "mean"
                  else None)  # fmt: skip
        if kernel:
            raise NotImplementedError(
                f"\"{kernel}\" not implemented for 'Bool'\nindex_reduce: convert first, "
                "e.g. x.to(mg.int64)"
            )
    x = input if input.ndim else reshape(input, 1)
    want = tuple(k if a == d else m for a, m in enumerate(x.shape))
    out = scatter_reduce(x, d, _along(index.to(dtypes.int64), d, want), reshape(source, want),
                         reduce, include_self=include_self)  # fmt: skip
    return out if input.ndim else reshape(out, ())


# -- put, masked_scatter ------------------------------------------------------------------------
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with the elements of ``source`` written (``accumulate``: added) at the
    int64 positions ``index`` of the flattened input (``-1`` is the last element).

    Where a position repeats, the value written last stays; with ``accumulate`` they add up.

    >>> import minigrad as mg
    >>> mg.put(mg.zeros((2, 2)), mg.tensor([0, -1]), mg.tensor([1.0, 2.0]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    _tensors("put", ("input", 1, input), ("index", 2, index), ("source", 3, source))
    if index.dtype != dtypes.int64:
        raise RuntimeError(
            f"put_(): Expected a long tensor for index, but got {_name(index.dtype)}\n"
            "put: make the positions int64, e.g. index.to(mg.int64)"
        )
    if source.dtype != input.dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{_name(input.dtype)} and source.dtype = {_name(source.dtype)}\n"
            "put: convert one first, e.g. source.to(input.dtype)"
        )
    if source.size != index.size:
        raise IndexError(
            f"put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.size}, index.numel() = {index.size}\n"
            "put: one value for each position"
        )
    n = input.size
    if n == 0 and index.size:
        raise IndexError(
            f"put_(): Tried to put elements into an empty tensor\nput: input has shape "
            f"{input.shape}"
        )
    bad = _outside(index, n)
    if bad is not None:
        raise IndexError(
            f"out of range: tried to access index {bad} on a tensor of {n} elements.\n"
            f"put: positions count from {-n} to {n - 1}"
        )
    flat, values = reshape(input, -1), reshape(source, -1)
    positions = _wrapped(reshape(index, -1), n)
    if accumulate:
        out = scatter_reduce(flat, 0, positions, values, "sum")
        if input.dtype == dtypes.bool_:  # PyTorch's sum of bools: any
            out = out.to(dtypes.bool_)
    else:
        out = scatter(flat, 0, positions, values)
    return reshape(out, input.shape)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``input`` (broadcast with ``mask``) with the elements where the bool ``mask`` holds
    replaced by ``source``'s first elements, in order (row by row).

    The mask is read to know how many elements are taken (as by ``masked_select``).
    Gradients: ``input``'s where ``mask`` is False, ``source``'s first elements gather
    theirs.

    >>> import minigrad as mg
    >>> x = mg.zeros((2, 2))
    >>> mg.masked_scatter(x, mg.tensor([[True, False], [True, True]]), mg.arange(1.0, 5.0))
    tensor([[1., 0.],
            [2., 3.]])
    """
    _tensors("masked_scatter", ("input", 1, input), ("mask", 2, mask), ("source", 3, source))
    shape = broadcast_shape(mask.shape, input.shape, op="masked_scatter")
    if source.dtype != input.dtype:
        raise RuntimeError(
            f"masked_scatter: expected self and source to have same dtypes but got"
            f"{_name(input.dtype)} and {_name(source.dtype)}\n"
            "masked_scatter: convert one first, e.g. source.to(input.dtype)"
        )
    if mask.dtype != dtypes.bool_:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{_name(mask.dtype)}\nmasked_scatter: make the mask with a comparison, e.g. x > 0"
        )
    chosen = np.broadcast_to(mask._numpy(), shape).reshape(-1)
    taken = int(chosen.sum())
    if taken > source.size:
        raise RuntimeError(
            f"Number of elements of source < number of ones in mask\nmasked_scatter: the "
            f"mask holds at {taken} places, source has {source.size} elements"
        )
    order = np.maximum(np.cumsum(chosen) - 1, 0).reshape(shape)
    x = stretch_to(input, shape)
    if not taken:
        return clone(x)
    read = getitem(reshape(source, -1), Tensor.concrete(order, device=input.device))
    return where(stretch_to(mask, shape), read, x)


def mask_fits(input: Tensor, mask: Any) -> None:
    """``x.masked_scatter_(mask, ...)``: PyTorch's error where ``mask`` does not expand to
    ``x``'s own shape (the in-place result keeps it)."""
    if not isinstance(mask, Tensor) or mask.ndim <= input.ndim:
        if isinstance(mask, Tensor):
            stretch_to(mask, input.shape)  # PyTorch's message where the sizes do not fit
        return
    sizes = ", ".join(str(n) for n in mask.shape)
    raise RuntimeError(
        f"expand(CPU{_name(mask.dtype)}Type{{[{sizes}]}}, size={list(input.shape)}): the number "
        f"of sizes provided ({input.ndim}) must be greater or equal to the number of "
        f"dimensions in the tensor ({mask.ndim})\nmasked_scatter_: the mask has shape "
        f"{mask.shape}; in place, it must broadcast to {input.shape}"
    )


# -- the *_scatter family: the inverse of a view --------------------------------------------------
def _numbered(x: Tensor) -> np.ndarray:
    return np.arange(x.size, dtype=np.int64).reshape(x.shape)


def _into(input: Tensor, src: Tensor, view: Tensor, positions: np.ndarray) -> Tensor:
    """``input`` with its elements at ``positions`` (the view's places, all different)
    replaced by ``src`` (cast to ``input``'s dtype), which must have the view's shape."""
    if not isinstance(src, Tensor):
        raise TypeError(f"argument 'src' must be Tensor, not {dtypes.type_name(src)}")
    if src.shape != view.shape:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(view.shape)}\nsrc has the shape the "
            f"view of input has"
        )
    values = reshape(src.to(input.dtype), -1)
    if not values.size:
        return clone(input)
    flat = reshape(input, -1)
    spots = Tensor.concrete(positions.reshape(-1), device=input.device)
    return reshape(scatter(flat, 0, spots, values), input.shape)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> Tensor:  # fmt: skip
    """``input`` with the diagonal ``diagonal(input, offset, dim1, dim2)`` replaced by
    ``src`` (of that diagonal's shape; cast to ``input``'s dtype).

    >>> import minigrad as mg
    >>> mg.diagonal_scatter(mg.zeros((2, 3)), mg.tensor([1.0, 2.0]), 1)
    tensor([[0., 1., 0.],
            [0., 0., 2.]])
    """
    _tensors("diagonal_scatter", ("input", 1, input), ("src", 2, src))
    view = diagonal(input, offset, dim1, dim2)
    d1, d2 = dim_argument(dim1, None, input.ndim), dim_argument(dim2, None, input.ndim)
    return _into(input, src, view, np.diagonal(_numbered(input), offset, d1, d2))


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """``input`` with ``select(input, dim, index)`` replaced by ``src`` (of its shape).

    >>> import minigrad as mg
    >>> mg.select_scatter(mg.zeros((2, 2)), mg.tensor([1.0, 2.0]), 1, 0)
    tensor([[1., 0.],
            [2., 0.]])
    """
    _tensors("select_scatter", ("input", 1, input), ("src", 2, src))
    view = select(input, dim, index)
    d = dim_argument(dim, None, input.ndim)
    return _into(input, src, view, np.take(_numbered(input), int(index), axis=d))


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None,
                  end: int | None = None, step: int = 1) -> Tensor:  # fmt: skip
    """``input`` with the slice ``start:end:step`` along ``dim`` replaced by ``src`` (of the
    slice's shape). Ends past the axis are clamped, as in ``x[start:end:step]``.

    >>> import minigrad as mg
    >>> mg.slice_scatter(mg.zeros(5), mg.tensor([1.0, 2.0]), 0, 1, None, 3)
    tensor([0., 1., 0., 0., 2.])
    """
    _tensors("slice_scatter", ("input", 1, input), ("src", 2, src))
    if input.ndim == 0:
        raise IndexError(
            "slice() cannot be applied to a 0-dim tensor.\nslice_scatter: input is 0-d"
        )
    d = dim_argument(dim, None, input.ndim)
    if step <= 0:
        raise RuntimeError(
            f"slice step must be positive\nslice_scatter: got step={step}; reverse with flip"
        )
    cut = (slice(None),) * d + (slice(start, end, step),)
    return _into(input, src, getitem(input, cut), _numbered(input)[cut])


# -- positions in memory (as_strided_scatter, as_strided_copy) ---------------------------------
def _whole_numbers(value: Any, op: str, name: str, position: int) -> tuple[int, ...]:
    if not isinstance(value, (tuple, list)) or not all(
        dtypes.is_integer(n) and not isinstance(n, bool) for n in value
    ):
        raise TypeError(
            f"{op}(): argument '{name}' (position {position}) must be tuple of ints, not "
            f"{dtypes.type_name(value)}\n{op}: give {name} as a tuple, e.g. (2, 3)"
        )
    return tuple(int(n) for n in value)


def strided_positions(input: Tensor, size: Any, stride: Any, storage_offset: Any,
                      op: str) -> np.ndarray:  # fmt: skip
    """The positions, among ``input``'s elements in row-major order, that a tensor of
    ``size`` with ``stride`` starting at ``storage_offset`` reads: PyTorch's ``as_strided``
    over the storage of a contiguous ``input`` (minigrad has no other storage to name).
    PyTorch's errors where the sizes, strides or offset do not fit."""
    size = _whole_numbers(size, op, "size", 2)
    stride = _whole_numbers(stride, op, "stride", 3)
    offset = 0 if storage_offset is None else int(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape\n{op}: size {size} has {len(size)} "
            f"axes, stride {stride} {len(stride)}"
        )
    if any(n < 0 for n in size):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and strides="
            f"{list(stride)}\n{op}: sizes are 0 or more"
        )
    if offset < 0:
        raise RuntimeError(
            f"Tensor: invalid storage offset {offset}\n{op}: the offset is 0 or more"
        )
    if any(k < 0 for k in stride):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(stride)}\n{op}: strides are 0 or more"
        )
    item = input.dtype.itemsize
    if all(size):
        needed = offset + sum((n - 1) * k for n, k in zip(size, stride)) + 1
        if needed > input.size:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                f"{offset}, and itemsize {item} requiring a storage size of {needed * item} "
                f"are out of bounds for storage of size {input.size * item}\n{op}: the "
                f"positions read run past input's {input.size} elements"
            )
    positions = np.full(size, offset, dtype=np.int64)
    for axis, (n, k) in enumerate(zip(size, stride)):
        positions += (np.arange(n, dtype=np.int64) * k).reshape(
            [n if a == axis else 1 for a in range(len(size))]
        )
    return positions


def as_strided_scatter(input: Tensor, src: Tensor, size: Any, stride: Any,
                       storage_offset: Any = None) -> Tensor:  # fmt: skip
    """``input`` with the elements that ``as_strided(input, size, stride, storage_offset)``
    reads replaced by ``src`` (of shape ``size``; cast to ``input``'s dtype).

    Positions count ``input``'s elements in row-major order, as PyTorch's storage of a
    contiguous tensor (for another layout PyTorch counts in its memory order; minigrad
    does not expose one). A stride of 0 along an axis of more than one element would
    write one place twice: PyTorch's error.

    >>> import minigrad as mg
    >>> mg.as_strided_scatter(mg.zeros((2, 3)), mg.tensor([1.0, 2.0]), (2,), (4,), 1)
    tensor([[0., 1., 0.],
            [0., 0., 2.]])
    """
    _tensors("as_strided_scatter", ("input", 1, input), ("src", 2, src))
    positions = strided_positions(input, size, stride, storage_offset, "as_strided_scatter")
    size, stride = tuple(size), tuple(stride)
    if all(size) and any(k == 0 and n > 1 for n, k in zip(size, stride)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to "
            "a single memory location. Please clone() the tensor before performing the "
            "operation.\nas_strided_scatter: a stride of 0 writes one place more than once"
        )
    return _into(input, src, positions, positions)
