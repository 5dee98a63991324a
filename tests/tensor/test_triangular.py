"""Triangular solves, the LU and Cholesky families against PyTorch: refusals, singular
matrices, and the gradients the correctness database cannot see."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

warnings.filterwarnings("ignore", message=".*deprecated.*", category=UserWarning)


def _raises_as_torch(mg_call, torch_call):
    with pytest.raises(Exception) as theirs:
        torch_call()
    with pytest.raises(Exception) as ours:
        mg_call()
    # torch.linalg.LinAlgError is torch._C._LinAlgError
    assert type(ours.value).__name__ == type(theirs.value).__name__.lstrip("_")
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


SINGULAR = np.array([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]])
NOT_PD = np.array([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])


def _calls():
    f32, f64, i64, half = "float32", "float64", "int64", "float16"

    def t(lib, shape, dtype=f64, fill=0.0):
        return lib.full(shape, fill, dtype=getattr(lib, dtype))

    return [
        lambda lib: lib.linalg.solve_triangular(t(lib, (2,)), t(lib, (2, 1)), upper=True),
        lambda lib: lib.linalg.solve_triangular(t(lib, (2, 2)), t(lib, (2,)), upper=True),
        lambda lib: lib.linalg.solve_triangular(t(lib, (2, 3)), t(lib, (2, 1)), upper=True),
        lambda lib: lib.linalg.solve_triangular(t(lib, (2, 2)), t(lib, (3, 1)), upper=True),
        lambda lib: lib.linalg.solve_triangular(
            t(lib, (2, 2)), t(lib, (1, 3)), upper=True, left=False
        ),
        lambda lib: lib.linalg.solve_triangular(
            t(lib, (2, 2), i64), t(lib, (2, 1), i64), upper=True
        ),
        lambda lib: lib.linalg.solve_triangular(
            t(lib, (2, 2), half), t(lib, (2, 1), half), upper=True
        ),
        lambda lib: lib.triangular_solve(t(lib, (2,)), t(lib, (2, 2))),
        lambda lib: lib.triangular_solve(t(lib, (2, 1)), t(lib, (2,))),
        lambda lib: lib.triangular_solve(t(lib, (3, 1)), t(lib, (2, 2))),
        lambda lib: lib.triangular_solve(t(lib, (2, 1), f32), t(lib, (2, 2))),
        lambda lib: lib.linalg.lu_factor(t(lib, (2,))),
        lambda lib: lib.linalg.lu_factor(t(lib, (2, 2), i64)),
        lambda lib: lib.linalg.lu_factor(t(lib, (2, 2), half)),
        lambda lib: lib.linalg.lu_factor(t(lib, (2, 3))),
        lambda lib: lib.linalg.lu_factor(lib.tensor(SINGULAR)),
        lambda lib: lib.linalg.lu_factor_ex(lib.tensor(SINGULAR), check_errors=True),
        lambda lib: lib.linalg.lu(t(lib, (2, 2)), pivot=False),
        lambda lib: lib.linalg.lu_solve(t(lib, (2, 2)), lib.ones(2, dtype=lib.int32), t(lib, (2,))),
        lambda lib: lib.linalg.lu_solve(
            t(lib, (2, 3)), lib.ones(2, dtype=lib.int32), t(lib, (2, 1))
        ),
        lambda lib: lib.linalg.lu_solve(
            t(lib, (2, 2)), lib.ones(2, dtype=lib.int64), t(lib, (2, 1))
        ),
        lambda lib: lib.linalg.lu_solve(
            t(lib, (2, 2), f32), lib.ones(2, dtype=lib.int32), t(lib, (2, 1))
        ),
        lambda lib: lib.linalg.lu_solve(
            t(lib, (2, 2)), lib.ones(2, dtype=lib.int32), t(lib, (3, 1))
        ),
        lambda lib: lib.lu_unpack(t(lib, (2, 2)), lib.ones(2, dtype=lib.int64)),
        lambda lib: lib.cholesky(t(lib, (2,))),
        lambda lib: lib.cholesky(t(lib, (2, 3))),
        lambda lib: lib.cholesky(t(lib, (2, 2), i64)),
        lambda lib: lib.cholesky(lib.tensor(NOT_PD)),
        lambda lib: lib.linalg.cholesky_ex(lib.tensor(NOT_PD), check_errors=True),
        lambda lib: lib.linalg.cholesky_ex(t(lib, (2, 2), half)),
        lambda lib: lib.cholesky_solve(t(lib, (2,)), t(lib, (2, 2))),
        lambda lib: lib.cholesky_solve(t(lib, (3, 1)), t(lib, (2, 2))),
        lambda lib: lib.cholesky_solve(t(lib, (2, 1)), t(lib, (2, 3))),
        lambda lib: lib.cholesky_solve(t(lib, (2, 1), f32), t(lib, (2, 2))),
        lambda lib: lib.cholesky_solve(t(lib, (2, 1), i64), t(lib, (2, 2), i64)),
        lambda lib: lib.cholesky_inverse(t(lib, (2,))),
        lambda lib: lib.cholesky_inverse(t(lib, (2, 3))),
        lambda lib: lib.cholesky_inverse(t(lib, (2, 2), i64)),
        lambda lib: lib.cholesky_inverse(
            lib.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [1.0, 0.0]]])
        ),
        lambda lib: lib.linalg.inv_ex(lib.tensor(SINGULAR), check_errors=True),
        lambda lib: lib.linalg.inv_ex(t(lib, (2, 3))),
        lambda lib: lib.linalg.solve_ex(lib.tensor(SINGULAR), t(lib, (2, 2, 1)), check_errors=True),
    ]


@pytest.mark.parametrize("call", _calls())
def test_refusals_are_torchs(call):
    _raises_as_torch(lambda: call(mg), lambda: call(torch))


def _same(ours, theirs):
    for o, t in zip(ours, theirs):
        o, t = o.detach().numpy(), t.detach().numpy()
        assert o.dtype == t.dtype and o.shape == t.shape
        np.testing.assert_allclose(o, t, atol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, a: lib.linalg.lu_factor_ex(a),
        lambda lib, a: lib.lu(a, get_infos=True),
        lambda lib, a: lib.linalg.inv_ex(a),
        lambda lib, a: lib.linalg.solve_ex(a, lib.ones(2, 2, 1, dtype=a.dtype)),
        lambda lib, a: lib.linalg.lu_solve(
            *lib.linalg.lu_factor_ex(a)[:2], lib.ones(2, 2, 1, dtype=a.dtype)
        ),
        lambda lib, a: lib.linalg.solve_triangular(
            a.triu(), lib.ones(2, 2, 1, dtype=a.dtype), upper=True
        ),
    ],
)
def test_a_singular_matrix_is_reported_not_refused_as_torch(call):
    """``info`` names the zero pivot; the answers are LAPACK's infinities."""
    a = SINGULAR.copy()
    a[1] = [[2.0, 4.0], [0.0, 0.0]]  # no row swap: both libraries meet the zero the same way
    ours, theirs = call(mg, mg.tensor(a)), call(torch, torch.tensor(a))
    ours, theirs = (ours, theirs) if isinstance(theirs, tuple) else ((ours,), (theirs,))
    _same(ours, theirs)


def test_cholesky_ex_reports_the_failing_minor_and_lapacks_partial_factor():
    a = np.array([[[4.0, 2, 1], [2, 1, 3], [1, 3, 5]], [[2.0, 1, 0], [1, 2, 0], [0, 0, 1]]])
    for upper in (False, True):
        x = a.swapaxes(-1, -2) if upper else a
        _same(
            mg.linalg.cholesky_ex(mg.tensor(x), upper=upper),
            torch.linalg.cholesky_ex(torch.tensor(x), upper=upper),
        )


@pytest.mark.parametrize(
    "unpack_data, unpack_pivots", [(False, True), (True, False), (False, False)]
)
def test_lu_unpack_leaves_out_what_is_not_asked_as_torch(unpack_data, unpack_pivots):
    a = np.random.default_rng(0).standard_normal((2, 3, 4))
    ours = mg.lu_unpack(*mg.linalg.lu_factor(mg.tensor(a)), unpack_data, unpack_pivots)
    theirs = torch.lu_unpack(*torch.linalg.lu_factor(torch.tensor(a)), unpack_data, unpack_pivots)
    _same(ours, theirs)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse_gradients_fill_the_whole_factor_as_torchs(upper):
    """PyTorch's gradients with respect to the factor are full matrices (not kept to the
    triangle the function reads): the database compares them through ``tril``, this in full."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 3))
    factor = np.linalg.cholesky(x @ x.swapaxes(-1, -2) + np.eye(3))
    factor = factor.swapaxes(-1, -2) if upper else factor
    b = rng.standard_normal((2, 3, 2))
    for fn in ("cholesky_solve", "cholesky_inverse"):
        f_mg, f_t = mg.tensor(factor, requires_grad=True), torch.tensor(factor, requires_grad=True)
        args_mg = (mg.tensor(b), f_mg) if fn == "cholesky_solve" else (f_mg,)
        args_t = (torch.tensor(b), f_t) if fn == "cholesky_solve" else (f_t,)
        (getattr(mg, fn)(*args_mg, upper=upper) ** 2).sum().backward()
        (getattr(torch, fn)(*args_t, upper=upper) ** 2).sum().backward()
        np.testing.assert_allclose(f_mg.grad.numpy(), f_t.grad.numpy(), atol=1e-10)


def test_methods_are_the_functions():
    a = np.random.default_rng(2).standard_normal((3, 3)) + 3 * np.eye(3)
    x, t = mg.tensor(a), torch.tensor(a)
    b = np.ones((3, 1))
    spd = a @ a.T
    _same([mg.tensor(spd).cholesky(upper=True)], [torch.tensor(spd).cholesky(upper=True)])
    _same([x.tril().cholesky_inverse()], [t.tril().cholesky_inverse()])
    _same([mg.tensor(b).cholesky_solve(x.tril())], [torch.tensor(b).cholesky_solve(t.tril())])
    _same(x.lu(), t.lu())
    _same([mg.tensor(b).lu_solve(*x.lu())], [torch.tensor(b).lu_solve(*t.lu())])
    _same(mg.tensor(b).triangular_solve(x), torch.tensor(b).triangular_solve(t))
