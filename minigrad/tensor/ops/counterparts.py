"""PyTorch's smaller functions that minigrad builds from rows it has (lessons 05-06).

``msort`` is ``sort`` along axis 0, ``diagflat`` is ``diag`` of the flattened
input, ``vdot`` is ``dot`` (minigrad has no complex numbers to conjugate) and
``take`` reads the flattened input at a tensor of positions (a ``gather``).
Their derivatives, forward mode, vmap and jit are those rows'; only PyTorch's
checks of the arguments are written here.

    >>> import minigrad as mg
    >>> mg.take(mg.tensor([[1, 2], [3, 4]]), mg.tensor([[0, -1]])), mg.msort(mg.tensor([2, 1]))
    (tensor([[1, 4]]), tensor([1, 2]))
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.contractions import diag, outer
from minigrad.tensor.ops.elementwise import add, compare, parser_error, tensor_arguments, where
from minigrad.tensor.ops.indexing import GATHER, as_tensor, dim_argument
from minigrad.tensor.ops.logic import logical_and, logical_or
from minigrad.tensor.ops.matrix_products import _SCALAR_NAMES, _scaled_sum, dot, mv
from minigrad.tensor.ops.movement import reshape
from minigrad.tensor.ops.rearrange import clone, expand
from minigrad.tensor.ops.reductions import amax, amin, normalize_axes
from minigrad.tensor.ops.reductions import any as reduction_any
from minigrad.tensor.ops.reductions import sum as reduction_sum
from minigrad.tensor.ops.sorting import sort
from minigrad.tensor.record import apply

__all__ = ["addmv", "addr", "aminmax", "diagflat", "index_fill", "msort", "take", "vdot"]

AminmaxResult = namedtuple("aminmax", ["min", "max"])


def msort(input: Tensor) -> Tensor:
    """``input`` sorted along axis 0 (the values of ``sort(input, dim=0)``).

    >>> import minigrad as mg
    >>> mg.msort(mg.tensor([[3, 1], [0, 2]]))
    tensor([[0, 1],
            [3, 2]])
    """
    tensor_arguments("msort", input, names=("input",))
    return sort(input, dim=0).values


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with ``input``'s elements (flattened) on its ``offset``-th diagonal.

    >>> import minigrad as mg
    >>> mg.diagflat(mg.tensor([[1, 2]]), 1)
    tensor([[0, 1, 0],
            [0, 0, 2],
            [0, 0, 0]])
    """
    tensor_arguments("diagflat", input, names=("input",))
    return diag(reshape(input, -1), offset)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """The inner product of two vectors, ``dot`` (the first one's conjugate: itself here).

    >>> import minigrad as mg
    >>> mg.vdot(mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0]))
    tensor(11.)
    """
    tensor_arguments("vdot", input, other)
    return dot(input, other)


def take(input: Tensor, index: Tensor) -> Tensor:
    """``input`` flattened, read at the int64 positions ``index`` (-1 is the last); the
    result has ``index``'s shape.

    >>> import minigrad as mg
    >>> mg.take(mg.tensor([[1.0, 2.0], [3.0, 4.0]]), mg.tensor([3, 0]))
    tensor([4., 1.])
    """
    tensor_arguments("take", input, index, names=("input", "index"))
    if index.dtype != np.dtype(np.int64):
        name = _SCALAR_NAMES.get(index.dtype.name, index.dtype.name)
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {name}\n"
            "take: make the positions int64, e.g. index.to(mg.int64)"
        )
    n = input.size
    if n == 0 and index.size:
        raise IndexError(
            "take(): tried to take from an empty tensor\n"
            f"take: input has shape {input.shape}, index shape {index.shape}"
        )
    _in_range(index, n)
    flat = reshape(input, -1)
    positions = reshape(index, -1)
    positions = where(compare("lt", positions, 0), add(positions, n), positions)
    return reshape(apply(GATHER, (flat, positions), dim=0), index.shape)


def _outside(index: Tensor, n: int) -> int | None:
    """The first position of ``index`` outside ``[-n, n)``, where the values are known
    (while a program is traced they are not: nothing to check), or None."""
    try:
        values = np.asarray(index.detach().numpy()).reshape(-1)
    except TracerError:
        return None
    bad = np.flatnonzero((values < -n) | (values >= n))
    return int(values[bad[0]]) if bad.size else None


def _in_range(index: Tensor, n: int) -> None:
    """PyTorch's IndexError for the first position outside ``[-n, n)`` (``take``)."""
    bad = _outside(index, n)
    if bad is not None:
        raise IndexError(
            f"out of range: tried to access index {bad} on a tensor of {n} "
            f"elements.\ntake: positions count from {-n} to {n - 1}"
        )


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> AminmaxResult:
    """``(min, max)``: ``amin`` and ``amax`` of ``input``, over all of it or along ``dim``.

    >>> import minigrad as mg
    >>> mg.aminmax(mg.tensor([[1.0, 5.0], [3.0, -2.0]]), dim=1)
    aminmax(min=tensor([ 1., -2.]), max=tensor([5., 3.]))
    """
    tensor_arguments("aminmax", input, names=("input",))
    if dim is None:
        if input.size == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity.\naminmax: name a dim= whose size is not 0"
            )
        axes: Any = tuple(range(input.ndim))
    else:
        (d,) = normalize_axes(dim, max(input.ndim, 1))
        if input.ndim and input.shape[d] == 0:
            raise IndexError(
                f"aminmax: Expected reduction dim {d} to have non-zero size.\n"
                f"aminmax: input has shape {input.shape}"
            )
        axes = (d,) if input.ndim else ()
    return AminmaxResult(amin(input, axes, keepdim), amax(input, axes, keepdim))


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``, ``input`` broadcast to the product's shape.

    As in PyTorch, where ``mat`` is empty and ``beta`` is not 0 the result is
    ``beta * input`` in ``input``'s own shape.

    >>> import minigrad as mg
    >>> mg.addmv(mg.tensor([1.0, 1.0]), mg.eye(2), mg.tensor([2.0, 3.0]), alpha=2)
    tensor([5., 7.])
    """
    tensor_arguments("addmv", input, mat, vec, names=("input", "mat", "vec"))
    if input.ndim > 1 or mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}\n"
            f"addmv: input a vector (or 0-d), mat a matrix, vec a vector; got shapes "
            f"{input.shape}, {mat.shape} and {vec.shape}"
        )
    n, k = mat.shape
    if k != vec.shape[0] or input.size not in (1, n):
        raise RuntimeError(
            f"size mismatch, got input ({input.size}), mat ({n}x{k}), vec ({vec.shape[0]})\n"
            "addmv: mat's columns must match vec's length, and input is as long as mat's rows"
        )
    if not input.dtype == mat.dtype == vec.dtype:
        names = [_SCALAR_NAMES.get(t.dtype.name, t.dtype.name) for t in (input, mat, vec)]
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {names[0]}, {names[1]}, "
            f"and {names[2]}\naddmv: convert them first, e.g. mat.to(input.dtype)"
        )
    if input.dtype == np.dtype(bool):
        raise NotImplementedError(
            "\"addmv_impl_cpu\" not implemented for 'Bool'\naddmv: convert first, e.g. "
            "x.to(mg.int64)"
        )
    if mat.size == 0 and beta != 0:  # PyTorch's result keeps input's shape here (it warns)
        beta = beta if dtypes.is_floating(input.dtype) else int(beta)
        return input * beta if beta != 1 else clone(input)
    return _scaled_sum(input, mv(mat, vec), beta, alpha, "addmv")


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``, ``input`` broadcast to the product's shape.

    >>> import minigrad as mg
    >>> mg.addr(mg.zeros((2, 2)), mg.tensor([1.0, 2.0]), mg.tensor([1.0, -1.0]))
    tensor([[ 1., -1.],
            [ 2., -2.]])
    """
    tensor_arguments("addr", input, vec1, vec2, names=("input", "vec1", "vec2"))
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(
                f"addr: Expected 1-D argument {name}, but got {v.ndim}-D\n"
                f"addr: {name} has shape {v.shape}"
            )
    product = outer(vec1, vec2)
    if input.ndim > 2:
        name = _SCALAR_NAMES.get(input.dtype.name, input.dtype.name)
        sizes = ", ".join(str(n) for n in input.shape)
        raise RuntimeError(
            f"expand(torch.{name}Tensor{{[{sizes}]}}, size=[{product.shape[0]}, "
            f"{product.shape[1]}]): the number of sizes provided (2) must be greater or equal "
            f"to the number of dimensions in the tensor ({input.ndim})\n"
            f"addr: input must broadcast to the outer product's shape {product.shape}"
        )
    x = expand(input, product.shape)  # PyTorch's message where the shapes do not fit
    if dtypes.result_dtype([x.dtype, product.dtype], []).kind in "iub":
        for name, factor in (("beta", beta), ("alpha", alpha)):
            if isinstance(factor, float):
                raise RuntimeError(
                    f"For integral input tensors, argument {name} must not be a floating "
                    f"point number.\naddr: give {name} as an int, or make input a float tensor"
                )
    if x.dtype == product.dtype == np.dtype(bool):  # PyTorch's logical form
        kept = logical_and(x, as_tensor(bool(beta), x))
        return logical_or(kept, logical_and(product, as_tensor(bool(alpha), x)))
    return _scaled_sum(x, product, beta, alpha, "addr")


def sum_to_size(input: Tensor, *size: Any) -> Tensor:
    """``Tensor.sum_to_size``: ``input`` summed down to ``size``, a shape it expands from
    (summing what broadcasting would have stretched); ``input`` itself when it has that shape.

    >>> import minigrad as mg
    >>> mg.arange(6.0).reshape(2, 3).sum_to_size(2, 1)
    tensor([[ 3.],
            [12.]])
    """
    if not size:
        raise TypeError(
            'sum_to_size() missing 1 required positional arguments: "size"\n'
            "sum_to_size: name the shape, e.g. x.sum_to_size(1, 3)"
        )
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for n in size:
        if not dtypes.is_integer(n):
            raise TypeError(
                f"sum_to_size() takes 1 positional argument but {len(size)} were given\n"
                f"sum_to_size: sizes are ints, got {dtypes.type_name(n)}"
            )
    size = tuple(int(n) for n in size)
    lead = input.ndim - len(size)
    fits = lead >= 0 and all(n == m or n == 1 for n, m in zip(size, input.shape[lead:]))
    if not fits or min(size, default=0) < 0:
        raise RuntimeError(
            f"size {{{list(size)}}} is not expandable to size {{{list(input.shape)}}}.\n"
            f"sum_to_size: a size is either the input's size there or 1, counted from the right"
        )
    if not size:  # PyTorch sums here even when input is 0-d already (bools become int64)
        return reduction_sum(input)
    if size == input.shape:
        return input
    axes = tuple(range(lead)) + tuple(
        lead + i for i, (n, m) in enumerate(zip(size, input.shape[lead:])) if n == 1 and m != 1
    )
    return reshape(reduction_sum(input, axes), size)


_INDEX_FILL = (
    "(Tensor input, int dim, Tensor index, Tensor value)",
    "(Tensor input, int dim, Tensor index, Number value)",
)


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """``input`` with ``value`` in every slice along ``dim`` at the int64 positions ``index``
    (a number, or a 0-d tensor that receives a gradient; cast to ``input``'s dtype).

    >>> import minigrad as mg
    >>> mg.index_fill(mg.arange(6.0).reshape(2, 3), 1, mg.tensor([0, -1]), -1.0)
    tensor([[-1.,  1., -1.],
            [-1.,  4., -1.]])
    """
    if not (isinstance(input, Tensor) and isinstance(index, Tensor)):
        raise parser_error("index_fill", (input, dim, index, value), *_INDEX_FILL)
    d = dim_argument(dim, None, input.ndim)
    if index.dtype != np.dtype(np.int64):
        raise IndexError(
            "index_fill_(): Expected dtype int64 for index.\n"
            f"index_fill: got {index.dtype.name}; make the positions int64"
        )
    if index.ndim > 1:
        raise RuntimeError(
            f"Index has to be a vector/scalar\nindex_fill: index has shape {index.shape}"
        )
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.ndim} dimension(s).\nindex_fill: give one value, e.g. value.reshape(())"
        )
    n = input.shape[d] if input.ndim else 1
    _inside(index, n, d)
    if isinstance(value, Tensor):
        fill = value.to(input.dtype)
    else:
        fill = as_tensor(np.array(value).astype(input.dtype), input)
    positions = reshape(index, (1, -1))
    positions = where(compare("lt", positions, 0), add(positions, n), positions)
    hit = reduction_any(compare("eq", as_tensor(np.arange(n).reshape(n, 1), input), positions), 1)
    return where(reshape(hit, [n if k == d else 1 for k in range(input.ndim)]), fill, input)


def _inside(index: Tensor, n: int, dim: int) -> None:
    """PyTorch's IndexError for a position outside ``[-n, n)`` along ``dim``, where the
    values are known."""
    bad = _outside(index, n)
    if bad is not None:
        raise IndexError(
            f"index {bad} is out of bounds for dimension {dim} with size {n}\n"
            f"positions along dimension {dim} count from {-n} to {n - 1}"
        )
