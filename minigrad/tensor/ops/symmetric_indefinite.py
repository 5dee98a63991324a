"""The LDL^T factorization of symmetric indefinite matrices, and solves with it (lesson 06).

A symmetric matrix that is not positive definite has no Cholesky factor, but it
has ``P A P^T = L D L^T`` with ``L`` unit lower triangular and ``D`` block diagonal
(blocks of size 1 or 2). LAPACK's ``sytrf`` finds it by Bunch and Kaufman's
pivoting: at each step it takes the diagonal element as a 1 x 1 pivot when it is
large enough against its column (``alpha = (1 + sqrt(17)) / 8``), else swaps in a
better diagonal element or takes a 2 x 2 block. ``ldl_factor`` runs that algorithm
(reference LAPACK's unblocked ``sytf2``, lower triangle) step for step, so that its
compact output is PyTorch's: ``L`` below the diagonal, ``D`` on it (and on the first
subdiagonal for 2 x 2 blocks), and LAPACK's 1-based ``pivots``, negative for the two
columns of a 2 x 2 block. ``ldl_solve`` is LAPACK's ``sytrs`` on those factors.

PyTorch has no derivative for either: its errors are raised when one is asked for.

    >>> import minigrad as mg
    >>> LD, pivots = mg.linalg.ldl_factor(mg.tensor([[0.0, 1.0], [1.0, 0.0]]))
    >>> LD, pivots
    (tensor([[0., 0.],
            [1., 0.]]), tensor([-2, -2], dtype=int32))
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.backends.quiet import quietly
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.dtypes import scalar_type_name as _name  # PyTorch's names of dtypes
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply

__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]

LdlResult = namedtuple("linalg_ldl_factor", ["LD", "pivots"])
LdlExResult = namedtuple("linalg_ldl_factor_ex", ["LD", "pivots", "info"])

#: Bunch and Kaufman's threshold: the growth of the entries stays bounded by (1 + 1/alpha).
_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _iamax(x: np.ndarray) -> int:
    """BLAS ``i?amax`` as MKL's (which PyTorch calls): the first NaN if there is one,
    else the first index of the largest magnitude."""
    magnitudes = np.abs(x)
    nans = np.flatnonzero(np.isnan(magnitudes))
    return int(nans[0]) if nans.size else int(np.argmax(magnitudes))


def _max(a: Any, b: Any) -> Any:
    """Fortran's ``MAX(a, b)`` as compiled for MKL (``maxsd``): ``b`` unless ``a > b``, so a
    NaN in ``a`` gives ``b`` and a NaN in ``b`` gives NaN."""
    return a if a > b else b


def _syr(a: np.ndarray, alpha: Any, x: np.ndarray) -> None:
    """BLAS ``?syr`` (lower) in place: ``a += alpha x x^T``, nothing when ``alpha`` is 0 and
    no change to a column whose ``x_j`` is 0 (so an infinite pivot leaves ``a`` as it is)."""
    if alpha == 0:
        return
    change = np.outer(x, alpha * x)
    change[:, x == 0] = 0
    a += np.tril(change)


def _sytf2(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Reference LAPACK's ``?sytf2`` with ``uplo = 'L'`` on one matrix (0-based inside,
    LAPACK's 1-based pivots out): ``(LD, pivots, info)``."""
    a = np.tril(matrix).astype(matrix.dtype, copy=True)
    dtype = a.dtype
    alpha = dtype.type(_ALPHA)
    tiny = np.finfo(dtype).tiny
    n = a.shape[0]
    pivots = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        step = 1
        absakk = abs(a[k, k])
        if k < n - 1:
            imax = k + 1 + _iamax(a[k + 1 :, k])
            colmax = abs(a[imax, k])
        else:
            imax, colmax = k, dtype.type(0)
        if _max(absakk, colmax) == 0:
            if info == 0:
                info = k + 1
            kp = k
        else:
            if absakk >= alpha * colmax:
                kp = k
            else:
                # the largest off-diagonal magnitude in row/column imax
                jmax = k + _iamax(a[imax, k:imax])
                rowmax = abs(a[imax, jmax])
                if imax < n - 1:
                    jmax = imax + 1 + _iamax(a[imax + 1 :, imax])
                    rowmax = _max(rowmax, abs(a[jmax, imax]))
                if absakk >= alpha * colmax * (colmax / rowmax):
                    kp = k
                elif abs(a[imax, imax]) >= alpha * rowmax:
                    kp = imax
                else:
                    kp, step = imax, 2
            kk = k + step - 1
            if kp != kk:  # swap rows and columns kk and kp of the trailing lower triangle
                if kp < n - 1:
                    a[kp + 1 :, [kk, kp]] = a[kp + 1 :, [kp, kk]]
                column = a[kk + 1 : kp, kk].copy()
                a[kk + 1 : kp, kk] = a[kp, kk + 1 : kp]
                a[kp, kk + 1 : kp] = column
                a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if step == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if step == 1:
                if k < n - 1:
                    x = a[k + 1 :, k]
                    if abs(a[k, k]) >= tiny:
                        d11 = dtype.type(1) / a[k, k]
                        _syr(a[k + 1 :, k + 1 :], -d11, x)
                        a[k + 1 :, k] = x * d11
                    else:
                        d11 = a[k, k]
                        x = x / d11
                        a[k + 1 :, k] = x
                        _syr(a[k + 1 :, k + 1 :], -d11, x)
            elif k < n - 2:
                d21 = a[k + 1, k]
                d11 = a[k + 1, k + 1] / d21
                d22 = a[k, k] / d21
                t = dtype.type(1) / (d11 * d22 - dtype.type(1))
                d21 = t / d21
                first, second = a[k + 2 :, k].copy(), a[k + 2 :, k + 1].copy()
                wk = d21 * (d11 * first - second)
                wkp1 = d21 * (d22 * second - first)
                a[k + 2 :, k + 2 :] -= np.tril(np.outer(first, wk))
                a[k + 2 :, k + 2 :] -= np.tril(np.outer(second, wkp1))
                a[k + 2 :, k] = wk
                a[k + 2 :, k + 1] = wkp1
        if step == 1:
            pivots[k] = kp + 1
        else:
            pivots[k] = pivots[k + 1] = -(kp + 1)
        k += step
    return a, pivots, info


@quietly
def _factor(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    *batch, n, _ = values.shape
    ld = np.zeros(values.shape, values.dtype)
    pivots = np.zeros((*batch, n), np.int32)
    info = np.zeros(tuple(batch), np.int32)
    if n == 0:
        return ld, pivots, info
    flat_ld, flat_pivots, flat_info = ld.reshape(-1, n, n), pivots.reshape(-1, n), info.reshape(-1)
    for i, matrix in enumerate(values.reshape(-1, n, n)):
        flat_ld[i], flat_pivots[i], flat_info[i] = _sytf2(matrix)
    return ld, pivots, info


def _host(backend: Any, x: Any) -> np.ndarray | None:
    try:
        return np.asarray(backend.to_numpy(x))
    except TracerError:  # tracing (lesson 13): only the shape and dtype are known
        return None


def _ldl_forward(backend: Any, x: Any, part: str) -> Any:
    a = _host(backend, x)
    if a is None:
        shapes = {"LD": x.shape, "pivots": x.shape[:-1], "info": x.shape[:-2]}
        dtype = x.dtype if part == "LD" else np.dtype(np.int32)
        return backend.unknown(shapes[part], dtype)
    ld, pivots, info = _factor(a)
    out = {"LD": ld, "pivots": pivots, "info": info}[part]
    return backend.from_numpy(np.array(out))  # 0-d stays 0-d


def _no_derivative(name: str):
    """PyTorch's errors where it has no derivative: backward (RuntimeError) and forward
    mode (NotImplementedError)."""

    def vjp(*_: Any, **__: Any) -> Any:
        raise RuntimeError(
            f"derivative for aten::{name} is not implemented\n"
            f"{name}: PyTorch has no derivative here either; detach() the inputs first"
        )

    def jvp(*_: Any, **__: Any) -> Any:
        raise NotImplementedError(
            f"Trying to use forward AD with aten::{name} that does not support it."
        )

    return vjp, jvp


_FACTOR_RULES = _no_derivative("linalg_ldl_factor_ex")
LDL_FACTOR = Primitive(
    "ldl_factor",
    _ldl_forward,
    vjp=_FACTOR_RULES[0],
    jvp=_FACTOR_RULES[1],
    batch=lambda xs, batched, part: apply(LDL_FACTOR, (xs[0],), part=part),
)
# The integer outputs: no derivative at all.
LDL_PIVOTS = Primitive(
    "ldl_pivots",
    _ldl_forward,
    batch=lambda xs, batched, part: apply(LDL_PIVOTS, (xs[0],), part=part),
)


def _sytrs(ld: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Reference LAPACK's ``?sytrs`` (``uplo = 'L'``) on one system: ``X`` with ``A X = B``."""
    x = b.astype(b.dtype, copy=True)
    n = ld.shape[0]
    one = ld.dtype.type(1)
    k = 0
    while k < n:  # L D X = B, one block of D at a time
        if pivots[k] > 0:
            kp = pivots[k] - 1
            if kp != k:
                x[[k, kp]] = x[[kp, k]]
            if k < n - 1:
                x[k + 1 :] -= np.outer(ld[k + 1 :, k], x[k])
            x[k] = x[k] * (one / ld[k, k])
            k += 1
        else:
            kp = -pivots[k] - 1
            if kp != k + 1:
                x[[k + 1, kp]] = x[[kp, k + 1]]
            if k < n - 2:
                x[k + 2 :] -= np.outer(ld[k + 2 :, k], x[k])
                x[k + 2 :] -= np.outer(ld[k + 2 :, k + 1], x[k + 1])
            akm1k = ld[k + 1, k]
            akm1 = ld[k, k] / akm1k
            ak = ld[k + 1, k + 1] / akm1k
            denom = akm1 * ak - one
            bkm1, bk = x[k] / akm1k, x[k + 1] / akm1k
            x[k] = (ak * bkm1 - bk) / denom
            x[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T X = B
        if pivots[k] > 0:
            if k < n - 1:
                x[k] -= ld[k + 1 :, k] @ x[k + 1 :]
            kp = pivots[k] - 1
            if kp != k:
                x[[k, kp]] = x[[kp, k]]
            k -= 1
        else:
            if k < n - 1:
                x[k] -= ld[k + 1 :, k] @ x[k + 1 :]
                x[k - 1] -= ld[k + 1 :, k - 1] @ x[k + 1 :]
            kp = -pivots[k] - 1
            if kp != k:
                x[[k, kp]] = x[[kp, k]]
            k -= 2
    return x


@quietly
def _solve(ld: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    n, columns = b.shape[-2:]
    out = np.zeros(b.shape, b.dtype)
    if out.size == 0:
        return out
    flat = out.reshape(-1, n, columns)
    systems = zip(ld.reshape(-1, n, n), pivots.reshape(-1, n), b.reshape(-1, n, columns))
    for i, (matrix, p, rhs) in enumerate(systems):
        flat[i] = _sytrs(matrix, p.astype(np.int64), rhs)
    return out


def _ldl_solve_forward(backend: Any, ld: Any, pivots: Any, b: Any) -> Any:
    values = [_host(backend, v) for v in (ld, pivots, b)]
    if any(v is None for v in values):
        return backend.unknown(b.shape, b.dtype)
    return backend.from_numpy(np.ascontiguousarray(_solve(*values)))


def _same_batch(xs: list, batched: list) -> tuple[Tensor, ...]:
    """vmap (lesson 14): the inputs that are the same for every example, repeated for each."""
    size = next(x.shape[0] for x, b in zip(xs, batched) if b)
    return tuple(x if b else x.expand(size, *x.shape) for x, b in zip(xs, batched))


_SOLVE_RULES = _no_derivative("linalg_ldl_solve")
LDL_SOLVE = Primitive(
    "ldl_solve",
    _ldl_solve_forward,
    vjp=_SOLVE_RULES[0],
    jvp=_SOLVE_RULES[1],
    batch=lambda xs, batched: apply(LDL_SOLVE, _same_batch(xs, batched)),
)


# -- the public functions --------------------------------------------------------------------


def _square(a: Tensor, op: str) -> None:
    if a.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        m, n = a.shape[-2:]
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )


def _floating(a: Tensor, op: str) -> None:
    if not dtypes.is_floating(a.dtype):
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {_name(a.dtype)}"
        )


def _factors(A: Any) -> tuple[Tensor, Tensor, Tensor]:
    a = _tensor(A)
    op = "torch.linalg.ldl_factor_ex"
    _square(a, op)
    _floating(a, op)
    if dtypes.is_low_precision(a.dtype):
        raise NotImplementedError(
            f"\"ldl_factor_kernel_cpu\" not implemented for '{_name(a.dtype)}'"
        )
    return (
        apply(LDL_FACTOR, (a,), part="LD"),
        apply(LDL_PIVOTS, (a,), part="pivots"),
        apply(LDL_PIVOTS, (a,), part="info"),
    )


def _check_info(info: Tensor, op: str) -> None:
    try:
        values = np.asarray(info.detach().numpy())
    except (TracerError, RuntimeError):  # traced or batched: no values to read
        return
    failed = values[values != 0]
    if failed.size:
        code = int(failed.reshape(-1)[0])
        raise RuntimeError(
            f"{op}: Unknown error code: {code}.\n"
            f"{op}: D's diagonal block {code} is exactly zero, so A is singular (LAPACK "
            "sytrf's info); linalg.ldl_factor_ex returns the factors and info instead"
        )


def ldl_factor_ex(A: Any, *, hermitian: bool = False,
                  check_errors: bool = False) -> LdlExResult:  # fmt: skip
    """``(LD, pivots, info)``: the compact LDL^T factorization of symmetric matrices
    (``torch.linalg.ldl_factor_ex``), LAPACK's ``sytrf`` with Bunch-Kaufman pivoting.

    Only the lower triangle of ``A`` is read. ``LD`` holds ``L`` below its diagonal and
    ``D`` on it (and on the first subdiagonal where a 2 x 2 block was taken); ``pivots``
    (int32, 1-based) records the swaps, negative for both columns of a 2 x 2 block;
    ``info`` is 0, or ``k`` where ``D``'s k-th diagonal block is exactly zero (the
    factorization still completes). ``check_errors=True`` raises there instead.
    ``hermitian`` is the same for real matrices. Not differentiable (as PyTorch).

    >>> import minigrad as mg
    >>> mg.linalg.ldl_factor_ex(mg.tensor([[4.0, 2.0], [2.0, 3.0]])).LD
    tensor([[4. , 0. ],
            [0.5, 2. ]])
    """
    ld, pivots, info = _factors(A)
    if check_errors:
        _check_info(info, "torch.linalg.ldl_factor_ex")
    return LdlExResult(ld, pivots, info)


def ldl_factor(A: Any, *, hermitian: bool = False) -> LdlResult:
    """``(LD, pivots)`` of ``ldl_factor_ex`` (``torch.linalg.ldl_factor``); a singular
    ``D`` (``info > 0``) raises RuntimeError.

    >>> import minigrad as mg
    >>> A = mg.tensor([[1.0, 2.0], [2.0, 1.0]])
    >>> LD, pivots = mg.linalg.ldl_factor(A)
    >>> mg.linalg.ldl_solve(LD, pivots, mg.tensor([[3.0], [3.0]]))
    tensor([[1.],
            [1.]])
    """
    ld, pivots, info = _factors(A)
    _check_info(info, "torch.linalg.ldl_factor")
    return LdlResult(ld, pivots)


def ldl_solve(LD: Any, pivots: Any, B: Any, *, hermitian: bool = False) -> Tensor:
    """``X`` with ``A X = B`` from ``ldl_factor``'s ``(LD, pivots)``
    (``torch.linalg.ldl_solve``, LAPACK's ``sytrs``); the batch axes of ``LD`` and ``B``
    broadcast. Not differentiable in any input (as PyTorch).

    >>> import minigrad as mg
    >>> LD, pivots = mg.linalg.ldl_factor(mg.tensor([[0.0, 2.0], [2.0, 0.0]]))
    >>> mg.linalg.ldl_solve(LD, pivots, mg.tensor([[2.0], [4.0]]))
    tensor([[2.],
            [1.]])
    """
    ld, p, b = _tensor(LD), _tensor(pivots), _tensor(B)
    op = "torch.linalg.ldl_solve"
    _square(ld, op)
    _floating(ld, op)
    if b.dtype != ld.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {_name(b.dtype)} "
            f"and A of type {_name(ld.dtype)} instead."
        )
    if b.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(b.ndim, 1)}, "
            f"{max(b.ndim, 1) - 1}], but got -2)"
        )
    if b.shape[-2] != ld.shape[-1]:
        n = ld.shape[-1]
        raise RuntimeError(
            f"Incompatible matrix sizes for {op}: each A matrix is {n} by {n} but each b "
            f"matrix is {b.shape[-2]} by {b.shape[-1]}"
        )
    if p.shape != ld.shape[:-1]:
        raise RuntimeError(
            f"{op}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots "
            f"with shape {_shape_text(p.shape)} instead"
        )
    if np.dtype(p.dtype).kind not in "iu":
        raise RuntimeError(f"{op}: Expected pivots to be integers. Got {_name(p.dtype)}")
    if dtypes.is_low_precision(ld.dtype):
        raise NotImplementedError(f"\"ldl_solve_cpu\" not implemented for '{_name(ld.dtype)}'")
    batch = tuple(np.broadcast_shapes(ld.shape[:-2], b.shape[:-2]))
    n = ld.shape[-1]
    ld = ld.broadcast_to((*batch, n, n))
    p = p.broadcast_to((*batch, n))
    b = b.broadcast_to((*batch, *b.shape[-2:]))
    return apply(LDL_SOLVE, (ld, p, b))
