"""Correctness-database rows: pseudoinverse, rank, condition number, linalg's other spellings.

Not run in float16 or bfloat16 (LAPACK has no 16-bit routines; PyTorch refuses them
too). The pseudoinverse and the condition number are drawn on matrices whose
singular values are distinct and at least 0.05 apart (``_separated``), where both are
differentiable; ``:deficient`` draws ``a @ b^T`` of a lower rank, which stays that
rank as ``a`` and ``b`` move (PyTorch's own test of the pseudoinverse's slope).
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from opdb.decompositions import _separated
from opdb.strategies import Case, _viewed, broadcast_shapes, inputs, normal


def _pinv(draw, dims, cuts=({},)):
    kwargs = draw(st.sampled_from(cuts))
    return (lambda x: mg.linalg.pinv(x, **kwargs)), (lambda t: torch.linalg.pinv(t, **kwargs))


_CUTS = ({"rtol": 0.5}, {"atol": 0.3}, {"atol": 0.1, "rtol": 0.2}, {"rtol": 0.0})


def _pinv_hermitian(draw, dims):
    """Symmetric matrices made of the input, so that finite differences see what the
    slope (of a general matrix, PyTorch's) describes."""
    return (
        lambda x: mg.linalg.pinv(x + x.mT, hermitian=True),
        lambda t: torch.linalg.pinv(t + t.mT, hermitian=True),
    )


def _pinverse(draw, dims):
    return (lambda x: mg.pinverse(x)), (lambda t: torch.pinverse(t))


@st.composite
def _deficient(draw):
    """``a @ b^T`` with ``a``: m x k and ``b``: n x k, k < min(m, n), both of rank k."""
    m, n = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    k = draw(st.integers(1, min(m, n) - 1))
    arrays, views, _ = draw(inputs([(m, k), (n, k)], [normal, normal]))
    for array in arrays:
        assume(np.linalg.svd(array, compute_uv=False).min() > 0.3)
    return Case(
        _viewed(lambda a, b: mg.linalg.pinv(a @ b.mT), views),
        _viewed(lambda a, b: torch.linalg.pinv(a @ b.mT), views),
        arrays,
    )


@st.composite
def _rank(draw):
    """Any matrices, some of lower rank (rows repeated), any tolerance, either kind."""
    shape = draw(hnp.array_shapes(min_dims=2, max_dims=3, min_side=0, max_side=4))
    hermitian = draw(st.booleans())
    if hermitian:
        shape = (*shape[:-1], shape[-2])
    arrays, views, _ = draw(inputs([shape], [normal]))
    deficient = shape[-2] > 1 and draw(st.booleans())  # the last row twice the first
    kwargs = draw(st.sampled_from([{}, {"atol": 1.0}, {"rtol": 0.3}, {"atol": 0.5, "rtol": 0.1}]))
    as_tensors = draw(st.booleans())  # the tolerances as tensors of the batch's shape

    def rank(lib, x):
        cuts = {k: lib.tensor(np.full(shape[:-2], v)) if as_tensors else v
                for k, v in kwargs.items()}  # fmt: skip
        if deficient:
            x = lib.cat([x[..., :-1, :], x[..., :1, :] * 2.0], -2)
        return lib.linalg.matrix_rank(x, hermitian=hermitian, **cuts)

    return Case(
        _viewed(lambda x: rank(mg, x), views),
        _viewed(lambda t: rank(torch, t), views),
        arrays,
    )


def _cond(orders):
    def build(draw, dims):
        p = draw(st.sampled_from(orders))
        return (lambda x: mg.linalg.cond(x, p)), (lambda t: torch.linalg.cond(t, p))

    return build


@st.composite
def _square_separated(draw, build):
    """``_separated`` on square matrices."""
    n = draw(st.integers(1, 3))
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=2))
    arrays, views, _ = draw(inputs([(*batch, n, n)], [normal]))
    matrices = views[0](torch.from_numpy(arrays[0])).numpy()
    values = np.linalg.svd(matrices, compute_uv=False)
    assume(values.min() > 0.3 and (-np.diff(values, axis=-1) > 0.05).all())
    mg_fn, torch_fn = build(draw, (-2, -1))
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


@st.composite
def _vander(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    n = shape[-1] if shape else 1
    N = draw(st.one_of(st.none(), st.integers(2, 4))) if n > 1 else draw(st.integers(2, 4))
    arrays, views, _ = draw(inputs([shape], [normal]))
    return Case(
        _viewed(lambda x: mg.linalg.vander(x, N=N), views),
        _viewed(lambda t: torch.linalg.vander(t, N=N), views),
        arrays,
    )


@st.composite
def _cross(draw):
    shapes = draw(broadcast_shapes(2, min_side=1)).input_shapes
    ndim = max(len(s) for s in shapes) + 1
    dim = draw(st.integers(-ndim, ndim - 1))
    full = [(1,) * (ndim - 1 - len(s)) + s for s in shapes]  # equal ranks, as PyTorch asks
    shapes = [(*s[: dim % ndim], 3, *s[dim % ndim :]) for s in full]
    arrays, views, _ = draw(inputs(shapes, [normal, normal]))
    return Case(
        _viewed(lambda x, y: mg.linalg.cross(x, y, dim=dim), views),
        _viewed(lambda x, y: torch.linalg.cross(x, y, dim=dim), views),
        arrays,
    )


@st.composite
def _diagonal(draw):
    shape = draw(hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=3))
    dim1, dim2 = draw(st.permutations(range(-len(shape), 0)))[:2]
    offset = draw(st.integers(-3, 3))
    arrays, views, _ = draw(inputs([shape], [normal]))
    return Case(
        _viewed(lambda x: mg.linalg.diagonal(x, offset=offset, dim1=dim1, dim2=dim2), views),
        _viewed(lambda t: torch.linalg.diagonal(t, offset=offset, dim1=dim1, dim2=dim2), views),
        arrays,
    )


def _svd(draw, dims):
    """``torch.svd``'s factors through what does not depend on the signs, and ``V``'s
    place (``A = U diag(S) V^T``)."""
    some = draw(st.booleans())

    def seen(U, S, V):
        k = S.shape[-1]
        u, v = U[..., :k], V[..., :k]
        return (u * S.unsqueeze(-2)) @ v.mT, u * u, v * v, S

    return (
        lambda x: seen(*mg.svd(x, some=some)),
        lambda t: seen(*torch.svd(t, some=some)),
    )


def _svd_values(draw, dims):
    """``compute_uv=False``: ``S`` (the zeros of ``U`` and ``V`` are checked in
    tests/tensor/test_pseudoinverse.py)."""
    return (lambda x: mg.svd(x, compute_uv=False).S), (lambda t: torch.svd(t, compute_uv=False).S)


@st.composite
def _addbmm(draw):
    count, n, k, m = (draw(st.integers(0, 3)) for _ in range(4))
    input_shape = draw(st.sampled_from([(n, m), (m,), (1, m), (n, 1), ()]))
    beta = draw(st.sampled_from([1, 0, 0.5]))
    alpha = draw(st.sampled_from([1, -2.0]))
    arrays, views, _ = draw(inputs([input_shape, (count, n, k), (count, k, m)], [normal] * 3))
    return Case(
        _viewed(lambda x, a, b: mg.addbmm(x, a, b, beta=beta, alpha=alpha), views),
        _viewed(lambda x, a, b: torch.addbmm(x, a, b, beta=beta, alpha=alpha), views),
        arrays,
    )


@st.composite
def _lstsq(draw, differentiable=True):
    """Well-conditioned A (tall, square or wide), B as matrices or a vector, every driver."""
    m, n = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=2))
    vector = draw(st.booleans())
    b_shape = (*batch, m) if vector else (*batch, m, draw(st.integers(1, 2)))
    driver = draw(st.sampled_from([None, "gels", "gelsy", "gelsd", "gelss"]))
    arrays, views, _ = draw(inputs([(*batch, m, n), b_shape], [normal, normal]))
    matrices = views[0](torch.from_numpy(arrays[0])).numpy()
    assume(np.linalg.svd(matrices, compute_uv=False).min() > 0.3)

    def fields(lib, a, b):
        out = lib.linalg.lstsq(a, b, driver=driver)
        if differentiable:  # rank and singular values have no gradient in either library
            return out.solution, out.residuals
        return out.rank, out.singular_values

    return Case(
        _viewed(lambda a, b: fields(mg, a, b), views),
        _viewed(lambda a, b: fields(torch, a, b), views),
        arrays,
    )


@st.composite
def _tensorinv(draw):
    """A 2 x 3 x 6 or 4 x 2 x 2 tensor read as an invertible 6 x 6 or 4 x 4 matrix."""
    shape, ind = draw(st.sampled_from([((2, 3, 6), 2), ((4, 2, 2), 1), ((2, 2, 2, 2), 2)]))
    arrays, views, _ = draw(inputs([shape], [normal]))
    square = views[0](torch.from_numpy(arrays[0])).numpy().reshape(int(np.prod(shape[:ind])), -1)
    assume(np.linalg.svd(square, compute_uv=False).min() > 0.3)
    return Case(
        _viewed(lambda x: mg.linalg.tensorinv(x, ind=ind), views),
        _viewed(lambda t: torch.linalg.tensorinv(t, ind=ind), views),
        arrays,
    )


@st.composite
def _tensorsolve(draw):
    """``A`` whose axes (after ``dims`` moved to the end) are ``B``'s, then as many again."""
    a_shape, dims, b_shape = draw(
        st.sampled_from(
            [((2, 3, 6), None, (2, 3)), ((6, 2, 3), (0,), (2, 3)), ((2, 4, 2), (0, 2), (4,))]
        )
    )
    arrays, views, _ = draw(inputs([a_shape, b_shape], [normal, normal]))
    a = views[0](torch.from_numpy(arrays[0]))
    moved = a.movedim(dims, tuple(range(a.ndim - len(dims), a.ndim))) if dims else a
    square = moved.reshape(int(np.prod(b_shape)), -1).numpy()
    assume(np.linalg.svd(square, compute_uv=False).min() > 0.3)
    return Case(
        _viewed(lambda x, y: mg.linalg.tensorsolve(x, y, dims=dims), views),
        _viewed(lambda x, y: torch.linalg.tensorsolve(x, y, dims=dims), views),
        arrays,
    )


@st.composite
def _matrix_exp(draw):
    """Square matrices of any norm up to about 6 (every degree and squarings), in a stack
    or alone."""
    n = draw(st.integers(0, 4))
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=0, max_side=2))
    scale = draw(st.sampled_from([1e-9, 1e-4, 0.01, 0.1, 0.5, 1.0, 2.0]))
    arrays, views, _ = draw(inputs([(*batch, n, n)], [normal]))
    return Case(
        _viewed(lambda x: mg.linalg.matrix_exp(x * scale), views),
        _viewed(lambda t: torch.linalg.matrix_exp(t * scale), views),
        arrays,
    )


@st.composite
def _householder(draw):
    m = draw(st.integers(0, 4))
    n = draw(st.integers(0, m))
    k = draw(st.integers(0, n))
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=2))
    arrays, views, _ = draw(inputs([(*batch, m, n), (*batch, k)], [normal, normal]))
    return Case(
        _viewed(lambda a, t: mg.linalg.householder_product(a, t), views),
        _viewed(lambda a, t: torch.linalg.householder_product(a, t), views),
        arrays,
    )


CASES = {
    "linalg.pinv": _separated(_pinv),
    "linalg.pinv:tolerance": _separated(lambda draw, dims: _pinv(draw, dims, _CUTS)),
    "linalg.pinv:hermitian": _square_separated(_pinv_hermitian),
    "linalg.pinv:deficient": _deficient(),
    "pinverse": _separated(_pinverse),
    "linalg.matrix_rank": _rank(),
    "linalg.cond": _separated(_cond([None, 2, -2])),
    "linalg.cond:nuc": _square_separated(_cond(["nuc"])),
    "linalg.cond:square": _square_separated(_cond(["fro", 1, -1, np.inf, -np.inf])),
    "linalg.vander": _vander(),
    "linalg.cross": _cross(),
    "linalg.diagonal": _diagonal(),
    "svd": _separated(_svd),
    "svd:values": _separated(_svd_values),
    "addbmm": _addbmm(),
    "linalg.lstsq": _lstsq(),
    "linalg.lstsq:fields": _lstsq(differentiable=False),
    "linalg.tensorinv": _tensorinv(),
    "linalg.tensorsolve": _tensorsolve(),
    "matrix_exp": _matrix_exp(),  # covers linalg.matrix_exp (the same function)
    "linalg.householder_product": _householder(),
}
# Values only for the orders other than 2: PyTorch's backward raises there (it fills its
# inverse in place), minigrad's gives the derivative (tests/tensor/test_pseudoinverse.py).
# A singular value cut off by a tolerance leaves a function that PyTorch's slope (the
# derivative of the true pseudoinverse) does not describe: compared with PyTorch only.
NOT_SMOOTH = {"linalg.pinv:tolerance"}
NO_GRAD = {"linalg.matrix_rank", "linalg.cond:square", "linalg.lstsq:fields"}
