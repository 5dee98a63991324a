"""PyTorch's answers to issue 22's small leftovers: ``concat``, ``sort``/``argsort`` with
``stable=`` beside a positional ``dim``, ``broadcast_tensors`` and ``meshgrid`` of things
that are not tensors, and ``einsum``'s and ``meshgrid``'s refusals. Each result or error
(type, first line) is torch's."""

import pytest
import torch

import minigrad as mg


def outcome(call):
    """``("ok", values)`` or ``(exception type, first line)``."""
    try:
        r = call()
    except Exception as error:  # a ShapeError is a RuntimeError and a ValueError
        kind = "RuntimeError" if isinstance(error, RuntimeError) else type(error).__name__
        return kind, str(error).splitlines()[0]
    if isinstance(r, tuple):
        return "ok", [x.tolist() for x in r]
    return "ok", r.tolist()


def same(case):
    """``case(m)`` with ``m`` minigrad, then torch: the same outcome."""
    assert outcome(lambda: case(mg)) == outcome(lambda: case(torch))


def _x(m):
    return m.tensor([3.0, 1.0, 2.0, 1.0])


CONCAT = {
    "rows": lambda m: m.concat([m.ones((1, 2)), m.zeros((2, 2))]),
    "dim": lambda m: m.concat((m.ones((2, 1)), m.zeros((2, 2))), dim=1),
    "negative dim": lambda m: m.concat([m.ones((2, 1)), m.zeros((2, 3))], -1),
    "one tensor": lambda m: m.concat(m.ones(2)),
    "none": lambda m: m.concat([]),
    "ranks": lambda m: m.concat([m.ones(2), m.ones((2, 2))]),
}


@pytest.mark.parametrize("name", sorted(CONCAT))
def test_concat_is_torch_concat(name):
    same(CONCAT[name])


SORTS = {
    "sort dim descending stable": lambda m: m.sort(_x(m), 0, True, stable=True),
    "sort dim stable": lambda m: m.sort(_x(m), 0, stable=True),
    "sort dim stable None": lambda m: m.sort(_x(m), 0, stable=None),
    "sort dim, keywords reversed": lambda m: m.sort(_x(m), 0, stable=True, descending=True),
    "sort keywords": lambda m: m.sort(_x(m), dim=0, descending=True, stable=True).indices,
    "sort positional": lambda m: m.sort(_x(m), 0, True).indices,
    "sort stable only": lambda m: m.sort(_x(m), stable=True).indices,
    "method sort dim stable": lambda m: _x(m).sort(0, stable=True),
    "method sort positional": lambda m: _x(m).sort(0, True).indices,
    "argsort dim stable": lambda m: m.argsort(_x(m), 0, stable=True),
    "argsort dim descending stable": lambda m: m.argsort(_x(m), 0, True, stable=True),
    "method argsort dim stable": lambda m: _x(m).argsort(0, stable=True),
    "method argsort dim descending stable": lambda m: _x(m).argsort(0, True, stable=True),
    "argsort keywords": lambda m: m.argsort(_x(m), dim=0, descending=True, stable=True),
}


@pytest.mark.parametrize("name", sorted(SORTS))
def test_stable_takes_dim_and_descending_by_keyword_only(name):
    same(SORTS[name])


LISTS = {
    "broadcast a list": lambda m: m.broadcast_tensors([m.ones(2), m.ones(2)]),
    "broadcast a tuple": lambda m: m.broadcast_tensors((m.ones(2), m.ones(2))),
    "broadcast a number": lambda m: m.broadcast_tensors(m.ones(2), 1.0),
    "broadcast nothing": lambda m: m.broadcast_tensors(),
    "broadcast sizes": lambda m: m.broadcast_tensors(m.ones(2), m.ones(3)),
    "meshgrid a list and a tensor": lambda m: m.meshgrid([m.ones(2), m.ones(2)], m.ones(2)),
    "meshgrid a number": lambda m: m.meshgrid(m.ones(2), 1.0, indexing="ij"),
    "meshgrid a tuple": lambda m: m.meshgrid((m.ones(2), m.ones(3)), indexing="ij"),
    "meshgrid nothing": lambda m: m.meshgrid([], indexing="ij"),
    "meshgrid nothing, bad indexing": lambda m: m.meshgrid(indexing="ab"),
    "meshgrid indexing int": lambda m: m.meshgrid(m.ones(2), indexing=3),
    "meshgrid dtypes": lambda m: m.meshgrid(m.ones(2), m.ones(2, dtype=m.int64), indexing="ij"),
    "meshgrid dtypes before indexing": lambda m: m.meshgrid(
        m.ones(2), m.ones(2, dtype=m.int64), indexing="ab"
    ),
    "meshgrid indexing before rank": lambda m: m.meshgrid(m.ones((2, 3)), indexing="ab"),
}


@pytest.mark.parametrize("name", sorted(LISTS))
def test_lists_of_tensors_are_torch_lists(name):
    same(LISTS[name])


EINSUM = {
    "one tensor alone": lambda m: m.einsum(m.ones((2, 3))),
    "equation alone": lambda m: m.einsum("ij"),
    "empty list": lambda m: m.einsum("ij", []),
    "equation an int": lambda m: m.einsum(3, m.ones(2)),
    "second arrow": lambda m: m.einsum("i->i->i", m.ones(2)),
    "bad output subscript after spaces": lambda m: m.einsum("i j -> i-", m.ones((2, 3))),
    "bad output subscript": lambda m: m.einsum("i , i->i-", m.ones(2), m.ones(2)),
    "too few operands": lambda m: m.einsum("ij,jk->ik", m.ones((2, 3))),
    "too many operands": lambda m: m.einsum("ij->ij", m.ones((2, 3)), m.ones((2, 3))),
    "sizes": lambda m: m.einsum("ij,jk->ik", m.ones((2, 3)), m.ones((4, 5))),
    "rank": lambda m: m.einsum("i->i", m.ones((2, 3))),
    "repeated in output": lambda m: m.einsum("ij->ii", m.ones((2, 3))),
    "sublists": lambda m: m.einsum(m.ones((2, 3)), [0, 1], [1]),
}


@pytest.mark.parametrize("name", sorted(EINSUM))
def test_einsum_refuses_as_torch(name):
    same(EINSUM[name])


def _m(m):
    return m.tensor([[1.0, 2.0], [3.0, 4.0]])


COUNTERPARTS = {
    "msort 0-d": lambda m: m.msort(m.tensor(3.0)),
    "msort bool": lambda m: m.msort(m.tensor([True, False])),
    "msort a list": lambda m: m.msort([1, 2]),
    "diagflat 0-d": lambda m: m.diagflat(m.tensor(3.0)),
    "diagflat matrix below": lambda m: m.diagflat(m.tensor([[1, 2], [3, 4]]), -1),
    "diagflat empty": lambda m: m.diagflat(m.ones((0, 2))),
    "vdot dtypes": lambda m: m.vdot(m.tensor([1.0, 2]), m.tensor([1.0, 2], dtype=m.float64)),
    "vdot matrix": lambda m: m.vdot(_m(m), m.tensor([1.0, 2])),
    "vdot lengths": lambda m: m.vdot(m.tensor([1.0, 2]), m.tensor([1.0, 2, 3])),
    "vdot ints": lambda m: m.vdot(m.tensor([1, 2]), m.tensor([3, 4])),
    "vdot bool": lambda m: m.vdot(m.tensor([True]), m.tensor([True])),
    "vdot a number": lambda m: m.vdot(m.tensor([1.0, 2]), 2.0),
    "method vdot a number": lambda m: m.tensor([1.0, 2]).vdot(2.0),
    "vdot empty": lambda m: m.vdot(m.ones(0), m.ones(0)),
    "take both ends": lambda m: m.take(_m(m), m.tensor([[0, -4], [3, -1]])),
    "take past the end": lambda m: m.take(_m(m), m.tensor([1, 4])),
    "take before the start": lambda m: m.take(_m(m), m.tensor([-5])),
    "take float index": lambda m: m.take(_m(m), m.tensor([1.0])),
    "take int32 index": lambda m: m.take(_m(m), m.tensor([1], dtype=m.int32)),
    "take a list": lambda m: m.take(_m(m), [1]),
    "method take a list": lambda m: _m(m).take([1]),
    "take from empty": lambda m: m.take(m.tensor([]), m.tensor([0])),
    "take nothing from empty": lambda m: m.take(m.tensor([]), m.tensor([], dtype=m.int64)),
    "take 0-d": lambda m: m.take(m.tensor(5.0), m.tensor(0)),
}


@pytest.mark.parametrize("name", sorted(COUNTERPARTS))
def test_counterparts_are_torch(name):
    same(COUNTERPARTS[name])


def test_take_reads_where_it_is_traced_and_batched():
    index = mg.tensor([3, -1, 0])
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    mg.take(x, index).sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0], [0.0, 2.0]]
    batch = mg.arange(8.0).reshape(2, 2, 2)
    assert mg.vmap(lambda r: mg.take(r, index))(batch).tolist() == [[3, 3, 0], [7, 7, 4]]
    assert mg.jit(lambda a: mg.take(a, index))(batch[1]).tolist() == [7, 7, 4]


def _vectors(m, n, dtype=None):
    return m.arange(1, n + 1, dtype=dtype or m.float32)


PRODUCTS = {
    "aminmax all": lambda m: m.aminmax(_m(m)),
    "aminmax dim keepdim": lambda m: m.aminmax(_m(m), dim=-2, keepdim=True),
    "aminmax empty": lambda m: m.aminmax(m.ones(0)),
    "aminmax empty dim": lambda m: m.aminmax(m.ones((0, 2)), dim=-2),
    "aminmax empty other dim": lambda m: m.aminmax(m.ones((0, 2)), dim=1),
    "aminmax 0-d dim": lambda m: m.aminmax(m.tensor(2.0), dim=-1, keepdim=True),
    "aminmax dim out of range": lambda m: m.aminmax(m.tensor(2.0), dim=1),
    "aminmax positional dim": lambda m: m.aminmax(_m(m), 0),
    "method aminmax bool": lambda m: m.tensor([True, False]).aminmax(),
    "addmv": lambda m: m.addmv(_vectors(m, 2), _m(m), _vectors(m, 2), beta=0.5, alpha=2),
    "addmv beta 0 drops nan": lambda m: m.addmv(
        m.tensor([float("nan"), 1.0]), _m(m), _vectors(m, 2), beta=0
    ),
    "addmv matrix input": lambda m: m.addmv(_m(m), _m(m), _vectors(m, 2)),
    "addmv input size": lambda m: m.addmv(_vectors(m, 3), m.ones((2, 3)), _vectors(m, 3)),
    "addmv vec size": lambda m: m.addmv(_vectors(m, 2), m.ones((2, 3)), _vectors(m, 2)),
    "addmv dtypes": lambda m: m.addmv(_vectors(m, 2, m.float64), _m(m), _vectors(m, 2)),
    "addmv ints, float alpha": lambda m: m.addmv(
        m.ones(2, dtype=m.int64), m.ones((2, 3), dtype=m.int64), _vectors(m, 3, m.int64), alpha=1.5
    ),
    "addmv empty mat keeps input's shape": lambda m: m.addmv(
        m.tensor([2.0]), m.ones((2, 0)), m.ones(0), beta=3
    ),
    "addmv empty mat, beta 0": lambda m: m.addmv(
        m.tensor([2.0]), m.ones((2, 0)), m.ones(0), beta=0
    ),
    "method addmv a list": lambda m: m.ones(2).addmv(m.ones((2, 3)), [1, 2, 3]),
    "addr": lambda m: m.addr(m.ones(3), _vectors(m, 2), _vectors(m, 3), beta=2, alpha=0.5),
    "addr promotes": lambda m: m.addr(m.ones((2, 3), dtype=m.float64), m.ones(2), m.ones(3)),
    "addr vec rank": lambda m: m.addr(m.ones((2, 3)), m.ones((2, 1)), m.ones(3)),
    "addr input shape": lambda m: m.addr(m.ones((3, 3)), m.ones(2), m.ones(3)),
    "addr input rank": lambda m: m.addr(m.ones((2, 3, 1)), m.ones(2), m.ones(3)),
    "addr ints, float beta": lambda m: m.addr(
        m.ones((2, 3), dtype=m.int64), _vectors(m, 2, m.int64), _vectors(m, 3, m.int64), beta=1.5
    ),
    "addr ints, float alpha": lambda m: m.addr(
        m.ones((2, 3), dtype=m.int64), _vectors(m, 2, m.int64), _vectors(m, 3, m.int64), alpha=1.5
    ),
    "addr bool": lambda m: m.addr(
        m.tensor([[True], [False]]), m.tensor([False, True]), m.tensor([True, False, True]), beta=2
    ),
    "addr bool, alpha False": lambda m: m.addr(
        m.tensor([[True], [False]]), m.tensor([True, True]), m.tensor([True, False]), alpha=False
    ),
    "method addr a number": lambda m: m.ones((2, 3)).addr(m.ones(2), 1.0),
}


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_aminmax_addmv_and_addr_are_torch(name):
    same(PRODUCTS[name])


def _six(m):
    return m.arange(6.0).reshape(2, 3)


SUM_TO_SIZE = {
    "rows": lambda m: _six(m).sum_to_size(1, 3),
    "drop a leading axis": lambda m: _six(m).sum_to_size((3,)),
    "columns": lambda m: _six(m).sum_to_size([2, 1]),
    "not expandable": lambda m: _six(m).sum_to_size(3, 3),
    "more axes": lambda m: _six(m).sum_to_size(1, 1, 3),
    "no size": lambda m: _six(m).sum_to_size(),
    "negative": lambda m: _six(m).sum_to_size(-1, 3),
    "float size": lambda m: _six(m).sum_to_size(1.0, 3),
    "to 0-d": lambda m: _six(m).sum_to_size(()),
    "0-d bool to 0-d": lambda m: m.tensor(True).sum_to_size(()),
    "ints": lambda m: m.tensor([1, 2]).sum_to_size(1),
    "bools": lambda m: m.tensor([True, True]).sum_to_size(1),
    "bools, same size": lambda m: m.tensor([True, False]).sum_to_size(2),
    "empty": lambda m: m.ones((0, 3)).sum_to_size(1, 3),
}


@pytest.mark.parametrize("name", sorted(SUM_TO_SIZE))
def test_sum_to_size_is_torch(name):
    same(SUM_TO_SIZE[name])


def test_sum_to_size_of_its_own_shape_is_the_tensor_itself():
    x = mg.ones((2, 3))
    assert x.sum_to_size(2, 3) is x


INDEX_FILL = {
    "columns": lambda m: m.index_fill(_six(m), 1, m.tensor([0, 2]), -1.0),
    "negative": lambda m: m.index_fill(_six(m), -1, m.tensor([0, -1]), -1.0),
    "past the end": lambda m: m.index_fill(_six(m), 1, m.tensor([3]), -1.0),
    "before the start": lambda m: m.index_fill(_six(m), 1, m.tensor([-4]), -1.0),
    "int32 index": lambda m: m.index_fill(_six(m), 1, m.tensor([0], dtype=m.int32), -1.0),
    "float index": lambda m: m.index_fill(_six(m), 1, m.tensor([0.0]), -1.0),
    "matrix index": lambda m: m.index_fill(_six(m), 1, m.tensor([[0]]), -1.0),
    "0-d index": lambda m: m.index_fill(_six(m), 1, m.tensor(0), -1.0),
    "0-d float64 value": lambda m: m.index_fill(
        _six(m), 1, m.tensor([0]), m.tensor(5.0, dtype=m.float64)
    ),
    "1-d value": lambda m: m.index_fill(_six(m), 1, m.tensor([0]), m.tensor([5.0])),
    "ints, float value": lambda m: m.index_fill(_six(m).long(), 1, m.tensor([0]), 2.7),
    "ints, 0-d float value": lambda m: m.index_fill(
        _six(m).long(), 1, m.tensor([0]), m.tensor(-2.7)
    ),
    "bools": lambda m: m.index_fill(_six(m) > 2, 1, m.tensor([0]), 2),
    "dim out of range": lambda m: m.index_fill(_six(m), 2, m.tensor([0]), 1.0),
    "0-d input": lambda m: m.index_fill(m.tensor(1.0), 0, m.tensor([0]), 5.0),
    "0-d input, past the end": lambda m: m.index_fill(m.tensor(1.0), 0, m.tensor([1]), 5.0),
    "index a list": lambda m: m.index_fill(_six(m), 1, [0], 5.0),
    "no positions": lambda m: m.index_fill(_six(m), 1, m.tensor([], dtype=m.int64), 5.0),
    "repeated, method": lambda m: _six(m).index_fill(0, m.tensor([1, 1]), 7),
    "in place": lambda m: _six(m).index_fill_(1, m.tensor([1, -1]), float("inf")),
}


@pytest.mark.parametrize("name", sorted(INDEX_FILL))
def test_index_fill_is_torch(name):
    same(INDEX_FILL[name])


def test_index_fill_in_place_is_the_same_tensor_and_a_0d_value_gets_a_gradient():
    x = mg.arange(6.0).reshape(2, 3)
    assert x.index_fill_(0, mg.tensor([0]), 1.0) is x and x.tolist()[0] == [1.0, 1.0, 1.0]
    value = mg.tensor(2.0, requires_grad=True)
    mg.index_fill(x, 1, mg.tensor([0, 2]), value).sum().backward()
    assert value.grad.item() == 4.0  # two positions in each of two rows
