"""Correctness-database rows: inverses, determinants, powers and chained products of matrices.

Not run in float16 or bfloat16: LAPACK has no 16-bit routines, and PyTorch and
minigrad both refuse them (``tests/tensor/test_inverses.py`` checks the refusals).
The smooth cases draw matrices whose smallest singular value is at least 0.3, in any
layout; the ``:singular`` cases draw matrices whose last row is 0 (an exact zero
pivot, in minigrad's LU and LAPACK's alike; a row that is a multiple of another gives
an exact 0 in one and not the other, depending on the roundings).
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from opdb.strategies import SEEDS, Case, _viewed, inputs, normal


def _square_shape(draw, min_side=0):
    n = draw(st.integers(min_side, 3))
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=0, max_side=2))
    return (*batch, n, n)


@st.composite
def _invertible(draw, mg_fn, torch_fn, positive=False):
    """Invertible matrices in any layout (``positive``: with determinant > 0)."""
    shape = _square_shape(draw)
    arrays, views, _ = draw(inputs([shape], [normal]))
    matrices = views[0](torch.from_numpy(arrays[0])).numpy()
    if matrices.size:
        assume(np.linalg.svd(matrices, compute_uv=False).min() > 0.3)
    if positive:
        assume((np.linalg.det(matrices) > 0).all())
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


@st.composite
def _singular(draw, mg_fn, torch_fn):
    shape = _square_shape(draw, min_side=2)
    a = normal(np.random.default_rng(draw(SEEDS)), shape)
    a[..., -1, :] = 0.0
    return Case(mg_fn, torch_fn, [a])


def _power(mg_fn_of, torch_fn_of):
    @st.composite
    def build(draw):
        n = draw(st.integers(-2, 3))
        return draw(_invertible(mg_fn_of(n), torch_fn_of(n)))

    return build()


def _slogdet(x):
    return tuple(mg.linalg.slogdet(x))


@st.composite
def _solve(draw):
    """Invertible A (any layout) and B: vectors, matrices, broadcast batches, either side."""
    n = draw(st.integers(0, 3))
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=2))
    left = draw(st.booleans())
    # PyTorch refuses a vector B on the right (tests/tensor/test_inverses.py)
    forms = ["vector", "batched vector"] if left else []
    form = draw(st.sampled_from([*forms, "matrices", "broadcast"]))
    k = draw(st.integers(0, 2))
    b_shape = {
        "vector": (n,),
        "batched vector": (*batch, n),
        "matrices": (*batch, n, k) if left else (*batch, k, n),
        "broadcast": (2, *[1] * len(batch), n, k) if left else (2, *[1] * len(batch), k, n),
    }[form]
    arrays, views, _ = draw(inputs([(*batch, n, n), b_shape], [normal, normal]))
    matrices = views[0](torch.from_numpy(arrays[0])).numpy()
    if matrices.size:
        assume(np.linalg.svd(matrices, compute_uv=False).min() > 0.3)
    return Case(
        _viewed(lambda a, b: mg.linalg.solve(a, b, left=left), views),
        _viewed(lambda a, b: torch.linalg.solve(a, b, left=left), views),
        arrays,
    )


@st.composite
def _cholesky(draw):
    """Cholesky factors of ``X X^T + I`` (positive definite), either triangle."""
    shape = _square_shape(draw)
    upper = draw(st.booleans())
    arrays, views, _ = draw(inputs([shape], [normal]))
    eye = np.eye(shape[-1])

    def spd(x, lib):
        return x @ x.swapaxes(-1, -2) + lib.tensor(eye)

    return Case(
        _viewed(lambda x: mg.linalg.cholesky(spd(x, mg), upper=upper), views),
        _viewed(lambda t: torch.linalg.cholesky(spd(t, torch), upper=upper), views),
        arrays,
    )


@st.composite
def _chain(draw):
    """2 to 5 matrices of sides 0-4 (1-D ends sometimes), multiplied in PyTorch's order."""
    n = draw(st.integers(2, 5))
    sides = draw(st.lists(st.integers(0, 4), min_size=n + 1, max_size=n + 1))
    shapes = [(sides[i], sides[i + 1]) for i in range(n)]
    if draw(st.booleans()):
        shapes[0] = shapes[0][1:]
    if draw(st.booleans()):
        shapes[-1] = shapes[-1][:1]
    arrays, views, _ = draw(inputs(shapes, [normal] * n))
    return Case(
        _viewed(lambda *xs: mg.linalg.multi_dot(xs), views),
        _viewed(lambda *ts: torch.linalg.multi_dot(ts), views),
        arrays,
    )


@st.composite
def _vecdot(draw):
    shapes = draw(
        hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=3, max_side=3)
    )
    if all(len(s) == 1 for s in shapes.input_shapes):  # PyTorch's dot: no broadcasting
        shapes = shapes._replace(input_shapes=(shapes.input_shapes[0],) * 2)
    ndim = max(len(s) for s in shapes.input_shapes)
    dim = draw(st.integers(-ndim, ndim - 1))
    arrays, views, _ = draw(inputs(list(shapes.input_shapes), [normal, normal]))
    return Case(
        _viewed(lambda x, y: mg.linalg.vecdot(x, y, dim=dim), views),
        _viewed(lambda x, y: torch.linalg.vecdot(x, y, dim=dim), views),
        arrays,
    )


CASES = {
    "linalg.multi_dot": _chain(),
    "linalg.solve": _solve(),
    "linalg.cholesky": _cholesky(),
    "linalg.vecdot": _vecdot(),
    "inverse": _invertible(mg.linalg.inv, torch.linalg.inv),
    "det": _invertible(mg.linalg.det, torch.linalg.det),
    "det:singular": _singular(mg.det, torch.det),
    "slogdet": _invertible(_slogdet, lambda t: tuple(torch.linalg.slogdet(t))),
    "slogdet:singular": _singular(_slogdet, lambda t: tuple(torch.linalg.slogdet(t))),
    "logdet": _invertible(mg.logdet, torch.logdet, positive=True),
    "logdet:negative": _invertible(mg.logdet, torch.logdet),  # NaN where det < 0
    "matrix_power": _power(
        lambda n: lambda x: mg.linalg.matrix_power(x, n),
        lambda n: lambda t: torch.linalg.matrix_power(t, n),
    ),
}
# Values only at a singular matrix: there PyTorch's first-order slope of det is 0 and
# the one it builds for second derivatives the cofactors (minigrad's, the derivative);
# log|det| has none. tests/tensor/test_inverses.py checks minigrad's cofactors.
# logdet is NaN where det < 0 (slope 0 there, PyTorch's): nothing to approximate.
NOT_SMOOTH = {"logdet:negative"}
NO_GRAD = {"det:singular", "slogdet:singular"}
