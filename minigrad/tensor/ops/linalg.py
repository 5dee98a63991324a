"""Matrix multiplication: the row of the table that costs the most (lessons 04-06, 10).

For C = A @ B with a cotangent G on C, the chain rule gives
dA = G @ B^T and dB = A^T @ G (each has its input's shape, as it must), and
the tangent is dC = dA @ B + A @ dB. The primitive works on stacks of
matrices with equal batch shapes; ``matmul`` first reduces every case NumPy
allows (vectors, broadcast batch dimensions) to that one.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.broadcasting import ShapeError, broadcast_shape, stretch_to
from minigrad.tensor.ops.elementwise import tensor_arguments
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply


def _mT(x: Tensor) -> Tensor:
    """Transpose of the last two axes (of every matrix in a stack)."""
    return x.swapaxes(-1, -2)


# Bilinear: linear in a with b fixed (transpose G -> G B^T) and in b with a
# fixed (G -> A^T G). Forward mode reads the same row as dA @ B + A @ dB.
def _matmul_batched(xs: list, batched: list) -> Tensor:
    """``a @ b`` for every example (lesson 14): where one side is the same for every
    example, the batch joins the other side's rows or columns, and the whole batch
    is one bigger matrix product instead of many small ones."""
    a, b = xs
    if batched[0] and batched[1]:
        return apply(MATMUL, (a, b))
    if batched[0] and b.ndim == 2:  # (B, n, k) @ (k, m): the batch's rows stacked
        # (The row count is spelled out: -1 cannot be inferred when k is 0.)
        rows = apply(MATMUL, (a.reshape(math.prod(a.shape[:-1]), a.shape[-1]), b))
        return rows.reshape((*a.shape[:-1], b.shape[-1]))
    if batched[1] and a.ndim == 2:  # (n, k) @ (B, k, m): the batch's columns side by side
        size, k, m = b.shape
        if m == 1:  # a batch of vectors (jacfwd of W @ x): as rows, (B, k) @ (k, n)
            rows = apply(MATMUL, (b.reshape(size, k), _mT(a)))
            return rows.reshape(size, a.shape[0], 1)
        columns = apply(MATMUL, (a, b.transpose(1, 0, 2).reshape(k, size * m)))
        return columns.reshape(a.shape[0], size, m).transpose(1, 0, 2)
    size = len(a) if batched[0] else len(b)  # stacks of matrices: give both the batch axis
    a = a if batched[0] else a.broadcast_to((size, *a.shape))
    b = b if batched[1] else b.broadcast_to((size, *b.shape))
    return apply(MATMUL, (a, b))


def _grad_of_b(g: Tensor, a: Tensor, b: Tensor) -> Tensor:
    """A^T G, the cotangent of ``b``, laid out as ``b`` is.

    In ``x @ W.T`` (every ``nn.Linear``) ``b`` is the transpose of a row-major
    matrix. Computed as (G^T A)^T, the same product, its transpose (what ``W``
    receives) is then row-major as ``W`` is, and ``W.grad`` needs no copy to get
    PyTorch's layout (PyTorch's matrix-product backward does the same).
    """
    data = b.data
    if (
        type(data) is np.ndarray
        and data.ndim == 2
        and g.ndim == 2
        and data.flags.f_contiguous
        and not data.flags.c_contiguous
    ):
        return _mT(matmul(_mT(g), a))
    return matmul(_mT(a), g)


MATMUL = Primitive(
    "matmul",
    lambda backend, a, b: backend.matmul(a, b),
    multilinear=(lambda g, a, b: matmul(g, _mT(b)), lambda g, a, b: _grad_of_b(g, a, b)),
    saves=(0, 1),
    batch=_matmul_batched,
)


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b`` for vectors, matrices and stacks of matrices (batch dims broadcast).

    >>> import minigrad as mg
    >>> (mg.ones((5, 2, 3)) @ mg.ones(3)).shape
    (5, 2)
    """
    tensor_arguments("matmul", a, b)  # tensors only, as PyTorch's (not numbers, lists, arrays)
    if a.dtype != b.dtype:
        common = dtypes.result_dtype([a.dtype, b.dtype], [])
        a, b = a.to(common), b.to(common)
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError(
            f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D"
        )
    if a.dtype == dtypes.bool_:  # PyTorch's error names the kernel the shapes lead to
        kernel = ("dot" if a.ndim == b.ndim == 1 else "addmv_impl_cpu" if b.ndim == 1
                  else "bmm" if b.ndim >= 3 else "addmm_impl_cpu_")  # fmt: skip
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for 'Bool'\nmatmul: convert first, e.g. a.to(mg.int64)"
        )
    if a.ndim == 1 or b.ndim == 1:
        # A vector is a matrix with one row (on the left) or one column (on the right).
        left, right = (
            (a.reshape(1, -1) if a.ndim == 1 else a),
            (b.reshape(-1, 1) if b.ndim == 1 else b),
        )
        out = matmul(left, right)
        keep = out.shape[:-2] + (() if a.ndim == 1 else out.shape[-2:-1])
        return out.reshape(keep + (() if b.ndim == 1 else out.shape[-1:]))
    if a.shape[-1] != b.shape[-2]:
        raise ShapeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[-2]}x{a.shape[-1]} and "
            f"{b.shape[-2]}x{b.shape[-1]})\nmatmul: shapes {a.shape} and {b.shape}: the "
            "last axis of the first must equal the second-to-last axis of the second"
        )
    if a.ndim > 2 and b.ndim == 2:
        # (..., n, k) @ (k, m), every nn.Linear on a batch of sequences: the batch's
        # rows stacked make one (rows, k) @ (k, m) product, as PyTorch folds it. Not
        # one small product per matrix of the batch, and in the backward pass not a
        # stack of (k, m) products of b's cotangent then summed over the batch.
        rows = apply(MATMUL, (a.reshape(math.prod(a.shape[:-1]), a.shape[-1]), b))
        return rows.reshape((*a.shape[:-1], b.shape[-1]))
    batch = broadcast_shape(a.shape[:-2], b.shape[:-2], op="matmul (batch dimensions)")
    a = stretch_to(a, batch + a.shape[-2:])
    b = stretch_to(b, batch + b.shape[-2:])
    return apply(MATMUL, (a, b))
