"""The singular value decomposition, and its derivative written once (lesson 06).

Every matrix is ``A = U diag(S) Vh``: ``U`` (m x k) and ``Vh`` (k x n) have
orthonormal columns and rows, ``S`` holds k = min(m, n) singular values,
largest first. The factors come from LAPACK on the host (no backend has an
SVD kernel; on a GPU that is one copy each way), so the row's forward is the
only place the decomposition is computed. Its derivative is the part worth
reading. With ``dP = U^T dA V`` (the change of ``A`` seen in the singular bases):

- ``dS = diag(dP)``: a singular value moves with its own corner of ``dP``, so
  the cotangent of ``S`` is ``U diag(g) Vh``, the rule behind every norm made of
  singular values (nuclear, spectral);
- ``U^T dU`` and ``V^T dV`` are skew (the bases stay orthonormal); their
  entries off the diagonal are ``(dP S + S dP^T) / E`` and ``(S dP + dP^T S) / E``
  with ``E[i, j] = s_j^2 - s_i^2``. Where two singular values are equal, ``E`` is
  0 and the vectors are not unique: their derivative is infinite (as PyTorch's),
  while the values' derivative stays finite;
- the columns of ``U`` beyond ``V``'s rank (m > n) move by ``(I - U U^T) dA V / S``,
  those of ``V`` (m < n) by ``(I - V V^T) dA^T U / S``.

One row, ``svd``, gives one factor, named by ``part``; ``linalg.svd`` asks it for
the three. Its rules are written in Tensor operations that call the row
again for the factors they need, so second derivatives are the chain rule
through the same row. Reverse mode is forward mode transposed: each factor's
cotangent reaches ``A`` through the transpose of the map above.

    >>> import minigrad as mg
    >>> a = mg.tensor([[3.0, 0.0], [0.0, -4.0]], requires_grad=True)
    >>> s = mg.linalg.svdvals(a)
    >>> s.sum().backward()
    >>> s, a.grad
    (tensor([4., 3.], grad_fn=<svd>), tensor([[ 1.,  0.],
            [ 0., -1.]]))
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.bidiagonal import gesdd
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.linalg import matmul
from minigrad.tensor.ops.movement import concatenate
from minigrad.tensor.ops.rearrange import narrow
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply


class LinAlgError(RuntimeError):
    """A decomposition that cannot be computed (PyTorch's ``torch.linalg.LinAlgError``)."""


# PyTorch's names for dtypes in its messages.
_TORCH_NAMES = {"int64": "Long", "int32": "Int", "bool": "Bool"}

SVDResult = namedtuple("linalg_svd", ["U", "S", "Vh"])


def _shapes(shape: tuple[int, ...], full_matrices: bool) -> dict[str, tuple[int, ...]]:
    *batch, m, n = shape
    k = min(m, n)
    return {
        "U": (*batch, m, m if full_matrices else k),
        "S": (*batch, k),
        "Vh": (*batch, n if full_matrices else k, n),
    }


def _svd(a: np.ndarray, full_matrices: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK's factors of each matrix in ``a`` (MKL's signs); an empty one's: the identity's."""
    shapes = _shapes(a.shape, full_matrices)
    if a.size == 0:
        u = np.zeros(shapes["U"], a.dtype)
        vh = np.zeros(shapes["Vh"], a.dtype)
        if full_matrices:  # the whole space still has an orthonormal basis
            u[...] = np.eye(u.shape[-1], dtype=a.dtype)
            vh[...] = np.eye(vh.shape[-1], dtype=a.dtype)
        return u, np.zeros(shapes["S"], a.dtype), vh
    flat = a.reshape(-1, *a.shape[-2:])
    broken = np.isnan(flat).any(axis=(1, 2))
    if broken.any():
        which = f"(Batch element {int(np.argmax(broken))}): " if a.ndim > 2 else ""
        raise LinAlgError(
            f"linalg.svd: {which}The algorithm failed to converge because the input matrix "
            "contained non-finite values.\nlinalg.svd: look for NaN in the input"
        )
    infinite = np.isinf(a).any(axis=(-2, -1))
    if not infinite.any():
        return gesdd(a, full_matrices)
    # A matrix with an infinite entry: NaN factors (PyTorch's S is NaN there too).
    factors = gesdd(np.where(infinite[..., None, None], 0, a), full_matrices)
    return tuple(np.where(infinite.reshape(infinite.shape + (1,) * (f.ndim - a.ndim + 2)),
                          np.nan, f) for f in factors)  # fmt: skip


def _svd_forward(backend: Any, x: Any, part: str, full_matrices: bool) -> Any:
    try:
        a = backend.to_numpy(x)
    except TracerError:  # tracing (lesson 13): the factor's shape and dtype only
        return backend.unknown(_shapes(x.shape, full_matrices)[part], x.dtype)
    u, s, vh = _svd(np.asarray(a), full_matrices)
    return backend.from_numpy(np.ascontiguousarray({"U": u, "S": s, "Vh": vh}[part]))


def _factors(a: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The thin factors of ``a``, each through the row (so differentiable again)."""
    return tuple(apply(SVD, (a,), part=p, full_matrices=False) for p in ("U", "S", "Vh"))


def _mT(x: Tensor) -> Tensor:
    return x.swapaxes(-1, -2)


def _gaps(s: Tensor) -> Tensor:
    """``E[i, j] = s_j^2 - s_i^2``, with 1 on the diagonal (which every rule leaves out)."""
    s2 = s * s
    gaps = s2.unsqueeze(-2) - s2.unsqueeze(-1)
    return where(_eye(s.shape[-1], s.device), 1.0, gaps)


def _eye(k: int, device: Any) -> Tensor:
    return Tensor.concrete(np.eye(k, dtype=bool), device=device)


def _off_diagonal(x: Tensor) -> Tensor:
    return where(_eye(x.shape[-1], x.device), 0.0, x)


def _svd_vjp(g: Tensor, out: Any, inputs: Any, needs: Any, part: str, full_matrices: bool):
    # PyTorch's svd_backward with one factor's cotangent (the rule is linear in them,
    # so the three factors' cotangents add up to the joint one).
    (a,) = inputs
    u, s, vh = _factors(a)
    m, n = a.shape[-2:]
    k = s.shape[-1]
    if part == "S":
        return (matmul(u, g.unsqueeze(-1) * vh) if m >= n else matmul(u * g.unsqueeze(-2), vh),)
    if part == "U":
        gu = narrow(g, -1, 0, k) if full_matrices else g
        inner = matmul(_mT(u), gu)
        core = (inner - _mT(inner)) * (s.unsqueeze(-2) / _gaps(s))
        if m > k:  # U's columns leave U's span: [U core + (I - U U^T) gU / S] Vh
            scaled = gu / s.unsqueeze(-2)
            outside = scaled - matmul(u, matmul(_mT(u), scaled))
            return (matmul(matmul(u, core) + outside, vh),)
        return (matmul(u, matmul(core, vh)),)
    gvh = narrow(g, -2, 0, k) if full_matrices else g
    inner = matmul(vh, _mT(gvh))
    core = s.unsqueeze(-1) * ((inner - _mT(inner)) / _gaps(s))
    if n > k:  # V's columns leave V's span: U [core Vh + S^-1 gVh (I - V V^T)]
        scaled = gvh / s.unsqueeze(-1)
        outside = scaled - matmul(matmul(scaled, _mT(vh)), vh)
        return (matmul(u, matmul(core, vh) + outside),)
    return (matmul(matmul(u, core), vh),)


def _zeros_after(x: Tensor, axis: int, size: int) -> Tensor:
    """``x`` grown to ``size`` along ``axis`` by zeros."""
    shape = list(x.shape)
    shape[axis] = size - shape[axis]
    zeros = Tensor.concrete(np.zeros(shape, x.dtype), device=x.device)
    return concatenate([x, zeros], axis)


def _svd_jvp(tangents: Any, out: Any, inputs: Any, part: str, full_matrices: bool):
    (a,), (da,) = inputs, tangents
    u, s, vh = _factors(a)
    m, n = a.shape[-2:]
    k = s.shape[-1]
    dp = matmul(matmul(_mT(u), da), _mT(vh))  # U^T dA V
    if part == "S":
        return dp.diagonal(0, -2, -1)
    if part == "U":
        turn = _off_diagonal((dp * s.unsqueeze(-2) + s.unsqueeze(-1) * _mT(dp)) / _gaps(s))
        du = matmul(u, turn)
        if m > k:
            du = du + (matmul(da, _mT(vh)) - matmul(u, dp)) / s.unsqueeze(-2)
        # The rest of a full basis is not unique: PyTorch holds it still.
        return _zeros_after(du, -1, m) if full_matrices else du
    turn = _off_diagonal((s.unsqueeze(-1) * dp + _mT(dp) * s.unsqueeze(-2)) / _gaps(s))
    dv = matmul(_mT(vh), turn)
    if n > k:
        dv = dv + (matmul(_mT(da), u) - matmul(_mT(vh), _mT(dp))) / s.unsqueeze(-2)
    return _zeros_after(_mT(dv), -2, n) if full_matrices else _mT(dv)


SVD = Primitive(
    "svd",
    _svd_forward,
    vjp=_svd_vjp,
    jvp=_svd_jvp,
    saves=(0, "out"),
    batch=lambda xs, batched, part, full_matrices: apply(
        SVD, (xs[0],), part=part, full_matrices=full_matrices
    ),
)


def _checked(a: Any, op: str) -> Tensor:
    a = a if isinstance(a, Tensor) else Tensor.concrete(a)
    if a.ndim < 2:
        raise RuntimeError(
            f"linalg.svd: The input tensor A must have at least 2 dimensions.\n"
            f"{op}: got shape {a.shape}; a vector's only singular value is its norm"
        )
    if not dtypes.is_floating(a.dtype):
        raise RuntimeError(
            f"linalg.svd: Expected a floating point or complex tensor as input. Got "
            f"{_TORCH_NAMES.get(a.dtype.name, a.dtype.name)}\n"
            f"{op}: convert it first, e.g. A.to(mg.float32)"
        )
    if dtypes.is_low_precision(a.dtype):  # LAPACK has no 16-bit routines
        name = "BFloat16" if a.dtype.name == "bfloat16" else "Half"
        raise NotImplementedError(
            f"\"linalg_svd_cpu\" not implemented for '{name}'\n"
            f"{op}: convert first, e.g. A.to(mg.float32)"
        )
    return a


def svdvals(A: Any) -> Tensor:
    """The singular values of the matrices in the last two axes, largest first.

    Their gradient is ``U diag(g) Vh``: defined even where two values are equal.

    >>> import minigrad as mg
    >>> mg.linalg.svdvals(mg.tensor([[0.0, 2.0], [1.0, 0.0]]))
    tensor([2., 1.])
    """
    a = _checked(A, "linalg.svdvals")
    return apply(SVD, (a,), part="S", full_matrices=False)


def svd(A: Any, full_matrices: bool = True) -> SVDResult:
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``; ``full_matrices=False``: k = min(m, n) columns.

    The singular vectors are unique only up to sign (and, for equal singular
    values, up to a rotation), so which signs come back depends on the LAPACK
    library. minigrad takes the road through LAPACK that PyTorch's MKL takes
    (``bidiagonal.py``), so in float64 the signs are PyTorch's; in float32 MKL's
    bidiagonal solver picks other signs for a few matrices. Functions of ``A``
    that do not depend on that choice (``U @ Vh``, ``S``, ``U[:, 0] ** 2``)
    agree always, and so do their gradients.

    >>> import minigrad as mg
    >>> U, S, Vh = mg.linalg.svd(mg.tensor([[3.0, 0.0], [0.0, 4.0]]))
    >>> S, (U * S @ Vh).abs()
    (tensor([4., 3.]), tensor([[3., 0.],
            [0., 4.]]))
    """
    a = _checked(A, "linalg.svd")
    full = bool(full_matrices)
    return SVDResult(*(apply(SVD, (a,), part=p, full_matrices=full) for p in ("U", "S", "Vh")))
