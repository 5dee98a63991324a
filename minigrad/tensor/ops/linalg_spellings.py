"""``torch.linalg``'s spellings of operations minigrad already has, and ``torch.svd`` (lesson 06).

Each is a composition of rows that exist, so its derivative is the chain rule
through them (lesson 05), with forward mode, vmap and jit for free:

- ``linalg.vander(x, N=)``: the powers ``x^0 .. x^(N-1)`` as columns, a running
  product (``cumprod``) behind a column of ones;
- ``linalg.cross(x, y, dim=-1)``: ``cross`` with the last axis by default (the
  plain ``cross`` takes the first axis of size 3), equal ranks and dtypes required;
- ``linalg.diagonal(A, offset=, dim1=-2, dim2=-1)``: ``diagonal`` of the matrices
  in the last two axes by default;
- ``svd(A, some=, compute_uv=)``: the older ``torch.svd``, which returns ``V``
  where ``linalg.svd`` returns ``Vh = V^T``;
- ``addbmm(input, batch1, batch2)``: ``beta * input + alpha * sum_b batch1[b] @ batch2[b]``;
- ``linalg.tensorinv``/``tensorsolve``: ``inv``/``solve`` of a tensor read as a matrix;
- ``linalg.householder_product(A, tau)``: ``Q`` from its reflectors, one rank-1 change
  ``Q - tau v (v^T Q)`` per reflector.

    >>> import minigrad as mg
    >>> mg.linalg.vander(mg.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [1, 2, 4],
            [1, 3, 9]])
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.composite import composite
from minigrad.tensor.ops import contractions, inverses, matrix_products
from minigrad.tensor.ops.decompositions import _checked, svdvals
from minigrad.tensor.ops.decompositions import svd as linalg_svd
from minigrad.tensor.ops.elementwise import tensor_arguments, where
from minigrad.tensor.ops.inverses import _refuse_singular as refuse_singular
from minigrad.tensor.ops.linalg import matmul
from minigrad.tensor.ops.movement import concatenate
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.ops.scans import cumprod, cumsum

__all__ = [
    "addbmm", "cross", "diagonal", "householder_product", "svd", "tensorinv", "tensorsolve",
    "vander",
]  # fmt: skip

# PyTorch's names for dtypes in its messages.
_TORCH_NAMES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes

SvdResult = namedtuple("svd", ["U", "S", "V"])

#: addbmm follows PyTorch's order of additions up to this many multiplications.
_SMALL = 1 << 16


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _name(dtype: Any) -> str:
    return _TORCH_NAMES.get(dtype.name, dtype.name)


def vander(x: Any, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of the last axis of ``x``: column ``j`` holds ``x ** j``,
    ``j < N`` (``N`` defaults to the length), ``torch.linalg.vander``.

    Integers give int64 (their running product), as PyTorch's.

    >>> import minigrad as mg
    >>> mg.linalg.vander(mg.tensor([2.0, 3.0]), N=3)
    tensor([[1., 2., 4.],
            [1., 3., 9.]])
    """
    x = _tensor(x)
    if x.dtype == dtypes.bool_ or dtypes.is_low_precision(x.dtype):
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got "
            f"{_name(x.dtype)}"
        )
    x = x.unsqueeze(-1) if x.ndim == 0 else x
    n = x.shape[-1] if N is None else int(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = cumprod(x.unsqueeze(-1).expand(*x.shape, n - 1), -1)
    ones = Tensor.concrete(np.ones((*x.shape, 1), powers.dtype), device=x.device)
    return concatenate([ones, powers], -1)


def cross(input: Any, other: Any, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (the last axis by default), the other
    axes broadcast (``torch.linalg.cross``).

    Unlike ``mg.cross`` both tensors must have the same number of axes and the same dtype.

    >>> import minigrad as mg
    >>> mg.linalg.cross(mg.tensor([[1.0, 0.0, 0.0]]), mg.tensor([[0.0, 1.0, 0.0]]))
    tensor([[0., 0., 1.]])
    """
    tensor_arguments("linalg.cross", input, other, names=("input", "other"))
    a, b = _tensor(input), _tensor(other)
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    axis = normalize_axes(dim, a.ndim)[0]
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[axis]} "
            f"and {b.shape[axis]}"
        )
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_name(a.dtype)} but found {_name(b.dtype)}")
    if a.dtype == dtypes.bool_:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    return matrix_products.cross(a, b, dim=axis)


def diagonal(A: Any, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The ``offset``-th diagonal of the matrices in axes ``dim1``, ``dim2`` (the last two
    by default), as the last axis; a view (``torch.linalg.diagonal``).

    >>> import minigrad as mg
    >>> mg.linalg.diagonal(mg.arange(8).reshape(2, 2, 2))
    tensor([[0, 3],
            [4, 7]])
    """
    return contractions.diagonal(_tensor(A), offset, dim1, dim2)


def svd(input: Any, some: bool = True, compute_uv: bool = True) -> SvdResult:
    """``(U, S, V)`` with ``A = U diag(S) V^T`` (``torch.svd``, the older spelling of
    ``linalg.svd``, which returns ``Vh = V^T``).

    ``some=True`` keeps k = min(m, n) columns. With ``compute_uv=False`` only ``S`` is
    computed; ``U`` and ``V`` are zeros of shapes ``(m, m)`` and ``(n, n)``.

    >>> import minigrad as mg
    >>> U, S, V = mg.svd(mg.tensor([[0.0, 2.0], [1.0, 0.0]]))
    >>> S, (U * S @ V.mT).abs()
    (tensor([2., 1.]), tensor([[0., 2.],
            [1., 0.]]))
    """
    a = _tensor(input)
    if a.ndim < 2:
        raise RuntimeError(
            f"linalg.svd: input should have at least 2 dimensions, but has {a.ndim} dimensions "
            "instead"
        )
    _checked(a, "svd")
    if not compute_uv:
        *batch, m, n = a.shape
        u = Tensor.concrete(np.zeros((*batch, m, m), a.dtype), device=a.device)
        v = Tensor.concrete(np.zeros((*batch, n, n), a.dtype), device=a.device)
        return SvdResult(u, svdvals(a), v)
    u, s, vh = linalg_svd(a, full_matrices=not some)
    return SvdResult(u, s, vh.swapaxes(-1, -2))


def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _size(t: Tensor, dim: int) -> int:
    """``t.size(dim)``, with PyTorch's IndexError where ``t`` has no such axis."""
    if t.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if dim >= t.ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-t.ndim}, {t.ndim - 1}], "
            f"but got {dim})"
        )
    return t.shape[dim]


@composite("addbmm")
def addbmm(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (batch1[0] @ batch2[0] + batch1[1] @ batch2[1] + ...)``,
    ``input`` broadcast to one product's shape (``torch.addbmm``).

    >>> import minigrad as mg
    >>> mg.addbmm(mg.zeros((1, 1)), mg.ones((3, 1, 2)), mg.ones((3, 2, 1)))
    tensor([[6.]])
    """
    tensor_arguments("addbmm", input, batch1, batch2, names=("input", "batch1", "batch2"))
    x, a, b = _tensor(input), _tensor(batch1), _tensor(batch2)
    target = (_size(a, 1), _size(b, 2))  # PyTorch reads the result's shape first
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {a.shape[0]} and {b.shape[0]}"
        )
    if a.shape[2] != b.shape[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({a.shape[1]}x{a.shape[2]} and "
            f"{b.shape[1]}x{b.shape[2]})"
        )
    padded = (1,) * (2 - x.ndim) + x.shape
    if x.ndim > 2 or any(s != t and s != 1 for s, t in zip(padded, target)):
        bad = next((i for i, (s, t) in enumerate(zip(padded, target)) if s != t and s != 1), 0)
        raise RuntimeError(
            f"The expanded size of the tensor ({target[bad]}) must match the existing size "
            f"({padded[bad]}) at non-singleton dimension {bad}.  Target sizes: "
            f"{_shape_text(target)}.  Tensor sizes: {_shape_text(x.shape)}"
        )
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {_name(a.dtype)} and {_name(b.dtype)}"
        )
    if x.dtype != a.dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {_name(x.dtype)} and {_name(a.dtype)}"
        )
    count, n, k = a.shape
    m = b.shape[2]
    if count * k * n * m <= _SMALL and dtypes.is_floating(a.dtype):
        # PyTorch's order of additions for small stacks: starting from beta * input, one
        # rank-1 product a[i][:, j] b[i][j, :] at a time, each sum rounded (a running sum)
        terms = (a.swapaxes(1, 2).reshape(count * k, n, 1)
                 * b.reshape(count * k, 1, m))  # fmt: skip
        zeros = Tensor.concrete(np.zeros(target, a.dtype), device=a.device)
        start = matrix_products._scaled_sum(x, zeros, beta, 0, "addbmm").unsqueeze(0)
        steps = terms if alpha == 1 else terms * alpha
        return cumsum(concatenate([start, steps], 0), 0)[-1]
    products = matrix_products.bmm(a, b).sum(0).to(a.dtype)  # int32 stays int32
    return matrix_products._scaled_sum(x, products, beta, alpha, "addbmm")


def tensorinv(A: Any, ind: int = 2) -> Tensor:
    """The inverse of ``A`` read as a matrix, its first ``ind`` axes the rows
    (``torch.linalg.tensorinv``): the result's shape is ``A.shape[ind:] + A.shape[:ind]``,
    so that ``tensordot(tensorinv(A), A, ind)`` is the identity.

    >>> import minigrad as mg
    >>> mg.linalg.tensorinv(mg.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    a = _tensor(A)
    ind = int(ind)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, columns = a.shape[:ind], a.shape[ind:]
    size, other = int(np.prod(columns)), int(np.prod(rows))
    if size != other:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {size} != {other}"
        )
    square = a.reshape(size, size)
    if dtypes.is_floating(square.dtype) and not dtypes.is_low_precision(square.dtype):
        try:
            values = square.detach().numpy()
        except (TracerError, RuntimeError):  # traced or batched: inv's own check
            values = None
        if values is not None and values.size:
            refuse_singular(values, "inv")
    return inverses.inv(square).reshape(*columns, *rows)


def tensorsolve(A: Any, B: Any, dims: Any = None) -> Tensor:
    """``X`` with ``tensordot(A, X, X.ndim) = B`` (``torch.linalg.tensorsolve``): ``A`` read
    as a square matrix whose rows are ``B``'s axes; ``dims`` first moves those axes of
    ``A`` to the end.

    >>> import minigrad as mg
    >>> a = mg.eye(6).reshape(2, 3, 6)
    >>> mg.linalg.tensorsolve(a, mg.ones(2, 3)).shape
    (6,)
    """
    a, b = _tensor(A), _tensor(B)
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        a = a.movedim(dims, list(range(a.ndim - len(dims), a.ndim)))
    shape = a.shape[b.ndim :]
    size, other = int(np.prod(shape)), int(np.prod(b.shape))
    if size != other:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {size} != {other}"
        )
    return inverses.solve(a.reshape(size, size), b.reshape(-1)).reshape(shape)


def householder_product(A: Any, tau: Any) -> Tensor:
    """The first ``n`` columns of ``H_1 H_2 ... H_k`` with ``H_i = I - tau_i v_i v_i^T``,
    ``v_i`` the ``i``-th column of ``A`` below its diagonal after a 1
    (``torch.linalg.householder_product``, LAPACK's ``orgqr``): the ``Q`` of a QR
    factorization stored as reflectors. Only the part of ``A`` below its diagonal is read.

    >>> import minigrad as mg
    >>> mg.linalg.householder_product(mg.tensor([[0.0], [1.0]]), mg.tensor([1.0]))
    tensor([[ 0.],
            [-1.]])
    """
    tensor_arguments("linalg.householder_product", A, tau, names=("input", "tau"))
    a, t = _tensor(A), _tensor(tau)
    op = "torch.linalg.householder_product"
    if a.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    m, n = a.shape[-2:]
    if m < n:
        raise RuntimeError(
            f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if t.ndim == 0 or n < t.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if a.ndim - t.ndim != 1:
        raise RuntimeError(
            f"{op}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {t.ndim} and input.ndim is equal to {a.ndim}"
        )
    if a.ndim > 2 and t.shape[:-1] != a.shape[:-2]:
        raise RuntimeError(
            f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
            f"{_shape_text(t.shape[:-1])}"
        )
    if t.dtype != a.dtype:
        raise RuntimeError(
            f"{op}: tau dtype {_name(t.dtype)} does not match input dtype {_name(a.dtype)}"
        )
    if not dtypes.is_floating(a.dtype) or dtypes.is_low_precision(a.dtype):
        raise NotImplementedError(f"\"orgqr_cpu\" not implemented for '{_name(a.dtype)}'")
    k = t.shape[-1]
    eye = Tensor.concrete(np.eye(m, n, dtype=a.dtype), device=a.device)
    q = eye.expand(*a.shape[:-2], m, n)
    if k == 0:  # the identity's columns, in the graph of A (slope 0), as PyTorch's
        return where(Tensor.concrete(np.ones(a.shape, bool), device=a.device), q, a)
    below = contractions.tril(a[..., :, :k], -1)
    reflectors = below + Tensor.concrete(np.eye(m, k, dtype=a.dtype), device=a.device)
    for i in reversed(range(k)):  # H_i applied to what the later reflectors made
        v = reflectors[..., :, i : i + 1]
        q = q - t[..., i : i + 1].unsqueeze(-1) * matmul(v, matmul(v.swapaxes(-1, -2), q))
    return q
