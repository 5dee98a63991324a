"""Which singular vectors LAPACK returns: the paths of its SVD driver, gesdd (lesson 06).

A singular vector is unique only up to sign, so two LAPACK libraries can
return different signs for the same matrix. Both PyTorch (MKL on CPU) and
NumPy (OpenBLAS) call the same driver, ``gesdd``, which takes one of three
roads to a bidiagonal matrix ``B`` and then solves ``B``'s SVD:

- direct: Householder reflections from both sides, ``A = Q B P^T``
  (``B`` upper bidiagonal when m >= n, lower when m < n; a lower one is
  turned upper by plane rotations from the left first);
- QR first (m much larger than n): ``A = Q R``, then the direct road on ``R``;
- LQ first (n much larger than m): ``A = L Q``, then the direct road on ``L``.

The signs depend on the road. Reference LAPACK (NumPy's) leaves the direct
road when the long side reaches ``11/6`` of the short one; MKL takes the QR
road already from ``m >= n + n // 2`` and the LQ road only from ``n >= 20 m``
(measured against PyTorch 2.13: every float64 sign agrees on random matrices
of every shape up to 60, batched or not, with or without ``full_matrices``).
Where the two differ, :func:`gesdd` takes MKL's road out of NumPy's own
pieces: ``np.linalg.qr``, the direct reduction below (LAPACK's dgebd2 step
for step, so the same reflections), and ``np.linalg.svd`` of ``B`` itself
(on a bidiagonal matrix every reflection of gesdd is the identity, so that
is LAPACK's bidiagonal solver, bdsdc, on ``B``).

    >>> import numpy as np
    >>> a = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]])  # n >= 11/6 m: the roads part
    >>> np.linalg.svd(a)[0].round(4)
    array([[-0.8944, -0.4472],
           [-0.4472,  0.8944]])
    >>> gesdd(a, full_matrices=False)[0].round(4)  # PyTorch's U
    array([[ 0.8944, -0.4472],
           [ 0.4472,  0.8944]])
"""

from __future__ import annotations

import numpy as np


def _reflector(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK's dlarfg along the last axis: ``(I - tau v v^T) x = beta e_1``, ``v[0] = 1``.

    ``beta`` takes the opposite sign of ``x[0]`` (no cancellation in ``x[0] - beta``);
    a vector already along ``e_1`` gets the identity (``tau = 0``), sign kept.
    """
    alpha = x[..., 0]
    rest = np.linalg.norm(x[..., 1:], axis=-1).astype(x.dtype)
    still = rest == 0
    beta = np.where(still, alpha, -np.copysign(np.hypot(alpha, rest), alpha))
    tau = np.where(still, 0, (beta - alpha) / np.where(still, 1, beta)).astype(x.dtype)
    tail = x[..., 1:] / np.where(still, 1, alpha - beta)[..., None]
    return tau, beta, np.concatenate([np.ones_like(alpha)[..., None], tail], axis=-1)


def _reflect_rows(block: np.ndarray, tau: np.ndarray, v: np.ndarray) -> None:
    """``block <- (I - tau v v^T) block`` in place."""
    block -= tau[..., None, None] * v[..., :, None] * (v[..., None, :] @ block)


def _reflect_columns(block: np.ndarray, tau: np.ndarray, v: np.ndarray) -> None:
    """``block <- block (I - tau v v^T)`` in place."""
    block -= tau[..., None, None] * (block @ v[..., :, None]) * v[..., None, :]


def _product(reflections: list, first: int, size: int, width: int) -> np.ndarray:
    """``H_0 H_1 ... H_{r-1}`` times the first ``width`` columns of the identity (LAPACK's
    dorgbr), where ``H_j = I - tau_j v_j v_j^T`` acts on rows ``first + j`` on.

    Blocks of 32 reflections at once, each block as ``I - V T V^T`` (dlarft's compact
    form: ``T`` upper triangular), so the work is matrix products, not one pass over
    the whole matrix per reflection.
    """
    tau, v = reflections[0]
    batch, dtype = tau.shape, v.dtype
    out = np.broadcast_to(np.eye(size, width, dtype=dtype), (*batch, size, width)).copy()
    for start in reversed(range(0, len(reflections), 32)):
        block = reflections[start : start + 32]
        top = first + start
        vs = np.zeros((*batch, size - top, len(block)), dtype)
        t = np.zeros((*batch, len(block), len(block)), dtype)
        for j, (tau, v) in enumerate(block):
            vs[..., j:, j] = v
            # T[:j, j] = -tau_j T[:j, :j] V[:, :j]^T v_j, T[j, j] = tau_j
            overlap = np.swapaxes(vs[..., :j], -1, -2) @ vs[..., j : j + 1]
            t[..., :j, j : j + 1] = -tau[..., None, None] * (t[..., :j, :j] @ overlap)
            t[..., j, j] = tau
        rows = out[..., top:, :]
        rows -= vs @ (t @ (np.swapaxes(vs, -1, -2) @ rows))
    return out


def _rotation(f: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK's dlartg (3.10 on): ``[c s; -s c] [f; g] = [r; 0]`` with ``c >= 0``, r signed as f."""
    r = np.where(g == 0, f, np.where(f == 0, np.abs(g), np.copysign(np.hypot(f, g), f)))
    safe = np.where(r == 0, 1, r)
    c = np.where(g == 0, 1, np.abs(f) / np.abs(safe))
    s = np.where(g == 0, 0, g / safe)
    return c.astype(f.dtype), s.astype(f.dtype), r


def _wide_direct(a: np.ndarray, full_matrices: bool) -> tuple[np.ndarray, ...]:
    """gesdd's direct road for m < n: dgebd2's lower bidiagonal, rotated upper, solved."""
    a = a.copy()
    *batch, m, n = a.shape
    d = np.zeros((*batch, m), a.dtype)
    e = np.zeros((*batch, m - 1), a.dtype)
    rights, lefts = [], []
    for i in range(m):  # row i from the right, then column i from the left
        tau, d[..., i], v = _reflector(a[..., i, i:])
        rights.append((tau, v))
        if i < m - 1:
            _reflect_columns(a[..., i + 1 :, i:], tau, v)
            tau, e[..., i], v = _reflector(a[..., i + 1 :, i])
            lefts.append((tau, v))
            _reflect_rows(a[..., i + 1 :, i + 1 :], tau, v)
    # Q = H_0 ... H_{m-2} (the left reflections), P = G_0 ... G_{m-1} (the right ones)
    q = _product(lefts, 1, m, m) if lefts else np.ones((*batch, 1, 1), a.dtype)
    p = _product(rights, 0, n, n if full_matrices else m)
    # bdsdc: rotations from the left turn the lower bidiagonal into an upper one.
    turns = []
    for i in range(m - 1):
        c, s, d[..., i] = _rotation(d[..., i], e[..., i])
        e[..., i] = s * d[..., i + 1]
        d[..., i + 1] = c * d[..., i + 1]
        turns.append((c[..., None], s[..., None]))
    b = np.zeros((*batch, m, m), a.dtype)
    diagonal = np.arange(m)
    b[..., diagonal, diagonal] = d
    b[..., diagonal[:-1], diagonal[1:]] = e
    ub, s, vtb = np.linalg.svd(b)
    for i in reversed(range(m - 1)):  # undo the rotations on B's left vectors
        c, sn = turns[i]
        top, bottom = ub[..., i, :].copy(), ub[..., i + 1, :].copy()
        ub[..., i, :] = c * top - sn * bottom
        ub[..., i + 1, :] = sn * top + c * bottom
    pt = np.swapaxes(p, -1, -2)
    vh = vtb @ pt[..., :m, :]
    if full_matrices:  # the rest of the basis: P's other columns, untouched by B
        vh = np.concatenate([vh, pt[..., m:, :]], axis=-2)
    return q @ ub, s, vh


def _tall_qr(a: np.ndarray, full_matrices: bool) -> tuple[np.ndarray, ...]:
    """gesdd's QR road for m >= n: ``A = Q R``, R's SVD, ``U = Q U_R``."""
    n = a.shape[-1]
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    ur, s, vh = np.linalg.svd(r[..., :n, :])
    u = q[..., :n] @ ur
    if full_matrices:
        u = np.concatenate([u, q[..., n:]], axis=-1)
    return u, s, vh


#: The direct road below reflects one row and one column per Python step (LAPACK's
#: unblocked dgebd2); LAPACK's own blocked one is 5-20x faster. Up to this many rows
#: (a few ms) minigrad pays for PyTorch's signs; a wider matrix with more rows takes
#: NumPy's road, and its singular vectors' signs may differ from PyTorch's.
WIDE_ROWS = 64


def gesdd(a: np.ndarray, full_matrices: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(U, S, Vh)`` of every finite matrix in ``a`` (non-empty), with MKL's signs."""
    m, n = a.shape[-2:]
    reference = 11 * min(m, n) // 6  # where NumPy's LAPACK leaves the direct road
    if n + n // 2 <= m < reference:
        road = _tall_qr
    elif m < n and reference <= n < 20 * m and m <= WIDE_ROWS:
        road = _wide_direct
    else:
        return np.linalg.svd(a, full_matrices=full_matrices)
    # As gesdd, bring each matrix near 1 first (by a power of two: exact), so that
    # the reflections' norms neither overflow nor lose tiny entries.
    _, exponent = np.frexp(np.abs(a).max(axis=(-2, -1), keepdims=True))
    u, s, vh = road(np.ldexp(a, -exponent), full_matrices)
    with np.errstate(over="ignore"):  # a singular value past the dtype's range is inf
        return u, np.ldexp(s, exponent[..., 0]), vh
