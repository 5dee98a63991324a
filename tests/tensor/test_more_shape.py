"""Shape and indexing operators beyond the correctness database (issue 12, lesson 05).

The database (``tests/opdb/shape.py``) compares values and derivatives with
PyTorch on random inputs. Here: what a table of random cases does not show:
the named pairs ``sort`` and ``topk`` return, error texts (PyTorch's first
line), ``flatten``'s ranges, ``repeat`` against ``tile``, gradients that add
up where an index repeats, and how few rows the operators cost the registry.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.tensor import REGISTRY, apply
from minigrad.tensor.ops.indexing import GATHER, SCATTER_ADD_ALONG


def first_line(error: BaseException) -> str:
    return str(error).splitlines()[0]


def torch_error(fn) -> BaseException:
    with pytest.raises(Exception) as info:
        fn()
    return info.value


# -- named pairs -------------------------------------------------------------------------
def test_sort_and_topk_return_named_pairs():
    x = mg.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    result = mg.sort(x, dim=1)
    values, indices = result
    assert values is result.values and indices is result.indices
    assert values.tolist() == [[1.0, 2.0, 3.0], [0.0, 4.0, 5.0]]
    assert indices.tolist() == [[1, 2, 0], [0, 2, 1]] and indices.dtype == mg.int64
    assert repr(result).startswith("sort(values=tensor(")
    top = x.topk(2)
    assert repr(top).startswith("topk(values=tensor(")
    assert top.values.tolist() == [[3.0, 2.0], [5.0, 4.0]]
    assert top.indices.tolist() == [[0, 2], [1, 2]]
    smallest = mg.topk(x, 1, dim=0, largest=False)
    assert smallest.values.tolist() == [[0.0, 1.0, 2.0]]


def test_sort_is_stable_and_puts_nan_where_torch_does():
    data = np.array([2.0, np.nan, 1.0, 2.0, 1.0, np.nan, 0.0])
    for descending in (False, True):
        ours = mg.sort(mg.tensor(data), descending=descending)
        theirs = torch.sort(torch.tensor(data), descending=descending, stable=True)
        np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
        np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
        np.testing.assert_array_equal(
            mg.argsort(mg.tensor(data), descending=descending).numpy(), theirs.indices.numpy()
        )


def test_sorted_values_send_gradients_back_to_where_they_came_from():
    x = mg.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, _ = mg.sort(x)
    (values * mg.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [100.0, 1.0, 10.0]
    # forward mode: the tangent is sorted the same way
    _, tangent = mg.jvp(
        lambda t: mg.topk(t, 2).values, (x.detach(),), (mg.tensor([1.0, 2.0, 3.0]),)
    )
    assert tangent.tolist() == [1.0, 3.0]


# -- gather and scatter_add ----------------------------------------------------------------
def test_gather_gradient_adds_up_where_an_index_repeats():
    x = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    index = mg.tensor([[0, 0, 0, 2], [1, 1, 2, 2]])
    out = mg.gather(x, 1, index)
    assert out.tolist() == [[1.0, 1.0, 1.0, 3.0], [5.0, 5.0, 6.0, 6.0]]
    out.sum().backward()
    assert x.grad.tolist() == [[3.0, 0.0, 1.0], [0.0, 2.0, 2.0]]


def test_scatter_add_accumulates_duplicates_and_differentiates_both_inputs():
    x = mg.tensor([1.0, 1.0, 1.0, 1.0], requires_grad=True)
    src = mg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    index = mg.tensor([3, 0, 3, 3])
    out = x.scatter_add(0, index, src)
    assert out.tolist() == [3.0, 1.0, 1.0, 9.0]
    (out * mg.tensor([1.0, 10.0, 100.0, 1000.0])).sum().backward()
    assert x.grad.tolist() == [1.0, 10.0, 100.0, 1000.0]
    assert src.grad.tolist() == [1000.0, 1.0, 1000.0, 1000.0]  # a gather of the cotangent


def test_scatter_add_uses_the_leading_part_of_a_larger_src():
    x = np.zeros((2, 3))
    src = np.arange(12.0).reshape(3, 4)
    index = np.array([[2, 0], [1, 1]])
    ours = mg.tensor(x).scatter_add(1, mg.tensor(index), mg.tensor(src))
    theirs = torch.tensor(x).scatter_add(1, torch.tensor(index), torch.tensor(src))
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    # The gradient of src has src's shape, zero outside the part that was read.
    s = mg.tensor(src, requires_grad=True)
    mg.tensor(x).scatter_add(1, mg.tensor(index), s).sum().backward()
    assert s.grad.tolist() == [[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [0.0] * 4]


def test_gather_and_scatter_are_each_others_transpose():
    # <gather(x), u> == <x, scatter_add_along(u)> for every x, u: the adjoint identity.
    rng = np.random.default_rng(0)
    x, u = rng.standard_normal((3, 4)), rng.standard_normal((3, 5))
    index = mg.tensor(rng.integers(0, 4, (3, 5)))
    gathered = mg.gather(mg.tensor(x), 1, index).numpy()
    scattered = apply(SCATTER_ADD_ALONG, (mg.tensor(u), index), dim=1, shape=(3, 4)).numpy()
    assert np.sum(gathered * u) == pytest.approx(np.sum(x * scattered))


def test_gather_keeps_the_index_and_not_the_values():
    x = mg.tensor(np.ones((100, 3)), requires_grad=True)
    index = mg.tensor([[0], [2]])
    out = (x * 2).gather(1, index)
    saved = out.grad_fn.saved
    assert saved[1] is index  # the index, which the rules read
    assert not isinstance(saved[0], mg.Tensor)  # the values only as a description
    assert GATHER.form == SCATTER_ADD_ALONG.form == "multilinear"


def test_take_along_dim_broadcasts_and_counts_negative_positions_from_the_end():
    x = np.arange(6.0).reshape(2, 3)
    index = np.array([[-1, 0]])
    ours = mg.take_along_dim(mg.tensor(x), mg.tensor(index), dim=1)
    theirs = torch.take_along_dim(torch.tensor(x), torch.tensor(index), dim=1)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert ours.tolist() == [[2.0, 0.0], [5.0, 3.0]]


def test_masked_fill_with_a_tensor_value_is_differentiable_in_it():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    value = mg.tensor(7.0, requires_grad=True)
    out = x.masked_fill(mg.tensor([True, False, True]), value)
    assert out.tolist() == [7.0, 2.0, 7.0]
    out.sum().backward()
    assert value.grad.item() == 2.0 and x.grad.tolist() == [0.0, 1.0, 0.0]
    # an integer tensor takes the value in its own dtype, as PyTorch does
    filled = mg.tensor([1, 2]).masked_fill(mg.tensor([True, False]), 1.7)
    assert filled.dtype == mg.int64 and filled.tolist() == [1, 2]


# -- flatten, repeat and tile ----------------------------------------------------------------
@pytest.mark.parametrize(
    "start, end", [(0, -1), (1, -1), (0, 1), (-2, -1), (1, 2), (2, 2), (-3, 0), (0, 0)]
)
def test_flatten_ranges(start, end):
    x = np.arange(24.0).reshape(2, 3, 4)
    ours = mg.tensor(x).flatten(start, end)
    assert ours.shape == tuple(torch.tensor(x).flatten(start, end).shape)
    assert mg.flatten(mg.tensor(5.0)).shape == (1,)


def test_repeat_tiles_whole_copies_unlike_numpy_repeat():
    x = mg.tensor([[1, 2], [3, 4]])
    assert x.repeat(1, 2).tolist() == [[1, 2, 1, 2], [3, 4, 3, 4]]
    assert x.repeat(2, 1, 1).shape == (2, 2, 2)  # an extra count adds a leading axis
    np.testing.assert_array_equal(x.repeat(2, 3).numpy(), np.tile(x.numpy(), (2, 3)))
    # tile pads missing counts with 1s in front; repeat needs one per axis
    assert mg.tile(x, (2,)).tolist() == x.repeat(1, 2).tolist()
    with pytest.raises(RuntimeError, match="can not be smaller than number of dimensions"):
        x.repeat(2)


def test_repeat_gradient_sums_the_copies():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    (x.repeat(3, 2) * mg.arange(12).reshape(3, 4).double()).sum().backward()
    # copy k of element j sits at columns j and j + 2 of every row
    assert x.grad.tolist() == [0 + 2 + 4 + 6 + 8 + 10 + 0.0, 1 + 3 + 5 + 7 + 9 + 11 + 0.0]


def test_roll_of_a_0d_tensor_is_the_tensor():
    x = mg.tensor(5.0, requires_grad=True)
    y = mg.roll(x, 3)
    assert y.shape == () and y.item() == 5.0
    y.backward()
    assert x.grad.item() == 1.0


def test_clone_copies_into_fresh_memory_and_passes_gradients():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x.clone()
    assert not np.shares_memory(y.detach().numpy(), x.detach().numpy())
    (y * y).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_expand_keeps_axes_named_minus_one():
    x = mg.zeros((2, 1))
    assert x.expand(-1, 3).shape == (2, 3)
    assert x.expand((4, 2, 5)).shape == (4, 2, 5)
    assert x.expand(3, -1, -1).shape == (3, 2, 1)


def test_split_chunk_unbind_narrow_stack():
    x = mg.arange(10).reshape(2, 5)
    assert [t.shape for t in x.split([1, 4], dim=1)] == [(2, 1), (2, 4)]
    assert [t.shape for t in mg.chunk(x, 3, dim=1)] == [(2, 2), (2, 2), (2, 1)]
    assert [t.tolist() for t in x.unbind(0)] == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert x.narrow(1, -2, 2).tolist() == [[3, 4], [8, 9]]
    assert mg.vstack([mg.tensor(1), mg.tensor(2)]).shape == (2, 1)
    assert mg.hstack([mg.zeros((2, 1)), mg.ones((2, 2))]).shape == (2, 3)
    assert mg.cat([x, x], dim=1).shape == mg.cat([x, x], axis=1).shape == (2, 10)
    assert mg.squeeze(mg.zeros((1, 2, 1)), (0, 2)).shape == (2,)


def test_numpy_spellings_of_the_axis():
    x = mg.tensor([[3.0, 1.0], [2.0, 4.0]])
    assert mg.sort(x, axis=0).values.tolist() == mg.sort(x, dim=0).values.tolist()
    assert mg.flip(x, axis=0).tolist() == x.flip(0).tolist()
    assert mg.roll(x, 1, axis=1).tolist() == mg.roll(x, 1, dims=1).tolist()
    assert mg.moveaxis(x, 0, 1).tolist() == x.T.tolist()
    with pytest.raises(TypeError, match="once"):
        mg.sort(x, dim=0, axis=0)


# -- errors: PyTorch's first line, and what went wrong ------------------------------------------
X, T = mg.tensor(np.arange(6.0).reshape(2, 3), dtype=mg.float32), torch.arange(6.0).reshape(2, 3)
SAME_TEXT = {
    "gather out of range": (
        lambda: mg.gather(X, 1, mg.tensor([[3]])),
        lambda: torch.gather(T, 1, torch.tensor([[3]])),
    ),
    "gather negative": (
        lambda: mg.gather(X, 1, mg.tensor([[-1]])),
        lambda: torch.gather(T, 1, torch.tensor([[-1]])),
    ),
    "gather ndim": (
        lambda: mg.gather(X, 1, mg.tensor([1])),
        lambda: torch.gather(T, 1, torch.tensor([1])),
    ),
    "gather size": (
        lambda: mg.gather(X, 1, mg.zeros((3, 1), dtype=mg.int64)),
        lambda: torch.gather(T, 1, torch.zeros(3, 1, dtype=torch.long)),
    ),
    "gather float index": (
        lambda: mg.gather(X, 1, mg.tensor([[1.0]])),
        lambda: torch.gather(T, 1, torch.tensor([[1.0]])),
    ),
    "gather dim": (
        lambda: mg.gather(X, 2, mg.tensor([[0]])),
        lambda: torch.gather(T, 2, torch.tensor([[0]])),
    ),
    "scatter_add dtype": (
        lambda: X.scatter_add(1, mg.tensor([[0]]), mg.ones((1, 1), dtype=mg.float64)),
        lambda: T.scatter_add(1, torch.tensor([[0]]), torch.ones(1, 1, dtype=torch.float64)),
    ),
    "scatter_add size": (
        lambda: X.scatter_add(1, mg.zeros((1, 4), dtype=mg.int64), mg.ones((2, 3))),
        lambda: T.scatter_add(1, torch.zeros(1, 4, dtype=torch.long), torch.ones(2, 3)),
    ),
    "scatter_add out of range": (
        lambda: X.scatter_add(1, mg.tensor([[3]]), mg.ones((2, 3))),
        lambda: T.scatter_add(1, torch.tensor([[3]]), torch.ones(2, 3)),
    ),
    "index_select matrix": (
        lambda: X.index_select(1, mg.tensor([[1]])),
        lambda: T.index_select(1, torch.tensor([[1]])),
    ),
    "take_along_dim ndim": (
        lambda: mg.take_along_dim(X, mg.tensor([0, 1]), 1),
        lambda: torch.take_along_dim(T, torch.tensor([0, 1]), 1),
    ),
    "split sum": (lambda: mg.split(X, [1, 1], 1), lambda: torch.split(T, [1, 1], 1)),
    "split zero": (lambda: mg.split(X, 0, 1), lambda: torch.split(T, 0, 1)),
    "split negative": (lambda: mg.split(X, -1, 1), lambda: torch.split(T, -1, 1)),
    "split dim": (lambda: mg.split(X, 1, 5), lambda: torch.split(T, 1, 5)),
    "chunk zero": (lambda: mg.chunk(X, 0), lambda: torch.chunk(T, 0)),
    "repeat few": (lambda: X.repeat(2), lambda: T.repeat(2)),
    "expand leading -1": (lambda: X.expand(-1, -1, 3), lambda: T.expand(-1, -1, 3)),
    "expand mismatch": (lambda: X.expand(2, 4), lambda: T.expand(2, 4)),
    "flatten order": (lambda: X.flatten(1, 0), lambda: T.flatten(1, 0)),
    "flatten dim": (lambda: X.flatten(2), lambda: T.flatten(2)),
    "movedim lengths": (
        lambda: mg.movedim(X, (0, 1), (1,)),
        lambda: torch.movedim(T, (0, 1), (1,)),
    ),
    "movedim repeated": (
        lambda: mg.movedim(X, (0, 0), (1, 0)),
        lambda: torch.movedim(T, (0, 0), (1, 0)),
    ),
    "roll align": (lambda: mg.roll(X, (1, 2), (0,)), lambda: torch.roll(T, (1, 2), (0,))),
    "roll flat": (lambda: mg.roll(X, (1, 2)), lambda: torch.roll(T, (1, 2))),
    "flip repeated": (lambda: mg.flip(X, (0, 0)), lambda: torch.flip(T, (0, 0))),
    "flip dim": (lambda: mg.flip(X, (2,)), lambda: torch.flip(T, (2,))),
    "topk k": (lambda: mg.topk(X, 4), lambda: torch.topk(T, 4)),
    "sort dim": (lambda: mg.sort(X, 2), lambda: torch.sort(T, 2)),
    "narrow past end": (lambda: X.narrow(1, 1, 5), lambda: T.narrow(1, 1, 5)),
    "narrow start": (lambda: X.narrow(1, 4, 0), lambda: T.narrow(1, 4, 0)),
    "narrow length": (lambda: X.narrow(1, 1, -1), lambda: T.narrow(1, 1, -1)),
    "unbind 0-d": (lambda: mg.unbind(mg.tensor(1.0)), lambda: torch.unbind(torch.tensor(1.0))),
    "vstack empty": (lambda: mg.vstack([]), lambda: torch.vstack([])),
    "masked_fill mask dtype": (
        lambda: X.masked_fill(mg.tensor([1, 0, 1]), 1.0),
        lambda: T.masked_fill(torch.tensor([1, 0, 1]), 1.0),
    ),
    "masked_fill value shape": (
        lambda: X.masked_fill(mg.tensor([True, False, True]), mg.tensor([1.0, 2.0])),
        lambda: T.masked_fill(torch.tensor([True, False, True]), torch.tensor([1.0, 2.0])),
    ),
    "permute too few": (lambda: X.permute(0), lambda: T.permute(0)),
}


@pytest.mark.parametrize("name", sorted(SAME_TEXT))
def test_errors_start_with_torchs_text(name):
    ours, theirs = SAME_TEXT[name]
    expected = torch_error(theirs)
    with pytest.raises(Exception) as info:
        ours()
    got = info.value
    # PyTorch's first line (its "permute(sparse_coo)" names an internal overload).
    assert first_line(got) == first_line(expected).replace("permute(sparse_coo)", "permute()")
    # The same kind of exception: a RuntimeError stays one, an IndexError too.
    assert isinstance(got, type(expected)) or (
        isinstance(expected, RuntimeError) and isinstance(got, RuntimeError)
    ), f"{type(got).__name__}, PyTorch raises {type(expected).__name__}"


def test_errors_name_the_shapes():
    with pytest.raises(RuntimeError) as info:
        mg.gather(X, 1, mg.tensor([1]))
    assert "(2, 3)" in str(info.value) and "(1,)" in str(info.value)
    with pytest.raises(RuntimeError) as info:
        mg.topk(X, 4)
    assert "(2, 3)" in str(info.value) and "0 <= k <= 3" in str(info.value)


# -- the registry ----------------------------------------------------------------------------
def test_only_four_new_rows():
    # Everything else in issue 12's shape list is a composition of older rows.
    new = {"gather", "scatter_add_along", "argsort", "clone"}
    assert new <= set(REGISTRY)
    assert REGISTRY["argsort"].differentiable is False
    assert REGISTRY["clone"].form == "linear"  # the identity: its own transpose
    for op in ("flip", "roll", "repeat", "tile", "split", "chunk", "movedim", "unbind"):
        assert op not in REGISTRY


def test_a_legacy_empty_tensor_joined_by_cat_stays_in_the_graph():
    # PyTorch leaves a 1-D empty tensor out of cat's shape checks, yet the result is
    # computed from it: diff of an empty vector with a prepend requires grad.
    x = mg.tensor([], requires_grad=True)
    y = mg.diff(x, prepend=mg.tensor([1.0]))
    tx = torch.tensor([], requires_grad=True)
    ty = torch.diff(tx, prepend=torch.tensor([1.0]))
    assert (y.shape, y.requires_grad) == (tuple(ty.shape), ty.requires_grad) == ((0,), True)
    a, b = mg.tensor([], requires_grad=True), mg.ones(2, 3, requires_grad=True)
    joined = mg.cat([a, b, a], 1)
    joined.sum().backward()
    assert joined.shape == (2, 3) and a.grad.shape == (0,) and b.grad.shape == (2, 3)
