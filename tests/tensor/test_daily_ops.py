"""PyTorch's daily operators (issue 22, part B): errors, dtypes and edges beyond the database.

Values and gradients of every operator are in the correctness database
(``tests/opdb/daily.py``); here are the cases a database row cannot say:
errors with PyTorch's exception type and first line, and results that are
Python values or depend on arguments the rows do not draw.
"""

import math

import numpy as np
import pytest
import torch

import minigrad as mg


def _first_line(error: BaseException) -> str:
    return str(error).splitlines()[0]


def _same_error(mine, theirs):
    """Both raise; minigrad's exception is an instance of torch's type, with its first line."""
    with pytest.raises(Exception) as expected:
        theirs()
    with pytest.raises(type(expected.value)) as got:
        mine()
    assert _first_line(got.value) == _first_line(expected.value)


ERRORS = {
    "mm shapes": (lambda m: m.mm(m.ones((2, 3)), m.ones((2, 3)))),
    "mm vector": (lambda m: m.mm(m.ones(3), m.ones((3, 3)))),
    "mm dtypes": (lambda m: m.mm(m.ones((2, 3)), m.ones((3, 3), dtype=m.float64))),
    "bmm ndim": (lambda m: m.bmm(m.ones((2, 3)), m.ones((2, 3, 3)))),
    "bmm batch": (lambda m: m.bmm(m.ones((2, 2, 3)), m.ones((3, 3, 3)))),
    "mv sizes": (lambda m: m.mv(m.ones((2, 3)), m.ones(2))),
    "dot ndim": (lambda m: m.dot(m.ones((2, 2)), m.ones((2, 2)))),
    "dot sizes": (lambda m: m.dot(m.ones(2), m.ones(3))),
    "cross no 3": (lambda m: m.cross(m.ones((2, 2)), m.ones((2, 2)))),
    "cdist 1d": (lambda m: m.cdist(m.ones(3), m.ones(3))),
    "cdist columns": (lambda m: m.cdist(m.ones((2, 3)), m.ones((2, 4)))),
    "t 3d": (lambda m: m.ones((1, 2, 3)).t()),
    "select range": (lambda m: m.ones(3).select(0, 5)),
    "fmod int zero": (lambda m: m.fmod(m.tensor([5, 4]), m.tensor([0, 1]))),
    "floor_divide int zero": (lambda m: m.tensor([7, -7]) // 0),
    "floor_divide bool": (lambda m: m.tensor([True]) // m.tensor([True])),
    "frac int": (lambda m: m.tensor([3]).frac()),
    "logaddexp int": (lambda m: m.logaddexp(m.tensor([1]), m.tensor([2]))),
    "hypot int": (lambda m: m.hypot(m.tensor([3]), m.tensor([4]))),
    "lerp int": (lambda m: m.lerp(m.tensor([1]), m.tensor([2]), 0.5)),
    "addcdiv int": (lambda m: m.addcdiv(m.tensor([1]), m.tensor([2]), m.tensor([3]))),
    "scatter dtype": (
        lambda m: m.zeros((3, 4)).scatter(0, m.tensor([[0, 1]]), m.ones((1, 2), dtype=m.float64))
    ),
    "scatter_reduce mode": (
        lambda m: m.zeros(3).scatter_reduce(0, m.tensor([0]), m.ones(1), "foo")
    ),
    "index_add shape": (lambda m: m.zeros((3, 4)).index_add(0, m.tensor([0, 0]), m.ones((2, 3)))),
    "masked_select dtype": (lambda m: m.masked_select(m.tensor([1, 2]), m.tensor([1, 0]))),
    "median empty dim": (lambda m: m.median(m.zeros((2, 0)), 1)),
    "kthvalue empty": (lambda m: m.kthvalue(m.zeros((0, 2)), 1, 0)),
    "var_mean int": (lambda m: m.var_mean(m.tensor([1, 2]))),
    "logcumsumexp int": (lambda m: m.logcumsumexp(m.tensor([1, 2]), 0)),
    "bincount negative": (lambda m: m.bincount(m.tensor([-1]))),
    "bincount 2d": (lambda m: m.bincount(m.tensor([[1]]))),
    "bincount float": (lambda m: m.bincount(m.tensor([1.0]))),
    "repeat_interleave 0-d dim": (lambda m: m.tensor(1.0).repeat_interleave(2, 0)),
    "diag_embed same dims": (lambda m: m.diag_embed(m.ones(2), 0, 1, 1)),
    "tensor_split 0-d": (lambda m: m.tensor_split(m.tensor(1.0), 2)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_arguments_raise_pytorchs_error(name):
    make = ERRORS[name]
    _same_error(lambda: make(mg), lambda: make(torch))


def test_allclose_and_equal_give_python_bools():
    x = mg.tensor([1.0, math.nan])
    assert mg.allclose(x, x, equal_nan=True) is True
    assert mg.allclose(x, x) is False
    assert mg.equal(mg.tensor([1, 2]), mg.tensor([1, 2])) is True
    assert x.equal(x) is False  # NaN equals nothing, as in torch.equal


def test_casts_and_new_tensors_keep_dtype_and_device():
    x = mg.tensor([1.7, -1.7, 0.0], dtype=mg.float64)
    assert x.long().tolist() == [1, -1, 0] and x.long().dtype == mg.int64
    assert x.int().dtype == mg.int32 and x.bool().tolist() == [True, True, False]
    assert x.new_zeros(2, 3).dtype == mg.float64 and x.new_zeros((2, 3)).shape == (2, 3)
    assert x.new_ones(2).tolist() == [1.0, 1.0]
    assert x.new_full((2,), 7, dtype=mg.int64).tolist() == [7, 7]
    y = mg.full_like(mg.zeros(2, dtype=mg.int64), 2.5)
    assert y.tolist() == torch.full_like(torch.zeros(2, dtype=torch.int64), 2.5).tolist()


@pytest.mark.parametrize(
    "args", [(0, 1, 5), (-1.0, 1.0, 1), (3, -2, 4), (0, 10, 4), (0.0, 1.0, 0), (2, 2, 3)]
)
@pytest.mark.parametrize("dtype", [None, "float64", "int64"])
def test_linspace_and_logspace_match_torch(args, dtype):
    mine_dtype = None if dtype is None else getattr(mg, dtype)
    theirs_dtype = None if dtype is None else getattr(torch, dtype)
    mine = mg.linspace(*args, dtype=mine_dtype)
    theirs = torch.linspace(*args, dtype=theirs_dtype)
    assert mine.dtype == np.dtype(str(theirs.dtype).removeprefix("torch."))
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-6)
    mine, theirs = mg.logspace(*args, base=2.0), torch.logspace(*args, base=2.0)
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-6)


def test_floor_divide_is_pythons_rule_for_floats():
    xs = [1.0, -1.0, 7.5, -7.5, 0.0, -0.0, 5.0, math.inf]
    ys = [0.1, 0.1, 2.0, 2.0, 3.0, 3.0, -0.0, 2.0]
    mine = (mg.tensor(xs, dtype=mg.float64) // mg.tensor(ys, dtype=mg.float64)).numpy()
    theirs = torch.tensor(xs, dtype=torch.float64) // torch.tensor(ys, dtype=torch.float64)
    np.testing.assert_array_equal(mine, theirs.numpy())
    assert np.array_equal(np.signbit(mine), np.signbit(theirs.numpy()))


def test_data_dependent_shapes_refuse_jit_and_vmap():
    x = mg.tensor([0.0, 1.0, 2.0])
    with pytest.raises(mg.TracerError):
        mg.jit(mg.nonzero)(x)
    with pytest.raises(RuntimeError, match="vmap"):
        mg.vmap(lambda t: mg.unique(t))(mg.ones((2, 3)))


def test_searchsorted_works_under_jit_and_vmap():
    boundaries = mg.tensor([1.0, 3.0, 5.0])
    values = mg.tensor([[0.0, 3.0], [6.0, 4.0]])
    want = mg.searchsorted(boundaries, values)
    assert mg.jit(lambda v: mg.searchsorted(boundaries, v))(values).tolist() == want.tolist()
    got = mg.vmap(lambda v: mg.searchsorted(boundaries, v))(values)
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_prod_gradients_match_finite_differences(include_self):
    # (torch.func.jvp of this operation answers 0, so the database checks it by value and
    # reverse mode only.) One zero factor in a place, as well as none.
    x = mg.tensor([1.5, -2.0, 0.5, 3.0], dtype=mg.float64)
    src = mg.tensor([0.5, -1.25, 2.0, 0.0, 4.0], dtype=mg.float64)
    index = mg.tensor([0, 0, 2, 3, 3])

    def f(a, s):
        return a.scatter_reduce(0, index, s, "prod", include_self=include_self)

    assert mg.gradcheck(f, (x, src))
    assert mg.check_jvp(f, (x, src))
    assert mg.gradgradcheck(f, (x, src))
