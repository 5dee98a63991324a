"""Triangular systems, and the LU and Cholesky families built on them (lesson 06).

A triangular system ``A X = B`` is solved by substitution, one row at a time, so
every other solver here is a few of them: the LU factorization ``A = P L U``
(``L`` unit lower, ``U`` upper triangular, ``P`` the row swaps of partial pivoting)
solves ``A X = B`` as ``U^-1 L^-1 P^T B``; a Cholesky factor ``A = L L^T`` as
``L^-T L^-1 B``. Three rows carry derivatives of their own:

- ``solve_triangular``: ``gB`` solves the transposed system, ``gA = -gB X^T`` kept
  to the triangle that was read (PyTorch's rule);
- ``lu_factor``: with ``F = L^-1 P^T dA U^-1``, ``dL = L tril(F, -1)`` and
  ``dU = triu(F) U`` (a wide or tall matrix carries its extra block through);
  the cotangent is PyTorch's ``linalg_lu_backward``;
- ``cholesky_solve``: PyTorch's ``gL = -(gB X^T + X gB^T) L`` (not kept to the triangle).

Everything else (``lu_unpack``, ``linalg.lu``, ``lu_solve``, ``cholesky_inverse``,
``triangular_solve``) is a composition of these rows, whose derivatives are then the
chain rule: the same as PyTorch's formulas for them. The factorizations run on the
host in NumPy with LAPACK's partial pivoting (the first largest entry of a column),
so pivots and a singular matrix's report (``info``) are PyTorch's.

    >>> import minigrad as mg
    >>> A = mg.tensor([[2.0, 0.0], [1.0, 1.0]])
    >>> mg.linalg.solve_triangular(A, mg.tensor([[2.0], [3.0]]), upper=False)
    tensor([[1.],
            [2.]])
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
from minigrad.tensor.ops.inverses import (
    _first_failed_minor,
    _refuse_singular,
    _square,
    cholesky,
    inv,
    solve,
)
from minigrad.tensor.ops.linalg import matmul
from minigrad.tensor.ops.movement import concatenate
from minigrad.tensor.ops.rearrange import narrow
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply

LUFactorResult = namedtuple("linalg_lu_factor", ["LU", "pivots"])
LUFactorExResult = namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
LUResult = namedtuple("linalg_lu", ["P", "L", "U"])
LUUnpackResult = namedtuple("lu_unpack", ["P", "L", "U"])
TriangularSolveResult = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
CholeskyExResult = namedtuple("linalg_cholesky_ex", ["L", "info"])
InvExResult = namedtuple("linalg_inv_ex", ["inverse", "info"])
SolveExResult = namedtuple("linalg_solve_ex", ["result", "info"])

# PyTorch's names for dtypes in its messages.
_TORCH_NAMES = {"int64": "Long", "int32": "Int", "bool": "Bool", "float16": "Half",
                "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
                "int8": "Char", "uint8": "Byte", "int16": "Short"}  # fmt: skip


def _name(dtype: Any) -> str:
    return _TORCH_NAMES.get(dtype.name, dtype.name)


def _host(backend: Any, x: Any) -> np.ndarray | None:
    try:
        return np.asarray(backend.to_numpy(x))
    except TracerError:  # tracing (lesson 13): only the shape and dtype are known
        return None


def _values(x: Tensor) -> np.ndarray | None:
    """``x``'s values, or None where there are none to read (jit tracing, vmap)."""
    try:
        return x.detach().numpy()
    except (TracerError, RuntimeError):
        return None


def _mT(x: Tensor) -> Tensor:
    return x.swapaxes(-1, -2)


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _constant(values: np.ndarray, like: Tensor) -> Tensor:
    return Tensor.concrete(values, device=like.device)


def _band(x: Tensor, upper: bool, diagonal: int) -> Tensor:
    """``triu(x, diagonal)`` or ``tril(x, diagonal)`` of the last two axes."""
    m, n = x.shape[-2:]
    mask = (np.triu if upper else np.tril)(np.ones((m, n), bool), diagonal)
    return where(_constant(mask, x), x, 0.0)


def _eye_like(x: Tensor, m: int, n: int) -> Tensor:
    return _constant(np.eye(m, n, dtype=x.dtype), x)


# -- host arithmetic -------------------------------------------------------------------------


@quietly
def substitute(a: np.ndarray, b: np.ndarray, upper: bool, unit: bool) -> np.ndarray:
    """``X`` with ``A X = B`` for triangular ``A`` (only its triangle read; ``unit``: ones
    assumed on the diagonal), by substitution; a zero on the diagonal gives infinities,
    as LAPACK's ``trsm``. ``a`` and ``b`` share their batch axes.

    >>> substitute(np.array([[2.0, 0.0], [1.0, 1.0]]), np.array([[2.0], [3.0]]), False, False)
    array([[1.],
           [2.]])
    """
    x = np.array(b, dtype=np.result_type(a, b), copy=True)
    n = a.shape[-1]
    for i in range(n - 1, -1, -1) if upper else range(n):
        done = slice(i + 1, n) if upper else slice(0, i)
        row = x[..., i, :] - (a[..., i : i + 1, done] @ x[..., done, :])[..., 0, :]
        x[..., i, :] = row if unit else row / a[..., i, i, None]
    return x


@quietly
def getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK's ``getrf`` for each matrix: ``(LU, pivots, info)``, ``pivots`` 1-based
    row swaps (int32), ``info`` the first zero of ``U``'s diagonal (1-based) or 0.

    >>> getrf(np.array([[1.0, 2.0], [2.0, 4.0]]))
    (array([[2. , 4. ],
           [0.5, 0. ]]), array([2, 2], dtype=int32), array(2, dtype=int32))
    """
    *batch, m, n = a.shape
    k = min(m, n)
    lu = np.array(a, copy=True).reshape(int(np.prod(batch, dtype=int)), m, n)
    pivots = np.zeros((len(lu), k), np.int32)
    info = np.zeros(len(lu), np.int32)
    rows = np.arange(len(lu))
    for j in range(k):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
        pivots[:, j] = p + 1
        top = lu[rows, j].copy()
        lu[rows, j] = lu[rows, p]
        lu[rows, p] = top
        head = lu[:, j, j]
        zero = head == 0  # its column is 0 below too: nothing to eliminate
        info[(info == 0) & zero] = j + 1
        safe = np.where(zero, 1, head)
        lu[:, j + 1 :, j] = np.where(
            zero[:, None], lu[:, j + 1 :, j], lu[:, j + 1 :, j] / safe[:, None]
        )
        lu[:, j + 1 :, j + 1 :] -= lu[:, j + 1 :, j, None] * lu[:, j, None, j + 1 :]
    return lu.reshape(a.shape), pivots.reshape(*batch, k), info.reshape(tuple(batch))


def permutation(pivots: np.ndarray, m: int, dtype: Any) -> np.ndarray:
    """``P`` of ``A = P L U`` from LAPACK's 1-based row swaps (``m`` rows)."""
    count = int(np.prod(pivots.shape[:-1], dtype=int))
    flat = pivots.reshape(count, pivots.shape[-1]).astype(np.int64) - 1
    order = np.tile(np.arange(m), (len(flat), 1))
    rows = np.arange(len(flat))
    for j in range(flat.shape[-1]):
        p = np.clip(flat[:, j], 0, m - 1)
        top = order[rows, j].copy()
        order[rows, j] = order[rows, p]
        order[rows, p] = top
    p_matrix = np.zeros((len(flat), m, m), dtype)
    p_matrix[rows[:, None], order, np.arange(m)[None, :]] = 1
    return p_matrix.reshape(*pivots.shape[:-1], m, m)


# -- solve_triangular ------------------------------------------------------------------------


def _trsolve_forward(backend: Any, a: Any, b: Any, upper: bool, unit: bool) -> Any:
    a_host, b_host = _host(backend, a), _host(backend, b)
    if a_host is None or b_host is None:
        return backend.unknown(b.shape, b.dtype)
    return backend.from_numpy(np.ascontiguousarray(substitute(a_host, b_host, upper, unit)))


def _trsolve_vjp(g: Tensor, out: Any, inputs: Any, needs: Any, upper: bool, unit: bool):
    # PyTorch's linalg_solve_triangular_backward (left side)
    a, b = inputs
    gb = apply(TRSOLVE, (_mT(a), g), upper=not upper, unit=unit)
    if not needs[0]:
        return None, gb
    x = apply(TRSOLVE, (a, b), upper=upper, unit=unit)
    ga = _band(-matmul(gb, _mT(x)), upper, (1 if upper else -1) if unit else 0)
    return ga, gb


def _trsolve_jvp(tangents: Any, out: Any, inputs: Any, upper: bool, unit: bool):
    # dX = A^-1 (dB - dA X), dA kept to the triangle read
    (a, b), (da, db) = inputs, tangents
    change = db
    if da is not None:
        kept = _band(da, upper, (1 if upper else -1) if unit else 0)
        moved = -matmul(kept, apply(TRSOLVE, (a, b), upper=upper, unit=unit))
        change = moved if change is None else change + moved
    return apply(TRSOLVE, (a, change), upper=upper, unit=unit)


def _same_batch(xs: list, batched: list) -> tuple[Tensor, ...]:
    """vmap (lesson 14): the side that is the same for every example, repeated for each."""
    size = next(x.shape[0] for x, b in zip(xs, batched) if b)
    return tuple(x if b else x.expand(size, *x.shape) for x, b in zip(xs, batched))


TRSOLVE = Primitive(
    "solve_triangular",
    _trsolve_forward,
    vjp=_trsolve_vjp,
    jvp=_trsolve_jvp,
    saves=(0, 1),
    batch=lambda xs, batched, upper, unit: apply(
        TRSOLVE, _same_batch(xs, batched), upper=upper, unit=unit
    ),
)


def _float_pair(a: Tensor, b: Tensor, kernel: str) -> tuple[Tensor, Tensor]:
    for x in (a, b):
        if not dtypes.is_floating(x.dtype) or dtypes.is_low_precision(x.dtype):
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(x.dtype)}'")
    return a, b


def _left_solve(a: Tensor, b: Tensor, upper: bool, unit: bool) -> Tensor:
    """``A^-1 B`` with the batch axes of ``A`` and ``B`` broadcast."""
    batch = broadcast_shape(a.shape[:-2], b.shape[:-2])
    a = a.expand(*batch, *a.shape[-2:])
    b = b.expand(*batch, *b.shape[-2:])
    return apply(TRSOLVE, (a, b), upper=upper, unit=unit)


def solve_triangular(
    A: Any, B: Any, *, upper: bool, left: bool = True, unitriangular: bool = False
) -> Tensor:
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``) for triangular ``A``
    (``torch.linalg.solve_triangular``).

    Only the triangle ``upper`` names is read, and with ``unitriangular`` not its
    diagonal (taken to be ones). A zero on the diagonal gives infinities, not an error
    (as PyTorch's). Batch axes broadcast; the two dtypes promote.

    >>> import minigrad as mg
    >>> mg.linalg.solve_triangular(mg.tensor([[2.0, 1.0], [0.0, 1.0]]), mg.eye(2), upper=True)
    tensor([[ 0.5, -0.5],
            [ 0. ,  1. ]])
    """
    a, b = _as_tensor(A), _as_tensor(B)
    op = "linalg.solve_triangular"
    for x, name in ((a, "A"), (b, "B")):
        if x.ndim < 2:
            raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    a, b = _float_pair(a, b, "triangular_solve_cpu")
    if a.shape[-1] != a.shape[-2]:
        m, n = a.shape[-2:]
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )
    n = a.shape[-1]
    if b.shape[-2 if left else -1] != n:
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation {'AX' if left else 'XA'} = B "
            f"({n}x{n} and {b.shape[-2]}x{b.shape[-1]})"
        )
    dtype = np.promote_types(a.dtype, b.dtype)  # both float32 or float64
    a, b = a.to(dtype), b.to(dtype)
    if left:
        return _left_solve(a, b, bool(upper), bool(unitriangular))
    return _mT(_left_solve(_mT(a), _mT(b), not upper, bool(unitriangular)))


def triangular_solve(
    b: Any, A: Any, upper: bool = True, transpose: bool = False, unitriangular: bool = False
) -> TriangularSolveResult:
    """``(X, A.clone())`` with ``A X = b`` (``transpose``: ``A^T X = b``),
    ``torch.triangular_solve``.

    PyTorch's older spelling of ``linalg.solve_triangular`` (arguments the other way
    round, and a copy of ``A`` returned, whose gradient reaches ``A`` unchanged).

    >>> import minigrad as mg
    >>> mg.triangular_solve(mg.tensor([[1.0], [1.0]]), mg.tensor([[2.0, 1.0], [0.0, 1.0]]))
    triangular_solve(solution=tensor([[0.],
            [1.]]), cloned_coefficient=tensor([[2., 1.],
            [0., 1.]]))
    """
    rhs, a = _as_tensor(b), _as_tensor(A)
    for x, name in ((rhs, "b"), (a, "A")):
        if x.ndim < 2:
            raise RuntimeError(
                f"torch.triangular_solve: Expected {name} to have at least 2 dimensions, but it "
                f"has {x.ndim} dimensions instead"
            )
    if rhs.dtype != a.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {_name(rhs.dtype)} "
            f"and A of type {_name(a.dtype)} instead."
        )
    _float_pair(a, rhs, "triangular_solve_cpu")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {a.shape[-2]} by "
            f"{a.shape[-1]} matrices"
        )
    if rhs.shape[-2] != a.shape[-1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for triangular_solve: each A matrix is {a.shape[-2]} "
            f"by {a.shape[-1]} but each b matrix is {rhs.shape[-2]} by {rhs.shape[-1]}"
        )
    batch = broadcast_shape(a.shape[:-2], rhs.shape[:-2])
    a = a.expand(*batch, *a.shape[-2:])  # the copy has the broadcast shape (PyTorch's)
    if transpose:
        x = _left_solve(_mT(a), rhs, not upper, bool(unitriangular))
    else:
        x = _left_solve(a, rhs, bool(upper), bool(unitriangular))
    return TriangularSolveResult(x, a.clone())


# -- LU --------------------------------------------------------------------------------------


def _lu_forward(backend: Any, x: Any) -> Any:
    a = _host(backend, x)
    if a is None:
        return backend.unknown(x.shape, x.dtype)
    return backend.from_numpy(np.ascontiguousarray(getrf(a)[0]))


def _lu_parts(a: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """``(P, L, U, LU)`` of ``a`` through the rows (so differentiable again)."""
    lu = apply(LU_FACTOR, (a,))
    p, lower, upper = _unpack(lu, apply(LU_PIVOTS, (a.detach(),)))
    return p, lower, upper, lu


def _lu_vjp(g: Tensor, out: Any, inputs: Any, needs: Any):
    # PyTorch's lu_factor_ex_backward: linalg_lu_backward on the unpacked factors
    (a,) = inputs
    p, lower, upper, _ = _lu_parts(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    gl, gu = narrow(g, -1, 0, k), narrow(g, -2, 0, k)
    if m == n:
        grad = _band(matmul(_mT(lower), gl), False, -1) + _band(matmul(gu, _mT(upper)), True, 0)
        grad = _right_solve(grad, upper, upper_a=True, unit=False)
        grad = _left_solve(_mT(lower), grad, True, True)
    elif m < n:
        u1 = narrow(upper, -1, 0, k)
        grad = matmul(_mT(lower), gl) - matmul(_band(gu, True, 0), _mT(upper))
        grad = _right_solve(_band(grad, False, -1), u1, upper_a=True, unit=False)
        grad = concatenate(
            [grad + _band(narrow(gu, -1, 0, k), True, 0), narrow(gu, -1, k, n - k)], -1
        )
        grad = _left_solve(_mT(lower), grad, True, True)
    else:
        l1 = narrow(lower, -2, 0, k)
        grad = matmul(gu, _mT(upper)) - matmul(_mT(lower), _band(gl, False, -1))
        grad = _left_solve(_mT(l1), _band(grad, True, 0), True, True)
        grad = concatenate(
            [grad + _band(narrow(gl, -2, 0, k), False, -1), narrow(gl, -2, k, m - k)], -2
        )
        grad = _right_solve(grad, upper, upper_a=True, unit=False)
    return (matmul(p, grad),)


def _right_solve(x: Tensor, a: Tensor, upper_a: bool, unit: bool) -> Tensor:
    """``x A^-T`` for triangular ``A`` (``upper_a``: upper), i.e. ``Y A^T = x``."""
    return _mT(_left_solve(a, _mT(x), upper_a, unit))


def _lu_jvp(tangents: Any, out: Any, inputs: Any):
    # F = L^-1 P^T dA U^-1: dL = L tril(F, -1), dU = triu(F) U, packed into one matrix
    (a,), (da,) = inputs, tangents
    p, lower, upper, _ = _lu_parts(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    moved = matmul(_mT(p), da)  # P^T dA
    l1, u1 = narrow(lower, -2, 0, k), narrow(upper, -1, 0, k)
    top = _left_solve(l1, narrow(narrow(moved, -2, 0, k), -1, 0, k), False, True)
    f = _mT(_left_solve(_mT(u1), _mT(top), False, False))  # L1^-1 (P^T dA)_11 U1^-1
    dl1 = matmul(l1, _band(f, False, -1))
    du1 = matmul(_band(f, True, 0), u1)
    packed = _band(dl1, False, -1) + du1
    if n > m:  # dU2 = L^-1 (P^T dA)_2 - tril(F, -1) U2
        u2 = narrow(upper, -1, k, n - k)
        du2 = _left_solve(l1, narrow(moved, -1, k, n - k), False, True)
        du2 = du2 - matmul(_band(f, False, -1), u2)
        packed = concatenate([packed, du2], -1)
    elif m > n:  # dL2 = (P^T dA)_2 U^-1 - L2 triu(F)
        l2 = narrow(lower, -2, k, m - k)
        rest = narrow(moved, -2, k, m - k)
        dl2 = _mT(_left_solve(_mT(u1), _mT(rest), False, False)) - matmul(l2, _band(f, True, 0))
        packed = concatenate([packed, dl2], -2)
    return packed


LU_FACTOR = Primitive(
    "lu_factor",
    _lu_forward,
    vjp=_lu_vjp,
    jvp=_lu_jvp,
    saves=(0,),
    batch=lambda xs, batched: apply(LU_FACTOR, (xs[0],)),
)


def _pivots_forward(backend: Any, x: Any) -> Any:
    a = _host(backend, x)
    if a is None:
        return backend.unknown((*x.shape[:-2], min(x.shape[-2:])), np.dtype(np.int32))
    return backend.from_numpy(np.ascontiguousarray(getrf(a)[1]))


def _info_forward(backend: Any, x: Any, kind: str) -> Any:
    a = _host(backend, x)
    if a is None:
        return backend.unknown(x.shape[:-2], np.dtype(np.int32))
    if kind == "lu":
        info = getrf(a)[2]
    elif a.size == 0:
        info = np.zeros(a.shape[:-2], np.int32)
    else:  # cholesky: the first leading minor that is not positive definite
        info = _first_failed_minor(a).reshape(a.shape[:-2]).astype(np.int32)
    return backend.from_numpy(np.array(info, np.int32))  # 0-d stays 0-d


def _permutation_forward(backend: Any, pivots: Any, m: int, dtype: str) -> Any:
    values = _host(backend, pivots)
    if values is None:
        return backend.unknown((*pivots.shape[:-1], m, m), np.dtype(dtype))
    return backend.from_numpy(np.ascontiguousarray(permutation(values, m, np.dtype(dtype))))


# Not differentiable: integers, and the permutation they name.
LU_PIVOTS = Primitive(
    "lu_pivots", _pivots_forward, batch=lambda xs, batched: apply(LU_PIVOTS, (xs[0],))
)
FACTOR_INFO = Primitive(
    "factor_info",
    _info_forward,
    batch=lambda xs, batched, kind: apply(FACTOR_INFO, (xs[0],), kind=kind),
)
PERMUTATION = Primitive(
    "lu_permutation",
    _permutation_forward,
    batch=lambda xs, batched, m, dtype: apply(PERMUTATION, (xs[0],), m=m, dtype=dtype),
)


def _lu_input(A: Any, op: str, pivot: bool = True) -> Tensor:
    a = _as_tensor(A)
    if a.ndim < 2:
        raise RuntimeError(
            f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
            f"[{', '.join(map(str, a.shape))}] instead"
        )
    if not dtypes.is_floating(a.dtype) or dtypes.is_low_precision(a.dtype):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_name(a.dtype)}'")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    return a


def _refuse_zero_pivot(info: Tensor, op: str) -> None:
    values = _values(info)
    if values is None or not (values > 0).any():
        return
    flat = values.reshape(-1)
    first = int(np.argmax(flat > 0))
    which = f"(Batch element {first}): " if values.ndim else ""
    j = int(flat[first])
    raise RuntimeError(
        f"{op}: {which}U[{j},{j}] is zero and using it on lu_solve would result in a division "
        "by zero. If you still want to perform the factorization, consider calling "
        "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
    )


def lu_factor_ex(A: Any, *, pivot: bool = True, check_errors: bool = False) -> LUFactorExResult:
    """``(LU, pivots, info)`` of ``A = P L U`` (``torch.linalg.lu_factor_ex``).

    ``LU`` holds ``L`` below the diagonal (its ones left out) and ``U`` on and above
    it; ``pivots`` (int32) the 1-based row swaps; ``info`` the first zero on ``U``'s
    diagonal (1-based), 0 where none: a singular matrix is factored, not refused,
    unless ``check_errors``. Any m x n matrix. ``pivot=False`` is refused, as by
    PyTorch on the CPU. The gradient is PyTorch's ``linalg_lu_backward``.

    >>> import minigrad as mg
    >>> mg.linalg.lu_factor_ex(mg.tensor([[1.0, 2.0], [2.0, 4.0]])).info
    tensor(2, dtype=int32)
    """
    a = _lu_input(A, "linalg.lu_factor_ex", pivot)
    info = apply(FACTOR_INFO, (a.detach(),), kind="lu")
    if check_errors:
        _refuse_zero_pivot(info, "torch.linalg.lu_factor_ex")
    return LUFactorExResult(apply(LU_FACTOR, (a,)), apply(LU_PIVOTS, (a.detach(),)), info)


def lu_factor(A: Any, *, pivot: bool = True) -> LUFactorResult:
    """``(LU, pivots)`` of ``A = P L U`` (``torch.linalg.lu_factor``); a zero on ``U``'s
    diagonal raises (PyTorch's message), since ``lu_solve`` would divide by it.

    >>> import minigrad as mg
    >>> mg.linalg.lu_factor(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
    linalg_lu_factor(LU=tensor([[3.    , 4.    ],
            [0.3333, 0.6667]]), pivots=tensor([2, 2], dtype=int32))
    """
    a = _lu_input(A, "linalg.lu_factor", pivot)
    _refuse_zero_pivot(apply(FACTOR_INFO, (a.detach(),), kind="lu"), "torch.linalg.lu_factor")
    return LUFactorResult(apply(LU_FACTOR, (a,)), apply(LU_PIVOTS, (a.detach(),)))


def lu(A: Any, pivot: bool = True, get_infos: bool = False) -> tuple[Tensor, ...]:
    """``(LU, pivots)``, with ``get_infos`` also ``info`` (``torch.lu``, never refusing a
    singular matrix): PyTorch's older spelling of ``linalg.lu_factor_ex``.

    >>> import minigrad as mg
    >>> mg.lu(mg.tensor([[0.0, 1.0], [1.0, 0.0]]))[1]
    tensor([2, 2], dtype=int32)
    """
    result = lu_factor_ex(A, pivot=pivot)
    return tuple(result) if get_infos else (result.LU, result.pivots)


def _unpack(lu_data: Tensor, pivots: Tensor | None) -> tuple[Tensor | None, Tensor, Tensor]:
    """``(P, L, U)`` from the packed factors: ``L``, ``U`` by masks (so their gradient
    is PyTorch's ``lu_unpack_backward``); ``P`` from the pivots (None: not asked)."""
    m, n = lu_data.shape[-2:]
    k = min(m, n)
    lower = _band(narrow(lu_data, -1, 0, k), False, -1) + _eye_like(lu_data, m, k)
    upper = _band(narrow(lu_data, -2, 0, k), True, 0)
    p = None
    if pivots is not None:
        p = apply(PERMUTATION, (pivots,), m=m, dtype=lu_data.dtype.name)
    return p, lower, upper


def _empty(like: Tensor) -> Tensor:
    return _constant(np.zeros((0,), like.dtype), like)


def lu_unpack(
    LU_data: Any, LU_pivots: Any, unpack_data: bool = True, unpack_pivots: bool = True
) -> LUUnpackResult:
    """``(P, L, U)`` from ``lu_factor``'s packed result (``torch.lu_unpack``); a factor not
    asked for (``unpack_data=False``: ``L``, ``U``; ``unpack_pivots=False``: ``P``) is empty.

    >>> import minigrad as mg
    >>> mg.lu_unpack(*mg.linalg.lu_factor(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))).P
    tensor([[0., 1.],
            [1., 0.]])
    """
    lu_data, pivots = _as_tensor(LU_data), _as_tensor(LU_pivots)
    if pivots.dtype != dtypes.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype."
        )
    p, lower, upper = _unpack(lu_data, pivots if unpack_pivots else None)
    if not unpack_data:
        lower, upper = _empty(lu_data), _empty(lu_data)
    return LUUnpackResult(p if unpack_pivots else _empty(lu_data), lower, upper)


def linalg_lu(A: Any, *, pivot: bool = True) -> LUResult:
    """``(P, L, U)`` with ``A = P L U`` (``torch.linalg.lu``): ``lu_factor_ex``, unpacked.

    >>> import minigrad as mg
    >>> P, L, U = mg.linalg.lu(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> U
    tensor([[3.    , 4.    ],
            [0.    , 0.6667]])
    """
    factors = lu_factor_ex(A, pivot=pivot)
    return LUResult(*_unpack(factors.LU, factors.pivots))


def lu_solve(LU: Any, pivots: Any, B: Any, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """``X`` with ``A X = B`` from ``A``'s ``lu_factor`` (``torch.linalg.lu_solve``);
    ``adjoint``: ``A^T X = B``; ``left=False``: ``X A = B`` (or ``X A^T = B``).

    Two triangular solves and the row swaps, so its gradient is theirs.

    >>> import minigrad as mg
    >>> LU, pivots = mg.linalg.lu_factor(mg.tensor([[2.0, 0.0], [0.0, 4.0]]))
    >>> mg.linalg.lu_solve(LU, pivots, mg.tensor([[2.0], [2.0]]))
    tensor([[1. ],
            [0.5]])
    """
    lu_data, piv, b = _as_tensor(LU), _as_tensor(pivots), _as_tensor(B)
    op = "linalg.lu_solve"
    if b.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions.")
    if lu_data.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor LU must have at least 2 dimensions.")
    if lu_data.shape[-1] != lu_data.shape[-2]:
        m, n = lu_data.shape[-2:]
        raise RuntimeError(
            f"torch.{op}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )
    if piv.dtype != dtypes.int32:
        raise RuntimeError(f"{op}: pivots should be a Tensor of scalar type torch.int32")
    if lu_data.dtype != b.dtype:
        raise RuntimeError(
            f"{op}: Expected LU and B to have the same dtype, but found LU of type "
            f"{_name(lu_data.dtype)} and B of type {_name(b.dtype)} instead"
        )
    _float_pair(lu_data, b, "lu_solve_cpu")
    n = lu_data.shape[-1]
    if b.shape[-2 if left else -1] != n:
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation {'AX' if left else 'XA'} = B "
            f"({n}x{n} and {b.shape[-2]}x{b.shape[-1]})"
        )
    p, lower, upper = _unpack(lu_data, piv)
    rhs = b if left else _mT(b)
    if left != adjoint:  # A X = B: X = U^-1 L^-1 P^T B
        y = _left_solve(lower, matmul(_mT(p), rhs), False, True)
        x = _left_solve(upper, y, True, False)
    else:  # A^T X = B: X = P L^-T U^-T B
        y = _left_solve(_mT(upper), rhs, False, False)
        x = matmul(p, _left_solve(_mT(lower), y, True, True))
    return x if left else _mT(x)


def lu_solve_old(b: Any, LU_data: Any, LU_pivots: Any) -> Tensor:
    """``X`` with ``A X = b`` (``torch.lu_solve``, PyTorch's older spelling of
    ``linalg.lu_solve`` with the right-hand side first).

    >>> import minigrad as mg
    >>> LU, pivots = mg.linalg.lu_factor(mg.tensor([[2.0, 0.0], [0.0, 4.0]]))
    >>> mg.lu_solve(mg.tensor([[2.0], [2.0]]), LU, pivots)
    tensor([[1. ],
            [0.5]])
    """
    return lu_solve(LU_data, LU_pivots, b)


# -- Cholesky --------------------------------------------------------------------------------


def _cholesky_solve_forward(backend: Any, b: Any, factor: Any, upper: bool) -> Any:
    b_host, f_host = _host(backend, b), _host(backend, factor)
    if b_host is None or f_host is None:
        return backend.unknown(b.shape, b.dtype)
    lower = np.swapaxes(f_host, -1, -2) if upper else f_host
    y = substitute(lower, b_host, False, False)
    return backend.from_numpy(
        np.ascontiguousarray(substitute(np.swapaxes(lower, -1, -2), y, True, False))
    )


def _cholesky_solve_vjp(g: Tensor, out: Any, inputs: Any, needs: Any, upper: bool):
    # PyTorch's cholesky_solve_backward: gB = A^-1 g, gL = -(gB X^T + X gB^T) L
    b, factor = inputs
    gb = apply(CHOLESKY_SOLVE, (g, factor), upper=upper)
    if not needs[1]:
        return gb, None
    x = apply(CHOLESKY_SOLVE, (b, factor), upper=upper)
    common = matmul(gb, _mT(x))
    common = common + _mT(common)
    gf = -matmul(factor, common) if upper else -matmul(common, factor)
    return gb, gf


def _cholesky_solve_jvp(tangents: Any, out: Any, inputs: Any, upper: bool):
    # dX = A^-1 (dB - dA X), dA = dL L^T + L dL^T (upper: dU^T U + U^T dU)
    (b, factor), (db, df) = inputs, tangents
    change = db
    if df is not None:
        da = matmul(_mT(df), factor) if upper else matmul(df, _mT(factor))
        da = da + _mT(da)
        moved = -matmul(da, apply(CHOLESKY_SOLVE, (b, factor), upper=upper))
        change = moved if change is None else change + moved
    return apply(CHOLESKY_SOLVE, (change, factor), upper=upper)


CHOLESKY_SOLVE = Primitive(
    "cholesky_solve",
    _cholesky_solve_forward,
    vjp=_cholesky_solve_vjp,
    jvp=_cholesky_solve_jvp,
    saves=(0, 1),
    batch=lambda xs, batched, upper: apply(CHOLESKY_SOLVE, _same_batch(xs, batched), upper=upper),
)


def cholesky_solve(B: Any, L: Any, upper: bool = False) -> Tensor:
    """``X`` with ``A X = B`` where ``A = L L^T`` (``upper``: ``A = U^T U``), from the
    Cholesky factor alone (``torch.cholesky_solve``).

    Only the factor's triangle is read; its gradient is PyTorch's
    ``-(gB X^T + X gB^T) L``, a full matrix.

    >>> import minigrad as mg
    >>> mg.cholesky_solve(mg.tensor([[4.0], [2.0]]), mg.tensor([[2.0, 0.0], [0.0, 1.0]]))
    tensor([[1.],
            [2.]])
    """
    b, factor = _as_tensor(B), _as_tensor(L)
    if b.ndim < 2:
        raise RuntimeError(
            f"b should have at least 2 dimensions, but has {b.ndim} dimensions instead"
        )
    if factor.ndim < 2:
        raise RuntimeError(
            f"u should have at least 2 dimensions, but has {factor.ndim} dimensions instead"
        )
    if b.dtype != factor.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {_name(b.dtype)} "
            f"and A of type {_name(factor.dtype)} instead."
        )
    _float_pair(factor, b, "cholesky_solve_cpu")
    if factor.shape[-1] != factor.shape[-2]:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {factor.shape[-2]} by "
            f"{factor.shape[-1]} matrices"
        )
    if b.shape[-2] != factor.shape[-1]:
        n = factor.shape[-1]
        raise RuntimeError(
            f"Incompatible matrix sizes for cholesky_solve: each A matrix is {n} by {n} but "
            f"each b matrix is {b.shape[-2]} by {b.shape[-1]}"
        )
    batch = broadcast_shape(b.shape[:-2], factor.shape[:-2])
    b = b.expand(*batch, *b.shape[-2:])
    factor = factor.expand(*batch, *factor.shape[-2:])
    return apply(CHOLESKY_SOLVE, (b, factor), upper=bool(upper))


def cholesky_inverse(L: Any, upper: bool = False) -> Tensor:
    """``A^-1`` where ``A = L L^T`` (``upper``: ``U^T U``), ``torch.cholesky_inverse``.

    ``cholesky_solve`` of the identity, so its gradient is PyTorch's
    ``-A^-1 (g + g^T) A^-1 L``. A zero on the factor's diagonal raises ``LinAlgError``.

    >>> import minigrad as mg
    >>> mg.cholesky_inverse(mg.tensor([[2.0, 0.0], [0.0, 1.0]]))
    tensor([[0.25, 0.  ],
            [0.  , 1.  ]])
    """
    factor = _as_tensor(L)
    op = "cholesky_inverse"
    if factor.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if not dtypes.is_floating(factor.dtype) or dtypes.is_low_precision(factor.dtype):
        raise NotImplementedError(
            f"\"cholesky_inverse_out_cpu\" not implemented for '{_name(factor.dtype)}'"
        )
    if factor.shape[-1] != factor.shape[-2]:
        m, n = factor.shape[-2:]
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )
    values = _values(factor)
    if values is not None and values.size:
        zero = (np.diagonal(values, axis1=-2, axis2=-1) == 0).reshape(-1, values.shape[-1])
        if zero.any():
            first = int(np.argmax(zero.any(axis=1)))
            which = f"(Batch element {first}): " if values.ndim > 2 else ""
            raise LinAlgError(
                f"{op}: {which}The diagonal element {int(np.argmax(zero[first])) + 1} is zero, "
                "the inversion could not be completed because the input matrix is singular."
            )
    n = factor.shape[-1]
    eye = _eye_like(factor, n, n).expand(*factor.shape)
    return apply(CHOLESKY_SOLVE, (eye, factor), upper=bool(upper))


@quietly
def _partial_cholesky(a: np.ndarray) -> np.ndarray:
    """LAPACK's ``potf2`` left in place where it stops: the columns before the failing
    one factored, the failing pivot's value on the diagonal, the rest of ``A`` below."""
    n = a.shape[-1]
    out = np.tril(np.array(a, copy=True)).reshape(-1, n, n)
    failed = np.zeros(len(out), bool)
    for j in range(n):
        pivot = out[:, j, j] - np.sum(out[:, j, :j] ** 2, axis=-1)
        bad = ~(pivot > 0) & ~failed
        live = ~failed & ~bad
        out[bad, j, j] = pivot[bad]
        failed |= bad
        root = np.sqrt(np.where(live, pivot, 1.0))
        out[live, j, j] = root[live]
        below = out[:, j + 1 :, j] - np.einsum("bik,bk->bi", out[:, j + 1 :, :j], out[:, j, :j])
        out[live, j + 1 :, j] = (below / root[:, None])[live]
    return out.reshape(a.shape)


def cholesky_ex(A: Any, *, upper: bool = False, check_errors: bool = False) -> CholeskyExResult:
    """``(L, info)`` (``torch.linalg.cholesky_ex``): ``info`` is the order of the first
    leading minor that is not positive definite (0 where none), and such a matrix is not
    refused unless ``check_errors``: its ``L`` is LAPACK's, stopped at that column
    (values only).

    >>> import minigrad as mg
    >>> mg.linalg.cholesky_ex(mg.tensor([[1.0, 2.0], [2.0, 1.0]]))
    linalg_cholesky_ex(L=tensor([[ 1.,  0.],
            [ 2., -3.]]), info=tensor(2, dtype=int32))
    """
    a = _as_tensor(A)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        _cholesky_named(a, upper, "linalg.cholesky_ex")  # raises PyTorch's refusal
    _cholesky_named(a[..., :0, :0], upper, "linalg.cholesky_ex")  # the dtype's refusal
    read = _mT(a) if upper else a
    info = apply(FACTOR_INFO, (read.detach(),), kind="cholesky")
    values = _values(info)
    if values is not None and (values > 0).any():
        if check_errors:
            _cholesky_named(a, upper, "linalg.cholesky_ex")
        partial = _constant(_partial_cholesky(_values(read)), a)
        return CholeskyExResult(_mT(partial) if upper else partial, info)
    return CholeskyExResult(cholesky(a, upper=upper), info)


def _cholesky_named(A: Any, upper: bool, op: str) -> Tensor:
    """``linalg.cholesky``, its refusals under ``op``'s name."""
    try:
        return cholesky(A, upper=upper)
    except (RuntimeError, NotImplementedError) as error:
        text = str(error).replace("linalg.cholesky:", f"{op}:")
        raise type(error)(text) from None


def cholesky_old(input: Any, upper: bool = False) -> Tensor:
    """The Cholesky factor (``torch.cholesky``, PyTorch's older spelling of
    ``linalg.cholesky``, same values, gradient and refusals under its own name).

    >>> import minigrad as mg
    >>> mg.cholesky(mg.tensor([[4.0, 2.0], [2.0, 5.0]]), upper=True)
    tensor([[2., 1.],
            [0., 2.]])
    """
    a = _as_tensor(input)
    if not dtypes.is_floating(a.dtype):
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{_name(a.dtype)}'")
    return _cholesky_named(a, upper, "cholesky")


# -- the _ex spellings of inv and solve ------------------------------------------------------


@quietly
def _lu_solve_host(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``A^-1 B`` from the LU factors even where ``U`` has a zero (infinities, as LAPACK's)."""
    lu_data, pivots, _ = getrf(a)
    n = a.shape[-1]
    p = permutation(pivots, n, a.dtype)
    lower = np.tril(lu_data, -1) + np.eye(n, dtype=a.dtype)
    y = substitute(lower, np.swapaxes(p, -1, -2) @ b, False, True)
    return substitute(np.triu(lu_data), y, True, False)


def inv_ex(A: Any, *, check_errors: bool = False) -> InvExResult:
    """``(inverse, info)`` (``torch.linalg.inv_ex``): ``info`` names the first zero on the
    diagonal of ``U`` (1-based, 0 where none); a singular matrix gives infinities, not an
    error, unless ``check_errors``. The gradient is ``linalg.inv``'s.

    >>> import minigrad as mg
    >>> mg.linalg.inv_ex(mg.tensor([[2.0, 0.0], [0.0, 4.0]]))
    linalg_inv_ex(inverse=tensor([[0.5 , 0.  ],
            [0.  , 0.25]]), info=tensor(0, dtype=int32))
    """
    a = _square(A, "linalg.inv")  # PyTorch refuses under inv's name
    info = apply(FACTOR_INFO, (a.detach(),), kind="lu")
    values = _values(info)
    if values is not None and (values > 0).any():
        if check_errors:
            _refuse_singular(_values(a), "linalg.inv_ex")
        eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
        return InvExResult(_constant(_lu_solve_host(_values(a), eye), a), info)
    return InvExResult(inv(a), info)


def solve_ex(A: Any, B: Any, *, left: bool = True, check_errors: bool = False) -> SolveExResult:
    """``(result, info)`` (``torch.linalg.solve_ex``): ``linalg.solve`` that reports a
    singular ``A`` in ``info`` (the first zero on ``U``'s diagonal) instead of raising,
    unless ``check_errors``; the result is then LAPACK's infinities (values only).

    >>> import minigrad as mg
    >>> mg.linalg.solve_ex(mg.tensor([[2.0, 0.0], [0.0, 4.0]]), mg.tensor([2.0, 2.0]))
    linalg_solve_ex(result=tensor([1. , 0.5]), info=tensor(0, dtype=int32))
    """
    a, b = _as_tensor(A), _as_tensor(B)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or not dtypes.is_floating(a.dtype):
        return SolveExResult(solve(a, b, left=left), None)  # raises PyTorch's refusal
    eye = _eye_like(a, a.shape[-1], a.shape[-1]).expand(*a.shape)
    solve(eye, b, left=left)  # PyTorch's refusals of B (shapes, dtypes), before any answer
    info = apply(FACTOR_INFO, (a.detach(),), kind="lu")
    values = _values(info)
    if values is None or not (values > 0).any():
        return SolveExResult(solve(a, b, left=left), info)
    if check_errors:
        which = f"(Batch element {int(np.argmax(values.reshape(-1) > 0))}): " if values.ndim else ""
        raise LinAlgError(
            f"torch.linalg.solve_ex: {which}The solver failed because the input matrix is singular."
        )
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    rhs = (b.unsqueeze(-1) if vector else b).detach().numpy()
    host = _values(a) if left else np.swapaxes(_values(a), -1, -2)
    batch = np.broadcast_shapes(host.shape[:-2], rhs.shape[:-2])
    host = np.broadcast_to(host, (*batch, *host.shape[-2:]))
    rhs = np.broadcast_to(
        rhs if left else np.swapaxes(rhs, -1, -2), (*batch, *rhs.shape[-2:][:: 1 if left else -1])
    )
    x = _lu_solve_host(host, rhs)
    x = x if left else np.swapaxes(x, -1, -2)
    return SolveExResult(_constant(x[..., 0] if vector else x, a), info)
