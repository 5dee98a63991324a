"""Correctness-database rows: triangular solves, the LU family and the Cholesky family.

Not run in float16 or bfloat16: LAPACK has no 16-bit routines, and PyTorch and
minigrad both refuse them (``tests/tensor/test_triangular.py`` checks the refusals).
Matrices are drawn well away from singular (``U``'s pivots, a triangle's diagonal at
least 0.3 from 0), so that no pivot changes under a finite difference. A factor that
is read by one triangle only reaches the function through ``tril``/``triu``, so the
finite differences see the same function as the gradient (PyTorch's gradients of
``cholesky_solve`` and ``cholesky_inverse`` fill the whole matrix:
``tests/tensor/test_triangular.py`` compares those).
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from opdb.strategies import Case, _viewed, inputs, normal


def _batch(draw, min_side=0):
    return draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=min_side, max_side=2))


def _pivots_apart(matrices: np.ndarray) -> None:
    """LU's pivots at least 0.3 from 0 (and so stable under small changes)."""
    if matrices.size:
        lu = torch.linalg.lu_factor_ex(torch.from_numpy(np.ascontiguousarray(matrices))).LU
        k = min(matrices.shape[-2:])
        assume(np.abs(np.diagonal(lu.numpy(), axis1=-2, axis2=-1)[..., :k]).min() > 0.3)


def _pair(fn):
    """The same function of a library, on minigrad and on torch."""
    return fn(mg), fn(torch)


@st.composite
def _lu(draw, build):
    """m x n matrices (0-4 a side) in any layout; ``build(draw)`` gives ``f(lib)``."""
    m, n = draw(st.integers(0, 4)), draw(st.integers(0, 4))
    arrays, views, _ = draw(inputs([(*_batch(draw), m, n)], [normal]))
    _pivots_apart(views[0](torch.from_numpy(arrays[0])).numpy())
    mg_fn, torch_fn = _pair(build(draw))
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


def _lu_factor(draw):
    return lambda lib: lambda x: tuple(lib.linalg.lu_factor(x))


def _lu_factor_ex(draw):
    return lambda lib: lambda x: tuple(lib.linalg.lu_factor_ex(x))


def _linalg_lu(draw):
    return lambda lib: lambda x: tuple(lib.linalg.lu(x))[1:]


def _permutations(draw):
    """``P`` (no derivative: values only) of ``linalg.lu`` and ``lu_unpack``."""
    return lambda lib: lambda x: (lib.linalg.lu(x).P, lib.lu_unpack(*lib.linalg.lu_factor(x)).P)


def _torch_lu(draw):
    infos = draw(st.booleans())
    return lambda lib: lambda x: tuple(lib.lu(x, get_infos=infos))


def _lu_unpack(draw):
    """``L`` and ``U`` (``P``: ``:P``; ``unpack_data=False``: tests/tensor/test_triangular.py)"""
    return lambda lib: (
        lambda x: tuple(lib.lu_unpack(*lib.linalg.lu_factor(x), unpack_pivots=False))[1:]
    )


@st.composite
def _systems(draw, build, right_side=True, vector=False):
    """Square A (n 0-3) and B of k columns (rows with ``left=False``), batch axes that
    broadcast; ``build(draw, left)`` gives ``f(lib)`` of ``(A, B)``."""
    n, k = draw(st.integers(0, 3)), draw(st.integers(0, 2))
    left = draw(st.booleans()) if right_side else True
    a_batch = _batch(draw)
    b_batch = draw(st.sampled_from([a_batch, (2, *[1] * len(a_batch))]))
    b_shape = (*b_batch, n, k) if left else (*b_batch, k, n)
    if vector and left and draw(st.booleans()):
        b_shape = (*a_batch, n)
    arrays, views, _ = draw(inputs([(*a_batch, n, n), b_shape], [normal, normal]))
    mg_fn, torch_fn = _pair(build(draw, left))
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


def _lifted(x, lib, upper=None):
    """A triangle of ``x`` (or all of it) with 3 added to the diagonal: far from singular."""
    n = x.shape[-1]
    part = x if upper is None else (x.triu() if upper else x.tril())
    return part + 3 * lib.eye(n, dtype=x.dtype, device=x.device)


def _linalg_lu_solve(draw, left):
    adjoint = draw(st.booleans())

    def f(lib):
        return lambda a, b: lib.linalg.lu_solve(
            *lib.linalg.lu_factor(_lifted(a, lib)), b, left=left, adjoint=adjoint
        )

    return f


def _old_lu_solve(draw, left):
    return lambda lib: lambda a, b: lib.lu_solve(b, *lib.linalg.lu_factor(_lifted(a, lib)))


def _solve_triangular(draw, left):
    upper, unit = draw(st.booleans()), draw(st.booleans())

    def f(lib):
        return lambda a, b: lib.linalg.solve_triangular(
            _lifted(a, lib), b, upper=upper, left=left, unitriangular=unit
        )

    return f


def _triangular_solve(draw, left):
    upper, transpose, unit = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())

    def f(lib):
        return lambda a, b: tuple(lib.triangular_solve(b, _lifted(a, lib), upper, transpose, unit))

    return f


def _cholesky_solve(draw, left):
    upper = draw(st.booleans())

    def f(lib):
        return lambda a, b: lib.cholesky_solve(b, _lifted(a, lib, upper), upper)

    return f


def _solve_ex(draw, left):
    return lambda lib: lambda a, b: tuple(lib.linalg.solve_ex(_lifted(a, lib), b, left=left))


@st.composite
def _square(draw, build):
    n = draw(st.integers(0, 3))
    arrays, views, _ = draw(inputs([(*_batch(draw), n, n)], [normal]))
    mg_fn, torch_fn = _pair(build(draw))
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


def _spd(x, lib):
    return x @ x.mT + lib.eye(x.shape[-1], dtype=x.dtype, device=x.device)


def _old_cholesky(draw):
    upper = draw(st.booleans())
    return lambda lib: lambda x: lib.cholesky(_spd(x, lib), upper)


def _cholesky_ex(draw):
    upper = draw(st.booleans())
    return lambda lib: lambda x: tuple(lib.linalg.cholesky_ex(_spd(x, lib), upper=upper))


def _cholesky_inverse(draw):
    upper = draw(st.booleans())
    return lambda lib: lambda x: lib.cholesky_inverse(_lifted(x, lib, upper), upper)


def _inv_ex(draw):
    return lambda lib: lambda x: tuple(lib.linalg.inv_ex(_lifted(x, lib)))


CASES = {
    "linalg.lu_factor": _lu(_lu_factor),
    "linalg.lu_factor_ex": _lu(_lu_factor_ex),
    "linalg.lu": _lu(_linalg_lu),
    "lu": _lu(_torch_lu),
    "lu_unpack": _lu(_lu_unpack),
    "linalg.lu:P": _lu(_permutations),
    "linalg.lu_solve": _systems(_linalg_lu_solve),
    "lu_solve": _systems(_old_lu_solve, right_side=False),
    "linalg.solve_triangular": _systems(_solve_triangular),
    "triangular_solve": _systems(_triangular_solve, right_side=False),
    "cholesky_solve": _systems(_cholesky_solve, right_side=False),
    "linalg.solve_ex": _systems(_solve_ex, vector=True),
    "cholesky": _square(_old_cholesky),
    "linalg.cholesky_ex": _square(_cholesky_ex),
    "cholesky_inverse": _square(_cholesky_inverse),
    "linalg.inv_ex": _square(_inv_ex),
}
NOT_SMOOTH: set[str] = set()
NO_GRAD = {"linalg.lu:P"}
