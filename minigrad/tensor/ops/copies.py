"""PyTorch's ``*_copy`` functions: a view, then a copy of it (lessons 05-06).

``torch.permute_copy(x, dims)`` is ``x.permute(dims).clone()``: the same
values as the view, in memory of their own, so a later in-place change of
either tensor leaves the other alone. Each function here is that
composition of minigrad's view and ``clone``, so values, dtypes, gradients
and PyTorch's errors are the view's; only the argument-type check names
the ``*_copy`` function, as PyTorch's does.

    >>> import minigrad as mg
    >>> x = mg.zeros((2, 3))
    >>> y = mg.transpose_copy(x, 0, 1)
    >>> _ = y.add_(1.0)
    >>> y.shape, x.sum().item()
    ((3, 2), 0.0)
"""

from __future__ import annotations

from typing import Any

from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.dtypes import is_integer, type_name
from minigrad.tensor.ops.elementwise import tensor_arguments
from minigrad.tensor.ops.movement import getitem, reshape
from minigrad.tensor.ops.placing import strided_positions
from minigrad.tensor.ops.rearrange import clone, split
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.ops.spellings import split_with_sizes

__all__ = [
    "alias_copy",
    "as_strided_copy",
    "detach_copy",
    "diagonal_copy",
    "expand_copy",
    "narrow_copy",
    "permute_copy",
    "select_copy",
    "slice_copy",
    "split_copy",
    "split_with_sizes_copy",
    "squeeze_copy",
    "t_copy",
    "transpose_copy",
    "unbind_copy",
    "unfold_copy",
    "unsafe_split_with_sizes",
    "unsqueeze_copy",
    "view_copy",
]


def _input(op: str, input: Any) -> Tensor:
    tensor_arguments(op, input, names=("input",))
    return input


def expand_copy(input: Tensor, size: Any, *, implicit: bool = False) -> Tensor:
    """A copy of ``input.expand(size)`` (``-1`` keeps an axis's size).

    >>> import minigrad as mg
    >>> mg.expand_copy(mg.tensor([[1], [2]]), (2, 3))
    tensor([[1, 1, 1],
            [2, 2, 2]])
    """
    return clone(_input("expand_copy", input).expand(size))


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of ``diagonal(input, offset, dim1, dim2)``.

    >>> import minigrad as mg
    >>> mg.diagonal_copy(mg.arange(6).reshape(2, 3), 1)
    tensor([1, 5])
    """
    return clone(_input("diagonal_copy", input).diagonal(offset, dim1, dim2))


def permute_copy(input: Tensor, dims: Any) -> Tensor:
    """A copy of ``input.permute(dims)``.

    >>> import minigrad as mg
    >>> mg.permute_copy(mg.zeros((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    return clone(_input("permute_copy", input).permute(dims))


def t_copy(input: Tensor) -> Tensor:
    """A copy of ``input.t()`` (a matrix transposed; 0-d and 1-d tensors as they are).

    >>> import minigrad as mg
    >>> mg.t_copy(mg.tensor([[1, 2]]))
    tensor([[1],
            [2]])
    """
    return clone(_input("t_copy", input).t())


def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """A copy of ``input.transpose(dim0, dim1)``.

    >>> import minigrad as mg
    >>> mg.transpose_copy(mg.zeros((2, 3, 4)), 0, -1).shape
    (4, 3, 2)
    """
    return clone(_input("transpose_copy", input).transpose(dim0, dim1))


def squeeze_copy(input: Tensor, dim: Any = None) -> Tensor:
    """A copy of ``input.squeeze(dim)`` (every size-1 axis, or those of ``dim`` that are).

    >>> import minigrad as mg
    >>> mg.squeeze_copy(mg.zeros((1, 2, 1)), (0, 1)).shape
    (2, 1)
    """
    x = _input("squeeze_copy", input)
    return clone(x.squeeze() if dim is None else x.squeeze(dim))


def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    """A copy of ``input.unsqueeze(dim)``.

    >>> import minigrad as mg
    >>> mg.unsqueeze_copy(mg.zeros(3), -1).shape
    (3, 1)
    """
    return clone(_input("unsqueeze_copy", input).unsqueeze(dim))


def view_copy(input: Tensor, size: Any) -> Tensor:
    """``input``'s elements, in order, in a new tensor of shape ``size`` (one ``-1`` is
    inferred). As PyTorch's ``view_copy``, any layout of ``input`` is taken.

    >>> import minigrad as mg
    >>> mg.view_copy(mg.arange(6).reshape(2, 3).t(), (6,))
    tensor([0, 3, 1, 4, 2, 5])
    """
    x = _input("view_copy", input)
    if not isinstance(size, (tuple, list)) and not (
        isinstance(size, int) and not isinstance(size, bool)
    ):
        raise NotImplementedError(
            f"view_copy: size must be a tuple of ints; minigrad has no view_copy(input, "
            f"dtype) (got {size!r})\nview_copy: reinterpreting memory as another dtype is not "
            "supported"
        )
    return clone(x.reshape(size))


def unbind_copy(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """Copies of the slices of ``input`` along ``dim`` (that axis removed).

    >>> import minigrad as mg
    >>> mg.unbind_copy(mg.tensor([[1, 2], [3, 4]]), 1)
    (tensor([1, 3]), tensor([2, 4]))
    """
    return tuple(clone(part) for part in _input("unbind_copy", input).unbind(dim))


def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """A copy of ``input.unfold(dimension, size, step)``: windows of ``size`` along
    ``dimension``, one every ``step``, on a new last axis.

    >>> import minigrad as mg
    >>> mg.unfold_copy(mg.arange(5), 0, 2, 2)
    tensor([[0, 1],
            [2, 3]])
    """
    return clone(_input("unfold_copy", input).unfold(dimension, size, step))


def alias_copy(input: Tensor) -> Tensor:
    """A copy of ``input`` (PyTorch's copy of an alias: ``clone``).

    >>> import minigrad as mg
    >>> mg.alias_copy(mg.tensor([1.0, 2.0]))
    tensor([1., 2.])
    """
    return clone(_input("alias_copy", input))


def narrow_copy(input: Tensor, dim: int, start: Any, length: int) -> Tensor:
    """A copy of ``narrow(input, dim, start, length)``: ``length`` elements from ``start``.

    >>> import minigrad as mg
    >>> mg.narrow_copy(mg.arange(6).reshape(2, 3), 1, -1, 1)
    tensor([[2],
            [5]])
    """
    x = _input("narrow_copy", input)
    if x.ndim and isinstance(dim, int) and dim >= x.ndim:  # PyTorch's check, before wrapping
        raise RuntimeError(
            "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
            "(Could this error message be improved?  If so, please report an enhancement "
            f"request to PyTorch.)\nnarrow_copy: dim {dim} of a {x.ndim}-d tensor"
        )
    if x.ndim and isinstance(length, int) and length < 0:  # PyTorch's message for it here
        d = dim + x.ndim if isinstance(dim, int) and dim < 0 else dim
        n = x.shape[d] if isinstance(d, int) and 0 <= d < x.ndim else None
        at = int(start)
        if n is not None and -n <= at <= n:
            raise RuntimeError(
                f"start ({at + n if at < 0 else at}) + length ({length}) exceeds dimension "
                f"size ({n}).\nnarrow_copy: length must be 0 or more"
            )
    return clone(x.narrow(dim, start, length))


def as_strided_copy(input: Tensor, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:
    """The elements at ``storage_offset + sum(i_k * stride_k)`` for every index ``i`` of a
    tensor of ``size``, counted among ``input``'s elements in row-major order (PyTorch's
    ``as_strided(...).clone()`` of a contiguous ``input``; minigrad exposes no other
    memory order). A place read twice gets the sum of both gradients.

    >>> import minigrad as mg
    >>> mg.as_strided_copy(mg.arange(6), (2, 2), (1, 2), 1)
    tensor([[1, 3],
            [2, 4]])
    """
    x = _input("as_strided_copy", input)
    positions = strided_positions(x, size, stride, storage_offset, "as_strided_copy")
    read = getitem(reshape(x, -1), Tensor.concrete(positions, device=x.device))
    return clone(read) if positions.ndim == 0 else read


def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``select(input, dim, index)``: the slice at ``index``, that axis removed.

    >>> import minigrad as mg
    >>> mg.select_copy(mg.arange(6).reshape(2, 3), 1, -1)
    tensor([2, 5])
    """
    return clone(_input("select_copy", input).select(dim, index))


def slice_copy(input: Tensor, dim: int = 0, start: Any = None, end: Any = None,
               step: int = 1) -> Tensor:  # fmt: skip
    """A copy of ``input[..., start:end:step, ...]`` along ``dim`` (``step`` positive; the
    bounds clamped to the axis, as Python's slices).

    >>> import minigrad as mg
    >>> mg.slice_copy(mg.arange(6).reshape(2, 3), 1, 0, 10, 2)
    tensor([[0, 2],
            [3, 5]])
    """
    x = _input("slice_copy", input)
    if x.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if int(step) <= 0:
        raise RuntimeError(f"slice step must be positive\nslice_copy: got step={step}")
    d = normalize_axes(dim, x.ndim)[0]
    where = (slice(None),) * d + (slice(start, end, int(step)),)
    return clone(getitem(x, where))


def split_copy(input: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    """Copies of ``split(input, split_size, dim)``: pieces of ``split_size`` (the last may be
    shorter).

    >>> import minigrad as mg
    >>> mg.split_copy(mg.arange(5), 2)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    """
    x = _input("split_copy", input)
    if not is_integer(split_size):
        raise TypeError(
            f"split_copy(): argument 'split_size' (position 2) must be int, not "
            f"{type_name(split_size)}\nsplit_copy: give the sizes to split_with_sizes_copy"
        )
    return tuple(clone(part) for part in split(x, split_size, dim))


def split_with_sizes_copy(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Copies of ``split_with_sizes(input, split_sizes, dim)``.

    >>> import minigrad as mg
    >>> mg.split_with_sizes_copy(mg.arange(5), [2, 3])
    (tensor([0, 1]), tensor([2, 3, 4]))
    """
    x = _input("split_with_sizes_copy", input)
    return tuple(clone(part) for part in split_with_sizes(x, split_sizes, dim))


def unsafe_split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``split_with_sizes`` (PyTorch's version whose pieces skip view tracking; here the same).

    >>> import minigrad as mg
    >>> mg.unsafe_split_with_sizes(mg.arange(3), [1, 2])
    (tensor([0]), tensor([1, 2]))
    """
    return split_with_sizes(_input("unsafe_split_with_sizes", input), split_sizes, dim)


def detach_copy(input: Tensor) -> Tensor:
    """A copy of ``input.detach()``: the same values in memory of their own, outside the graph.

    >>> import minigrad as mg
    >>> mg.detach_copy(mg.tensor([1.0], requires_grad=True)).requires_grad
    False
    """
    return clone(_input("detach_copy", input).detach())
