"""torch's older linear-algebra names, compact QR, LDL^T and randomized SVD, against PyTorch.

The database (tests/opdb/legacy_linalg.py) compares values and gradients; here are the
refusals (PyTorch's exception type and first line), the derivatives PyTorch refuses,
LDL^T's pivots on matrices the database draws rarely (ties, zero pivots, larger sizes,
non-finite entries), and the randomized SVD's defining properties.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg


def _first_line(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else ""


def _same_refusal(ours, theirs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as expected:
            theirs()
    with pytest.raises(Exception) as got:
        ours()
    assert type(got.value) is type(expected.value) or isinstance(got.value, expected.type)
    assert _first_line(got.value) == _first_line(expected.value)


D = np.float64


def _pair(array, dtype=None):
    array = np.asarray(array, dtype=dtype)
    return mg.tensor(array), torch.from_numpy(array.copy())


REFUSALS = {
    "chain_matmul none": lambda lib: lib.chain_matmul(),
    "chain_matmul vector": lambda lib: lib.chain_matmul(lib.ones(3, dtype=lib.float64)),
    "chain_matmul 3-d": lambda lib: lib.chain_matmul(lib.ones(1, 2, 2), lib.ones(2, 2)),
    "chain_matmul sizes": lambda lib: lib.chain_matmul(lib.ones(2, 3), lib.ones(2, 2)),
    "adjoint 1-d": lambda lib: lib.adjoint(lib.ones(3)),
    "ger 2-d": lambda lib: lib.ger(lib.ones(2, 2), lib.ones(2)),
    "norm int": lambda lib: lib.norm(lib.ones(2, 2, dtype=lib.int64)),
    "norm narrowing": lambda lib: lib.norm(lib.ones(2, dtype=lib.float64), dtype=lib.float32),
    "norm nuc one dim": lambda lib: lib.norm(lib.ones(2, 2), "nuc", 0),
    "norm nuc 3-d": lambda lib: lib.norm(lib.ones(2, 2, 2), "nuc"),
    "norm fro 3 dims": lambda lib: lib.norm(lib.ones(2, 2, 2), "fro", (0, 1, 2)),
    "norm bad order": lambda lib: lib.norm(lib.ones(2, 2), "abc"),
    "norm repeated dims": lambda lib: lib.norm(lib.ones(2, 2), "fro", (0, 0)),
    "norm inf empty": lambda lib: lib.norm(lib.ones(0, 2), math.inf),
    "frobenius int": lambda lib: lib.frobenius_norm(lib.ones(2, 2, dtype=lib.int64), (0,)),
    "frobenius 3 dims": lambda lib: lib.frobenius_norm(lib.ones(2, 2, 2), (0, 1, 2)),
    "nuclear 1-d": lambda lib: lib.nuclear_norm(lib.ones(2)),
    "nuclear one dim": lambda lib: lib.nuclear_norm(lib.ones(2, 2), (0,)),
    "qr 1-d": lambda lib: lib.qr(lib.ones(2)),
    "qr int": lambda lib: lib.qr(lib.ones(2, 2, dtype=lib.int64)),
    "geqrf 1-d": lambda lib: lib.geqrf(lib.ones(2)),
    "geqrf int": lambda lib: lib.geqrf(lib.ones(2, 2, dtype=lib.int64)),
    "geqrf half": lambda lib: lib.geqrf(lib.ones(2, 2, dtype=lib.float16)),
    "ormqr 1-d": lambda lib: lib.ormqr(lib.ones(3), lib.ones(3), lib.ones(3)),
    "ormqr other 1-d": lambda lib: lib.ormqr(lib.ones(3, 3), lib.ones(3), lib.ones(3)),
    "ormqr other rows": lambda lib: lib.ormqr(lib.ones(3, 3), lib.ones(3), lib.ones(2, 3)),
    "ormqr other columns": lambda lib: lib.ormqr(
        lib.ones(3, 3), lib.ones(3), lib.ones(3, 2), left=False
    ),
    "ormqr tau size": lambda lib: lib.ormqr(lib.ones(4, 3), lib.ones(2), lib.ones(4, 2)),
    "ormqr tau 0-d": lambda lib: lib.ormqr(lib.ones(4, 3), lib.tensor(1.0), lib.ones(4, 2)),
    "ormqr tau ndim": lambda lib: lib.ormqr(lib.ones(4, 3), lib.ones(1, 3), lib.ones(4, 4)),
    "ormqr other ndim": lambda lib: lib.ormqr(lib.ones(4, 3), lib.ones(3), lib.ones(2, 4, 2)),
    "ormqr tau batch": lambda lib: lib.ormqr(lib.ones(2, 4, 3), lib.ones(3, 3), lib.ones(2, 4, 2)),
    "ormqr other batch": lambda lib: lib.ormqr(
        lib.ones(2, 4, 3), lib.ones(2, 3), lib.ones(3, 4, 2)
    ),
    "ormqr tau dtype": lambda lib: lib.ormqr(
        lib.ones(3, 3, dtype=lib.float64), lib.ones(3), lib.ones(3, 3, dtype=lib.float64)
    ),
    "ormqr other dtype": lambda lib: lib.ormqr(
        lib.ones(3, 3, dtype=lib.float64), lib.ones(3, dtype=lib.float64), lib.ones(3, 3)
    ),
    "ormqr int": lambda lib: lib.ormqr(
        lib.ones(3, 3, dtype=lib.int64),
        lib.ones(3, dtype=lib.int64),
        lib.ones(3, 3, dtype=lib.int64),
    ),
    "ldl 1-d": lambda lib: lib.linalg.ldl_factor(lib.ones(3)),
    "ldl not square": lambda lib: lib.linalg.ldl_factor_ex(lib.ones(2, 3)),
    "ldl int": lambda lib: lib.linalg.ldl_factor(lib.ones(3, 3, dtype=lib.int64)),
    "ldl half": lambda lib: lib.linalg.ldl_factor(lib.ones(3, 3, dtype=lib.float16)),
    "ldl_solve B 1-d": lambda lib: lib.linalg.ldl_solve(
        *lib.linalg.ldl_factor(lib.eye(3)), lib.ones(3)
    ),
    "ldl_solve dtypes": lambda lib: lib.linalg.ldl_solve(
        *lib.linalg.ldl_factor(lib.eye(3, dtype=lib.float64)), lib.ones(3, 2)
    ),
    "ldl_solve rows": lambda lib: lib.linalg.ldl_solve(
        *lib.linalg.ldl_factor(lib.eye(3)), lib.ones(4, 2)
    ),
    "ldl_solve pivots shape": lambda lib: lib.linalg.ldl_solve(
        lib.linalg.ldl_factor(lib.eye(3)).LD, lib.ones(2, dtype=lib.int32), lib.ones(3, 2)
    ),
    "ldl_solve pivots dtype": lambda lib: lib.linalg.ldl_solve(
        lib.linalg.ldl_factor(lib.eye(3)).LD, lib.ones(3), lib.ones(3, 2)
    ),
    "ldl_solve LD int": lambda lib: lib.linalg.ldl_solve(
        lib.ones(3, 3, dtype=lib.int64),
        lib.ones(3, dtype=lib.int32),
        lib.ones(3, 2, dtype=lib.int64),
    ),
    "pca q too large": lambda lib: lib.pca_lowrank(lib.ones(3, 2), q=3),
    "pca niter": lambda lib: lib.pca_lowrank(lib.ones(3, 2), niter=-1),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_are_pytorchs(name):
    _same_refusal(lambda: REFUSALS[name](mg), lambda: REFUSALS[name](torch))


@pytest.mark.parametrize("singular", [np.zeros((3, 3)), np.ones((3, 3)),
                                      np.stack([np.eye(3), np.zeros((3, 3))])])  # fmt: skip
def test_a_singular_d_raises_in_ldl_factor_and_gives_info_in_ldl_factor_ex(singular):
    ours, theirs = _pair(singular, np.float32)
    got, expected = mg.linalg.ldl_factor_ex(ours), torch.linalg.ldl_factor_ex(theirs)
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    code = int(expected.info.reshape(-1)[expected.info.reshape(-1) != 0][0])
    for call in (lambda: mg.linalg.ldl_factor(ours),
                 lambda: mg.linalg.ldl_factor_ex(ours, check_errors=True)):  # fmt: skip
        with pytest.raises(RuntimeError, match=f"Unknown error code: {code}\\."):
            call()


def _symmetric(rng, n, kind):
    if kind == "integers":  # ties and zero diagonals: 2 x 2 blocks and swaps
        x = rng.integers(-2, 3, (n, n)).astype(D)
        return x + x.T
    if kind == "singular":
        u = rng.standard_normal((n, n - 2))
        return u @ np.diag(rng.choice([-1.0, 1.0], n - 2)) @ u.T
    x = rng.standard_normal((n, n))
    return x + x.T if kind == "normal" else x  # "lower": only the lower triangle is read


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["normal", "integers", "singular", "lower"])
def test_ldl_factor_is_lapacks_bunch_kaufman_factorization(kind, dtype):
    rng = np.random.default_rng(0)
    for n in (2, 3, 5, 8, 70):  # 70: past LAPACK's block size
        matrix = np.stack([_symmetric(rng, n, kind) for _ in range(3)]).astype(dtype)
        ours, theirs = _pair(matrix)
        got, expected = mg.linalg.ldl_factor_ex(ours), torch.linalg.ldl_factor_ex(theirs)
        np.testing.assert_array_equal(got.pivots.numpy(), expected.pivots.numpy())
        np.testing.assert_array_equal(got.info.numpy(), expected.info.numpy())
        assert got.pivots.dtype == np.int32 and got.info.shape == (3,)
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got.LD.numpy(), expected.LD.numpy(), rtol=tol, atol=tol)


def test_ldl_solve_solves_and_broadcasts_like_torch():
    """Either side's batch axes broadcast. (torch 2.13 crashes where LD has batch axes
    and B more of them: that case is checked against the solution alone.)"""
    rng = np.random.default_rng(1)
    a = np.stack([_symmetric(rng, 4, "integers") + 5 * np.eye(4) * (i - 0.5) for i in (0, 1)])
    ours, theirs = _pair(a)
    factors = mg.linalg.ldl_factor(ours)
    for b_shape, lone in (((4, 2), False), ((3, 4, 2), True), ((3, 1, 4, 2), False)):
        b = rng.standard_normal(b_shape)
        x = mg.linalg.ldl_solve(*(f[0] for f in factors) if lone else factors, mg.tensor(b))
        matrix = a[0] if lone else a
        np.testing.assert_allclose(matrix @ x.numpy(), np.broadcast_to(b, x.shape), atol=1e-10)
        if len(b_shape) == 4:
            assert x.shape == (3, 2, 4, 2)
            continue
        t_factors = torch.linalg.ldl_factor(theirs[0] if lone else theirs)
        expected = torch.linalg.ldl_solve(*t_factors, torch.from_numpy(b))
        assert x.shape == tuple(expected.shape)
        np.testing.assert_allclose(x.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)


def test_non_finite_entries_pick_mkls_pivots():
    """A NaN is the largest magnitude in MKL's search for a pivot (PyTorch's LAPACK); a NaN
    diagonal with nothing below it is not a zero pivot."""
    for matrix in ([[math.nan, 1.0], [1.0, 2.0]],
                   [[4.9, 0.04, math.nan, 0.7], [0.04, -0.1, 1.3, -0.2],
                    [math.nan, 1.3, 1.2, -0.3], [0.7, -0.2, -0.3, -1.7]]):  # fmt: skip
        ours, theirs = _pair(matrix, D)
        got, expected = mg.linalg.ldl_factor_ex(ours), torch.linalg.ldl_factor_ex(theirs)
        np.testing.assert_array_equal(got.pivots.numpy(), expected.pivots.numpy())
        np.testing.assert_array_equal(got.info.numpy(), expected.info.numpy())


def test_pytorchs_missing_derivatives_raise_its_errors():
    a = mg.tensor(np.eye(3) + 0.5, requires_grad=True)
    _, tau = mg.geqrf(a)
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not impl"):
        mg.autograd.grad(tau.sum(), a)
    ld, pivots = mg.linalg.ldl_factor(a)
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not"):
        mg.autograd.grad(ld.sum(), a)
    b = mg.ones(3, 1, dtype=mg.float64, requires_grad=True)
    solved = mg.linalg.ldl_solve(ld.detach(), pivots, b)
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not"):
        mg.autograd.grad(solved.sum(), b)
    with pytest.raises(NotImplementedError, match="Trying to use forward AD with aten::linalg"):
        mg.jvp(lambda x: mg.linalg.ldl_factor(x).LD, (a.detach(),), (a.detach(),))
    tall = mg.tensor(np.ones((3, 2)) + np.eye(3, 2), requires_grad=True)
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete'"):
        mg.autograd.grad(mg.qr(tall, some=False).Q.sum(), tall)


def test_geqrf_ormqr_and_orgqr_rebuild_the_matrix():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 5, 3))
    a, tau = mg.geqrf(mg.tensor(x))
    q = mg.orgqr(a, tau)
    r = a.triu()[..., :3, :]
    np.testing.assert_allclose((q @ r).numpy(), x, atol=1e-12)
    full = mg.ormqr(a, tau, mg.eye(5, dtype=mg.float64).expand(2, 5, 5))
    np.testing.assert_allclose(full.numpy()[..., :3], q.numpy(), atol=1e-12)
    back = mg.ormqr(a, tau, mg.tensor(x), transpose=True)  # Q^T A = [R; 0]
    np.testing.assert_allclose(back.numpy()[..., :3, :], r.numpy(), atol=1e-12)
    np.testing.assert_allclose(back.numpy()[..., 3:, :], 0, atol=1e-12)
    assert type(mg.geqrf(mg.tensor(x))).__name__ == "geqrf"
    assert type(mg.qr(mg.tensor(x))).__name__ == "qr"


def test_spellings():
    m = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    copy = mg.chain_matmul(m)
    assert copy is not m and np.array_equal(copy.numpy(), m.numpy())
    view = mg.adjoint(m)
    assert np.array_equal(view.numpy(), m.numpy().T) and np.array_equal(m.adjoint().numpy(), m.T)
    scalar = mg.tensor(2.0)
    assert mg.adjoint(scalar).item() == 2.0
    assert np.array_equal(mg.ger(mg.tensor([1, 2]), mg.tensor([3])).numpy(), [[3], [6]])
    # Tensor.norm is torch.norm, dtype included
    x = mg.ones(2, 3)
    assert x.norm(2, 1, True, dtype=mg.float64).dtype == np.float64
    assert x.norm(2, 1, True, dtype=mg.float64).shape == (2, 1)
    assert mg.frobenius_norm(x, ()).item() == pytest.approx(math.sqrt(6))
    assert mg.nuclear_norm(mg.eye(2).expand(3, 2, 2), True).shape == (3, 1, 1)


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 6, 4)])
def test_svd_lowrank_finds_a_low_rank_matrix(shape, dtype):
    rng = np.random.default_rng(3)
    *batch, m, n = shape
    a = rng.standard_normal((*batch, m, 2)) @ rng.standard_normal((*batch, 2, n))
    x = mg.tensor(a, dtype=dtype)
    mg.manual_seed(0)
    U, S, V = mg.svd_lowrank(x, q=2)
    assert U.shape == (*batch, m, 2) and S.shape == (*batch, 2) and V.shape == (*batch, n, 2)
    assert U.dtype == V.dtype == S.dtype == dtype
    tol = 1e-4 if dtype == mg.float32 else 1e-10
    eye = np.eye(2)
    np.testing.assert_allclose((U.mT @ U).numpy(), np.broadcast_to(eye, (*batch, 2, 2)), atol=tol)
    np.testing.assert_allclose((V.mT @ V).numpy(), np.broadcast_to(eye, (*batch, 2, 2)), atol=tol)
    np.testing.assert_allclose(((U * S.unsqueeze(-2)) @ V.mT).numpy(), a, atol=tol * 10)
    values = np.linalg.svd(a, compute_uv=False)[..., :2]
    np.testing.assert_allclose(S.numpy(), values, rtol=tol)
    mg.manual_seed(0)  # the draw comes from minigrad's generator: seeded, repeated
    again = mg.svd_lowrank(x, q=2)
    np.testing.assert_array_equal(again[0].numpy(), U.numpy())


def test_pca_lowrank_centers_the_columns():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((6, 1)) @ rng.standard_normal((1, 3)) + rng.standard_normal(3)
    mg.manual_seed(1)
    U, S, V = mg.pca_lowrank(mg.tensor(a), q=1)
    centered = a - a.mean(0)
    np.testing.assert_allclose(((U * S) @ V.mT).numpy(), centered, atol=1e-10)
    U, S, V = mg.pca_lowrank(mg.tensor(a))  # q = min(6, m, n)
    assert S.shape == (3,) and U.shape == (6, 3) and V.shape == (3, 3)
