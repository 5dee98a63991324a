"""The symmetric eigendecomposition and the QR decomposition, and their derivatives (lesson 06).

Both factor a matrix into an orthogonal part and a simple one: ``A = V diag(L) V^T``
for a symmetric ``A`` (``linalg.eigh``), ``A = Q R`` with ``R`` upper triangular for
any ``A`` (``linalg.qr``). The factors come from LAPACK on the host, as the SVD's do.
Each row gives one factor, named by ``part``; the rules call the rows again for the
factors they need, so second derivatives are the chain rule through the same rows.

- eigh: with ``dP = V^T dA V`` (the change seen in the eigenbasis), ``dL = diag(dP)``
  and ``dV = V (dP / E)`` off the diagonal, ``E[i, j] = L_j - L_i``. Equal eigenvalues
  make ``E`` zero: the vectors are not unique there and their derivative is infinite
  (as PyTorch's). The cotangent is PyTorch's ``V (skew(V^T gV) / E + diag(gL)) V^T``.
- qr: ``C = Q^T dA R^-1`` splits into a skew part (``Q^T dQ``) and an upper
  triangular one (``dR R^-1``): ``Omega = tril(C, -1) - tril(C, -1)^T``, so
  ``dR = (C - Omega) R`` and ``dQ = dA R^-1 - Q (C - Omega)``.

    >>> import minigrad as mg
    >>> L, V = mg.linalg.eigh(mg.tensor([[2.0, 0.0], [0.0, 1.0]]))
    >>> L, V.abs()
    (tensor([1., 2.]), tensor([[0., 1.],
            [1., 0.]]))
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.backends.quiet import quietly
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.inverses import INV
from minigrad.tensor.ops.linalg import matmul
from minigrad.tensor.ops.movement import concatenate
from minigrad.tensor.ops.rearrange import narrow
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply

EighResult = namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("linalg_qr", ["Q", "R"])

# PyTorch's names for dtypes in its messages.
_TORCH_NAMES = {"int64": "Long", "int32": "Int", "bool": "Bool", "float16": "Half",
                "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
                "int8": "Char", "uint8": "Byte", "int16": "Short"}  # fmt: skip


def _host(backend: Any, x: Any) -> np.ndarray | None:
    try:
        return np.asarray(backend.to_numpy(x))
    except TracerError:  # tracing (lesson 13): only the shape and dtype are known
        return None


def _mT(x: Tensor) -> Tensor:
    return x.swapaxes(-1, -2)


def _eye(k: int, device: Any) -> Tensor:
    return Tensor.concrete(np.eye(k, dtype=bool), device=device)


def _as_tensor(A: Any) -> Tensor:
    return A if isinstance(A, Tensor) else Tensor.concrete(A)


# -- eigh ------------------------------------------------------------------------------------


@quietly
def _eigh(a: np.ndarray, uplo: str) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's eigenvalues (ascending) and eigenvectors of each matrix, one triangle read."""
    n = a.shape[-1]
    if a.size == 0:
        return np.zeros(a.shape[:-1], a.dtype), np.zeros(a.shape, a.dtype)
    finite = np.isfinite(a).all(axis=(-2, -1))
    safe = np.where(finite[..., None, None], a, 0)
    values, vectors = np.linalg.eigh(safe, UPLO=uplo)
    if not finite.all():  # LAPACK gives no answer there; NaN says so
        values = np.where(finite[..., None], values, np.nan)
        vectors = np.where(finite[..., None, None], vectors, np.nan)
    return values.astype(a.dtype), vectors.astype(a.dtype).reshape(*a.shape[:-2], n, n)


def _eigh_forward(backend: Any, x: Any, part: str, uplo: str) -> Any:
    a = _host(backend, x)
    if a is None:
        shape = x.shape[:-1] if part == "L" else x.shape
        return backend.unknown(shape, x.dtype)
    values, vectors = _eigh(a, uplo)
    return backend.from_numpy(np.ascontiguousarray(values if part == "L" else vectors))


def _eigh_factors(a: Tensor, uplo: str) -> tuple[Tensor, Tensor]:
    return tuple(apply(EIGH, (a,), part=p, uplo=uplo) for p in ("L", "V"))


def _gaps(values: Tensor) -> Tensor:
    """``E[i, j] = L_j - L_i``, with 1 on the diagonal (which the rules leave out)."""
    gaps = values.unsqueeze(-2) - values.unsqueeze(-1)
    return where(_eye(values.shape[-1], values.device), 1.0, gaps)


def _eigh_vjp(g: Tensor, out: Any, inputs: Any, needs: Any, part: str, uplo: str):
    # PyTorch's linalg_eig_backward (hermitian): V (skew(V^T gV) / E + diag(gL)) V^T
    values, vectors = _eigh_factors(inputs[0], uplo)
    if part == "L":
        return (matmul(vectors * g.unsqueeze(-2), _mT(vectors)),)
    inner = matmul(_mT(vectors), g)
    core = where(_eye(g.shape[-1], g.device), 0.0, (inner - _mT(inner)) * 0.5 / _gaps(values))
    return (matmul(vectors, matmul(core, _mT(vectors))),)


def _eigh_jvp(tangents: Any, out: Any, inputs: Any, part: str, uplo: str):
    # dP = V^T dA V: dL = diag(dP), dV = V (dP / E) off the diagonal
    values, vectors = _eigh_factors(inputs[0], uplo)
    dp = matmul(matmul(_mT(vectors), tangents[0]), vectors)
    if part == "L":
        return dp.diagonal(0, -2, -1)
    return matmul(vectors, where(_eye(dp.shape[-1], dp.device), 0.0, dp / _gaps(values)))


EIGH = Primitive(
    "eigh",
    _eigh_forward,
    vjp=_eigh_vjp,
    jvp=_eigh_jvp,
    saves=(0,),
    batch=lambda xs, batched, part, uplo: apply(EIGH, (xs[0],), part=part, uplo=uplo),
)


def _symmetric_input(A: Any, UPLO: str, op: str) -> tuple[Tensor, str]:
    a = _as_tensor(A)
    uplo = str(UPLO).upper()
    if uplo not in ("L", "U") or len(str(UPLO)) != 1:
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    if a.ndim < 2:
        raise RuntimeError(
            f"{op}: The input tensor A must have at least 2 dimensions.\n{op}: got shape {a.shape}"
        )
    if a.shape[-1] != a.shape[-2]:
        m, n = a.shape[-2:]
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )
    if not dtypes.is_floating(a.dtype) or dtypes.is_low_precision(a.dtype):
        name = _TORCH_NAMES.get(a.dtype.name, a.dtype.name)
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{name}'")
    return a, uplo


def eigh(A: Any, UPLO: str = "L") -> EighResult:
    """``(eigenvalues, eigenvectors)`` of symmetric matrices (``torch.linalg.eigh``).

    Only the lower triangle is read (``UPLO="U"``: the upper one); the eigenvalues come
    in ascending order, ``A = V diag(L) V^T``. Each eigenvector is unique only up to its
    sign: minigrad's come from reference LAPACK's ``syevd`` (as NumPy's do), PyTorch's
    from MKL's, whose signs agree for matrices larger than 25 x 25 and for some columns
    of smaller ones. Functions that do not depend on the sign (``V.abs()``,
    ``V @ diag(L) @ V.mT``, the eigenvalues) agree always, and so do their gradients.
    The gradient is PyTorch's, infinite where two eigenvalues are equal.

    >>> import minigrad as mg
    >>> mg.linalg.eigh(mg.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues
    tensor([1., 3.])
    """
    a, uplo = _symmetric_input(A, UPLO, "linalg.eigh")
    return EighResult(*_eigh_factors(a, uplo))


def eigvalsh(A: Any, UPLO: str = "L") -> Tensor:
    """The eigenvalues of symmetric matrices, ascending (``torch.linalg.eigvalsh``).

    Their gradient is ``V diag(g) V^T``: defined even where two eigenvalues are equal.

    >>> import minigrad as mg
    >>> mg.linalg.eigvalsh(mg.tensor([[2.0, 1.0], [1.0, 2.0]]))
    tensor([1., 3.])
    """
    a, uplo = _symmetric_input(A, UPLO, "linalg.eigvalsh")
    return apply(EIGH, (a,), part="L", uplo=uplo)


# -- qr --------------------------------------------------------------------------------------


def _qr_shapes(shape: tuple[int, ...], mode: str) -> dict[str, tuple[int, ...]]:
    *batch, m, n = shape
    k = m if mode == "complete" else min(m, n)
    return {"Q": (*batch, m, k), "R": (*batch, k, n)}


def _qr(a: np.ndarray, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's ``geqrf`` factors (Householder: R's diagonal may be negative)."""
    shapes = _qr_shapes(a.shape, mode)
    if a.size == 0:
        q = np.zeros(shapes["Q"], a.dtype)
        if q.size:  # a complete basis of the columns' space
            q[...] = np.eye(q.shape[-2], q.shape[-1], dtype=a.dtype)
        return q, np.zeros(shapes["R"], a.dtype)
    if mode == "r":  # R only (the row is not asked for Q)
        return np.zeros((0,), a.dtype), np.linalg.qr(a, mode="r").astype(a.dtype)
    q, r = np.linalg.qr(a, mode=mode)
    return q.astype(a.dtype), r.astype(a.dtype)


@quietly
def _qr_forward(backend: Any, x: Any, part: str, mode: str) -> Any:
    a = _host(backend, x)
    if a is None:
        return backend.unknown(_qr_shapes(x.shape, mode)[part], x.dtype)
    q, r = _qr(a, mode)
    return backend.from_numpy(np.ascontiguousarray(q if part == "Q" else r))


def _qr_factors(a: Tensor) -> tuple[Tensor, Tensor]:
    """The reduced factors of ``a``, through the row (so differentiable again)."""
    return tuple(apply(QR, (a,), part=p, mode="reduced") for p in ("Q", "R"))


def _upper_solve_right(r: Tensor, x: Tensor) -> Tensor:
    """``x R^-1`` for an upper triangular ``R`` (through the inverse's row)."""
    return matmul(x, apply(INV, (r,)))


def _qr_differentiable(a: Tensor, mode: str) -> None:
    m, n = a.shape[-2:]
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
            "through linalg.qr."
        )
    if mode == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )


def _qr_vjp(g: Tensor, out: Any, inputs: Any, needs: Any, part: str, mode: str):
    # PyTorch's linalg_qr_backward, with one factor's cotangent (the rule is linear in them)
    (a,) = inputs
    _qr_differentiable(a, mode)
    q, r = _qr_factors(a)
    m, n = a.shape[-2:]
    x = -matmul(_mT(q), g) if part == "Q" else matmul(g, _mT(r))
    if m >= n:  # Q (triu(X) + triu(X)^T, diagonal once) + gQ, times R^-T
        upper = x * Tensor.concrete(np.triu(np.ones((n, n), x.dtype)), device=x.device)
        sym = upper + _mT(upper) - where(_eye(n, x.device), x, 0.0)
        grad = matmul(q, sym) + (g if part == "Q" else 0.0)
        return (_upper_solve_right_transposed(r, grad),)
    # the strictly lower part of X - X^T, X = -x
    skew = (_mT(x) - x) * Tensor.concrete(np.tril(np.ones((m, m), x.dtype), -1), device=x.device)
    grad = _upper_solve_right_transposed(narrow(r, -1, 0, m), matmul(q, skew))
    zeros = Tensor.concrete(np.zeros((*grad.shape[:-1], n - m), x.dtype), device=x.device)
    grad = concatenate([grad, zeros], -1)
    return (grad + matmul(q, g) if part == "R" else grad,)


def _upper_solve_right_transposed(r: Tensor, x: Tensor) -> Tensor:
    """``x R^-T`` for an upper triangular ``R``."""
    return matmul(x, _mT(apply(INV, (r,))))


def _qr_jvp(tangents: Any, out: Any, inputs: Any, part: str, mode: str):
    (a,), (da,) = inputs, tangents
    q, r = _qr_factors(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    r1 = narrow(r, -1, 0, k)
    da1 = narrow(da, -1, 0, k)
    moved = _upper_solve_right(r1, da1)  # dA1 R1^-1
    c = matmul(_mT(q), moved)
    low = c * Tensor.concrete(np.tril(np.ones((k, k), c.dtype), -1), device=c.device)
    omega = low - _mT(low)
    upper = c - omega  # dR1 R1^-1
    if part == "Q":
        dq = moved - matmul(q, upper)
        if mode == "complete" and m > n:  # PyTorch holds the rest of the basis still
            zeros = Tensor.concrete(np.zeros((*dq.shape[:-1], m - n), dq.dtype), device=dq.device)
            return concatenate([dq, zeros], -1)
        return dq
    dr1 = matmul(upper, r1)
    if n <= m:
        if mode == "complete" and m > n:
            zeros = Tensor.concrete(np.zeros((*dr1.shape[:-2], m - n, n), dr1.dtype),
                                    device=dr1.device)  # fmt: skip
            return concatenate([dr1, zeros], -2)
        return dr1
    dq = moved - matmul(q, upper)
    dr2 = matmul(_mT(q), narrow(da, -1, k, n - k) - matmul(dq, narrow(r, -1, k, n - k)))
    return concatenate([dr1, dr2], -1)


QR = Primitive(
    "qr",
    _qr_forward,
    vjp=_qr_vjp,
    jvp=_qr_jvp,
    saves=(0,),
    batch=lambda xs, batched, part, mode: apply(QR, (xs[0],), part=part, mode=mode),
)


def qr(A: Any, mode: str = "reduced") -> QRResult:
    """``(Q, R)`` with ``A = Q R``, ``Q`` orthonormal columns, ``R`` upper triangular
    (``torch.linalg.qr``).

    ``mode="reduced"``: k = min(m, n) columns of ``Q``; ``"complete"``: all m;
    ``"r"``: ``R`` only (``Q`` is empty). The factors are LAPACK's Householder ones
    (``geqrf``), PyTorch's too: ``R``'s diagonal may be negative. Not differentiable
    for ``"r"`` nor for ``"complete"`` with m > n (PyTorch's errors, raised in backward).

    >>> import minigrad as mg
    >>> Q, R = mg.linalg.qr(mg.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> R
    tensor([[-5. , -2.2],
            [ 0. ,  0.4]])
    """
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    a = _as_tensor(A)
    if a.ndim < 2:
        raise RuntimeError(
            "linalg.qr: The input tensor A must have at least 2 dimensions.\n"
            f"linalg.qr: got shape {a.shape}"
        )
    if not dtypes.is_floating(a.dtype):
        raise RuntimeError(
            "linalg.qr: Expected a floating point or complex tensor as input. Got "
            f"{_TORCH_NAMES.get(a.dtype.name, a.dtype.name)}"
        )
    if dtypes.is_low_precision(a.dtype):
        raise NotImplementedError(
            f"\"geqrf_cpu\" not implemented for '{_TORCH_NAMES[a.dtype.name]}'"
        )
    r = apply(QR, (a,), part="R", mode=mode)
    if mode == "r":  # no Q: an empty tensor, as PyTorch's
        return QRResult(Tensor.concrete(np.zeros((0,), a.dtype), device=a.device), r)
    return QRResult(apply(QR, (a,), part="Q", mode=mode), r)
