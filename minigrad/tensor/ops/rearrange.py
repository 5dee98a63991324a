"""Rearranging tensors, built from the shape rows: flip, roll, tile, split, stack (lesson 05).

None of these needs a derivative rule of its own. Each is a short composition
of rows that already have one (``getitem``, ``reshape``, ``transpose``,
``broadcast_to``, ``concatenate``), so the chain rule through the parts is
the rule, in reverse mode, in forward mode and to any order:

- ``flip`` is a slice with step -1 (a view); its gradient is flipped back.
- ``roll`` is two slices joined the other way round.
- ``repeat``/``tile`` are ``broadcast_to`` between two reshapes: a tile of
  ``r`` copies is a new axis of size ``r``, broadcast, then merged into the
  axis it repeats. The gradient sums the copies (``sum_to``).
- ``split``, ``chunk``, ``narrow`` and ``unbind`` are slices;
  ``vstack``/``hstack`` are ``concatenate``.

The one row here is ``clone``: the identity map, computed into fresh memory.

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0])
    >>> x.repeat(2), mg.roll(x, 1), x.flip(0)
    (tensor([1., 2., 1., 2.]), tensor([2., 1.]), tensor([2., 1.]))
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.base import multi_output_views
from minigrad.tensor.ops.broadcasting import ShapeError, broadcast_to, stretch_to
from minigrad.tensor.ops.elementwise import no_numbers
from minigrad.tensor.ops.movement import (
    concatenate,
    getitem,
    reshape,
    sizes,
    tensor_sequence,
    transpose,
)
from minigrad.tensor.ops.reductions import _TORCH_DTYPE_NAMES, normalize_axes
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply


def _ints(given: tuple, op: str, argument: str) -> tuple[int, ...]:
    """``f(1, 2)`` or ``f((1, 2))`` -> ``(1, 2)``; every entry an integer (any sign)."""
    if len(given) == 1 and isinstance(given[0], (tuple, list)):
        given = tuple(given[0])
    for n in given:
        if not dtypes.is_integer(n):
            raise TypeError(
                f"{op}(): argument '{argument}' must be tuple of ints, but found element of type "
                f"{dtypes.type_name(n)}\ngot {given!r}; give whole numbers"
            )
    return tuple(int(n) for n in given)


def _axis(dim: Any, axis: Any, op: str, default: Any = None) -> Any:
    """The axis argument, spelled ``dim`` (PyTorch) or ``axis`` (NumPy)."""
    if axis is None:
        return dim
    if dim is not None and dim != default:
        raise TypeError(f"{op}(): give the axis once, as dim= (PyTorch) or axis= (NumPy)")
    return axis


def _one_axis(dim: Any, ndim: int) -> int:
    return normalize_axes(dim, ndim)[0] if ndim else 0


def _slice_along(ndim: int, dim: int, part: Any) -> tuple:
    return (slice(None),) * dim + (part,) + (slice(None),) * (ndim - dim - 1)


# -- the identity, in fresh memory -------------------------------------------------------
# ``where(True, x, x)`` reads every element once and writes a new array on
# every backend (``astype`` to the same dtype may hand back the input itself).
CLONE = Primitive(
    "clone",
    lambda backend, x: backend.where(backend.full((), True, dtypes.bool_), x, x),
    # The identity map is linear and its own transpose: forward mode clones the
    # tangent, reverse mode passes the cotangent through. (Not the elementwise
    # form: that form promises a scalar body to fuse, and a fused copy is no copy.)
    linear=(lambda g, x: g,),
    batch=lambda xs, batched: apply(CLONE, (xs[0],)),  # a copy of the batch (lesson 14)
)


def clone(x: Tensor) -> Tensor:
    """A copy of ``x`` in its own memory; gradients flow through it unchanged.

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0], requires_grad=True)
    >>> x.clone()
    tensor([1., 2.], grad_fn=<clone>)
    """
    return apply(CLONE, (x,))


# -- views of the same elements ----------------------------------------------------------
def expand(x: Tensor, *sizes_: Any) -> Tensor:
    """``x`` broadcast to ``sizes`` (a view); -1 keeps an existing axis's size.

    >>> import minigrad as mg
    >>> mg.zeros((2, 1)).expand(3, -1, 4).shape
    (3, 2, 4)
    """
    shape = _ints(sizes_, "expand", "size")
    lead = len(shape) - x.ndim
    if lead < 0:  # PyTorch's message, which names the tensor's type and sizes
        name = _TORCH_DTYPE_NAMES.get(x.dtype.name, x.dtype.name)
        kind = "CPUBoolType" if name == "Bool" else f"torch.{name}Tensor"
        raise ShapeError(
            f"expand({kind}{{[{', '.join(str(n) for n in x.shape)}]}}, "
            f"size={list(shape)}): the number of sizes provided ({len(shape)}) must be greater "
            f"or equal to the number of dimensions in the tensor ({x.ndim})\nexpand: give at "
            f"least one size for each axis of {x.shape}"
        )
    for d, n in enumerate(shape):
        if n == -1 and d < lead:
            raise ShapeError(
                f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                f"dimension {d}\nexpand: -1 keeps the size of an axis that {x.shape} already has"
            )
        if n < -1:
            raise ShapeError(f"expand: size {n} at position {d} of {list(shape)} is negative")
    shape = tuple(x.shape[d - lead] if n == -1 else n for d, n in enumerate(shape))
    return broadcast_to(x, shape)


def flatten(x: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge axes ``start_dim`` to ``end_dim`` (both included) into one.

    >>> import minigrad as mg
    >>> mg.zeros((2, 3, 4)).flatten(1).shape, mg.zeros((2, 3, 4)).flatten(0, 1).shape
    ((2, 12), (6, 4))
    """
    if x.ndim == 0:
        normalize_axes(start_dim, 0), normalize_axes(end_dim, 0)
        return reshape(x, 1)
    start, end = normalize_axes(start_dim, x.ndim)[0], normalize_axes(end_dim, x.ndim)[0]
    if start > end:
        raise ShapeError(
            "flatten() has invalid args: start_dim cannot come after end_dim\n"
            f"flatten: start_dim={start_dim} is axis {start}, end_dim={end_dim} is axis {end} "
            f"of shape {x.shape}"
        )
    merged = math.prod(x.shape[start : end + 1])
    return reshape(x, (*x.shape[:start], merged, *x.shape[end + 1 :]))


def movedim(x: Tensor, source: Any, destination: Any) -> Tensor:
    """Move axes ``source`` to positions ``destination``; the others keep their order.

    >>> import minigrad as mg
    >>> mg.zeros((2, 3, 4)).movedim(0, -1).shape
    (3, 4, 2)
    """
    single = dtypes.is_integer(source) and dtypes.is_integer(destination)
    src = (source,) if dtypes.is_integer(source) else tuple(source)
    dst = (destination,) if dtypes.is_integer(destination) else tuple(destination)
    if not single and len(src) != len(dst):
        raise ShapeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    src_axes = [_one_axis(d, x.ndim) for d in src]
    dst_axes = [_one_axis(d, x.ndim) for d in dst]
    for name, given, axes in (("source", src, src_axes), ("destination", dst, dst_axes)):
        if len(set(axes)) != len(axes):
            raise ShapeError(f"movedim: repeated dim in `{name}` ({list(given)})")
    order = [d for d in range(x.ndim) if d not in src_axes]
    for to, frm in sorted(zip(dst_axes, src_axes)):
        order.insert(to, frm)
    return transpose(x, tuple(order)) if x.ndim else x


#: NumPy's name for ``movedim`` (PyTorch has both).
moveaxis = movedim


def flip(x: Tensor, dims: Any = None, *more: Any, axis: Any = None) -> Tensor:
    """Reverse the order of elements along ``dims`` (all axes when none are given).

    ``dims`` is an int or a tuple; ``x.flip(0, 1)`` names several, as in PyTorch.

    >>> import minigrad as mg
    >>> mg.tensor([[1, 2], [3, 4]]).flip(1)
    tensor([[2, 1],
            [4, 3]])
    """
    dims = _axis((dims, *more) if more else dims, axis, "flip")
    if dims is None:
        axes = tuple(range(x.ndim))
    else:
        given = _ints(dims if isinstance(dims, tuple) else (dims,), "flip", "dims")
        axes = tuple(_one_axis(d, x.ndim) for d in given)
        for a in axes:
            if axes.count(a) > 1:
                raise ShapeError(f"dim {a} appears multiple times in the list of dims")
    if not axes or x.ndim == 0:
        return x
    return getitem(x, tuple(slice(None, None, -1) if d in axes else slice(None)
                            for d in range(x.ndim)))  # fmt: skip


def roll(x: Tensor, shifts: Any, dims: Any = None, *, axis: Any = None) -> Tensor:
    """Shift elements along ``dims`` by ``shifts``, wrapping around; no dims: the flat order.

    >>> import minigrad as mg
    >>> mg.roll(mg.tensor([1, 2, 3, 4]), 1), mg.roll(mg.tensor([1, 2, 3, 4]), -1)
    (tensor([4, 1, 2, 3]), tensor([2, 3, 4, 1]))
    """
    no_numbers("roll", x)
    dims = _axis(dims, axis, "roll")
    shifts = _ints(shifts if isinstance(shifts, (tuple, list)) else (shifts,), "roll", "shifts")
    if not shifts:
        raise ShapeError("`shifts` required\nroll: give a shift, e.g. mg.roll(x, 1)")
    if dims is None:
        if len(shifts) != 1:
            raise ShapeError(
                f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0\n"
                "roll: without dims the flattened tensor is rolled by one shift"
            )
        return reshape(roll(reshape(x, -1), shifts, 0), x.shape)
    dims = _ints(dims if isinstance(dims, (tuple, list)) else (dims,), "roll", "dims")
    if len(dims) != len(shifts):
        raise ShapeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}\n"
            "roll: give one shift per dimension"
        )
    for shift, dim in zip(shifts, dims):
        if x.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = _one_axis(dim, x.ndim)
        n = x.shape[d] if x.ndim else 1
        k = shift % n if n else 0
        if k:  # the last k elements come first
            tail = getitem(x, _slice_along(x.ndim, d, slice(n - k, None)))
            head = getitem(x, _slice_along(x.ndim, d, slice(0, n - k)))
            x = concatenate([tail, head], axis=d)
    return x


# -- copies: tiles and pieces -------------------------------------------------------------
def repeat(x: Tensor, *repeats: Any) -> Tensor:
    """PyTorch's ``x.repeat``: tile ``x``, ``repeats[i]`` copies along axis ``i``.

    Needs at least one count per axis of ``x``; extra counts add leading axes.
    (NumPy's ``repeat``, which repeats each element, is ``repeat_interleave``
    in PyTorch: a different operation.)

    >>> import minigrad as mg
    >>> mg.tensor([[1, 2]]).repeat(2, 2)
    tensor([[1, 2, 1, 2],
            [1, 2, 1, 2]])
    """
    if not repeats:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    counts = sizes(repeats, "repeat", argument="repeats")
    if len(counts) < x.ndim:
        raise ShapeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            f"of tensor\nrepeat: {len(counts)} counts {list(counts)} for a tensor of shape "
            f"{x.shape}; mg.tile pads the counts with 1s"
        )
    shape = (1,) * (len(counts) - x.ndim) + x.shape
    # Axis i becomes the pair (copies, size): broadcast the copies, merge the pair.
    interleaved = reshape(x, tuple(n for size in shape for n in (1, size)))
    spread = stretch_to(interleaved, tuple(n for r, s in zip(counts, shape) for n in (r, s)))
    return reshape(spread, tuple(r * s for r, s in zip(counts, shape)))


def tile(x: Tensor, dims: Any) -> Tensor:
    """Tile ``x``: like ``repeat``, but fewer counts than axes are padded with 1s in front.

    >>> import minigrad as mg
    >>> mg.tile(mg.tensor([[1, 2]]), (2,))
    tensor([[1, 2, 1, 2]])
    """
    no_numbers("tile", x)
    counts = sizes(dims if isinstance(dims, (tuple, list)) else (dims,), "tile", argument="dims")
    return repeat(x, (1,) * (x.ndim - len(counts)) + counts)


def split(x: Tensor, split_size_or_sections: Any, dim: int = 0, *, axis: Any = None):
    """Pieces of ``x`` along ``dim``: of equal size (an int; the last may be smaller) or of
    the sizes listed (which must add up to the axis's size).

    >>> import minigrad as mg
    >>> [t.tolist() for t in mg.split(mg.arange(5), 2)]
    [[0, 1], [2, 3], [4]]
    """
    if isinstance(x, numbers.Number):  # PyTorch's split asks the number to split
        raise AttributeError(
            f"'{dtypes.type_name(x)}' object has no attribute 'split'\n"
            "split takes a tensor, as PyTorch's: give the number as a tensor, e.g. mg.tensor(2.0)"
        )
    dim = _axis(dim, axis, "split", default=0)
    if x.ndim == 0:
        raise ShapeError(
            "split expects at least a 1-dimensional tensor\nsplit: a 0-d tensor has no "
            "dimension to split; reshape it first"
        )
    d = _one_axis(dim, x.ndim)
    n = x.shape[d]
    if dtypes.is_integer(split_size_or_sections):
        size = int(split_size_or_sections)
        if size < 0:
            raise ShapeError(f"split expects split_size be non-negative, but got split_size={size}")
        if size == 0 and n:
            raise ShapeError(
                "split_size can only be 0 if dimension size is 0, but got dimension size of "
                f"{n}\nsplit: a piece size of 0 never reaches the end of dimension {d}"
            )
        starts = range(0, n, size) if n else [0]
        bounds = [(s, min(s + size, n)) for s in starts]
    else:
        sections = _ints(tuple(split_size_or_sections), "split", "split_size")
        if any(s < 0 for s in sections):
            raise ShapeError(
                "split_with_sizes expects split_sizes have only non-negative entries, but got "
                f"split_sizes={list(sections)}"
            )
        if sum(sections) != n:
            raise ShapeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
                f"at dimension {d}), but got split_sizes={list(sections)}"
            )
        ends = [sum(sections[: i + 1]) for i in range(len(sections))]
        bounds = [(end - s, end) for s, end in zip(sections, ends)]
    pieces = tuple(getitem(x, _slice_along(x.ndim, d, slice(a, b))) for a, b in bounds)
    sized = not dtypes.is_integer(split_size_or_sections)
    return multi_output_views(pieces, "SplitWithSizes" if sized else "Split")


def chunk(x: Tensor, chunks: int, dim: int = 0, *, axis: Any = None) -> tuple[Tensor, ...]:
    """At most ``chunks`` pieces of equal size along ``dim`` (the last may be smaller).

    >>> import minigrad as mg
    >>> [t.tolist() for t in mg.chunk(mg.arange(6), 4)]
    [[0, 1], [2, 3], [4, 5]]
    """
    no_numbers("chunk", x)
    dim = _axis(dim, axis, "chunk", default=0)
    if not dtypes.is_integer(chunks) or chunks <= 0:
        raise ShapeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if x.ndim == 0:
        raise ShapeError("chunk expects at least a 1-dimensional tensor")
    d = _one_axis(dim, x.ndim)
    n = x.shape[d]
    if n == 0:  # as PyTorch: `chunks` empty pieces
        return tuple(getitem(x, _slice_along(x.ndim, d, slice(0, 0))) for _ in range(chunks))
    return split(x, -(-n // chunks), d)


def _whole(n: Any, name: str) -> int:
    """``start`` or ``length`` of ``narrow``: an int, or (as PyTorch) a 0-d integer tensor."""
    if isinstance(n, Tensor):
        if n.ndim != 0 or n.dtype.kind not in "iu":
            raise ShapeError(
                f"{name} must be an 0-dim integral Tensor.\nnarrow: got a {n.dtype.name} "
                f"tensor of shape {n.shape}"
            )
        return int(n.item())
    if not dtypes.is_integer(n):
        raise TypeError(
            "narrow() received an invalid combination of arguments - got "
            f"{dtypes.type_name(n)} {name}={n!r}\nnarrow: start and length are whole numbers"
        )
    return int(n)


def narrow(x: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The ``length`` elements from ``start`` along ``dim`` (a view).

    >>> import minigrad as mg
    >>> mg.arange(5).narrow(0, 1, 3)
    tensor([1, 2, 3])
    """
    if x.ndim == 0:
        raise ShapeError("narrow() cannot be applied to a 0-dim tensor.")
    start, length = _whole(start, "start"), _whole(length, "length")
    d = _one_axis(dim, x.ndim)
    n = x.shape[d]
    if not -n <= start <= n:
        raise IndexError(
            f"start out of range (expected to be in range of [{-n}, {n}], but got {start})"
        )
    if length < 0:
        raise ShapeError("narrow(): length must be non-negative.")
    start = start + n if start < 0 else start
    if start + length > n:
        raise ShapeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({n}).\n"
            f"narrow: dimension {d} of shape {x.shape}"
        )
    return getitem(x, _slice_along(x.ndim, d, slice(start, start + length)))


def unbind(x: Tensor, dim: int = 0, *, axis: Any = None) -> tuple[Tensor, ...]:
    """The slices of ``x`` along ``dim``, that axis removed.

    >>> import minigrad as mg
    >>> mg.unbind(mg.tensor([[1, 2], [3, 4]]), 1)
    (tensor([1, 3]), tensor([2, 4]))
    """
    dim = _axis(dim, axis, "unbind", default=0)
    if x.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _one_axis(dim, x.ndim)
    slices = tuple(getitem(x, _slice_along(x.ndim, d, i)) for i in range(x.shape[d]))
    return multi_output_views(slices, "Unbind")


# -- joining -----------------------------------------------------------------------------
def cat(tensors: Any, dim: int = 0, *, axis: Any = None, out: Any = None) -> Tensor:
    """PyTorch's name for ``concatenate``: join tensors along an existing axis.

    There is no ``out=`` (it is named only to check ``tensors`` first, as PyTorch does).

    >>> import minigrad as mg
    >>> mg.cat([mg.ones(2), mg.zeros(1)])
    tensor([1., 1., 0.])
    """
    return _cat(tensors, dim, axis, out, "cat")


def concat(tensors: Any, dim: int = 0, *, axis: Any = None, out: Any = None) -> Tensor:
    """``cat`` under PyTorch's other name (its errors name ``concat``, as PyTorch's do).

    >>> import minigrad as mg
    >>> mg.concat([mg.ones((1, 2)), mg.zeros((1, 2))], dim=1)
    tensor([[1., 1., 0., 0.]])
    """
    return _cat(tensors, dim, axis, out, "concat")


def _cat(tensors: Any, dim: Any, axis: Any, out: Any, op: str) -> Tensor:
    tensors = tensor_sequence(tensors, op)
    if out is not None:
        raise TypeError(
            f"{op}() got an unexpected keyword argument 'out'\n"
            f"{op}: minigrad has no out=; write the result in place with out.copy_(mg.{op}(...))"
        )
    return concatenate(tensors, _axis(dim, axis, op, default=0))


def _listed(tensors: Any, op: str) -> list[Tensor]:
    tensors = [
        t if isinstance(t, Tensor) else Tensor.concrete(t) for t in tensor_sequence(tensors, op)
    ]
    if not tensors:
        raise ShapeError(f"{op} expects a non-empty TensorList")
    return tensors


def vstack(tensors: Any) -> Tensor:
    """Stack rows: 1-D tensors become rows of a matrix, then join along axis 0.

    >>> import minigrad as mg
    >>> mg.vstack([mg.tensor([1, 2]), mg.tensor([3, 4])])
    tensor([[1, 2],
            [3, 4]])
    """
    tensors = _listed(tensors, "vstack")
    rows = [reshape(t, (1, t.size)) if t.ndim < 2 else t for t in tensors]
    return concatenate(rows, 0)


def hstack(tensors: Any) -> Tensor:
    """Stack columns: 1-D tensors join end to end, others along axis 1.

    >>> import minigrad as mg
    >>> mg.hstack([mg.tensor([1, 2]), mg.tensor([3])])
    tensor([1, 2, 3])
    """
    tensors = _listed(tensors, "hstack")
    tensors = [reshape(t, 1) if t.ndim == 0 else t for t in tensors]
    return concatenate(tensors, 0 if tensors[0].ndim == 1 else 1)
