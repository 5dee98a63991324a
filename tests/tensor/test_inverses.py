"""linalg.inv, det, slogdet, logdet, matrix_power, multi_dot, vecdot (lesson 06): edges, errors.

Values and gradients on random matrices are the correctness database's
(``tests/opdb/inverses.py``); here, what it does not draw.
"""

import numpy as np
import pytest
import torch

import minigrad as mg


def _first_line(fn, *args):
    with pytest.raises(Exception) as info:
        fn(*args)
    return type(info.value), str(info.value).splitlines()[0]


def _torch_first_line(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # the oracle's exception, whatever it is
        return e, str(e).splitlines()[0]
    raise AssertionError("torch returned")


BAD = [
    np.array([[1, 2], [3, 4]]),  # integers
    np.array([1.0, 2.0]),  # a vector
    np.ones((2, 3)),  # not square
    np.zeros((2, 2, 2)),  # singular (inv only)
    np.array([[1.0, 2.0], [2.0, 4.0]]),  # singular after a row swap
]


@pytest.mark.parametrize("name", ["linalg.inv", "linalg.det", "linalg.slogdet", "logdet",
                                  "linalg.matrix_power"])  # fmt: skip
@pytest.mark.parametrize("a", BAD, ids=["int", "vector", "wide", "zeros", "swap"])
def test_bad_input_raises_torchs_error(name, a):
    space, fn = name.split(".") if "." in name else (None, name)
    mg_fn = getattr(mg.linalg if space else mg, fn)
    torch_fn = getattr(torch.linalg if space else torch, fn)
    args = (-1,) if fn == "matrix_power" else ()
    try:
        torch_fn(torch.from_numpy(a), *args)
    except Exception:
        error, line = _torch_first_line(torch_fn, torch.from_numpy(a), *args)
        kind, mine = _first_line(mg_fn, mg.tensor(a), *args)
        assert mine == line
        assert issubclass(kind, RuntimeError) and isinstance(error, RuntimeError)
        if isinstance(error, torch.linalg.LinAlgError):
            assert issubclass(kind, mg.linalg.LinAlgError)
        return
    np.testing.assert_equal(_values(mg_fn(mg.tensor(a), *args)),
                            _values(torch_fn(torch.from_numpy(a), *args)))  # fmt: skip


def _values(out):
    return [np.asarray(o) for o in out] if isinstance(out, tuple) else np.asarray(out)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_matrices_are_refused_as_torch_refuses_them(dtype):
    x, t = mg.ones(2, 2).to(getattr(mg, dtype)), torch.ones(2, 2, dtype=getattr(torch, dtype))
    for mg_fn, torch_fn in [(mg.linalg.inv, torch.linalg.inv), (mg.linalg.det, torch.linalg.det),
                            (mg.linalg.slogdet, torch.linalg.slogdet)]:  # fmt: skip
        error, line = _torch_first_line(torch_fn, t)
        kind, mine = _first_line(mg_fn, x)
        assert (kind.__name__, mine) == (type(error).__name__, line)


def test_empty_matrices_and_signed_zero_determinants_are_torchs():
    for shape in [(0, 0), (2, 0, 0)]:
        a = np.zeros(shape)
        assert mg.linalg.inv(mg.tensor(a)).shape == shape
        np.testing.assert_equal(mg.linalg.det(mg.tensor(a)).numpy(), np.ones(shape[:-2]))
        sign, logabsdet = mg.linalg.slogdet(mg.tensor(a))
        np.testing.assert_equal(
            [sign.numpy(), logabsdet.numpy()], [np.ones(shape[:-2]), np.zeros(shape[:-2])]
        )
    a = np.array([[1.0, 2.0], [2.0, 4.0]])  # a row swap, then a zero pivot: -0.
    for mine, theirs in [(mg.linalg.det(mg.tensor(a)), torch.linalg.det(torch.from_numpy(a))),
                         (mg.linalg.slogdet(mg.tensor(a)).sign,
                          torch.linalg.slogdet(torch.from_numpy(a)).sign)]:  # fmt: skip
        assert np.signbit(mine.item()) == np.signbit(theirs.item()) and mine.item() == 0
    nan = np.array([[np.nan, 2.0], [2.0, 4.0]])
    got = mg.linalg.slogdet(mg.tensor(nan))
    want = torch.linalg.slogdet(torch.from_numpy(nan))
    np.testing.assert_equal([got.sign.item(), got.logabsdet.item()],
                            [want.sign.item(), want.logabsdet.item()])  # fmt: skip


def test_det_gradient_at_a_singular_matrix_is_its_cofactors():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    x = mg.tensor(a, requires_grad=True)
    mg.linalg.det(x).backward()
    t = torch.from_numpy(a).requires_grad_()
    (expected,) = torch.autograd.grad(torch.linalg.det(t), t, create_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), expected.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)


def test_matrix_power_zero_is_the_identity_with_slope_zero_for_any_dtype():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    mg.linalg.matrix_power(x, 0).sum().backward()
    np.testing.assert_equal(x.grad.numpy(), np.zeros((2, 2)))
    got = mg.linalg.matrix_power(mg.tensor([[True, False], [True, True]]), 0)
    assert got.dtype == mg.bool_ and got.tolist() == [[True, False], [False, True]]
    assert mg.linalg.matrix_power(mg.tensor([[1, 1], [0, 1]]), 5).tolist() == [[1, 5], [0, 1]]


def test_methods_and_aliases():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    x, t = mg.tensor(a), torch.from_numpy(a)
    assert mg.inverse is mg.linalg.inv
    for mine, theirs in [(x.inverse(), t.inverse()), (x.det(), t.det()), (x.logdet(), t.logdet()),
                         (x.matrix_power(3), t.matrix_power(3)), (mg.det(x), torch.det(t)),
                         (x.slogdet().logabsdet, t.slogdet().logabsdet)]:  # fmt: skip
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-14)


CHAIN_ERRORS = [
    [np.ones(3)],
    [np.ones((2, 3, 3)), np.ones((3, 3))],
    [np.ones((3, 3)), np.ones((3, 3, 3))],
    [np.ones((3, 3)), np.ones(3), np.ones((3, 3))],
    [np.ones((3, 2)), np.ones((3, 3))],
    [np.ones(3), np.ones((3, 2)), np.ones(3)],
    [np.ones((3, 3)), np.ones((3, 3), np.float32)],
    [np.ones((3, 3)), np.ones((3, 3), np.int64)],
]


@pytest.mark.parametrize("arrays", CHAIN_ERRORS, ids=range(len(CHAIN_ERRORS)))
def test_multi_dot_refuses_as_torch(arrays):
    error, line = _torch_first_line(torch.linalg.multi_dot, [torch.from_numpy(a) for a in arrays])
    kind, mine = _first_line(mg.linalg.multi_dot, [mg.tensor(a) for a in arrays])
    assert (kind, mine) == (type(error), line)


@pytest.mark.parametrize(
    "x, y",
    [
        (np.array([1, 2]), np.array([3, 4])),
        (np.ones(2), np.ones(2, np.float32)),
        (np.ones(1), np.ones(2)),
    ],
)
def test_vecdot_refuses_as_torch(x, y):
    error, line = _torch_first_line(torch.linalg.vecdot, torch.from_numpy(x), torch.from_numpy(y))
    kind, mine = _first_line(mg.linalg.vecdot, mg.tensor(x), mg.tensor(y))
    assert (kind, mine) == (type(error), line)


def test_multi_dot_multiplies_in_pytorchs_order():
    # a 1 x 4 row, 4 x 4, 4 x 4, a column: right to left is cheapest
    xs = [np.arange(4.0) / 7, *np.random.default_rng(0).standard_normal((2, 4, 4)), np.ones(4)]
    got = mg.linalg.multi_dot([mg.tensor(x, dtype=mg.float32) for x in xs])
    want = torch.linalg.multi_dot([torch.tensor(x, dtype=torch.float32) for x in xs])
    assert got.item() == want.item()


SOLVE_ERRORS = [
    (np.zeros((3, 3)), np.ones(3)),  # singular
    (np.zeros((2, 3, 3)), np.ones(3)),  # singular, batched
    (np.eye(3), np.ones(4)),  # incompatible
    (np.eye(3), np.ones((4, 2))),
    (np.eye(3), np.ones(3, np.float32)),  # two dtypes
    (np.eye(3, dtype=np.int64), np.ones(3, np.int64)),
    (np.ones((2, 3)), np.ones(3)),
    (np.eye(3), np.array(1.0)),
]
SOLVE_ERRORS_RIGHT = [
    (np.eye(3), np.ones(3)),
    (np.eye(3), np.ones((3, 2))),
    (np.eye(1), np.ones(1)),
]


@pytest.mark.parametrize(
    "a, b, left",
    [(a, b, True) for a, b in SOLVE_ERRORS] + [(a, b, False) for a, b in SOLVE_ERRORS_RIGHT],
    ids=range(len(SOLVE_ERRORS) + len(SOLVE_ERRORS_RIGHT)),
)
def test_solve_refuses_as_torch(a, b, left):
    error, line = _torch_first_line(
        lambda a, b: torch.linalg.solve(a, b, left=left), torch.from_numpy(a), torch.from_numpy(b)
    )
    kind, mine = _first_line(
        lambda a, b: mg.linalg.solve(a, b, left=left), mg.tensor(a), mg.tensor(b)
    )
    assert (kind.__name__.strip("_"), mine) == (type(error).__name__.strip("_"), line)


@pytest.mark.parametrize(
    "a, upper",
    [(np.array([[1.0, 2.0], [2.0, 1.0]]), False), (np.array([[[1.0, 0], [0, 1]], [[-1, 0], [0, 1]]]), False),
     (np.array([[4.0, 100.0], [0.0, 9.0]]), True), (np.array([[np.nan, 0.0], [0.0, 9.0]]), False),
     (np.array([[1, 0], [0, 1]]), False), (np.ones((2, 3)), False), (np.ones(3), False)],
)  # fmt: skip
def test_cholesky_refuses_as_torch(a, upper):
    error, line = _torch_first_line(
        lambda t: torch.linalg.cholesky(t, upper=upper), torch.from_numpy(a)
    )
    kind, mine = _first_line(lambda x: mg.linalg.cholesky(x, upper=upper), mg.tensor(a))
    assert (kind.__name__.strip("_"), mine) == (type(error).__name__.strip("_"), line)


def test_cholesky_reads_one_triangle():
    a = np.array([[4.0, 100.0], [2.0, 5.0]])  # lower triangle SPD; 100 is never read
    for upper, x in [(False, a), (True, a.T.copy())]:
        got = mg.linalg.cholesky(mg.tensor(x), upper=upper).numpy()
        want = torch.linalg.cholesky(torch.from_numpy(x), upper=upper).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-15)
