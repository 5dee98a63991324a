"""The inverse and the determinant of square matrices, and their derivatives (lesson 06).

Both come from one LU factorization ``P A = L U`` (``L`` with ones on its
diagonal): ``det A = sign(P) * prod(diag U)``, and ``A`` is singular exactly when
a diagonal entry of ``U`` is 0. The factorization runs on the host in NumPy, with
LAPACK's partial pivoting (the largest entry of each column, first on ties), so
a singular matrix is refused with PyTorch's message naming the same diagonal
entry. The derivatives are the part worth reading:

- ``d(A^-1) = -A^-1 dA A^-1``, so the cotangent of ``A`` is ``-A^-T g A^-T``;
- ``d(det A) = <cof A, dA>`` with the cofactor matrix ``cof A = det(A) A^-T``
  (Jacobi's formula). Where ``A`` is singular, ``A^-T`` does not exist but the
  cofactors do: minigrad takes them from the SVD there (``det(U) det(Vh) U
  diag(prod_{j != i} s_j) Vh``, PyTorch's formula when it builds a graph for
  second derivatives), a constant, so only first derivatives;
- ``d(log|det A|) = <A^-T, dA>``: the cofactors divided by the determinant.

The rules call the rows again for ``A^-1`` and ``det A``, so second derivatives
are the chain rule through the same rows.

    >>> import minigrad as mg
    >>> a = mg.tensor([[2.0, 1.0], [0.0, 4.0]], requires_grad=True)
    >>> d = mg.linalg.det(a)
    >>> d.backward()
    >>> d, a.grad
    (tensor(8., grad_fn=<det>), tensor([[ 4.,  0.],
            [-1.,  2.]]))
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.backends.quiet import quietly
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.broadcasting import broadcast_shape
from minigrad.tensor.ops.decompositions import LinAlgError
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.linalg import matmul
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply

SlogdetResult = namedtuple("linalg_slogdet", ["sign", "logabsdet"])

# PyTorch's names for dtypes in its messages.
_TORCH_NAMES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes


@quietly
def lu_diagonal(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sign(P), diag U)`` of ``P A = L U`` for each matrix in ``a``, LAPACK's pivots.

    >>> lu_diagonal(np.array([[1.0, 2.0], [2.0, 4.0]]))  # rows swapped, then a 0 pivot
    (array(-1.), array([2., 0.]))
    """
    u = np.array(a, dtype=a.dtype, copy=True).reshape(int(np.prod(a.shape[:-2])), *a.shape[-2:])
    n = u.shape[-1]
    sign = np.ones(len(u), a.dtype)
    rows = np.arange(len(u))
    for k in range(n):
        pivot = k + np.argmax(np.abs(u[:, k:, k]), axis=1)
        swapped = pivot != k
        sign[swapped] = -sign[swapped]
        top = u[rows, k].copy()
        u[rows, k] = u[rows, pivot]
        u[rows, pivot] = top
        head = u[:, k, k]
        safe = np.where(head == 0, 1, head)  # a 0 pivot: its column is already 0 below
        factors = np.where(head[:, None] == 0, 0, u[:, k + 1 :, k] / safe[:, None])
        u[:, k + 1 :, k + 1 :] -= factors[:, :, None] * u[:, k, None, k + 1 :]
    diagonal = np.diagonal(u, axis1=-2, axis2=-1)
    return sign.reshape(a.shape[:-2]), diagonal.reshape(*a.shape[:-2], n)


def _refuse_singular(a: np.ndarray, op: str) -> None:
    """PyTorch's LinAlgError, naming the first zero pivot of the first singular matrix."""
    _, diagonal = lu_diagonal(a)
    zero = (diagonal == 0).reshape(-1, a.shape[-1])
    singular = zero.any(axis=1)
    if not singular.any():
        return
    first = int(np.argmax(singular))
    which = f"(Batch element {first}): " if a.ndim > 2 else ""
    raise LinAlgError(
        f"{op}: {which}The diagonal element {int(np.argmax(zero[first])) + 1} is zero, the "
        "inversion could not be completed because the input matrix is singular."
    )


def _host(backend: Any, x: Any) -> np.ndarray | None:
    try:
        return np.asarray(backend.to_numpy(x))
    except TracerError:  # tracing (lesson 13): only the shape and dtype are known
        return None


def _inv_forward(backend: Any, x: Any) -> Any:
    a = _host(backend, x)
    if a is None:
        return backend.unknown(x.shape, x.dtype)
    if a.size == 0:
        return backend.from_numpy(np.zeros(a.shape, a.dtype))
    _refuse_singular(a, "linalg.inv")
    return backend.from_numpy(np.ascontiguousarray(np.linalg.inv(a)).astype(a.dtype))


def _mT(x: Tensor) -> Tensor:
    return x.swapaxes(-1, -2)


def _inv_vjp(g: Tensor, out: Any, inputs: Any, needs: Any):
    inverse_t = _mT(apply(INV, (inputs[0],)))
    return (-matmul(inverse_t, matmul(g, inverse_t)),)


def _inv_jvp(tangents: Any, out: Any, inputs: Any):
    inverse = apply(INV, (inputs[0],))
    return -matmul(inverse, matmul(tangents[0], inverse))


INV = Primitive(
    "inv",
    _inv_forward,
    vjp=_inv_vjp,
    jvp=_inv_jvp,
    saves=(0,),
    batch=lambda xs, batched: apply(INV, (xs[0],)),
)


@quietly
def _det_forward(backend: Any, x: Any) -> Any:
    a = _host(backend, x)
    if a is None:
        return backend.unknown(x.shape[:-2], x.dtype)
    sign, diagonal = lu_diagonal(a)
    return backend.from_numpy(np.asarray(sign * np.prod(diagonal, axis=-1), a.dtype))


@quietly
def _singular_cofactors(a: np.ndarray) -> np.ndarray:
    """The cofactor matrix of each matrix in ``a``, from its SVD (defined when singular too)."""
    u, s, vh = np.linalg.svd(a)
    n = s.shape[-1]
    others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], -1)
    turn = np.linalg.det(u) * np.linalg.det(vh)
    return turn[..., None, None] * (u * others[..., None, :]) @ vh


def _cofactors(a: Tensor) -> Tensor:
    """``det(A) A^-T`` where ``A`` is invertible (the rows); the SVD's cofactors where not."""
    try:
        values = a.detach().numpy()
    except (TracerError, RuntimeError):  # traced (jit) or batched (vmap): no values to read,
        values = None  # so det(A) A^-T, and a singular matrix raises there
    singular = None if values is None else (lu_diagonal(values)[1] == 0).any(axis=-1)
    if singular is None or not singular.any():
        return apply(DET, (a,)).unsqueeze(-1).unsqueeze(-1) * _mT(apply(INV, (a,)))
    mask = Tensor.concrete(singular[..., None, None], device=a.device)
    eye = Tensor.concrete(np.eye(a.shape[-1], dtype=a.dtype), device=a.device)
    safe = where(mask, eye, a)  # the rows' rules see only invertible matrices
    regular = apply(DET, (safe,)).unsqueeze(-1).unsqueeze(-1) * _mT(apply(INV, (safe,)))
    fixed = Tensor.concrete(_singular_cofactors(values), device=a.device)
    return where(mask, fixed, regular)


DET = Primitive(
    "det",
    _det_forward,
    vjp=lambda g, out, inputs, needs: (g.unsqueeze(-1).unsqueeze(-1) * _cofactors(inputs[0]),),
    jvp=lambda tangents, out, inputs: (_cofactors(inputs[0]) * tangents[0]).sum((-2, -1)),
    saves=(0,),
    batch=lambda xs, batched: apply(DET, (xs[0],)),
)


@quietly
def _slogdet_forward(backend: Any, x: Any, part: str) -> Any:
    a = _host(backend, x)
    if a is None:
        return backend.unknown(x.shape[:-2], x.dtype)
    sign, diagonal = lu_diagonal(a)
    if part == "sign":  # a NaN pivot has sign 0 (PyTorch's sign)
        signs = np.nan_to_num(np.sign(diagonal), nan=0.0)
        return backend.from_numpy(np.asarray(sign * np.prod(signs, axis=-1), a.dtype))
    with np.errstate(divide="ignore"):
        return backend.from_numpy(np.asarray(np.log(np.abs(diagonal)).sum(-1), a.dtype))


def _slogdet_vjp(g: Tensor, out: Any, inputs: Any, needs: Any, part: str):
    if part == "sign":  # piecewise constant
        return (g.unsqueeze(-1).unsqueeze(-1) * 0.0 * inputs[0],)
    return (g.unsqueeze(-1).unsqueeze(-1) * _mT(apply(INV, (inputs[0],))),)


def _slogdet_jvp(tangents: Any, out: Any, inputs: Any, part: str):
    (a,), (da,) = inputs, tangents
    if part == "sign":
        return (0.0 * da).sum((-2, -1))
    return (_mT(apply(INV, (a,))) * da).sum((-2, -1))


SLOGDET = Primitive(
    "slogdet",
    _slogdet_forward,
    vjp=_slogdet_vjp,
    jvp=_slogdet_jvp,
    saves=(0,),
    batch=lambda xs, batched, part: apply(SLOGDET, (xs[0],), part=part),
)


def _solve_forward(backend: Any, a: Any, b: Any) -> Any:
    """``X`` with ``A X = B`` for matrices ``B`` of one batch shape with ``A``."""
    a_host, b_host = _host(backend, a), _host(backend, b)
    if a_host is None or b_host is None:
        return backend.unknown(b.shape, b.dtype)
    if b_host.size == 0 or a_host.size == 0:
        return backend.from_numpy(np.zeros(b_host.shape, b_host.dtype))
    zero = (lu_diagonal(a_host)[1] == 0).reshape(-1, a_host.shape[-1]).any(axis=1)
    if zero.any():
        which = f"(Batch element {int(np.argmax(zero))}): " if a_host.ndim > 2 else ""
        raise LinAlgError(
            f"torch.linalg.solve: {which}The solver failed because the input matrix is singular."
        )
    return backend.from_numpy(np.ascontiguousarray(np.linalg.solve(a_host, b_host)))


def _solve_vjp(g: Tensor, out: Any, inputs: Any, needs: Any):
    # X = A^-1 B: gB = A^-T g, gA = -gB X^T
    a, b = inputs
    gb = apply(SOLVE, (_mT(a), g))
    ga = -matmul(gb, _mT(apply(SOLVE, (a, b)))) if needs[0] else None
    return ga, gb


def _solve_jvp(tangents: Any, out: Any, inputs: Any):
    # dX = A^-1 (dB - dA X)
    (a, b), (da, db) = inputs, tangents
    change = db if db is not None else None
    if da is not None:
        moved = -matmul(da, apply(SOLVE, (a, b)))
        change = moved if change is None else change + moved
    return apply(SOLVE, (a, change))


def _same_batch(xs: list, batched: list) -> tuple[Tensor, Tensor]:
    """vmap (lesson 14): the side that is the same for every example, repeated for each."""
    size = next(x.shape[0] for x, b in zip(xs, batched) if b)
    return tuple(x if b else x.expand(size, *x.shape) for x, b in zip(xs, batched))


SOLVE = Primitive(
    "solve",
    _solve_forward,
    vjp=_solve_vjp,
    jvp=_solve_jvp,
    saves=(0, 1),
    batch=lambda xs, batched: apply(SOLVE, _same_batch(xs, batched)),
)


def _first_failed_minor(a: np.ndarray) -> np.ndarray:
    """For each matrix (lower triangle read), the order of the first leading minor that is
    not positive definite (LAPACK's ``potrf`` info), 0 where all are."""
    flat = a.reshape(-1, *a.shape[-2:])
    n = a.shape[-1]
    lower = np.zeros_like(flat)
    failed = np.zeros(len(flat), dtype=int)
    for j in range(n):
        pivot = flat[:, j, j] - np.sum(lower[:, j, :j] ** 2, axis=-1)
        bad = ~(pivot > 0) & (failed == 0)  # NaN fails too
        failed[bad] = j + 1
        root = np.sqrt(np.where(pivot > 0, pivot, 1.0))
        lower[:, j, j] = root
        below = flat[:, j + 1 :, j] - np.einsum(
            "bik,bk->bi", lower[:, j + 1 :, :j], lower[:, j, :j]
        )
        lower[:, j + 1 :, j] = below / root[:, None]
    return failed


def _cholesky_forward(backend: Any, x: Any) -> Any:
    a = _host(backend, x)
    if a is None:
        return backend.unknown(x.shape, x.dtype)
    if a.size == 0:
        return backend.from_numpy(np.zeros(a.shape, a.dtype))
    failed = _first_failed_minor(a)
    if failed.any():
        first = int(np.argmax(failed > 0))
        which = f"(Batch element {first}): " if a.ndim > 2 else ""
        raise LinAlgError(
            f"linalg.cholesky: {which}The factorization could not be completed because the input "
            f"is not positive-definite (the leading minor of order {failed[first]} is not "
            "positive-definite)."
        )
    return backend.from_numpy(np.ascontiguousarray(np.linalg.cholesky(a)))


def _halved_tril(x: Tensor) -> Tensor:
    """The lower triangle of ``x`` with its diagonal halved (``Phi`` of the rules)."""
    n = x.shape[-1]
    half = np.tril(np.ones((n, n), x.dtype)) - 0.5 * np.eye(n, dtype=x.dtype)
    return x * Tensor.concrete(half, device=x.device)


def _cholesky_vjp(g: Tensor, out: Any, inputs: Any, needs: Any):
    # PyTorch's cholesky_backward: L^-T Phi(L^T gL) L^-1, symmetrized
    lower = apply(CHOLESKY, (inputs[0],))
    inverse = apply(INV, (lower,))
    grad = matmul(matmul(_mT(inverse), _halved_tril(matmul(_mT(lower), g))), inverse)
    return ((grad + _mT(grad)) * 0.5,)


def _cholesky_jvp(tangents: Any, out: Any, inputs: Any):
    # dL = L Phi(L^-1 dA L^-T)
    lower = apply(CHOLESKY, (inputs[0],))
    inverse = apply(INV, (lower,))
    return matmul(lower, _halved_tril(matmul(matmul(inverse, tangents[0]), _mT(inverse))))


CHOLESKY = Primitive(
    "cholesky",
    _cholesky_forward,
    vjp=_cholesky_vjp,
    jvp=_cholesky_jvp,
    saves=(0,),
    batch=lambda xs, batched: apply(CHOLESKY, (xs[0],)),
)


def _square(A: Any, op: str, low_precision: str | None = None) -> Tensor:
    """``A`` as a stack of square float matrices, or PyTorch's error for ``op``."""
    a = A if isinstance(A, Tensor) else Tensor.concrete(A)
    if not dtypes.is_floating(a.dtype):
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got "
            f"{_TORCH_NAMES.get(a.dtype.name, a.dtype.name)}\n"
            f"{op}: convert it first, e.g. A.to(mg.float64)"
        )
    if dtypes.is_low_precision(a.dtype):  # LAPACK has no 16-bit routines
        name = _TORCH_NAMES[a.dtype.name]
        if low_precision is None:
            raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {name}")
        raise NotImplementedError(f"\"{low_precision}\" not implemented for '{name}'")
    if a.ndim < 2:
        raise RuntimeError(
            f"{op}: The input tensor A must have at least 2 dimensions.\n{op}: got shape {a.shape}"
        )
    if a.shape[-1] != a.shape[-2]:
        m, n = a.shape[-2:]
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )
    return a


def inv(A: Any) -> Tensor:
    """The inverse of each square matrix in the last two axes (``torch.linalg.inv``).

    A singular matrix raises ``LinAlgError``, naming the zero diagonal entry of its LU
    factor (as PyTorch does); a nearly singular one gives large entries, not an error.

    >>> import minigrad as mg
    >>> mg.linalg.inv(mg.tensor([[2.0, 1.0], [0.0, 1.0]]))
    tensor([[ 0.5, -0.5],
            [ 0. ,  1. ]])
    """
    return apply(INV, (_square(A, "linalg.inv"),))


inverse = inv  # torch.inverse


def det(A: Any) -> Tensor:
    """The determinant of each square matrix in the last two axes (``torch.linalg.det``).

    A singular matrix has determinant 0 (signed as PyTorch's: ``-0.`` after an odd number
    of row swaps) and its cofactor matrix as gradient. (PyTorch's gradient there is
    the same when ``create_graph=True``, and 0 otherwise.)

    >>> import minigrad as mg
    >>> mg.linalg.det(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor(-2.)
    """
    return apply(DET, (_square(A, "linalg.det", "lu_cpu"),))


def slogdet(A: Any) -> SlogdetResult:
    """``(sign, logabsdet)`` with ``det A = sign * exp(logabsdet)`` (``torch.linalg.slogdet``).

    ``logabsdet`` does not overflow where the determinant would; a singular matrix has
    sign 0 and ``logabsdet`` -inf. Only ``logabsdet`` has a gradient (``A^-T``).

    >>> import minigrad as mg
    >>> mg.linalg.slogdet(mg.tensor([[0.0, 2.0], [3.0, 0.0]]))
    linalg_slogdet(sign=tensor(-1.), logabsdet=tensor(1.7918))
    """
    a = _square(A, "linalg.slogdet")
    return SlogdetResult(*(apply(SLOGDET, (a,), part=p) for p in ("sign", "logabsdet")))


def logdet(input: Any) -> Tensor:
    """``log(det A)`` (``torch.logdet``): NaN where the determinant is negative, -inf where 0.

    >>> import minigrad as mg
    >>> mg.logdet(mg.tensor([[2.0, 0.0], [0.0, 3.0]]))
    tensor(1.7918)
    """
    a = _square(input, "logdet")
    sign, logabsdet = (apply(SLOGDET, (a,), part=p) for p in ("sign", "logabsdet"))
    return where(sign < 0, float("nan"), logabsdet)


def matrix_power(A: Any, n: int) -> Tensor:
    """``A`` multiplied by itself ``n`` times (``torch.linalg.matrix_power``).

    ``n = 0`` gives the identity (any dtype); ``n < 0`` the power of ``inv(A)``. The
    products are PyTorch's: binary powers of ``A``, the set bits of ``n`` multiplied in
    from the lowest, so the roundings are the same.

    >>> import minigrad as mg
    >>> mg.linalg.matrix_power(mg.tensor([[1, 1], [0, 1]]), 3)
    tensor([[1, 3],
            [0, 1]])
    """
    a = A if isinstance(A, Tensor) else Tensor.concrete(A)
    if a.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_power: The input tensor A must have at least 2 dimensions."
        )
    if a.shape[-1] != a.shape[-2]:
        m, k = a.shape[-2:]
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, "
            f"but they are {m} by {k} matrices"
        )
    n = int(n)
    if n == 0:
        # the identity, written over A (as PyTorch's copy into a clone): slope 0, not none
        eye = Tensor.concrete(np.eye(a.shape[-1], dtype=a.dtype), device=a.device)
        return where(Tensor.concrete(np.ones(a.shape, bool), device=a.device), eye, a)
    if n < 0:
        a, n = inv(a), -n
    if n == 1:
        return a.clone()
    result, power = None, None
    while n > 0:
        bit, n = n % 2, n // 2
        power = a if power is None else matmul(power, power)
        if bit:
            result = power if result is None else matmul(result, power)
    return result


def solve(A: Any, B: Any, *, left: bool = True) -> Tensor:
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``), ``torch.linalg.solve``.

    ``B`` is a vector (or a batch of vectors) when it is 1-D or has the shape of ``A``
    less its last axis; otherwise matrices, whose batch axes broadcast with ``A``'s. A
    singular ``A`` raises ``LinAlgError`` (PyTorch's message). Slopes:
    ``gB = A^-T g`` and ``gA = -gB X^T``, through the row again.

    >>> import minigrad as mg
    >>> mg.linalg.solve(mg.tensor([[2.0, 0.0], [0.0, 4.0]]), mg.tensor([2.0, 2.0]))
    tensor([1. , 0.5])
    """
    a = _square(A, "linalg.solve", "lu_cpu")
    b = B if isinstance(B, Tensor) else Tensor.concrete(B)
    if a.dtype != b.dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{_TORCH_NAMES[a.dtype.name]} and B of type "
            f"{_TORCH_NAMES.get(b.dtype.name, b.dtype.name)} instead"
        )
    if b.ndim == 0:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    matrices = b.unsqueeze(-1) if vector else b  # a vector is a column, on either side
    n = a.shape[-1]
    if matrices.shape[-2 if left else -1] != n:
        raise RuntimeError(
            "linalg.solve: Incompatible shapes of A and B for the equation "
            f"{'AX' if left else 'XA'} = B ({n}x{n} and {matrices.shape[-2]}x{matrices.shape[-1]})"
        )
    if vector and not left:
        raise RuntimeError(
            "linalg.solve: Vector broadcasting of the left hand side is not supported for "
            "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)"
        )
    batch = broadcast_shape(a.shape[:-2], matrices.shape[:-2])
    a = a.expand(*batch, n, n)
    matrices = matrices.expand(*batch, *matrices.shape[-2:])
    if left:
        x = apply(SOLVE, (a, matrices))
    else:  # X A = B  <=>  A^T X^T = B^T
        x = _mT(apply(SOLVE, (_mT(a), _mT(matrices))))
    return x.squeeze(-1) if vector else x


def cholesky(A: Any, *, upper: bool = False) -> Tensor:
    """``L`` lower triangular with ``A = L L^T`` (``upper=True``: ``U = L^T``, ``A = U^T U``),
    ``torch.linalg.cholesky``.

    Only the lower triangle of ``A`` is read (the upper one with ``upper=True``). A matrix
    that is not positive definite raises ``LinAlgError`` naming the first leading minor
    that is not (PyTorch's message). The slope is PyTorch's:
    ``L^-T Phi(L^T gL) L^-1``, symmetrized, with ``Phi`` the lower triangle, diagonal halved.

    >>> import minigrad as mg
    >>> mg.linalg.cholesky(mg.tensor([[4.0, 2.0], [2.0, 5.0]]))
    tensor([[2., 0.],
            [1., 2.]])
    """
    a = _square(A, "linalg.cholesky", "cholesky_cpu")
    if upper:
        return _mT(apply(CHOLESKY, (_mT(a),)))
    return apply(CHOLESKY, (a,))
