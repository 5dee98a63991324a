"""gradcheck, check_jvp and gradgradcheck on Tensor functions: they pass right rules, catch wrong ones.

Each kind of wrong rule is a custom ``mg.Function``: a backward that is off,
a jvp that is off, and a backward whose value is right but which cannot be
differentiated again. Each must be caught by the check that looks at it and
only by that one.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad.check import GradcheckError, check_jvp, gradcheck, gradgradcheck


def x64(*shape, seed=0):
    return mg.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=mg.float64)


class Square(mg.Function):
    """x², with switches for which rule to get wrong."""

    wrong_backward = wrong_jvp = flat_backward = False

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @classmethod
    def backward(cls, ctx, grad):
        (x,) = ctx.saved_tensors
        if cls.flat_backward:
            return grad * 2 * x.detach()  # the right value, with no derivative of its own
        return grad * (3 if cls.wrong_backward else 2) * x

    @classmethod
    def jvp(cls, ctx, t):
        (x,) = ctx.saved_tensors
        return t * (3 if cls.wrong_jvp else 2) * x


def variant(**switches) -> type:
    return type("Variant", (Square,), switches)


def test_right_rules_pass_every_check():
    x, y = x64(2, 3), x64(3, seed=1)
    f = lambda x, y: (Square.apply(x) * y).tanh().sum(0)
    assert gradcheck(f, [x, y], check_forward_ad=True)
    assert check_jvp(f, [x, y])
    assert gradgradcheck(f, [x, y])


def test_a_wrong_backward_is_caught_by_gradcheck_only():
    op = variant(wrong_backward=True)
    x = x64(3)
    assert check_jvp(op.apply, [x])
    with pytest.raises(GradcheckError) as caught:
        gradcheck(op.apply, [x])
    lines = str(caught.value).splitlines()
    assert lines[0] == "Jacobian mismatch for output 0 with respect to input 0,"
    assert "input 0 (shape (3,)) at (" in lines[1] and "numerical" in lines[1]
    assert "backward rule" in lines[2]


def test_a_wrong_jvp_is_caught_by_check_jvp_and_check_forward_ad():
    op = variant(wrong_jvp=True)
    x = x64(2, 2)
    assert gradcheck(op.apply, [x])
    with pytest.raises(GradcheckError) as caught:
        check_jvp(op.apply, [x])
    first = str(caught.value).splitlines()[0]
    assert (
        first
        == "Jacobian computed with forward mode mismatch for output 0 with respect to input 0,"
    )
    assert "jvp rule" in str(caught.value)
    assert gradcheck(op.apply, [x], check_forward_ad=True, raise_exception=False) is False


def test_a_backward_that_cannot_be_differentiated_is_caught_by_gradgradcheck():
    op = variant(flat_backward=True)
    x = x64(4)
    assert gradcheck(op.apply, [x], check_forward_ad=True)
    assert gradgradcheck(op.apply, [x], raise_exception=False) is False
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradgradcheck(op.apply, [x])


def test_the_element_and_the_output_are_named():
    op = variant(wrong_backward=True)
    x, y = x64(2, 2), x64(2, 2, seed=1)
    with pytest.raises(GradcheckError) as caught:
        gradcheck(lambda x, y: (x + y, op.apply(y)), [x, y])
    message = str(caught.value)
    # output 1 (the second tensor) with respect to input 1 (y); output 0 is right
    assert message.startswith("Jacobian mismatch for output 1 with respect to input 1,")
    assert "output 1 at (" in message and "input 1 (shape (2, 2)) at (" in message


def test_float32_inputs_are_checked_in_float64_with_a_warning():
    x = mg.randn(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert gradcheck(lambda x: x.exp().sum(), [x])
    assert any("float32" in str(w.message) and "float64" in str(w.message) for w in caught)
    assert x.dtype == mg.float32 and x.grad is None  # the caller's tensor is left alone


def test_numbers_and_integer_tensors_are_held_fixed():
    index = mg.tensor([2, 0])
    f = lambda x, scale, index: x[index] * scale
    assert gradcheck(f, [x64(3), 2.5, index], check_forward_ad=True)
    assert gradgradcheck(lambda x, index: x[index] ** 3, [x64(3), index])


def test_outputs_that_do_not_depend_on_an_input():
    c = x64(2)
    assert gradcheck(lambda x: (c * 2, x.sum()), [x64(3)], check_forward_ad=True)


# Every shape of result that gradcheck accepts (issue: gradgradcheck once refused
# a tuple of one output, treating the tuple's one cotangent as a sequence of them).
RESULT_SHAPES = {
    "a tensor": lambda x: x.tanh(),
    "a tuple of one": lambda x: (x.tanh(),),
    "a list of one": lambda x: [x.tanh()],
    "a tuple of two": lambda x: (x.tanh(), (x * x).sum()),
    "a list of two": lambda x: [x.exp(), x * x],
    "with a constant": lambda x: (x.tanh(), mg.ones(2, dtype=mg.float64)),
    "with a boolean": lambda x: (x.tanh(), x > 0),
}


@pytest.mark.parametrize("shape", RESULT_SHAPES)
def test_every_check_accepts_every_shape_of_result(shape):
    f, x = RESULT_SHAPES[shape], x64(3)
    assert gradcheck(f, [x], check_forward_ad=True)
    assert check_jvp(f, [x])
    assert gradgradcheck(f, [x])


def test_grad_outputs_of_gradgradcheck_can_be_given():
    f = lambda x: x.sigmoid() * x
    assert gradgradcheck(f, [x64(3)], grad_outputs=[x64(3, seed=5)])
    with pytest.raises(ValueError, match="1 output\\(s\\) but 2 grad_outputs"):
        gradgradcheck(f, [x64(3)], grad_outputs=[x64(3), x64(3)])


def test_value_functions_are_refused_by_the_tensor_only_checks():
    with pytest.raises(TypeError, match="check_jvp checks Tensor functions"):
        check_jvp(lambda a: a * a, [1.0])
    with pytest.raises(TypeError, match="gradgradcheck checks Tensor functions"):
        gradgradcheck(lambda a: a * a, [mg.Value(1.0)])
    with pytest.raises(TypeError, match="check_forward_ad=True checks Tensor functions only"):
        gradcheck(lambda a: a * a, [1.0], check_forward_ad=True)


def test_the_face_exports_the_checks():
    assert mg.gradgradcheck is gradgradcheck and mg.check_jvp is check_jvp
