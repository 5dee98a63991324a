"""linalg.eigh, eigvalsh and qr against PyTorch: refusals, signs and what the database leaves out."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg


def _raises_as_torch(mg_call, torch_call):
    with pytest.raises(Exception) as theirs:
        torch_call()
    with pytest.raises(type(theirs.value)) as ours:
        mg_call()
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, f: lib.linalg.eigh(lib.zeros(3, dtype=f)),
        lambda lib, f: lib.linalg.eigh(lib.zeros((3, 2), dtype=f)),
        lambda lib, f: lib.linalg.eigh(lib.zeros((3, 3), dtype=lib.int64)),
        lambda lib, f: lib.linalg.eigh(lib.zeros((3, 3), dtype=lib.float16)),
        lambda lib, f: lib.linalg.eigvalsh(lib.zeros((2, 2), dtype=lib.bfloat16)),
        lambda lib, f: lib.linalg.eigh(lib.zeros((3, 3), dtype=f), UPLO="X"),
        lambda lib, f: lib.linalg.eigvalsh(lib.zeros((3, 3), dtype=f), UPLO="LU"),
        lambda lib, f: lib.linalg.qr(lib.zeros(3, dtype=f)),
        lambda lib, f: lib.linalg.qr(lib.zeros((3, 3), dtype=lib.int64)),
        lambda lib, f: lib.linalg.qr(lib.zeros((3, 3), dtype=lib.float16)),
        lambda lib, f: lib.linalg.qr(lib.zeros((3, 3), dtype=f), mode="full"),
    ],
)
def test_refusals_are_torchs(call):
    _raises_as_torch(lambda: call(mg, mg.float64), lambda: call(torch, torch.float64))


@pytest.mark.parametrize("mode", ["r", "complete"])
def test_qr_without_a_derivative_refuses_in_backward_as_torch(mode):
    a = np.random.default_rng(0).standard_normal((4, 3))
    x, t = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    _raises_as_torch(
        lambda: mg.linalg.qr(x, mode=mode).R.sum().backward(),
        lambda: torch.linalg.qr(t, mode=mode).R.sum().backward(),
    )


@pytest.mark.parametrize("shape", [(0, 0), (3, 0), (0, 3), (2, 0, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_of_empty_matrices_is_torchs(shape, mode):
    ours = mg.linalg.qr(mg.zeros(shape, dtype=mg.float64), mode=mode)
    theirs = torch.linalg.qr(torch.zeros(shape, dtype=torch.float64), mode=mode)
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o.numpy(), t.numpy())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_qr_signs_are_torchs(dtype):
    """Householder's R has a diagonal of either sign; every shape's factors are PyTorch's."""
    rng = np.random.default_rng(1)
    for m, n in [(1, 1), (5, 3), (3, 5), (6, 6), (30, 20)]:
        a = rng.standard_normal((2, m, n)).astype(dtype)
        for mode in ("reduced", "complete"):
            ours, theirs = (
                mg.linalg.qr(mg.tensor(a), mode=mode),
                torch.linalg.qr(torch.from_numpy(a), mode=mode),
            )
            for o, t in zip(ours, theirs):
                np.testing.assert_allclose(
                    o.numpy(), t.numpy(), atol=1e-4 if dtype == np.float32 else 1e-12
                )


def test_eigh_vectors_are_torchs_beyond_25_and_up_to_sign_below():
    """Both libraries call ``syevd``; above 25 x 25 (divide and conquer) every sign agrees,
    below it MKL's tridiagonal solver chooses some signs otherwise (documented)."""
    rng = np.random.default_rng(2)
    for n in (3, 8, 26, 40):
        a = rng.standard_normal((n, n))
        a = a + a.T
        values, vectors = mg.linalg.eigh(mg.tensor(a))
        theirs = torch.linalg.eigh(torch.from_numpy(a))
        np.testing.assert_allclose(values.numpy(), theirs.eigenvalues.numpy(), atol=1e-12)
        ours, their_vectors = vectors.numpy(), theirs.eigenvectors.numpy()
        np.testing.assert_allclose(np.abs(ours), np.abs(their_vectors), atol=1e-10)
        if n > 25:
            np.testing.assert_allclose(ours, their_vectors, atol=1e-10)


@pytest.mark.parametrize("uplo", ["L", "U", "u"])
def test_eigh_reads_one_triangle_and_its_gradient_is_torchs(uplo):
    """A matrix that is not symmetric: only the triangle counts, and the gradient is
    PyTorch's full ``V (...) V^T`` (not restricted to that triangle)."""
    a = np.random.default_rng(3).standard_normal((2, 4, 4))
    x, t = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    L, V = mg.linalg.eigh(x, UPLO=uplo)
    tl, tv = torch.linalg.eigh(t, UPLO=uplo)
    np.testing.assert_allclose(L.detach().numpy(), tl.detach().numpy(), atol=1e-12)
    ((V * V).sum(-2) * L.unsqueeze(-2) + L.exp()).sum().backward()
    ((tv * tv).sum(-2) * tl.unsqueeze(-2) + tl.exp()).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-10)


def test_eigh_of_a_non_finite_matrix_is_nan_not_a_crash():
    a = mg.tensor([[[1.0, 0.0], [0.0, 2.0]], [[float("nan"), 0.0], [0.0, 1.0]]])
    values, vectors = mg.linalg.eigh(a)
    np.testing.assert_array_equal(values.numpy()[0], [1.0, 2.0])
    assert np.isnan(values.numpy()[1]).all() and np.isnan(vectors.numpy()[1]).all()
