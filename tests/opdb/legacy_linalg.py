"""Correctness-database rows: torch's older linear-algebra names, compact QR, LDL^T, randomized SVD.

Not run in float16 or bfloat16: LAPACK has no 16-bit routines, and PyTorch and
minigrad both refuse them (``tests/tensor/test_legacy_linalg.py`` checks the refusals).

- ``geqrf`` and the LDL^T rows have no derivative in PyTorch (its backward raises, and
  so does minigrad's): values only. The LDL^T factors are compared as they are: minigrad
  runs LAPACK's Bunch-Kaufman pivoting step for step, so ``LD`` and ``pivots`` are
  PyTorch's, on symmetric, indefinite, integer-valued (ties, zero diagonals, 2 x 2
  blocks) and singular matrices.
- ``svd_lowrank``/``pca_lowrank`` draw a random matrix (seeded here). They are compared
  on inputs of rank ``k <= q`` made inside the function (``a @ b^T``), where the result
  (``U_k V_k^T`` and the first ``k`` singular values) does not depend on the draw.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from opdb.decompositions import _any_pair, _separated
from opdb.reductions import specials
from opdb.strategies import Case, _viewed, inputs, normal, small_integers

INF = math.inf


def _batch(draw, min_side=0):
    return draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=min_side, max_side=2))


# -- torch.norm and its matrix spellings -----------------------------------------------------


@st.composite
def _norm(draw, domain=normal):
    """``torch.norm`` with a number or ``"fro"``, over None, one axis or two, ``dtype=``."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    arrays, views, _ = draw(inputs([shape], [domain]))
    ndim = len(shape)
    p = draw(st.sampled_from(["fro", 2, 1, 3, INF, -INF, None, 1.5]))
    count = draw(st.integers(0, min(ndim, 2)))
    dim = None if count == 0 else tuple(draw(st.permutations(range(-ndim, 0)))[:count])
    if dim is not None and len(dim) == 1 and draw(st.booleans()):
        dim = dim[0]
    if p in (INF, -INF) and 0 in shape:  # no identity: both raise (test_legacy_linalg.py)
        axes = range(ndim) if dim is None else np.atleast_1d(dim)
        assume(all(shape[d] for d in axes))
    keep = draw(st.booleans())
    dtype = draw(st.sampled_from([None, "float64"]))

    def run(lib, x):
        return lib.norm(x, p, dim, keep, dtype=None if dtype is None else getattr(lib, dtype))

    return Case(
        _viewed(lambda x: run(mg, x), views), _viewed(lambda t: run(torch, t), views), arrays
    )


def _nuclear(name):
    def build(draw, dims):
        keep = draw(st.booleans())
        if name == "norm":
            return (
                lambda x: mg.norm(x, "nuc", dims, keep),
                lambda t: torch.norm(t, "nuc", dims, keep),
            )
        if dims == (-2, -1) and draw(st.booleans()):
            return (lambda x: mg.nuclear_norm(x, keep)), (lambda t: torch.nuclear_norm(t, keep))
        return (
            lambda x: mg.nuclear_norm(x, dims, keep),
            lambda t: torch.nuclear_norm(t, dims, keep),
        )

    return build


@st.composite
def _frobenius(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    arrays, views, _ = draw(inputs([shape], [normal]))
    ndim = len(shape)
    dim = tuple(draw(st.permutations(range(ndim)))[: draw(st.integers(0, min(ndim, 2)))])
    keep = draw(st.booleans())
    return Case(
        _viewed(lambda x: mg.frobenius_norm(x, dim, keep), views),
        _viewed(lambda t: torch.frobenius_norm(t, dim, keep), views),
        arrays,
    )


# -- spellings -------------------------------------------------------------------------------


@st.composite
def _ger(draw):
    m, n = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    arrays, views, _ = draw(inputs([(m,), (n,)], [normal, normal]))
    method = draw(st.booleans())

    def run(lib):
        return (lambda a, b: a.ger(b)) if method else (lambda a, b: lib.ger(a, b))

    return Case(_viewed(run(mg), views), _viewed(run(torch), views), arrays)


@st.composite
def _chain(draw):
    count = draw(st.integers(1, 4))
    sides = [draw(st.integers(0, 3)) for _ in range(count + 1)]
    shapes = [(sides[i], sides[i + 1]) for i in range(count)]
    arrays, views, _ = draw(inputs(shapes, [normal] * count))
    return Case(
        _viewed(lambda *xs: mg.chain_matmul(*xs), views),
        _viewed(lambda *xs: torch.chain_matmul(*xs), views),
        arrays,
    )


@st.composite
def _adjoint(draw):
    matrices = hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=3)
    shape = draw(st.just(()) | matrices)
    arrays, views, _ = draw(inputs([shape], [normal]))
    method = draw(st.booleans())

    def run(lib):
        return (lambda x: x.adjoint() * 1.0) if method else (lambda x: lib.adjoint(x) * 1.0)

    return Case(_viewed(run(mg), views), _viewed(run(torch), views), arrays)


# -- QR: torch.qr, geqrf, ormqr, orgqr -------------------------------------------------------


@st.composite
def _qr(draw, differentiable=True):
    """Full-rank matrices (each leading square block too); ``some=False`` of a tall
    matrix (no derivative in either library) in ``qr:complete``."""
    m, n = draw(st.integers(0, 4)), draw(st.integers(0, 4))
    if not differentiable:
        m = max(m, n + 1)
    some = draw(st.booleans()) if differentiable and m <= n else differentiable
    arrays, views, _ = draw(inputs([(*_batch(draw), m, n)], [normal]))
    matrices = views[0](torch.from_numpy(arrays[0])).numpy()
    k = min(m, n)
    if matrices.size:
        assume(np.linalg.svd(matrices[..., :k], compute_uv=False).min() > 0.3)
    method = draw(st.booleans())

    def run(lib):
        if method:
            return lambda x: tuple(x.qr(some))
        return lambda x: tuple(lib.qr(x, some=some))

    return Case(_viewed(run(mg), views), _viewed(run(torch), views), arrays)


@st.composite
def _geqrf(draw):
    """Any matrices, some with a zero column (its reflector is the identity, tau = 0)."""
    m, n = draw(st.integers(0, 4)), draw(st.integers(0, 4))
    arrays, views, _ = draw(inputs([(*_batch(draw), m, n)], [normal]))
    zero = draw(st.integers(-1, n - 1)) if n else -1
    method = draw(st.booleans())

    def run(lib, x):
        if zero >= 0:  # column `zero` made 0
            x = x * lib.tensor(np.arange(n) != zero, dtype=x.dtype)
        return tuple(x.geqrf() if method else lib.geqrf(x))

    return Case(
        _viewed(lambda x: run(mg, x), views), _viewed(lambda t: run(torch, t), views), arrays
    )


@st.composite
def _ormqr(draw):
    """Reflectors ``input`` (m x k), scales ``tau`` (min(m, k)) and ``other`` on either side."""
    m, k, c = (draw(st.integers(0, 4)) for _ in range(3))
    left, transpose = draw(st.booleans()), draw(st.booleans())
    batch = _batch(draw)
    other = (*batch, m, c) if left else (*batch, c, m)
    shapes = [(*batch, m, k), (*batch, min(m, k)), other]
    arrays, views, _ = draw(inputs(shapes, [normal] * 3))
    method = draw(st.booleans())

    def run(lib):
        if method:
            return lambda a, t, o: a.ormqr(t, o, left, transpose)
        return lambda a, t, o: lib.ormqr(a, t, o, left, transpose)

    return Case(_viewed(run(mg), views), _viewed(run(torch), views), arrays)


@st.composite
def _orgqr(draw):
    m = draw(st.integers(0, 4))
    n = draw(st.integers(0, m))
    k = draw(st.integers(0, n))
    batch = _batch(draw, min_side=1)
    arrays, views, _ = draw(inputs([(*batch, m, n), (*batch, k)], [normal, normal]))
    method = draw(st.booleans())

    def run(lib):
        return (lambda a, t: a.orgqr(t)) if method else (lambda a, t: lib.orgqr(a, t))

    return Case(_viewed(run(mg), views), _viewed(run(torch), views), arrays)


# -- LDL^T -----------------------------------------------------------------------------------


@st.composite
def _ldl(draw, which):
    """``(X + X^T) / 2`` of normal numbers, or of integers in {-1, 0, 1} (ties, zero
    diagonals, 2 x 2 pivots, singular matrices: ``ldl_factor_ex`` only); any layout."""
    n = draw(st.integers(0, 5))
    domain = normal if which != "ex" else draw(st.sampled_from([normal, small_integers]))
    batch = _batch(draw)
    columns = draw(st.integers(0, 2))
    shapes = [(*batch, n, n)] + ([(*batch, n, columns)] if which == "solve" else [])
    arrays, views, _ = draw(inputs(shapes, [domain] * len(shapes)))
    matrices = views[0](torch.from_numpy(arrays[0])).numpy()
    symmetric = (matrices + matrices.swapaxes(-1, -2)) / 2
    if which != "ex" and symmetric.size:  # ldl_factor raises on a singular D; solves want a margin
        assume(np.abs(np.linalg.eigvalsh(symmetric)).min() > 0.3)
    hermitian = draw(st.booleans())

    def run(lib):
        def go(x, *b):
            a = (x + x.mT) / 2
            if which == "ex":
                return tuple(lib.linalg.ldl_factor_ex(a, hermitian=hermitian))
            LD, pivots = lib.linalg.ldl_factor(a, hermitian=hermitian)
            if which == "factor":
                return LD, pivots
            return lib.linalg.ldl_solve(LD, pivots, b[0], hermitian=hermitian)

        return go

    return Case(_viewed(run(mg), views), _viewed(run(torch), views), arrays)


# -- randomized SVD --------------------------------------------------------------------------


@st.composite
def _lowrank(draw, name):
    """``a @ b^T`` of rank k (a shift by ``M`` for svd_lowrank, by a row for
    pca_lowrank's centering), q = k: ``U_k V_k^T`` and ``S_k`` are the SVD's."""
    m, n = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    k = draw(st.integers(1, min(m, n)))
    q = k  # q > k: the QR of a rank-deficient basis, whose slope is undefined in both
    batch = _batch(draw, min_side=1)
    niter = draw(st.integers(0, 2))
    seed = draw(st.integers(0, 2**31))
    shift = draw(st.booleans())
    shift_shape = (*batch, m, n) if name == "svd_lowrank" else (*batch, 1, n)
    shapes = [(*batch, m, k), (*batch, n, k), shift_shape]
    arrays, views, _ = draw(inputs(shapes, [normal] * 3))
    factors = [views[i](torch.from_numpy(arrays[i])).numpy() for i in (0, 1)]
    if name == "pca_lowrank" and shift:  # the centering leaves (a - mean(a)) b^T
        factors[0] = factors[0] - factors[0].mean(-2, keepdims=True)
    for factor in factors:
        assume(np.linalg.svd(factor, compute_uv=False).min() > 0.3)
    values = np.linalg.svd(factors[0] @ factors[1].swapaxes(-1, -2), compute_uv=False)
    assume((-np.diff(values[..., :k], axis=-1) > 0.1).all())

    def run(lib):
        def go(a, b, c):
            low = a @ b.mT
            if name == "svd_lowrank":
                if lib is mg:
                    mg.manual_seed(seed)
                else:
                    torch.manual_seed(seed)
                args = {"M": c} if shift else {}
                U, S, V = lib.svd_lowrank(low + c if shift else low, q=q, niter=niter, **args)
            else:
                if lib is mg:
                    mg.manual_seed(seed)
                else:
                    torch.manual_seed(seed)
                data = (low + c) if shift else low
                U, S, V = lib.pca_lowrank(data, q=q, center=shift, niter=niter)
            return (U[..., :k] * S[..., None, :k]) @ V[..., :k].mT, S[..., :k]

        return go

    return Case(_viewed(run(mg), views), _viewed(run(torch), views), arrays)


CASES = {
    "norm:torch": _norm(),
    "norm:specials": _norm(specials),
    "norm:nuc": _separated(_nuclear("norm"), _any_pair),
    "frobenius_norm": _frobenius(),
    "nuclear_norm": _separated(_nuclear("nuclear_norm"), _any_pair),
    "ger": _ger(),
    "chain_matmul": _chain(),
    "adjoint": _adjoint(),
    "qr": _qr(),
    "qr:complete": _qr(differentiable=False),
    "geqrf": _geqrf(),
    "ormqr": _ormqr(),
    "orgqr": _orgqr(),
    "linalg.ldl_factor": _ldl("factor"),
    "linalg.ldl_factor_ex": _ldl("ex"),
    "linalg.ldl_solve": _ldl("solve"),
    "svd_lowrank": _lowrank("svd_lowrank"),
    "pca_lowrank": _lowrank("pca_lowrank"),
}
# NaN, +-inf and +-0 inside a norm: kinks and non-numbers, where finite differences and
# second derivatives have nothing to approximate (values and slopes still PyTorch's).
NOT_SMOOTH = {"norm:specials"}
# PyTorch has no derivative for geqrf or the LDL^T functions (both libraries raise:
# tests/tensor/test_legacy_linalg.py), nor for torch.qr(some=False) of a tall matrix.
NO_GRAD = {
    "geqrf", "linalg.ldl_factor", "linalg.ldl_factor_ex", "linalg.ldl_solve", "qr:complete",
}  # fmt: skip
FIRST_ORDER_ONLY = {"norm:specials"}
