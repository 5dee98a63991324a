"""PyTorch's answers for index_copy, index_reduce, put, masked_scatter and the *_scatter
family (ops/placing.py): each result (values, dtype) or error (type, first line) is torch's,
and the gradients of a few float64 cases are torch's."""

import numpy as np
import pytest
import torch

import minigrad as mg


def outcome(call):
    """``("ok", dtype, values)`` or ``(exception type, first line)``."""
    try:
        r = call()
    except Exception as error:  # a ShapeError is a RuntimeError and a ValueError
        kind = "RuntimeError" if isinstance(error, RuntimeError) else type(error).__name__
        return kind, str(error).splitlines()[0]
    if isinstance(r, tuple):
        return "ok", [(str(x.dtype).split(".")[-1], x.tolist()) for x in r]
    return "ok", str(r.dtype).split(".")[-1], r.tolist()


def _x(m):
    return m.arange(6.0).reshape(2, 3)


def _i(m, *values, dtype=None):
    return m.tensor(list(values), dtype=dtype or m.int64)


CASES = {
    # index_copy
    "ic": lambda m: m.index_copy(_x(m), 1, _i(m, 0, 2), m.ones((2, 2))),
    "ic repeated": lambda m: m.index_copy(_x(m), 1, _i(m, 1, 1), m.tensor([[1.0, 2], [3, 4]])),
    "ic method": lambda m: _x(m).index_copy(0, _i(m, 1), m.zeros((1, 3))),
    "ic negative": lambda m: m.index_copy(_x(m), 1, _i(m, -1), m.ones((2, 1))),
    "ic past end": lambda m: m.index_copy(_x(m), 1, _i(m, 3, 0), m.ones((2, 2))),
    "ic int32": lambda m: m.index_copy(_x(m), 1, _i(m, 0, dtype=m.int32), m.ones((2, 1))),
    "ic matrix index": lambda m: m.index_copy(_x(m), 1, m.tensor([[0]]), m.ones((2, 1))),
    "ic 0-d index": lambda m: m.index_copy(_x(m), 1, m.tensor(1), m.ones((2, 1))),
    "ic count": lambda m: m.index_copy(_x(m), 1, _i(m, 0, 1), m.ones((2, 3))),
    "ic slices": lambda m: m.index_copy(m.zeros((2, 3, 4)), 1, _i(m, 0), m.ones((3, 1, 5))),
    "ic ranks": lambda m: m.index_copy(_x(m), 1, _i(m, 0), m.ones(2)),
    "ic dtypes": lambda m: m.index_copy(_x(m), 1, _i(m, 0), m.ones((2, 1), dtype=m.float64)),
    "ic 0-d source": lambda m: m.index_copy(m.ones(3), 0, _i(m, 2), m.tensor(7.0)),
    "ic 0-d source, two": lambda m: m.index_copy(_x(m), 1, _i(m, 0, 1), m.tensor(1.0)),
    "ic 0-d input": lambda m: m.index_copy(m.tensor(1.0), 0, _i(m, 0), m.tensor([5.0])),
    "ic 0-d past end": lambda m: m.index_copy(m.tensor(1.0), 0, _i(m, 1), m.tensor(5.0)),
    "ic bools": lambda m: m.index_copy(_x(m) > 2, 1, _i(m, 0), m.ones((2, 1)) > 0),
    "ic empty": lambda m: m.index_copy(_x(m), 1, _i(m), m.ones((2, 0))),
    "ic list": lambda m: m.index_copy(_x(m), 1, [0], m.ones((2, 1))),
    "ic dim": lambda m: m.index_copy(_x(m), 2, _i(m, 0), m.ones((2, 1))),
    # index_reduce
    "ir prod": lambda m: m.index_reduce(
        _x(m), 1, _i(m, 0, 0), m.tensor([[2.0, 3], [4, 5]]), "prod"
    ),
    "ir mean ints": lambda m: m.index_reduce(
        m.tensor([[1, 2, 3]]), 1, _i(m, 0, 0), m.tensor([[-2, -4]]), "mean"
    ),
    "ir mean alone": lambda m: _x(m).index_reduce(
        1, _i(m, 0, 0), m.tensor([[2.0, 3], [4, 5]]), "mean", include_self=False
    ),
    "ir amin int32": lambda m: m.index_reduce(
        _x(m), 0, _i(m, 1, dtype=m.int32), m.tensor([[9.0, -1, 4]]), "amin"
    ),
    "ir sum": lambda m: m.index_reduce(_x(m), 1, _i(m, 0), m.ones((2, 1)), "sum"),
    "ir matrix index": lambda m: m.index_reduce(_x(m), 1, m.tensor([[0]]), m.ones((2, 1)), "amax"),
    "ir float index": lambda m: m.index_reduce(_x(m), 1, m.tensor([0.0]), m.ones((2, 1)), "amax"),
    "ir count": lambda m: m.index_reduce(_x(m), 1, _i(m, 0, 1), m.ones((2, 3)), "amax"),
    "ir slices": lambda m: m.index_reduce(_x(m), 1, _i(m, 0, 1), m.ones((3, 2)), "amax"),
    "ir dtypes": lambda m: m.index_reduce(
        _x(m), 1, _i(m, 0), m.ones((2, 1), dtype=m.float64), "amax"
    ),
    "ir past end": lambda m: m.index_reduce(_x(m), 1, _i(m, 3), m.ones((2, 1)), "amax"),
    "ir negative": lambda m: m.index_reduce(_x(m), 1, _i(m, -1), m.ones((2, 1)), "amax"),
    "ir dim of source": lambda m: m.index_reduce(
        m.ones((3, 3)), 1, _i(m, 1), m.tensor([5.0]), "prod"
    ),
    "ir 0-d source": lambda m: m.index_reduce(m.ones(3), 0, _i(m, 1), m.tensor(5.0), "amax"),
    "ir bools": lambda m: m.index_reduce(_x(m) > 2, 1, _i(m, 0, 2), m.ones((2, 2)) > 0, "amax"),
    "ir bool rows": lambda m: m.index_reduce(
        _x(m) > 2, 0, _i(m, 0, 0), m.tensor([[1, 0, 1], [1, 1, 0]]) > 0, "prod"
    ),
    "ir bool vector": lambda m: m.index_reduce(_x(m)[0] > 0, 0, _i(m, 0), _i(m, 1) > 0, "amax"),
    "ir bool alone": lambda m: m.index_reduce(
        _x(m) > 2, 1, _i(m, 0), m.ones((2, 1)) > 0, "amin", include_self=False
    ),
    "ir bool mean": lambda m: m.index_reduce(_x(m) > 2, 1, _i(m, 0), m.ones((2, 1)) > 0, "mean"),
    # put
    "put": lambda m: m.put(_x(m), _i(m, 0, -1), m.tensor([9.0, 8])),
    "put repeated": lambda m: m.put(_x(m), _i(m, 0, 0), m.tensor([9.0, 8])),
    "put accumulate": lambda m: _x(m).put(_i(m, -1, -1), m.tensor([9.0, 8]), accumulate=True),
    "put ints": lambda m: m.put(_x(m).long(), _i(m, 0, 0), m.tensor([2, 3]), accumulate=True),
    "put bools": lambda m: m.put(_x(m) > 2, _i(m, 0, 0), m.tensor([True, True]), True),
    "put past end": lambda m: m.put(_x(m), _i(m, 6), m.tensor([9.0])),
    "put before start": lambda m: m.put(_x(m), _i(m, -7), m.tensor([9.0])),
    "put counts": lambda m: m.put(_x(m), _i(m, 0, 1), m.tensor([9.0])),
    "put dtypes": lambda m: m.put(_x(m), _i(m, 0), m.tensor([9.0], dtype=m.float64)),
    "put int32": lambda m: m.put(_x(m), _i(m, 0, dtype=m.int32), m.tensor([9.0])),
    "put into empty": lambda m: m.put(m.ones(0), _i(m, 0), m.tensor([9.0])),
    "put nothing": lambda m: m.put(m.ones(0), _i(m), m.ones(0)),
    "put matrix source": lambda m: m.put(_x(m), _i(m, 0, 1), m.tensor([[9.0], [8]])),
    "put 0-d": lambda m: m.put(m.tensor(1.0), m.tensor(0), m.tensor(3.0)),
    "put list": lambda m: m.put(_x(m), [0], m.tensor([3.0])),
    # masked_scatter
    "ms": lambda m: m.masked_scatter(_x(m), _x(m) > 2, m.arange(10.0)),
    "ms broadcast": lambda m: m.masked_scatter(
        m.zeros(3), m.tensor([[True, False, True], [False, False, True]]), m.arange(10.0)
    ),
    "ms method": lambda m: _x(m).masked_scatter(_x(m) > 4, m.tensor(3.0)),
    "ms short": lambda m: m.masked_scatter(_x(m), _x(m) > 2, m.arange(2.0)),
    "ms float mask": lambda m: m.masked_scatter(_x(m), (_x(m) > 2).float(), m.arange(10.0)),
    "ms dtypes first": lambda m: m.masked_scatter(_x(m), (_x(m) > 2).float(), m.arange(10)),
    "ms shapes first": lambda m: m.masked_scatter(_x(m), m.ones((3, 3)), m.arange(10)),
    "ms empty": lambda m: m.masked_scatter(m.ones((0, 3)), m.ones((0, 3)) > 0, m.ones(0)),
    "ms matrix source": lambda m: m.masked_scatter(_x(m), _x(m) > 2, m.arange(10.0).reshape(2, 5)),
    "ms number": lambda m: m.masked_scatter(_x(m), _x(m) > 2, 3.0),
    # in place
    "ms_ rank": lambda m: m.zeros(3).masked_scatter_(m.ones((2, 3)) > 0, m.arange(10.0)),
    "ms_ sizes": lambda m: m.zeros((3, 3)).masked_scatter_(m.ones((2, 3)) > 0, m.arange(20.0)),
    "ms_ broadcast": lambda m: m.zeros((2, 3)).masked_scatter_(
        m.tensor([True, False, True]), m.arange(10.0)
    ),
    "ic_": lambda m: _x(m).index_copy_(1, _i(m, 2), m.zeros((2, 1))),
    "ir_": lambda m: _x(m).index_reduce_(1, _i(m, 2, 2), m.ones((2, 2)), "mean"),
    "put_": lambda m: _x(m).put_(_i(m, 2, 2), m.ones(2), accumulate=True),
    "put_ ints into floats": lambda m: _x(m).put_(_i(m, 2), _i(m, 1)),
    # the *_scatter family
    "ds": lambda m: m.diagonal_scatter(_x(m), m.tensor([9.0, 8]), 1),
    "ds ints into floats": lambda m: m.diagonal_scatter(_x(m), m.tensor([9, 8]), 1),
    "ds floats into ints": lambda m: m.diagonal_scatter(_x(m).long(), m.tensor([9.5, 8]), 1),
    "ds size": lambda m: m.diagonal_scatter(_x(m), m.tensor([9.0, 8, 7]), 1),
    "ds one value": lambda m: m.diagonal_scatter(_x(m), m.tensor([9.0]), 1),
    "ds same dims": lambda m: m.diagonal_scatter(_x(m), m.tensor([9.0]), 1, 0, 0),
    "ds 1-d": lambda m: m.diagonal_scatter(m.ones(3), m.tensor([9.0]), 0),
    "ds method": lambda m: m.zeros((2, 2, 2)).diagonal_scatter(m.ones((2, 1)), -1, 2, 0),
    "ss": lambda m: m.select_scatter(_x(m), m.tensor([9.0, 8, 7]), 0, -1),
    "ss past end": lambda m: m.select_scatter(_x(m), m.tensor([9.0, 8, 7]), 0, 2),
    "ss size": lambda m: m.select_scatter(_x(m), m.tensor([9.0, 8]), 0, 1),
    "ss 0-d": lambda m: m.select_scatter(m.tensor(1.0), m.tensor(3.0), 0, 0),
    "ss dim": lambda m: m.select_scatter(_x(m), m.tensor(3.0), 2, 0),
    "ss method": lambda m: _x(m).select_scatter(m.tensor([1, 2]), 1, 1),
    "sl": lambda m: m.slice_scatter(_x(m), m.tensor([[9.0], [8]]), 1, 1, 2),
    "sl step": lambda m: m.slice_scatter(_x(m), m.ones((2, 2)), 1, None, None, 2),
    "sl step 0": lambda m: m.slice_scatter(_x(m), m.ones((2, 2)), 1, None, None, 0),
    "sl negative": lambda m: m.slice_scatter(_x(m), m.ones((2, 2)), 1, -2),
    "sl clamped": lambda m: m.slice_scatter(_x(m), m.ones((2, 3)), 1, -20, 100),
    "sl size": lambda m: m.slice_scatter(_x(m), m.ones((2, 1)), 1, -2),
    "sl empty": lambda m: m.slice_scatter(_x(m), m.ones((2, 0)), 1, 2, 1),
    "sl 0-d": lambda m: m.slice_scatter(m.tensor(1.0), m.tensor(2.0)),
    "sl method": lambda m: _x(m).slice_scatter(m.zeros((1, 3)), start=1),
    "as": lambda m: m.as_strided_scatter(_x(m), m.tensor([9.0, 8]), (2,), (2,), 1),
    "as 2-d": lambda m: _x(m).as_strided_scatter(m.ones((2, 2)), (2, 2), (1, 3)),
    "as stride 0": lambda m: m.as_strided_scatter(_x(m), m.ones(2), (2,), (0,), 1),
    "as stride 0, one": lambda m: m.as_strided_scatter(_x(m), m.ones((1, 2)), (1, 2), (0, 1)),
    "as past the end": lambda m: m.as_strided_scatter(_x(m), m.ones(2), (2,), (5,), 1),
    "as negative stride": lambda m: m.as_strided_scatter(_x(m), m.ones(2), (2,), (-1,), 3),
    "as src size": lambda m: m.as_strided_scatter(_x(m), m.ones(3), (2,), (1,), 0),
    "as ints into floats": lambda m: m.as_strided_scatter(_x(m), _i(m, 7, 8), (2,), (1,)),
    "as empty": lambda m: m.as_strided_scatter(_x(m), m.ones((0, 2)), (0, 2), (0, 0)),
    "as 0-d": lambda m: m.as_strided_scatter(_x(m), m.tensor(5.0), (), (), 4),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_placing_is_torch(name):
    assert outcome(lambda: CASES[name](mg)) == outcome(lambda: CASES[name](torch))


def test_in_place_forms_return_the_tensor_and_give_gradients():
    x = mg.zeros((2, 3))
    assert x.index_copy_(1, mg.tensor([0]), mg.ones((2, 1))) is x and x.sum().item() == 2
    assert x.put_(mg.tensor([5]), mg.tensor([7.0])) is x and x.tolist()[1][2] == 7.0
    assert x.masked_scatter_(x > 5, mg.tensor([3.0])) is x and x.tolist()[1][2] == 3.0
    assert x.index_reduce_(0, mg.tensor([1]), mg.full((1, 3), 2.0), "amax") is x
    assert x.tolist() == [[1.0, 0.0, 0.0], [2.0, 2.0, 3.0]]


GRADIENTS = {
    "index_copy": lambda m, x, s: m.index_copy(x, 1, m.tensor([2, 2, 0]), s[:, :3]),
    "index_reduce prod": lambda m, x, s: m.index_reduce(
        x, 1, m.tensor([2, 2, 0]), s[:, :3], "prod"
    ),
    "index_reduce amin": lambda m, x, s: m.index_reduce(
        x, 0, m.tensor([1]), s[:1, :3], "amin", include_self=False
    ),
    "index_reduce mean": lambda m, x, s: m.index_reduce(
        x, 1, m.tensor([1, 1, 0]), s[:, 1:], "mean"
    ),
    "index_reduce amax": lambda m, x, s: m.index_reduce(
        x, 1, m.tensor([0, 2, 0]), s[:, :3], "amax"
    ),
    "put": lambda m, x, s: m.put(x, m.tensor([5, -1, 0]), s[0, :3]),
    "put accumulate": lambda m, x, s: m.put(x, m.tensor([5, -1, 0]), s[0, :3], True),
    "masked_scatter": lambda m, x, s: m.masked_scatter(x, x > 0.5, s),
    "diagonal_scatter": lambda m, x, s: m.diagonal_scatter(x, s[0, :2], 1),
    "select_scatter": lambda m, x, s: m.select_scatter(x, s[1, 1:], 0, 0),
    "slice_scatter": lambda m, x, s: m.slice_scatter(x, s[:, :2], 1, 0, None, 2),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients_are_torch(name):
    rng = np.random.default_rng(len(name))
    x0, s0, w = rng.random((2, 3)), rng.random((2, 4)), rng.random((2, 3))
    grads = []
    for m in (mg, torch):
        x = m.tensor(x0, requires_grad=True)
        s = m.tensor(s0, requires_grad=True)
        (GRADIENTS[name](m, x, s) * m.tensor(w)).sum().backward()
        grads.append((np.asarray(x.grad.tolist()), np.asarray(s.grad.tolist())))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12, atol=1e-12)


def test_as_strided_scatter_gives_input_the_derivative_where_torch_swaps_it():
    """torch 2.13's backward gives input the gradient at the places written and 0 at the
    others (its own gradcheck fails there): minigrad gives the derivative."""
    x = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64, requires_grad=True)
    s = mg.tensor([5.0, 6.0], dtype=mg.float64, requires_grad=True)
    mg.as_strided_scatter(x, s, (2,), (1,), 1).backward(mg.tensor([1.0, 10.0, 100.0]))
    assert x.grad.tolist() == [1.0, 0.0, 0.0] and s.grad.tolist() == [10.0, 100.0]
    assert mg.gradcheck(lambda x, s: mg.as_strided_scatter(x, s, (2,), (1,), 1), (x, s))
