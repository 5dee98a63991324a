"""pinv, matrix_rank, cond, lstsq, matrix_exp, tensorinv/tensorsolve, householder_product,
vander, linalg.cross/diagonal, svd, addbmm against PyTorch.

The database (tests/opdb/pseudoinverses.py) draws the smooth cases; here are the
refusals (type and first line, as PyTorch's), the edges and what the database cannot
compare: gradients where PyTorch's backward raises, zeros that carry no gradient.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg


def _raises_as_torch(mg_call, torch_call):
    with pytest.raises(Exception) as theirs:
        torch_call()
    with pytest.raises(Exception) as ours:
        mg_call()
    expected = type(theirs.value)
    expected = RuntimeError if expected.__name__ == "_LinAlgError" else expected
    assert isinstance(ours.value, expected), (ours.value, theirs.value)
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def _bool(m):
    return m.bool if m is torch else m.bool_


_REFUSALS = [
    ("linalg.pinv", lambda m: m.linalg.pinv(m.ones(3, 3, dtype=m.int64))),
    ("linalg.pinv", lambda m: m.linalg.pinv(m.ones(3))),
    ("linalg.pinv", lambda m: m.linalg.pinv(m.ones(2, 3, 3, dtype=m.float16))),
    ("linalg.pinv", lambda m: m.linalg.pinv(m.ones(3, 4), hermitian=True)),
    ("linalg.pinv", lambda m: m.linalg.pinv(m.full((2, 2), float("nan")))),
    ("linalg.matrix_rank", lambda m: m.linalg.matrix_rank(m.ones(3, 3, dtype=m.int64))),
    ("linalg.matrix_rank", lambda m: m.linalg.matrix_rank(m.ones(3))),
    ("linalg.matrix_rank", lambda m: m.linalg.matrix_rank(m.ones(3, 4), hermitian=True)),
    ("linalg.cond", lambda m: m.linalg.cond(m.ones(3))),
    ("linalg.cond", lambda m: m.linalg.cond(m.ones(3, 4), "fro")),
    ("linalg.cond", lambda m: m.linalg.cond(m.ones(3, 4), 1)),
    ("linalg.cond", lambda m: m.linalg.cond(m.ones(3, 4), float("-inf"))),
    ("linalg.cond", lambda m: m.linalg.cond(m.ones(3, 3), 3)),
    ("linalg.cond", lambda m: m.linalg.cond(m.ones(3, 3), 0.5)),
    ("linalg.cond", lambda m: m.linalg.cond(m.ones(3, 3), "abc")),
    ("linalg.cond", lambda m: m.linalg.cond(m.ones(3), "fro")),
    ("linalg.cond", lambda m: m.linalg.cond(m.ones(3, 3, dtype=m.float16), "fro")),
    ("linalg.cond", lambda m: m.linalg.cond(m.ones(3, 3, dtype=m.int64), "nuc")),
    ("linalg.cond", lambda m: m.linalg.cond(m.ones(3, 3, dtype=m.int64))),
    ("linalg.cond", lambda m: m.linalg.cond(m.ones(3, 3, dtype=m.int64), 1)),
    ("linalg.cond", lambda m: m.linalg.cond(m.ones(3, 3, dtype=m.float16), "nuc")),
    ("linalg.vander", lambda m: m.linalg.vander(m.tensor([True, False]))),
    ("linalg.vander", lambda m: m.linalg.vander(m.tensor([1.0, 2.0], dtype=m.float16))),
    ("linalg.vander", lambda m: m.linalg.vander(m.tensor(2.0))),
    ("linalg.vander", lambda m: m.linalg.vander(m.tensor([1.0, 2.0]), N=1)),
    ("linalg.cross", lambda m: m.linalg.cross(m.ones(5, 5, 3), m.ones(5, 3))),
    ("linalg.cross", lambda m: m.linalg.cross(m.ones(5, 2), m.ones(5, 2))),
    ("linalg.cross", lambda m: m.linalg.cross(m.ones(5, 3), m.ones(5, 1))),
    ("linalg.cross", lambda m: m.linalg.cross(m.ones(5, 3), m.ones(5, 3), dim=2)),
    ("linalg.cross", lambda m: m.linalg.cross(m.ones(3, dtype=m.int32), m.ones(3))),
    (
        "linalg.cross",
        lambda m: m.linalg.cross(m.ones(3, dtype=_bool(m)), m.ones(3, dtype=_bool(m))),
    ),
    ("linalg.diagonal", lambda m: m.linalg.diagonal(m.ones(3))),
    ("svd", lambda m: m.svd(m.ones(3))),
    ("svd", lambda m: m.svd(m.ones(3, 3, dtype=m.int64))),
    ("matrix_exp", lambda m: m.linalg.matrix_exp(m.ones(3, 3, dtype=m.int64))),
    ("matrix_exp", lambda m: m.linalg.matrix_exp(m.ones(3))),
    ("matrix_exp", lambda m: m.matrix_exp(m.ones(3, 4))),
    ("tensorinv", lambda m: m.linalg.tensorinv(m.ones(2, 3, 6), ind=0)),
    ("tensorinv", lambda m: m.linalg.tensorinv(m.ones(2, 3, 6), ind=1)),
    ("tensorinv", lambda m: m.linalg.tensorinv(m.zeros(2, 3, 6), ind=2)),
    ("tensorinv", lambda m: m.linalg.tensorinv(m.zeros(2, 3, 6, dtype=m.int64), ind=2)),
    ("tensorsolve", lambda m: m.linalg.tensorsolve(m.ones(2, 3, 6), m.ones(2, 3))),
    ("tensorsolve", lambda m: m.linalg.tensorsolve(m.ones(2, 3, 5), m.ones(2, 3))),
    ("tensorsolve", lambda m: m.linalg.tensorsolve(m.ones(2, 3, 6), m.ones(2, 3, dtype=m.float64))),
    ("householder", lambda m: m.linalg.householder_product(m.ones(3), m.ones(1))),
    ("householder", lambda m: m.linalg.householder_product(m.ones(3, 3), m.ones(4))),
    ("householder", lambda m: m.linalg.householder_product(m.ones(2, 3), m.ones(2))),
    ("householder", lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(2, 2))),
    ("householder", lambda m: m.linalg.householder_product(m.ones(2, 3, 2), m.ones(3, 2))),
    (
        "householder",
        lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(2, dtype=m.float64)),
    ),
    (
        "householder",
        lambda m: m.linalg.householder_product(
            m.ones(3, 2, dtype=m.int64), m.ones(2, dtype=m.int64)
        ),
    ),
    ("lstsq", lambda m: m.linalg.lstsq(m.ones(()), m.ones(()))),
    ("lstsq", lambda m: m.linalg.lstsq(m.ones(4, 3), m.tensor(1.0))),
    ("lstsq", lambda m: m.linalg.lstsq(m.ones(4, 3), m.ones(4, 2, dtype=m.float64))),
    ("lstsq", lambda m: m.linalg.lstsq(m.ones(4, 3), m.ones(2, 2, 4, 2))),
    ("lstsq", lambda m: m.linalg.lstsq(m.ones(4, 3), m.ones(3, 2))),
    ("lstsq", lambda m: m.linalg.lstsq(m.ones(4, 3), m.ones(3))),
    ("lstsq", lambda m: m.linalg.lstsq(m.ones(4, 3), m.ones(4, 2), driver="xx")),
    ("lstsq", lambda m: m.linalg.lstsq(m.ones(4, 3, dtype=m.int64), m.ones(4, 2, dtype=m.int64))),
    ("lstsq", lambda m: m.linalg.lstsq(m.ones(2, 4, 3), m.ones(3, 4, 2))),
    ("addbmm", lambda m: m.addbmm(m.ones(2, 2), m.ones(3, 2, 2), m.ones(2, 2, 2))),
    ("addbmm", lambda m: m.addbmm(m.ones(2, 2), m.ones(2, 2), m.ones(2, 2, 2))),
    ("addbmm", lambda m: m.addbmm(m.ones(2, 2), m.ones(2, 2, 2), m.ones(2, 2))),
    ("addbmm", lambda m: m.addbmm(m.ones(2, 2), m.ones(2), m.ones(2, 2, 2))),
    ("addbmm", lambda m: m.addbmm(m.ones(2, 2), m.tensor(1.0), m.ones(2, 2, 2))),
    ("addbmm", lambda m: m.addbmm(m.ones(2, 2), m.ones(2, 2, 2), m.ones(2, 3, 2))),
    ("addbmm", lambda m: m.addbmm(m.ones(3, 2), m.ones(2, 2, 2), m.ones(2, 2, 2))),
    ("addbmm", lambda m: m.addbmm(m.ones(2, 2), m.ones(2, 2, 2, dtype=m.float64), m.ones(2, 2, 2))),
    ("addbmm", lambda m: m.addbmm(m.ones(2, 2, dtype=m.int64), m.ones(2, 2, 2), m.ones(2, 2, 2))),
]


@pytest.mark.parametrize(
    "name, call", _REFUSALS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(_REFUSALS)]
)
def test_refusals_are_torchs(name, call):
    _raises_as_torch(lambda: call(mg), lambda: call(torch))


def _compare(mg_out, torch_out, **tolerances):
    torch.testing.assert_close(torch.from_numpy(np.array(mg_out.numpy())), torch_out,
                               **tolerances)  # fmt: skip


def test_pinv_of_a_rank_deficient_product_and_its_gradient_are_torchs():
    # PyTorch's linalg.pinv.singular samples: a @ b^T of rank k, orthonormal columns
    rng = np.random.default_rng(0)
    for m, n, k in [(5, 3, 2), (3, 6, 1), (4, 4, 2)]:
        a = np.linalg.qr(rng.random((2, m, k)))[0]
        b = np.linalg.qr(rng.random((2, n, k)))[0]
        ta, tb = (torch.tensor(x, requires_grad=True) for x in (a, b))
        ma, mb = (mg.tensor(x, requires_grad=True) for x in (a, b))
        theirs = torch.linalg.pinv(ta @ tb.mT)
        ours = mg.linalg.pinv(ma @ mb.mT)
        _compare(ours.detach(), theirs.detach())
        g = rng.standard_normal(theirs.shape)
        theirs.backward(torch.tensor(g))
        ours.backward(mg.tensor(g))
        _compare(ma.grad, ta.grad)
        _compare(mb.grad, tb.grad)


def test_hermitian_pinv_reads_the_lower_triangle_and_has_torchs_gradient():
    x = np.random.default_rng(1).standard_normal((2, 4, 4)) + 4 * np.eye(4)
    t = torch.tensor(x, requires_grad=True)
    m = mg.tensor(x, requires_grad=True)
    theirs, ours = torch.linalg.pinv(t, hermitian=True), mg.linalg.pinv(m, hermitian=True)
    _compare(ours.detach(), theirs.detach())
    theirs.sum().backward()
    ours.sum().backward()
    _compare(m.grad, t.grad)


def test_pinv_of_empty_matrices_and_tensor_tolerances():
    for shape in [(0, 3), (3, 0), (2, 0, 0)]:
        ours = mg.linalg.pinv(mg.zeros(shape))
        assert ours.shape == tuple(torch.linalg.pinv(torch.zeros(shape)).shape)
    x = np.random.default_rng(2).standard_normal((3, 4, 4))
    tol = np.array([0.0, 1.0, 10.0])
    _compare(mg.linalg.pinv(mg.tensor(x), atol=mg.tensor(tol)),
             torch.linalg.pinv(torch.tensor(x), atol=torch.tensor(tol)))  # fmt: skip
    _compare(mg.pinverse(mg.tensor(x), 0.3), torch.pinverse(torch.tensor(x), 0.3))


def test_matrix_rank_edges_are_torchs():
    cases = [
        (np.zeros((2, 0, 3)), {}),
        (np.zeros((3, 3)), {}),
        (np.array([[1.0, 2.0], [2.0, 4.0]]), {}),
        (np.array([[1.0, 2.0], [2.0, 4.0]]), {"hermitian": True}),
        (np.diag([1.0, 1e-9, 0.5]), {"atol": 0.6}),
        (np.diag([1.0, 1e-9, 0.5]), {"rtol": 1e-10}),
        (np.diag([1.0, 1e-9, -0.5]), {"hermitian": True, "rtol": 0.4}),
    ]
    for x, kwargs in cases:
        ours = mg.linalg.matrix_rank(mg.tensor(x), **kwargs)
        theirs = torch.linalg.matrix_rank(torch.tensor(x), **kwargs)
        assert ours.dtype == mg.int64 and ours.tolist() == theirs.tolist()
    assert mg.linalg.matrix_rank(mg.tensor(np.diag([1.0, 0.1])), 0.5).item() == 1  # tol


@pytest.mark.parametrize("p", [None, "fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")])
def test_cond_of_singular_and_empty_matrices_is_torchs(p):
    # an exact 0 pivot and singular value in both libraries (PyTorch's nuc: sum(S) sum(1/S))
    singular = np.array([[[1.0, 0.0], [3.0, 0.0]], [[2.0, 0.0], [0.0, 1.0]]])
    ours = mg.linalg.cond(mg.tensor(singular), p)
    _compare(ours, torch.linalg.cond(torch.tensor(singular), p), rtol=1e-6, atol=0)
    empty = mg.linalg.cond(mg.zeros((2, 0, 0)), p)
    assert empty.shape == (2,) and empty.dtype == mg.float32 and empty.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("p", ["fro", 1, float("-inf")])
def test_cond_gradient_where_torchs_backward_raises_is_the_derivative(p):
    x = np.random.default_rng(3).standard_normal((3, 3)) + 3 * np.eye(3)
    assert mg.gradcheck(lambda a: mg.linalg.cond(a, p), (mg.tensor(x, requires_grad=True),))


def test_svd_without_vectors_gives_zeros_and_v_is_vh_transposed():
    x = np.random.default_rng(4).standard_normal((2, 3, 5))
    ours, theirs = (
        mg.svd(mg.tensor(x), compute_uv=False),
        torch.svd(torch.tensor(x), compute_uv=False),
    )
    for a, b in zip(ours, theirs):
        _compare(a, b)
    assert not ours.U.requires_grad and ours.V.shape == (2, 5, 5)
    V = mg.svd(mg.tensor(x), some=False).V
    vh = mg.linalg.svd(mg.tensor(x)).Vh
    assert V.shape == (2, 5, 5) and np.array_equal(V.numpy(), vh.mT.numpy())
    assert type(mg.svd(mg.tensor(x))).__name__ == "svd"


def test_vander_cross_diagonal_addbmm_dtypes_are_torchs():
    for dtype in ("int32", "int64", "float32"):
        x = np.array([[1, -2, 3], [0, 2, 5]], dtype=dtype)
        ours, theirs = (
            mg.linalg.vander(mg.tensor(x), N=4),
            torch.linalg.vander(torch.tensor(x), N=4),
        )
        assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "")
        assert ours.tolist() == theirs.tolist()
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 7
    b = np.arange(40, dtype=np.int32).reshape(2, 4, 5) % 7
    x = np.arange(5, dtype=np.int32)
    ours = mg.addbmm(mg.tensor(x), mg.tensor(a), mg.tensor(b), beta=2, alpha=3)
    theirs = torch.addbmm(torch.tensor(x), torch.tensor(a), torch.tensor(b), beta=2, alpha=3)
    assert ours.dtype == mg.int32 and ours.tolist() == theirs.tolist()
    nan = mg.addbmm(mg.full((2, 2), float("nan")), mg.ones(0, 2, 3), mg.ones(0, 3, 2), beta=0)
    assert nan.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    big = np.random.default_rng(5).standard_normal((4, 30, 40)).astype(np.float32)
    other = np.random.default_rng(6).standard_normal((4, 40, 20)).astype(np.float32)
    start = np.zeros((30, 20), np.float32)
    _compare(mg.addbmm(mg.tensor(start), mg.tensor(big), mg.tensor(other)),
             torch.addbmm(torch.tensor(start), torch.tensor(big), torch.tensor(other)))  # fmt: skip
    t = torch.arange(24.0).reshape(2, 3, 4)
    y = mg.linalg.diagonal(mg.tensor(t.numpy()), offset=1)
    assert y.tolist() == torch.linalg.diagonal(t, offset=1).tolist()
    c = mg.linalg.cross(mg.tensor([[1.0, 0.0, 0.0]]), mg.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    assert c.tolist() == [[0.0, 0.0, 1.0], [0.0, -1.0, 0.0]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matrix_exp_is_torchs_to_the_last_bit_on_small_matrices(dtype):
    # every degree (norms from 1e-9 to past the last threshold), alone and in a stack
    rng = np.random.default_rng(7)
    for scale in (1e-9, 1e-5, 1e-3, 0.03, 0.2, 0.5, 1.2, 2.5, 9.0):
        for shape in ((4, 4), (3, 4, 4), (2, 2)):
            x = (rng.uniform(-1, 1, shape) * scale / shape[-1]).astype(dtype)
            ours = mg.linalg.matrix_exp(mg.tensor(x)).numpy()
            theirs = torch.linalg.matrix_exp(torch.tensor(x)).numpy()
            if dtype == np.float32:
                assert np.array_equal(ours, theirs), (scale, shape)
            else:
                np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=0)


def test_matrix_exp_edges_and_gradient_are_torchs():
    for x in ([[float("nan"), 0.0], [0.0, 1.0]], [[float("inf"), 0.0], [0.0, 1.0]], [[3.0]]):
        _compare(mg.matrix_exp(mg.tensor(x)), torch.matrix_exp(torch.tensor(x)), equal_nan=True)
    assert mg.matrix_exp(mg.zeros(2, 0, 0)).shape == (2, 0, 0)
    x = np.random.default_rng(8).standard_normal((2, 3, 3))
    t = torch.tensor(x, requires_grad=True)
    m = mg.tensor(x, requires_grad=True)
    g = np.random.default_rng(9).standard_normal((2, 3, 3))
    torch.linalg.matrix_exp(t).backward(torch.tensor(g))
    mg.linalg.matrix_exp(m).backward(mg.tensor(g))
    _compare(m.grad, t.grad)


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_fills_the_fields_torch_fills(driver):
    rng = np.random.default_rng(10)
    deficient = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 1.0], [1.0, 2.0]])
    deficient[2] = 0.0  # rank 1: no residuals from gelsd/gelss
    for a, b in [
        (rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 5, 2))),
        (rng.standard_normal((3, 5)), rng.standard_normal(3)),
        (rng.standard_normal((1, 4, 4)), rng.standard_normal((3, 4, 1))),
        (deficient, rng.standard_normal((4, 1))),
    ]:
        ours = mg.linalg.lstsq(mg.tensor(a), mg.tensor(b), driver=driver)
        theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
        assert type(ours).__name__ == "linalg_lstsq"
        for name in ("residuals", "rank", "singular_values"):
            mine, its = getattr(ours, name), getattr(theirs, name)
            assert mine.shape == tuple(its.shape) and str(mine.dtype) == str(its.dtype)[6:], name
            if driver != "gels" or a is not deficient:  # gels cannot see the rank: no answer
                _compare(mine, its)
        if driver != "gels" or a is not deficient:
            _compare(ours.solution, theirs.solution)


def test_tensorinv_and_householder_product_values_and_gradients_are_torchs():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 2, 2)) + np.eye(4).reshape(4, 2, 2)
    _compare(
        mg.linalg.tensorinv(mg.tensor(x), ind=1), torch.linalg.tensorinv(torch.tensor(x), ind=1)
    )
    a, tau = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 2))
    ta, tt = torch.tensor(a, requires_grad=True), torch.tensor(tau, requires_grad=True)
    ma, mt = mg.tensor(a, requires_grad=True), mg.tensor(tau, requires_grad=True)
    theirs, ours = torch.linalg.householder_product(ta, tt), mg.linalg.householder_product(ma, mt)
    _compare(ours.detach(), theirs.detach())
    theirs.sum().backward()
    ours.sum().backward()
    _compare(ma.grad, ta.grad)
    _compare(mt.grad, tt.grad)
