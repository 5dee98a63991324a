"""The pseudoinverse, the rank and the condition number of a matrix (lesson 06).

All three read the singular values ``S`` of ``A = U diag(S) Vh``, and all three
must decide which of them count as zero: those at most ``max(atol, rtol * S[0])``
(``S[0]`` the largest). PyTorch's default is ``atol = 0`` and ``rtol = eps * max(m,
n)`` (``eps`` of the dtype), ``rtol = 0`` once a positive ``atol`` is given.

- ``pinv(A) = V diag(1 / S, 0 past the cut) U^T``; with ``hermitian=True`` the
  eigenvalues of the lower triangle take the place of ``S`` (their absolute
  values are the singular values). Its derivative, where the rank does not
  change, is written once with ``P = pinv(A)`` (PyTorch's ``pinv_backward``):
  ``dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P``, and the
  cotangent is that map transposed. The rules call the row again for ``P``,
  so second derivatives are the chain rule through the same row.
- ``matrix_rank(A)``: how many singular values pass the cut (no gradient).
- ``cond(A, p)``: ``S[0] / S[-1]`` for ``p`` = None or 2 (``S[-1] / S[0]`` for -2),
  else ``norm(A, p) * norm(A^-1, p)``, infinite for a singular square ``A`` (for
  ``'nuc'``: ``sum(S) * sum(1 / S)``, PyTorch's formula, large rather than infinite
  where a singular value is only rounding away from 0).

    >>> import minigrad as mg
    >>> a = mg.tensor([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]])
    >>> mg.linalg.matrix_rank(a), mg.linalg.pinv(a) @ a @ mg.linalg.pinv(a) - mg.linalg.pinv(a)
    (tensor(1), tensor([[0., 0., 0.],
            [0., 0., 0.]]))
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.arithmetic import nan_to_num
from minigrad.tensor.ops.broadcasting import broadcast_shape
from minigrad.tensor.ops.contractions import tril
from minigrad.tensor.ops.decompositions import LinAlgError, _svd, svdvals
from minigrad.tensor.ops.elementwise import maximum, where
from minigrad.tensor.ops.inverses import _square as _square_float
from minigrad.tensor.ops.inverses import inv, lu_diagonal
from minigrad.tensor.ops.linalg import matmul
from minigrad.tensor.ops.norms import matrix_norm
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply

__all__ = ["cond", "lstsq", "matrix_rank", "pinv", "pinverse"]

# PyTorch's names for dtypes in its messages.
_TORCH_NAMES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes


def _mT(x: Tensor) -> Tensor:
    return x.swapaxes(-1, -2)


def _host(backend: Any, x: Any) -> np.ndarray | None:
    try:
        return np.asarray(backend.to_numpy(x))
    except TracerError:  # tracing (lesson 13): only the shape and dtype are known
        return None


def _eigh(a: np.ndarray, op: str) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (ascending) and vectors of the symmetric matrices whose lower triangles
    are those of ``a``."""
    if np.isnan(a).any():
        raise LinAlgError(
            f"{op}: The algorithm failed to converge because the input matrix is ill-conditioned "
            "or has too many repeated eigenvalues (error code: 1)."
        )
    return np.linalg.eigh(a)


def _pinv_forward(backend: Any, x: Any, atol: Any, rtol: Any, hermitian: bool) -> Any:
    a, lo, hi = (_host(backend, t) for t in (x, atol, rtol))
    *batch, m, n = x.shape
    shape = (*broadcast_shape(tuple(batch), atol.shape, rtol.shape), n, m)
    if a is None or lo is None or hi is None:
        return backend.unknown(shape, x.dtype)
    if a.size == 0:
        return backend.from_numpy(np.zeros(shape, a.dtype))
    if hermitian:
        values, vectors = _eigh(a, "linalg.eigh")
        size = np.abs(values)
        largest = size.max(axis=-1, keepdims=True)
        left, right = vectors, _mT_array(vectors)
    else:
        u, values, vh = _svd(a, False)
        left, right, size = _mT_array(vh), _mT_array(u), values
        largest = values[..., :1]
    cut = np.maximum(lo[..., None], hi[..., None] * largest)
    with np.errstate(divide="ignore"):
        inverted = np.where(size > cut, 1 / values, 0).astype(a.dtype)
    out = (left * inverted[..., None, :]) @ right
    return backend.from_numpy(np.ascontiguousarray(np.broadcast_to(out, shape)))


def _mT_array(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(x, -1, -2)


def _pinv_vjp(g: Tensor, out: Any, inputs: Any, needs: Any, hermitian: bool):
    # PyTorch's pinv_backward, its products in its order (smaller matrices first)
    a = inputs[0]
    p = apply(PINV, tuple(inputs), hermitian=hermitian)
    m, n = a.shape[-2:]
    ph, gh = _mT(p), _mT(g)
    if m <= n:
        k = matmul(gh, p)
        kph = matmul(k, ph)
        grad = (-_mT(matmul(p, k)) + kph - matmul(matmul(a, p), kph)
                + matmul(matmul(ph, p), gh - matmul(k, a)))  # fmt: skip
    else:
        k = matmul(p, gh)
        phk = matmul(ph, k)
        grad = (-_mT(matmul(k, p)) + matmul(matmul(gh - matmul(a, k), p), ph) + phk
                - matmul(matmul(phk, p), a))  # fmt: skip
    return grad, None, None


def _pinv_jvp(tangents: Any, out: Any, inputs: Any, hermitian: bool):
    a, da = inputs[0], tangents[0]
    p = apply(PINV, tuple(inputs), hermitian=hermitian)
    if da is None:  # only a tolerance moved: P is constant in it
        return p * 0.0
    m, n = a.shape[-2:]
    dah, ph = _mT(da), _mT(p)
    if m <= n:
        k = matmul(ph, dah)
        return matmul(p, k - _mT(k) - matmul(k, matmul(a, p))) + matmul(
            dah - matmul(p, matmul(a, dah)), matmul(ph, p)
        )
    k = matmul(p, da)
    kh = _mT(k)
    return matmul(kh - k - matmul(matmul(p, a), kh), p) + matmul(
        matmul(p, ph), dah - matmul(matmul(dah, a), p)
    )


def _pinv_batched(xs: list, batched: list, hermitian: bool) -> Tensor:
    """vmap (lesson 14): the matrices get the batch axis; a batched tolerance lines up
    with their batch axes."""
    a, atol, rtol = xs
    size = next(x.shape[0] for x, b in zip(xs, batched) if b)
    a = a if batched[0] else a.expand(size, *a.shape)
    depth = a.ndim - 2

    def lined_up(t: Tensor, b: bool) -> Tensor:
        if not b:
            return t
        rest = t.shape[1:]
        return t.reshape(size, *(1,) * max(depth - 1 - len(rest), 0), *rest)

    return apply(PINV, (a, lined_up(atol, batched[1]), lined_up(rtol, batched[2])),
                 hermitian=hermitian)  # fmt: skip


PINV = Primitive(
    "pinv",
    _pinv_forward,
    vjp=_pinv_vjp,
    jvp=_pinv_jvp,
    saves=(0, 1, 2),
    batch=_pinv_batched,
)


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _tolerance(value: Any, name: str, op: str, device: Any) -> Tensor:
    """A tolerance (number or tensor) as a float64 tensor."""
    if isinstance(value, Tensor):
        return value.detach().to(dtypes.float64)
    if isinstance(value, complex):
        raise RuntimeError(
            f"{op}: {name} tensor of complex type is not supported. Got ComplexDouble"
        )
    return Tensor.concrete(np.asarray(float(value), np.float64), device=device)


def _tolerances(a: Tensor, atol: Any, rtol: Any, op: str) -> tuple[Tensor, Tensor]:
    """PyTorch's ``get_atol_rtol``: ``rtol`` defaults to ``eps * max(m, n)``, or to 0
    where a positive ``atol`` is given."""
    eps = float(np.finfo(a.dtype).eps) * max(a.shape[-2:])
    low = _tolerance(0.0 if atol is None else atol, "atol", op, a.device)
    if rtol is not None:
        return low, _tolerance(rtol, "rtol", op, a.device)
    if atol is None:
        return low, _tolerance(eps, "rtol", op, a.device)
    return low, where(low > 0, 0.0, _tolerance(eps, "rtol", op, a.device))


def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def pinv(A: Any, rcond: Any = None, hermitian: bool = False, *, atol: Any = None,
         rtol: Any = None) -> Tensor:  # fmt: skip
    """The Moore-Penrose pseudoinverse of each matrix in the last two axes (``torch.linalg.pinv``).

    Singular values at most ``max(atol, rtol * largest)`` count as zero (their
    reciprocal is left out); ``rcond`` is PyTorch's older name for ``rtol`` (with
    ``atol = 0``). ``hermitian=True`` reads only the lower triangle, as a symmetric
    matrix, through its eigenvalues. The gradient is PyTorch's, the derivative where
    the rank does not change.

    >>> import minigrad as mg
    >>> mg.linalg.pinv(mg.tensor([[2.0, 0.0], [0.0, 0.0]]))
    tensor([[0.5, 0. ],
            [0. , 0. ]])
    """
    a = _tensor(A)
    if a.dtype not in (dtypes.float32, dtypes.float64) or a.ndim < 2:
        raise RuntimeError(
            f"linalg.pinv({_TORCH_NAMES.get(a.dtype.name, a.dtype.name)}{{{_shape_text(a.shape)}}})"
            ": expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble "
            "types"
        )
    if rcond is not None:
        atol, rtol = 0.0, rcond
    if hermitian and a.shape[-1] != a.shape[-2]:
        m, n = a.shape[-2:]
        raise RuntimeError(
            f"linalg.eigh: A must be batches of square matrices, but they are {m} by {n} matrices"
        )
    low, high = _tolerances(a, atol, rtol, "torch.linalg.pinv")
    return apply(PINV, (a, low, high), hermitian=bool(hermitian))


def pinverse(input: Any, rcond: float = 1e-15) -> Tensor:
    """The pseudoinverse with singular values at most ``rcond * largest`` left out
    (``torch.pinverse``: ``linalg.pinv(input, rtol=rcond)``).

    >>> import minigrad as mg
    >>> mg.pinverse(mg.tensor([[1.0, 1.0]]))
    tensor([[0.5],
            [0.5]])
    """
    return pinv(input, rcond)


def _symmetric(a: Tensor) -> Tensor:
    """The symmetric matrices whose lower triangles are those of ``a``."""
    return tril(a) + _mT(tril(a, -1))


def matrix_rank(A: Any, tol: Any = None, hermitian: bool = False, *, atol: Any = None,
                rtol: Any = None) -> Tensor:  # fmt: skip
    """How many singular values of each matrix exceed ``max(atol, rtol * largest)``
    (``torch.linalg.matrix_rank``), as int64.

    ``tol`` is PyTorch's older spelling of ``atol`` (with ``rtol = 0``);
    ``hermitian=True`` reads only the lower triangle, as a symmetric matrix. An empty
    matrix has rank 0.

    >>> import minigrad as mg
    >>> mg.linalg.matrix_rank(mg.tensor([[1.0, 2.0], [2.0, 4.0]]))
    tensor(1)
    """
    a = _tensor(A)
    if a.ndim < 2:
        raise RuntimeError(
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."
        )
    if a.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    if hermitian and a.shape[-1] != a.shape[-2]:
        m, n = a.shape[-2:]
        raise RuntimeError(
            f"linalg.eigh: A must be batches of square matrices, but they are {m} by {n} matrices"
        )
    low, high = _tolerances(a, atol, rtol, "torch.linalg.matrix_rank")
    if a.numel() == 0:
        batch = broadcast_shape(a.shape[:-2], low.shape, high.shape)
        return Tensor.concrete(np.zeros(batch, np.int64), device=a.device)
    values = svdvals((_symmetric(a) if hermitian else a).detach())
    cut = maximum(low.unsqueeze(-1), high.unsqueeze(-1) * values[..., :1].to(dtypes.float64))
    return (values.to(dtypes.float64) > cut).sum(-1)


_COND_ORDERS = (2.0, -2.0, 1.0, -1.0, math.inf, -math.inf)


def _number_text(p: float) -> str:
    """A number as C++'s stream writes a double (``3``, ``0.5``, ``inf``)."""
    return f"{p:g}"


def _square(a: Tensor, p: Any) -> None:
    if a.shape[-1] != a.shape[-2]:
        m, n = a.shape[-2:]
        text = p if isinstance(p, str) else _number_text(p)
        raise RuntimeError(
            f"linalg.cond(ord={text}): A must be batches of square matrices, but they are "
            f"{m} by {n} matrices"
        )


def _inverse_or_inf(a: Tensor) -> Tensor:
    """``A^-1``, and infinities for a singular matrix (PyTorch's ``inv_ex`` then a fill)."""
    try:
        values = a.detach().numpy()
    except (TracerError, RuntimeError):  # traced or batched: no values to read
        return inv(a)
    singular = (lu_diagonal(values)[1] == 0).any(axis=-1) if values.size else None
    if singular is None or not singular.any():
        return inv(a)
    mask = Tensor.concrete(singular[..., None, None], device=a.device)
    eye = Tensor.concrete(np.eye(a.shape[-1], dtype=a.dtype), device=a.device)
    return where(mask, math.inf, inv(where(mask, eye, a)))


def cond(A: Any, p: Any = None) -> Tensor:
    """The condition number of each matrix in the last two axes for the norm ``p``
    (``torch.linalg.cond``).

    ``p`` = None or 2: largest over smallest singular value (any shape; -2 the
    reverse); ``'fro'``, ``'nuc'``, 1, -1, inf, -inf: ``norm(A, p) * norm(A^-1, p)``,
    square matrices only, infinite where ``A`` is singular. An empty matrix gives 0.

    >>> import minigrad as mg
    >>> mg.linalg.cond(mg.tensor([[4.0, 0.0], [0.0, 0.5]]))
    tensor(8.)
    """
    a = _tensor(A)
    if isinstance(p, str):
        if a.ndim < 2:
            raise RuntimeError(
                f"linalg.cond(ord={p}): The input tensor A must have at least 2 dimensions."
            )
        _square(a, p)
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    else:
        if a.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
        p = 2.0 if p is None else float(p)
        if p not in _COND_ORDERS:
            raise RuntimeError(f"linalg.cond got an invalid norm type: {_number_text(p)}")
        if abs(p) != 2.0:
            _square(a, p)
    if a.numel() == 0:
        return Tensor.concrete(np.zeros(a.shape[:-2], a.dtype), device=a.device)
    if not isinstance(p, str) and abs(p) == 2.0:
        s = svdvals(a)
        largest, smallest = s[..., 0], s[..., -1]
        return smallest / largest if p < 0 else largest / smallest
    if p == "nuc":  # the inverse's singular values are the reciprocals (inf where one is 0)
        s = svdvals(a)
        return s.sum(-1) * (1.0 / s).sum(-1)
    _square_float(a, "linalg.inv")  # PyTorch's refusals of other dtypes come from inv
    inverse = _inverse_or_inf(a)
    product = matrix_norm(a, p) * matrix_norm(inverse, p)
    return nan_to_num(product, nan=math.inf, posinf=math.inf, neginf=-math.inf)


LstsqResult = namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _empty(dtype: Any, device: Any) -> Tensor:
    return Tensor.concrete(np.zeros(0, dtype), device=device)


def lstsq(A: Any, B: Any, rcond: float | None = None, *, driver: str | None = None) -> LstsqResult:
    """``X`` minimizing ``||A X - B||`` (the least-squares solution; of the least norm
    where several fit as well), ``torch.linalg.lstsq``.

    ``B`` is a vector when it has one axis less than ``A``. The other fields are those
    PyTorch's CPU drivers fill, empty tensors elsewhere: ``residuals`` (``||A X - B||^2``
    per column, where ``m > n``, the driver is not ``gelsy`` (the default) and every ``A``
    has full rank, or always for ``gels``), ``rank`` (not for ``gels``), and
    ``singular_values`` (``gelsd``, ``gelss``). Singular values at most ``rcond`` times
    the largest count as zero (default: the dtype's eps times ``max(m, n)``). The
    gradient is PyTorch's: that of ``pinv(A) @ B`` (and of ``||A X - B||^2`` for the
    residuals); rank and singular values have none.

    >>> import minigrad as mg
    >>> a = mg.tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    >>> x, residuals, rank, _ = mg.linalg.lstsq(a, mg.tensor([1.0, 2.0, 4.0]), driver="gelsd")
    >>> x, residuals, rank
    (tensor([0.8333, 1.5   ]), tensor([0.1667]), tensor(2))
    """
    a, b = _tensor(A), _tensor(B)
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if b.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if a.dtype != b.dtype:
        raise RuntimeError(
            "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
            f"input's dtype {_TORCH_NAMES.get(a.dtype.name, a.dtype.name)} and other's dtype "
            f"{_TORCH_NAMES.get(b.dtype.name, b.dtype.name)}"
        )
    vector = a.ndim - b.ndim == 1
    if not 0 <= a.ndim - b.ndim <= 1:
        raise RuntimeError(
            "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
            "(input.dim() - other.dim()) <= 1"
        )
    columns = b.unsqueeze(-1) if vector else b
    m, n = a.shape[-2:]
    if columns.shape[-2] != m:
        raise RuntimeError(
            f"torch.linalg.lstsq: input.size(-2) should match other.size({-1 if vector else -2})"
        )
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    if a.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    _broadcast_batches(a.shape[:-2], columns.shape[:-2])
    if rcond is None:
        rcond = float(np.finfo(a.dtype).eps) * max(m, n)
    cut = 0.0 if driver == "gels" else rcond
    solution = matmul(pinv(a, rtol=cut, atol=0.0), columns)
    empty = _empty(a.dtype, a.device)
    values = svdvals(a.detach()) if a.numel() else None
    if driver == "gels":
        rank = _empty(np.int64, a.device)
    elif values is None:
        rank = Tensor.concrete(np.zeros(a.shape[:-2], np.int64), device=a.device)
    else:
        rank = (values > values[..., :1] * rcond).sum(-1)
    try:
        ranks = rank.detach().numpy()
    except (TracerError, RuntimeError):  # traced or batched: taken as full rank
        ranks = None
    full = driver == "gels" or ranks is None or bool((ranks == n).all())
    if m > n and driver != "gelsy" and full:
        misfit = matmul(a, solution) - columns
        residuals = (misfit * misfit).sum(-2)
    else:  # empty, in the graph of A and B as PyTorch's
        residuals = where(Tensor.concrete(np.ones(0, bool), device=a.device), empty,
                          a.sum() + columns.sum())  # fmt: skip
    singular_values = empty
    if driver in ("gelsd", "gelss") and values is not None:
        singular_values = values
    return LstsqResult(solution.squeeze(-1) if vector else solution, residuals, rank,
                       singular_values)  # fmt: skip


def _broadcast_batches(x: tuple[int, ...], y: tuple[int, ...]) -> None:
    """PyTorch's message where two batch shapes do not broadcast."""
    ndim = max(len(x), len(y))
    px, py = (1,) * (ndim - len(x)) + x, (1,) * (ndim - len(y)) + y
    for i, (p, q) in enumerate(zip(px, py)):
        if p != q and p != 1 and q != 1:
            raise RuntimeError(
                f"The size of tensor a ({p}) must match the size of tensor b ({q}) at "
                f"non-singleton dimension {i}"
            )
