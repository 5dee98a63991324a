"""The errors a student meets, checked against PyTorch's text (DESIGN.md, "Errors").

Where PyTorch has a message for the same mistake, minigrad's first line is
that message; the lines after it name the op and the shapes involved. Each
test makes the mistake in both libraries and compares the first lines.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg
from minigrad.tensor.tensor import Tensor


def error_of(fn, kind=Exception):
    """The exception ``fn()`` raises (it must raise one of ``kind``)."""
    with pytest.raises(kind) as info:
        fn()
    return info.value


def first_line(error: BaseException) -> str:
    return str(error).splitlines()[0]


def same_first_line(mg_fn, torch_fn, kind=RuntimeError) -> BaseException:
    """Both raise ``kind`` with one first line; returns minigrad's error."""
    ours, theirs = error_of(mg_fn, kind), error_of(torch_fn, kind)
    assert first_line(ours) == first_line(theirs)
    return ours


# -- broadcasting --------------------------------------------------------------------------
@st.composite
def incompatible_shapes(draw):
    """Two shapes that do not broadcast: one axis differs, neither size is 1."""
    a = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    b = list(a)
    axis = draw(st.integers(0, len(a) - 1))
    a[axis] = draw(st.integers(2, 4))
    b[axis] = draw(st.integers(2, 4).filter(lambda n: n != a[axis]))
    drop = draw(st.integers(0, axis))  # b may have fewer leading axes
    return tuple(a), tuple(b[drop:])


BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "pow": lambda x, y: x**y,
    "maximum": lambda x, y: x.maximum(y),
    "lt": lambda x, y: x < y,
}


@pytest.mark.parametrize("op", sorted(BINARY))
@settings(max_examples=15, deadline=None)
@given(shapes=incompatible_shapes(), swap=st.booleans())
def test_broadcasting_mismatch_has_torch_first_line_and_names_shapes(op, shapes, swap):
    a, b = shapes[::-1] if swap else shapes
    fn = BINARY[op]
    x, y = mg.ones(a, requires_grad=True), mg.ones(b)
    error = same_first_line(lambda: fn(x, y), lambda: fn(torch.ones(a), torch.ones(b)))
    assert isinstance(error, mg.ShapeError)
    rest = str(error).splitlines()[1]
    assert str(a) in rest and str(b) in rest and op in rest


def test_where_mismatch():
    cond, x, y = mg.ones((2, 3)) > 0, mg.ones((2, 3)), mg.ones((4, 5))
    error = same_first_line(
        lambda: mg.where(cond, x, y),
        lambda: torch.where(torch.ones(2, 3) > 0, torch.ones(2, 3), torch.ones(4, 5)),
    )
    assert "where" in str(error)


def test_broadcast_to_mismatch():
    same_first_line(lambda: mg.ones(3).broadcast_to((2, 4)), lambda: torch.ones(3).expand(2, 4))
    same_first_line(lambda: mg.ones(3).broadcast_to((1,)), lambda: torch.ones(3).expand(1))
    error = error_of(lambda: mg.ones(2, 3).broadcast_to((3,)), RuntimeError)
    assert "number of sizes provided (1)" in str(error)


# -- shapes of other operations -----------------------------------------------------------
def test_matmul_mismatch():
    error = same_first_line(
        lambda: mg.ones(2, 3) @ mg.ones(4, 5), lambda: torch.ones(2, 3) @ torch.ones(4, 5)
    )
    assert first_line(error) == "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"
    assert "(2, 3)" in str(error) and "(4, 5)" in str(error)


def test_matmul_of_a_0d_tensor():
    same_first_line(lambda: mg.ones(2, 3) @ mg.ones(()), lambda: torch.ones(2, 3) @ torch.ones(()))


def test_matmul_batch_dimensions_that_do_not_broadcast():
    error = error_of(lambda: mg.ones(2, 2, 3) @ mg.ones(3, 3, 4), RuntimeError)
    assert "matmul" in str(error) and "The size of tensor a (2)" in first_line(error)


def test_reshape_mismatch():
    error = same_first_line(lambda: mg.ones(6).reshape(2, 5), lambda: torch.ones(6).reshape(2, 5))
    assert first_line(error) == "shape '[2, 5]' is invalid for input of size 6"
    same_first_line(lambda: mg.ones(2, 3).reshape(4, -1), lambda: torch.ones(2, 3).reshape(4, -1))
    same_first_line(lambda: mg.ones(6).reshape(-1, -1), lambda: torch.ones(6).reshape(-1, -1))


def test_concatenate_and_stack_mismatch():
    same_first_line(
        lambda: mg.concatenate([mg.ones(2, 3), mg.ones(2, 4)]),
        lambda: torch.cat([torch.ones(2, 3), torch.ones(2, 4)]),
    )
    same_first_line(
        lambda: mg.concatenate([mg.ones(2, 3), mg.ones(3)]),
        lambda: torch.cat([torch.ones(2, 3), torch.ones(3)]),
    )
    same_first_line(
        lambda: mg.concatenate([mg.ones(()), mg.ones(())]),
        lambda: torch.cat([torch.ones(()), torch.ones(())]),
    )
    same_first_line(
        lambda: mg.stack([mg.ones(2), mg.ones(2), mg.ones(3)]),
        lambda: torch.stack([torch.ones(2), torch.ones(2), torch.ones(3)]),
    )


@pytest.mark.parametrize(
    "op", ["cat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack"]
)
def test_joining_takes_a_list_or_tuple_only(op):
    # A tensor is not a sequence of tensors to PyTorch (minigrad read its rows), nor is a
    # generator or an array: torch's TypeError, naming the function.
    for ours, theirs in [
        (mg.ones(2, 3), torch.ones(2, 3)),
        ((t for t in [mg.ones(2)]), (t for t in [torch.ones(2)])),
        (np.ones((2, 3)), np.ones((2, 3))),
    ]:
        error = same_first_line(
            lambda ours=ours: getattr(mg, op)(ours),
            lambda theirs=theirs: getattr(torch, op)(theirs),
            TypeError,
        )
        assert "must be tuple of Tensors" in str(error)
    for pair in ([mg.ones(2)], (mg.ones(2),)):
        assert getattr(mg, op)(pair).shape == tuple(getattr(torch, op)([torch.ones(2)]).shape)
    # cat's out= (which minigrad lacks) comes after the check of the tensors, as in torch
    same_first_line(
        lambda: mg.cat(mg.ones(2, 3), out=mg.ones(2, 3)),
        lambda: torch.cat(torch.ones(2, 3), out=torch.ones(2, 3)),
        TypeError,
    )


AXIS_OPS = {
    "sum": lambda x, a: x.sum(a),
    "mean": lambda x, a: x.mean(a),
    "max": lambda x, a: x.max(a) if isinstance(x, mg.Tensor) else x.amax(a),
    "min": lambda x, a: x.min(a) if isinstance(x, mg.Tensor) else x.amin(a),
    "var": lambda x, a: x.var(a),
    "logsumexp": lambda x, a: x.logsumexp(a),
    "squeeze": lambda x, a: x.squeeze(a),
    "unsqueeze": lambda x, a: x.unsqueeze(a + 1 if a >= 0 else a - 1),  # one more axis
    "transpose": lambda x, a: x.transpose(0, a),
    "concatenate": lambda x, a: (mg.concatenate if isinstance(x, mg.Tensor) else torch.cat)(
        [x, x], a
    ),
}


ONE_AXIS = {"squeeze", "unsqueeze", "transpose", "concatenate"}
AXIS_CASES = [
    (op, shape, axis)
    for op in sorted(AXIS_OPS)
    for shape, axis in [((2, 3), 2), ((2, 3), -3), ((), 1), ((4,), (0, 1))]
    if not (op in ONE_AXIS and isinstance(axis, tuple))
    and not (op == "concatenate" and shape == ())  # 0-d cannot be concatenated at all
]


@pytest.mark.parametrize("op, shape, axis", AXIS_CASES)
def test_axis_out_of_range(op, shape, axis):
    fn = AXIS_OPS[op]
    error = same_first_line(
        lambda: fn(mg.ones(shape), axis), lambda: fn(torch.ones(shape), axis), IndexError
    )
    assert first_line(error).startswith("Dimension out of range (expected to be in range of [")


def test_axis_message_text():
    error = error_of(lambda: mg.ones(2, 3).sum(2), IndexError)
    assert str(error) == "Dimension out of range (expected to be in range of [-2, 1], but got 2)"


# -- autograd misuse ------------------------------------------------------------------------
def test_integer_tensors_cannot_require_grad():
    for make in (
        lambda: mg.tensor([1, 2], requires_grad=True),
        lambda: mg.arange(3).requires_grad_(),
    ):
        error = error_of(make, RuntimeError)
        theirs = error_of(lambda: torch.tensor([1, 2]).requires_grad_(), RuntimeError)
        # PyTorch's wording of this line changed across versions; the start did not.
        prefix = "only tensors of floating point"
        assert first_line(error).lower().startswith(prefix)
        assert first_line(theirs).lower().startswith(prefix)
        assert "int64" in str(error)


def test_backward_of_non_scalar_without_grad():
    x, t = mg.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    error = same_first_line(lambda: (x * 2).backward(), lambda: (t * 2).backward())
    assert first_line(error) == "grad can be implicitly created only for scalar outputs"
    assert "(3,)" in str(error)


def test_backward_of_tensor_that_does_not_require_grad():
    error = same_first_line(
        lambda: (mg.ones(2) * 2).sum().backward(), lambda: (torch.ones(2) * 2).sum().backward()
    )
    assert first_line(error).startswith("element 0 of tensors does not require grad")


def test_backward_through_a_freed_graph():
    def twice(lib):
        x = lib.ones(3, requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward()
        y.backward()

    error = same_first_line(lambda: twice(mg), lambda: twice(torch))
    assert str(error).startswith("Trying to backward through the graph a second time")


def test_grad_shape_mismatch_names_shapes():
    x = mg.ones(3, requires_grad=True)
    error = error_of(lambda: (x * 2).backward(mg.ones(2)), RuntimeError)
    assert "(2,)" in str(error) and "(3,)" in str(error)


def test_retain_grad_needs_requires_grad():
    same_first_line(lambda: mg.ones(2).retain_grad(), lambda: torch.ones(2).retain_grad())


def test_bool_and_item_of_many_elements():
    same_first_line(lambda: bool(mg.ones(3)), lambda: bool(torch.ones(3)))
    same_first_line(lambda: mg.ones(3).item(), lambda: torch.ones(3).item())


# -- wrong types and devices ----------------------------------------------------------------
@pytest.mark.parametrize("symbol", ["+", "-", "*", "/", "**"])
def test_arithmetic_with_a_string_is_a_type_error(symbol):
    def op(x):
        return eval(f"x {symbol} 'abc'", {"x": x})

    error = error_of(lambda: op(mg.ones(2)), TypeError)
    # Python's own text for the mistake (PyTorch's too, except for `*`, which
    # it reads as repeating a sequence).
    assert first_line(error).startswith(f"unsupported operand type(s) for {symbol}")
    assert first_line(error).endswith("'Tensor' and 'str'")
    if symbol != "*":
        assert first_line(error) == first_line(error_of(lambda: op(torch.ones(2)), TypeError))


def test_strings_and_ragged_lists_are_not_tensors():
    assert "str" in str(error_of(lambda: mg.tensor("abc"), TypeError))
    assert "ragged" in str(
        error_of(lambda: mg.tensor([[1.0], [1.0, 2.0]]), (TypeError, ValueError))
    )
    assert "int16" in str(error_of(lambda: mg.tensor(np.ones(2, np.int16)), TypeError))


def test_mixing_devices_names_both():
    # No second backend is needed to see the check: it runs before any kernel.
    x = mg.ones(2)
    y = Tensor._wrap(x.data, "cuda")
    error = error_of(lambda: x + y, RuntimeError)
    assert first_line(error).startswith(
        "Expected all tensors to be on the same device, but found at least two devices, cpu"
    )
    assert "cuda" in first_line(error)


def test_index_out_of_range_names_the_shape():
    error = error_of(lambda: mg.ones(3)[5], IndexError)
    assert "5" in str(error) and "(3,)" in str(error)
    with pytest.raises(IndexError, match="long, int or bool"):
        mg.ones(3)[mg.tensor([0.0])]


def test_reductions_of_empty_tensors():
    same_first_line(lambda: mg.ones(0).max(), lambda: torch.ones(0).max())
