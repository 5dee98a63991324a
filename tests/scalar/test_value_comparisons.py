"""Comparisons of scalar Values, as MiniTorch's Scalar has them (issue 22).

A comparison gives a Value of 1.0 or 0.0 that can enter arithmetic and has a
zero derivative; ``bool`` of a Value is ``data != 0``, so Python's ``max``,
``min`` and ``sorted`` work on Values.
"""

import operator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minigrad import Value

NUMBERS = st.floats(-100, 100, allow_nan=False)
OPS = [operator.lt, operator.le, operator.gt, operator.ge]


@pytest.mark.parametrize("op", OPS)
@given(a=NUMBERS, b=NUMBERS)
def test_comparisons_give_one_or_zero_like_floats(op, a, b):
    want = float(op(a, b))
    assert op(Value(a), Value(b)).data == want
    assert op(Value(a), b).data == want
    assert op(a, Value(b)).data == want  # the reflected comparison


@pytest.mark.parametrize("op", OPS)
def test_a_comparison_has_zero_derivative_and_joins_arithmetic(op):
    x, y = Value(1.5), Value(-2.0)
    z = op(x + 1.2, y) * x + x
    z.backward()
    assert x.grad == 1.0 + op(2.7, -2.0)  # d/dx of (c * x + x), c held constant
    assert y.grad == 0.0


def test_python_max_min_and_sorted_compare_values():
    a, b, c = Value(3.0), Value(-1.0), Value(2.0)
    assert max(a, b, c) is a
    assert min(a, b, c) is b
    assert [v.data for v in sorted([a, b, c])] == [-1.0, 2.0, 3.0]
    m = max(a, c)
    m.backward()
    assert (a.grad, c.grad) == (1.0, 0.0)


def test_truth_of_a_value_is_its_data_being_nonzero():
    assert Value(2.0) and not Value(0.0)


def test_comparing_with_a_string_is_a_type_error():
    with pytest.raises(TypeError):
        Value(1.0) < "a"  # noqa: B015
