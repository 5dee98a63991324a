"""Randomized SVD and PCA, ``svd_lowrank`` and ``pca_lowrank`` (lesson 06).

Halko, Martinsson and Tropp's randomized SVD, step for step as PyTorch's
``torch.svd_lowrank``: a random matrix from minigrad's generator (``mg.randn``, seeded
with ``mg.manual_seed``) is refined into an orthonormal basis of ``A``'s columns, and the
SVD of the small matrix ``Q^T A`` gives the factors. Compositions of rows that exist
(``matmul``, ``linalg.qr``, ``linalg.svd``), so their derivatives are the chain rule.
They draw random numbers, so they live beside the factories, above the operations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.factories import randn
from minigrad.tensor.ops import factorizations
from minigrad.tensor.ops.decompositions import svd as linalg_svd
from minigrad.tensor.ops.legacy_linalg import _tensor
from minigrad.tensor.ops.linalg import matmul
from minigrad.tensor.ops.reductions import mean

__all__ = ["pca_lowrank", "svd_lowrank"]

# -- randomized SVD --------------------------------------------------------------------------


def _floating_dtype(a: Tensor) -> Any:
    return a.dtype if dtypes.is_floating(a.dtype) else np.dtype(np.float32)


def _approximate_basis(a: Tensor, q: int, niter: int, m_: Tensor | None) -> Tensor:
    """``Q`` with ``q`` orthonormal columns such that ``Q Q^T (A - M)`` is close to
    ``A - M`` (Halko et al.'s Algorithm 4.4, as PyTorch's ``get_approximate_basis``)."""
    r = randn(a.shape[-1], q, dtype=_floating_dtype(a), device=a.device)

    def times(x: Tensor, y: Tensor) -> Tensor:
        return matmul(x, y)

    x = times(a, r)
    if m_ is not None:
        x = x - times(m_, r)
    basis = factorizations.qr(x).Q
    for _ in range(niter):
        x = times(a.swapaxes(-1, -2), basis)
        if m_ is not None:
            x = x - times(m_.swapaxes(-1, -2), basis)
        basis = factorizations.qr(x).Q
        x = times(a, basis)
        if m_ is not None:
            x = x - times(m_, basis)
        basis = factorizations.qr(x).Q
    return basis


def _svd_lowrank(a: Tensor, q: int, niter: int, m_: Tensor | None) -> tuple:
    m, n = a.shape[-2:]
    if m_ is not None:
        m_ = m_.broadcast_to(a.shape)
    if m < n:
        a = a.swapaxes(-1, -2)
        if m_ is not None:
            m_ = m_.swapaxes(-1, -2)
    basis = _approximate_basis(a, q, niter, m_)
    b = matmul(basis.swapaxes(-1, -2), a)
    if m_ is not None:
        b = b - matmul(basis.swapaxes(-1, -2), m_)
    u, s, vh = linalg_svd(b, full_matrices=False)
    v = vh.swapaxes(-1, -2)
    u = matmul(basis, u)
    if m < n:
        u, v = v, u
    return u, s, v


def svd_lowrank(A: Any, q: int | None = 6, niter: int | None = 2, M: Any = None) -> tuple:
    """``(U, S, V)`` with ``A - M ~ U diag(S) V^T`` of rank ``q``: a randomized SVD
    (``torch.svd_lowrank``, Halko et al.'s Algorithm 5.1 as PyTorch runs it).

    A random ``n x q`` matrix (``mg.randn``: seed with ``mg.manual_seed``) is refined by
    ``niter`` subspace iterations into an orthonormal basis ``Q`` of ``A``'s columns; the
    SVD of ``Q^T A`` gives the factors. For ``A`` of rank at most ``q`` the result is the
    SVD itself (up to the signs of the singular vectors); otherwise it depends on the draw.

    >>> import minigrad as mg
    >>> a = mg.tensor([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    >>> U, S, V = mg.svd_lowrank(a, q=1)
    >>> (U * S @ V.mT - a).abs().max().item() < 1e-5
    True
    """
    a = _tensor(A)
    q = 6 if q is None else int(q)
    niter = 2 if niter is None else int(niter)
    m_ = None if M is None else _tensor(M)
    return _svd_lowrank(a, q, niter, m_)


def pca_lowrank(A: Any, q: int | None = None, center: bool = True, niter: int = 2) -> tuple:
    """``(U, S, V)``: principal component analysis of the rows of ``A`` by
    ``svd_lowrank`` of ``A`` less its column means (``center=True``), as
    ``torch.pca_lowrank``. ``q`` defaults to ``min(6, m, n)``; ``V``'s columns are the
    principal directions and ``S ** 2 / (m - 1)`` their variances.

    >>> import minigrad as mg
    >>> a = mg.tensor([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    >>> U, S, V = mg.pca_lowrank(a, q=1)
    >>> round(S.item() ** 2 / 2, 4)
    5.0
    """
    a = _tensor(A)
    m, n = a.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(a, q, niter, None)
    return _svd_lowrank(a - mean(a, -2, keepdims=True), q, niter, None)
