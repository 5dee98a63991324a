"""What the correctness database cannot say about issue 12's reductions and contractions.

Error messages (einsum's equation, shapes that do not fit), argmax's choice
among ties, any/all as bool tensors, the norms' orders and their gradient at
zero, and forward mode at the zeros of prod and cumprod. Values and
gradients on random inputs live in ``tests/opdb/reductions.py`` and
``tests/opdb/contractions.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minigrad as mg


# -- einsum: the equation is checked, and the error says what is wrong ---------------------
@pytest.mark.parametrize(
    ("equation", "shapes", "error", "words"),
    [
        ("ij,jk->ik", [(2, 3)], RuntimeError, "fewer operands were provided"),
        ("ij->ij", [(2, 3), (3, 2)], RuntimeError, "more operands were provided"),
        ("ijk->i", [(2, 3)], mg.ShapeError, "number of subscripts in the equation (3) does not"),
        ("ij...k->i", [(2, 3)], mg.ShapeError, "(3) is more than the number of dimensions (2)"),
        ("i1->i", [(2, 3)], RuntimeError, "invalid subscript given at index 1"),
        ("ij->k", [(2, 3)], RuntimeError, "output subscript k does not appear"),
        ("ij->ii", [(2, 3)], RuntimeError, "output subscript i appears more than once"),
        (
            "ij,jk->ik",
            [(2, 3), (4, 5)],
            mg.ShapeError,
            "size 4 for operand 1 which does not broadcast",
        ),
        ("ii->i", [(2, 3)], mg.ShapeError, "subscript i is repeated for operand 0"),
        ("i......->i", [(2, 3)], RuntimeError, "one '...' per operand"),
    ],
)
def test_einsum_errors_say_what_is_wrong(equation, shapes, error, words):
    xs = [mg.ones(s) for s in shapes]
    with pytest.raises(error) as caught:
        mg.einsum(equation, *xs)
    assert words in str(caught.value)
    assert equation in str(caught.value)  # the message shows the equation it read


def test_einsum_takes_a_list_of_operands_and_ignores_spaces():
    a, b = mg.randn(2, 3), mg.randn(3, 4)
    expected = (a @ b).numpy()
    np.testing.assert_allclose(mg.einsum("ij, jk -> ik", [a, b]).numpy(), expected, rtol=1e-6)


def test_einsum_forward_mode_matches_torch_with_an_operand_used_twice():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 4))
    ta, tb = rng.standard_normal((3, 4)), rng.standard_normal((4, 4))

    def f(x, y):
        return mg.einsum("ij,jk,lk->il", x, y, x)

    _, tangent = mg.jvp(f, (mg.tensor(a), mg.tensor(b)), (mg.tensor(ta), mg.tensor(tb)))
    _, expected = torch.func.jvp(
        lambda x, y: torch.einsum("ij,jk,lk->il", x, y, x),
        (torch.tensor(a), torch.tensor(b)),
        (torch.tensor(ta), torch.tensor(tb)),
    )
    np.testing.assert_allclose(tangent.numpy(), expected.numpy(), rtol=1e-10)


# -- argmax / argmin ----------------------------------------------------------------------
def test_argmax_and_argmin_give_the_first_of_tied_positions_as_torch():
    values = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, -1.0, -1.0]])
    x, t = mg.tensor(values), torch.tensor(values)
    for dim in (None, 0, 1, -1):
        for name in ("argmax", "argmin"):
            ours, theirs = getattr(x, name)(dim), getattr(t, name)(dim)
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
            assert ours.dtype == mg.int64 and not ours.requires_grad


def test_argmax_counts_nan_as_the_largest_and_argmin_as_the_smallest():
    x = mg.tensor([1.0, math.nan, 5.0, math.nan])
    assert x.argmax().item() == 1 and x.argmin().item() == 1


def test_argmax_of_nothing_is_an_error():
    with pytest.raises(IndexError, match="Expected reduction dim to be specified"):  # torch's
        mg.zeros((0, 3)).argmax()
    with pytest.raises(IndexError, match="reduction dim 0 to have non-zero size"):
        mg.zeros((0, 3)).argmax(0)
    assert mg.zeros((0, 3)).argmax(1).shape == (0,)
    with pytest.raises(TypeError, match="must be int"):
        mg.zeros((2, 3)).argmax((0, 1))


def test_argmax_keepdim_without_dim_keeps_every_axis():
    assert mg.randn(2, 3).argmax(keepdim=True).shape == (1, 1)


# -- any / all ---------------------------------------------------------------------------------
def test_any_and_all_return_bool_tensors_that_bool_reads():
    x = mg.tensor([[0.0, 2.0], [0.0, 0.0]])
    assert x.any().dtype == mg.bool_ and x.any().shape == ()
    assert bool(x.any()) is True and bool(x.all()) is False
    np.testing.assert_array_equal(x.any(axis=1).numpy(), [True, False])
    np.testing.assert_array_equal(mg.all(x, dim=0, keepdim=True).numpy(), [[False, False]])
    assert bool(mg.tensor([1, 2, 3]).all())  # integers, as in PyTorch
    if not (x > 5).any():  # reads as a Python condition
        pass
    else:
        pytest.fail("(x > 5).any() should be false")


def test_any_of_nothing_is_false_and_all_of_nothing_is_true():
    empty = mg.zeros((0, 2))
    assert not bool(empty.any()) and bool(empty.all())
    np.testing.assert_array_equal(empty.all(0).numpy(), [True, True])


def test_nan_is_nonzero_for_any_and_all():
    assert bool(mg.tensor([math.nan]).all()) and bool(mg.tensor([0.0, math.nan]).any())


# -- norms -------------------------------------------------------------------------------------
@pytest.mark.parametrize("ord", [None, 2, 1, math.inf, -math.inf, 0, 3, 0.5])
def test_vector_norm_orders_match_torch(ord):
    values = np.array([3.0, -4.0, 0.0, 1.5])
    ours = mg.linalg.norm(mg.tensor(values), ord)
    assert ours.item() == pytest.approx(torch.linalg.norm(torch.tensor(values), ord).item())


@pytest.mark.parametrize("ord", [None, "fro", 1, -1, math.inf, -math.inf, "nuc", 2, -2])
def test_matrix_norm_orders_match_torch(ord):
    values = np.array([[1.0, -2.0, 0.5], [3.0, 4.0, -1.0]])
    ours = mg.linalg.norm(mg.tensor(values), ord)
    assert ours.item() == pytest.approx(torch.linalg.norm(torch.tensor(values), ord).item())


def test_norm_errors_say_what():
    with pytest.raises(ValueError, match=r"must be 1D or 2D\. Got 3D"):
        mg.linalg.norm(mg.ones((2, 2, 2)), 1)
    with pytest.raises(RuntimeError, match="floating point"):
        mg.linalg.norm(mg.tensor([1, 2]))


@pytest.mark.parametrize(
    "norm",
    [
        lambda x: mg.linalg.norm(x),
        lambda x: mg.linalg.norm(x, dim=1),
        lambda x: mg.linalg.vector_norm(x, 3),
        lambda x: mg.linalg.matrix_norm(x),
        lambda x: x.norm(),
        lambda x: x.std(),
    ],
)
def test_the_gradient_at_zero_is_zero_not_nan(norm):
    x = mg.zeros((2, 3), dtype=mg.float64, requires_grad=True)
    norm(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))


# -- prod and cumprod at zeros, in forward mode ------------------------------------------------
@pytest.mark.parametrize("zeros", [[1], [0, 2], [1, 2, 3]])
@pytest.mark.parametrize("op", ["prod", "cumprod"])
def test_forward_mode_at_zeros_matches_torch(op, zeros):
    rng = np.random.default_rng(len(zeros))
    values, tangent = rng.standard_normal(5), rng.standard_normal(5)
    values[zeros] = 0.0
    _, ours = mg.jvp(lambda x: getattr(x, op)(0), (mg.tensor(values),), (mg.tensor(tangent),))
    _, theirs = torch.func.jvp(
        lambda t: getattr(t, op)(0), (torch.tensor(values),), (torch.tensor(tangent),)
    )
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-14)


def test_prod_with_one_zero_gives_the_zero_the_product_of_the_rest():
    x = mg.tensor([[2.0, 0.0, 3.0], [1.0, 4.0, 5.0]], requires_grad=True)
    x.prod(1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 6.0, 0.0], [20.0, 5.0, 4.0]])


# -- errors that name the shapes ------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: mg.tensordot(mg.ones((2, 3)), mg.ones((4, 2)), ([1], [0])), mg.ShapeError,
         "first has size 3 in dim 1 and second has size 4 in dim 0"),
        (lambda: mg.outer(mg.ones((2, 2)), mg.ones(2)), mg.ShapeError,
         "outer: Expected 1-D argument self, but got 2-D"),
        (lambda: mg.trace(mg.ones((2, 2, 2))), mg.ShapeError,
         "trace: expected a matrix, but got tensor with dim 3"),
        (lambda: mg.tril(mg.ones(3)), mg.ShapeError, "must have at least 2 dimensions"),
        (lambda: mg.diag(mg.ones((2, 2, 2))), mg.ShapeError, "Supports 1D or 2D tensors. Got 3D"),
        (lambda: mg.diagonal(mg.ones((2, 2)), 0, 1, -1), RuntimeError,
         "diagonal dimensions cannot be identical"),
        (lambda: mg.cumsum(mg.ones((2, 2)), (0, 1)), TypeError, "runs along one axis"),
    ],
)  # fmt: skip
def test_errors_name_the_problem(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_tensordot_error_shows_both_shapes():
    with pytest.raises(mg.ShapeError, match=r"\(2, 3\) and \(4, 2\)"):
        mg.tensordot(mg.ones((2, 3)), mg.ones((4, 2)), dims=([1], [0]))


# -- dtypes and aliases ---------------------------------------------------------------------
def test_integer_products_and_running_totals_are_int64_as_torch():
    x = mg.tensor(np.array([[1, 2], [3, 4]], dtype=np.int32))
    t = torch.tensor([[1, 2], [3, 4]], dtype=torch.int32)
    for ours, theirs in [(x.prod(), t.prod()), (x.cumsum(1), t.cumsum(1)),
                         (x.cumprod(0), t.cumprod(0)), (mg.trace(x), t.trace())]:  # fmt: skip
        assert str(ours.dtype) == str(theirs.dtype).removeprefix("torch.")
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_numpy_and_torch_spellings_name_the_same_arguments():
    x = mg.arange(12.0).reshape(3, 4)
    assert mg.tril(x, k=1).tolist() == mg.tril(x, diagonal=1).tolist() == x.tril(1).tolist()
    assert mg.diagonal(x, axis1=1, axis2=0).tolist() == x.diagonal(dim1=1, dim2=0).tolist()
    assert mg.tensordot(x, x, axes=2).item() == mg.tensordot(x, x, dims=2).item()
    assert mg.cumsum(x, axis=1).tolist() == x.cumsum(dim=1).tolist()
    assert mg.std(x, dim=0, correction=1).tolist() == x.std(0, ddof=1).tolist()
    assert mg.linalg.norm(x, axis=1).tolist() == mg.linalg.norm(x, dim=1).tolist()
