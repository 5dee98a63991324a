"""The singular value decomposition and the norms made of it (issue 22): svdvals, svd,
matrix_norm with ord 'nuc', 2 and -2, against PyTorch: values, gradients where singular
values repeat, empty matrices, and the errors (type and first line). The correctness
database (``opdb/decompositions.py``) samples them widely; these are the edges."""

import warnings

import numpy as np
import pytest
import torch
from test_torch_fidelity import BACKENDS, both

import minigrad as mg

INF = float("inf")

# -- values and errors: every call has torch's outcome ------------------------------------
CALLS = {
    "svdvals": lambda m, t: m.linalg.svdvals(t([[3.0, 1.0], [-2.0, 0.5], [1.0, 4.0]], "float64")),
    "svdvals float32 batch": lambda m, t: m.linalg.svdvals(
        t([[[1.0, 2.0, 0.0]], [[0.0, -1.0, 5.0]]], "float32")
    ),
    "nuc": lambda m, t: m.linalg.matrix_norm(t([[1.0, 2.0], [3.0, 4.0]], "float64"), "nuc"),
    "2": lambda m, t: m.linalg.matrix_norm(t([[1.0, 2.0], [3.0, 4.0]], "float64"), 2),
    "-2": lambda m, t: m.linalg.matrix_norm(t([[1.0, 2.0], [3.0, 4.0]], "float64"), -2),
    "2, dim=(0, 2), keepdim": lambda m, t: m.linalg.matrix_norm(
        t([[[1.0, 2.0], [0.0, 1.0]], [[3.0, 4.0], [2.0, -1.0]]], "float64"), 2, (2, 0), True
    ),
    "linalg.norm nuc": lambda m, t: m.linalg.norm(t([[1.0, 0.0], [0.0, -2.0]], "float64"), "nuc"),
    "x.norm('nuc')": lambda m, t: t([[1.0, 2.0], [0.0, -2.0]], "float64").norm("nuc"),
    # empty matrices: the largest of no singular values (or sums) is 0, the smallest an error
    "2 empty": lambda m, t: m.linalg.matrix_norm(t(np.zeros((0, 0)), "float32"), 2),
    "nuc empty batch": lambda m, t: m.linalg.matrix_norm(t(np.zeros((2, 0, 3)), "float32"), "nuc"),
    "1 empty": lambda m, t: m.linalg.matrix_norm(t(np.zeros((0, 0)), "float32"), 1),
    "inf 0x5": lambda m, t: m.linalg.matrix_norm(t(np.zeros((0, 5)), "float32"), INF),
    "-2 empty": lambda m, t: m.linalg.matrix_norm(t(np.zeros((5, 0)), "float32"), -2).shape,
    "svdvals empty": lambda m, t: m.linalg.svdvals(t(np.zeros((2, 0, 3)), "float64")),
    "svd empty full": lambda m, t: m.linalg.svd(t(np.zeros((2, 0, 3)), "float64")).Vh,
    "svd empty thin": lambda m, t: m.linalg.svd(t(np.zeros((0, 3)), "float64"), False).Vh,
    "svd 4x2 full S": lambda m, t: m.linalg.svd(t(np.ones((4, 2)), "float64"), True).S,
    # errors
    "svdvals nan": lambda m, t: m.linalg.svdvals(t([[np.nan, 1.0], [2.0, 3.0]], "float64")),
    "nuc inf": lambda m, t: m.linalg.matrix_norm(t([[INF, 1.0], [2.0, 3.0]], "float32"), "nuc"),
    "svdvals inf batch": lambda m, t: m.linalg.svdvals(
        t([[[INF, 1.0], [2.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]], "float64")
    ),
    "svdvals nan batch": lambda m, t: m.linalg.svdvals(
        t([[[1.0, 1.0], [2.0, 3.0]], [[np.nan, 2.0], [3.0, 4.0]]], "float64")
    ),
    "svdvals int": lambda m, t: m.linalg.svdvals(t([[1, 2], [3, 4]], "int64")),
    "svdvals vector": lambda m, t: m.linalg.svdvals(t([1.0, 2.0], "float32")),
    "svdvals half": lambda m, t: m.linalg.svdvals(t([[1.0, 2.0], [3.0, 4.0]], "float16")),
    "svd bfloat16": lambda m, t: m.linalg.svd(t([[1.0, 2.0], [3.0, 4.0]], "bfloat16")),
    "nuc half": lambda m, t: m.linalg.matrix_norm(t([[1.0, 2.0], [3.0, 4.0]], "float16"), "nuc"),
    "fro half": lambda m, t: m.linalg.matrix_norm(t([[1.0, 2.0], [3.0, 4.0]], "float16")),
    "order 3": lambda m, t: m.linalg.matrix_norm(t([[1.0, 2.0], [3.0, 4.0]], "float32"), 3),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_values_and_errors_are_torchs(backend):
    # Two LAPACK libraries: the values agree to rounding, not bit for bit.
    for name, call in CALLS.items():
        ours, theirs = both(call, backend)
        theirs = (theirs[0].lstrip("_"), *theirs[1:])  # torch.linalg.LinAlgError's C name
        assert ours[:2] == theirs[:2], name
        if ours[0] == "ok":
            np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6, atol=1e-12, err_msg=name)


def test_svd_shapes_are_torchs():
    for shape in [(4, 2), (2, 4), (3, 1, 5), (1, 1)]:
        a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) % 7 - 3
        for full in (True, False):
            ours = mg.linalg.svd(mg.tensor(a), full_matrices=full)
            theirs = torch.linalg.svd(torch.tensor(a), full_matrices=full)
            assert [o.shape for o in ours] == [tuple(o.shape) for o in theirs]


# -- gradients ------------------------------------------------------------------------------
def _grads(fn, a, g=None):
    """The gradient of ``sum(fn(A) * g)`` from minigrad and from torch."""
    x, t = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ours, theirs = fn(mg, x), fn(torch, t)
    g = np.ones(tuple(theirs.shape)) if g is None else g
    (ours * mg.tensor(g)).sum().backward()
    (theirs * torch.tensor(g)).sum().backward()
    return x.grad.numpy(), t.grad.numpy()


@pytest.mark.parametrize("ord", ["nuc", 2, -2], ids=["nuc", "2", "-2"])
def test_norm_gradients_are_torchs(ord):
    rng = np.random.default_rng(0)
    for shape, dim in [((3, 3), (-2, -1)), ((4, 2), (-1, -2)), ((2, 3, 4), (2, 0))]:
        a = rng.standard_normal(shape)
        ours, theirs = _grads(lambda m, x, dim=dim: m.linalg.matrix_norm(x, ord, dim), a)
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_svdvals_gradient_where_singular_values_repeat():
    # U diag(g) Vh: defined where values repeat, whatever basis LAPACK picks, when g is
    # equal across the repeated ones (the nuclear norm's g is all ones).
    rng = np.random.default_rng(1)
    for a, g in [
        (np.eye(3), None),
        (np.diag([2.0, 2.0, 1.0]), np.array([0.5, 0.5, -1.0])),
        (np.diag([2.0, 2.0, 1.0]) @ np.linalg.qr(rng.standard_normal((3, 3)))[0], None),
    ]:
        ours, theirs = _grads(lambda m, x: m.linalg.svdvals(x), a, g)
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
        ours, theirs = _grads(lambda m, x: m.linalg.matrix_norm(x, "nuc"), a)
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_second_derivatives_and_forward_mode_match_finite_differences():
    a = mg.tensor(np.random.default_rng(2).standard_normal((3, 2)))

    def invariant(x):  # does not depend on the signs LAPACK picks
        U, S, Vh = mg.linalg.svd(x)
        return (U[:, :2] * S) @ Vh, U[:, 0] ** 2, S.sum()

    for fn in (mg.linalg.svdvals, lambda x: mg.linalg.matrix_norm(x, 2), invariant):
        assert mg.gradcheck(fn, [a], check_forward_ad=True)
        assert mg.gradgradcheck(fn, [a])


def test_full_basis_tangent_is_torchs_zero():
    # Past the first k columns a full U is any basis of the rest: torch holds it still.
    rng = np.random.default_rng(3)
    a, da = rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    _, (du, _, _) = mg.func.jvp(lambda x: tuple(mg.linalg.svd(x)), (mg.tensor(a),),
                                (mg.tensor(da),))  # fmt: skip
    assert du.shape == (4, 4)
    assert np.all(du.numpy()[:, 2:] == 0)


# -- the singular vectors themselves: PyTorch's signs (MKL's road through gesdd) --------------
# Each shape takes one road: MKL bidiagonalizes wide matrices directly up to n < 20 m (NumPy's
# LAPACK takes LQ first from n >= 11/6 m) and factors tall ones by QR first from m >= 1.5 n
# (NumPy's from 11/6 n); the rest take the same road in both.
ROADS = [(2, 3), (3, 5), (2, 7), (4, 9), (2, 45), (4, 3), (6, 4), (7, 5), (8, 6), (3, 3), (2, 3, 5)]


@pytest.mark.parametrize("full", [True, False], ids=["full", "thin"])
def test_singular_vectors_are_torchs(full):
    rng = np.random.default_rng(4)
    for shape in ROADS:
        a = rng.standard_normal(shape)
        ours = mg.linalg.svd(mg.tensor(a), full_matrices=full)
        theirs = torch.linalg.svd(torch.tensor(a), full_matrices=full)
        for o, t, name in zip(ours, theirs, "USV"):
            np.testing.assert_allclose(o.numpy(), t.numpy(), atol=1e-12, err_msg=f"{shape} {name}")


def test_gradient_through_the_vectors_is_torchs():
    # Sign-dependent functions (a row of Vh, a column of U) now have torch's gradients too.
    rng = np.random.default_rng(5)
    for shape in [(2, 5), (6, 4)]:
        a = rng.standard_normal(shape)
        g = rng.standard_normal((min(shape), shape[1]))
        ours, theirs = _grads(lambda m, x: m.linalg.svd(x, full_matrices=False).Vh, a, g)
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
        x = mg.tensor(a)
        assert mg.gradcheck(lambda x: mg.linalg.svd(x, full_matrices=False).U, [x])


def test_wide_road_at_the_ends_of_the_range():
    # The road is taken on the matrix scaled near 1 (as gesdd does): no overflow, no warning.
    a = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]])
    for scale in (1e200, 1e-310):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ours = mg.linalg.svd(mg.tensor(a * scale), full_matrices=False)
        theirs = torch.linalg.svd(torch.tensor(a * scale), full_matrices=False)
        np.testing.assert_allclose(ours.U.numpy(), theirs.U.numpy(), atol=1e-12)
        np.testing.assert_allclose(ours.S.numpy(), theirs.S.numpy(), rtol=1e-12)


def test_wide_matrices_past_the_row_limit_take_lapacks_own_road():
    # minigrad's copy of MKL's direct road steps once per row in Python; from 65 rows on a
    # wide matrix takes NumPy's road (fast), with NumPy's signs, and everything sign-free
    # still matches PyTorch.
    from minigrad.tensor.ops.bidiagonal import WIDE_ROWS

    a = np.random.default_rng(6).standard_normal((WIDE_ROWS + 1, 2 * WIDE_ROWS + 2))
    ours = mg.linalg.svd(mg.tensor(a), full_matrices=False)
    numpys = np.linalg.svd(a, full_matrices=False)
    for o, n in zip(ours, numpys):
        np.testing.assert_array_equal(o.numpy(), n)
    theirs = torch.linalg.svd(torch.tensor(a), full_matrices=False)
    np.testing.assert_allclose(ours.S.numpy(), theirs.S.numpy(), rtol=1e-12)
    product = (ours.U * ours.S[None, :]) @ ours.Vh
    np.testing.assert_allclose(product.numpy(), a, atol=1e-12)
