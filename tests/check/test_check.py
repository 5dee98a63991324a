"""gradcheck on Value functions: it passes every correct rule and catches a wrong one."""

import math

import pytest

import minigrad as mg
from minigrad.check import GradcheckError, gradcheck
from minigrad.scalar import Value, rules

# Every scalar operation, at points inside its domain and away from kinks.
FUNCTIONS = {
    "add": (lambda a, b: a + b, [0.3, -1.2]),
    "sub": (lambda a, b: a - b, [0.3, -1.2]),
    "mul": (lambda a, b: a * b, [0.3, -1.2]),
    "div": (lambda a, b: a / b, [0.3, -1.2]),
    "pow": (lambda a, b: a**b, [1.7, -0.6]),
    "numbers both sides": (lambda a: (2 - a) * 3 / (1 + a) + 2**a - a**0.5 / 4, [0.8]),
    "neg": (lambda a: -a, [0.3]),
    "relu": (lambda a: a.relu() * a, [0.7]),
    "tanh": (lambda a: a.tanh(), [0.4]),
    "exp": (lambda a: a.exp(), [0.4]),
    "log": (lambda a: a.log(), [0.4]),
    "sigmoid": (lambda a: a.sigmoid(), [-0.9]),
    "fan-out": (lambda a, b: (a * b + a).tanh() * (a - b).sigmoid() + a * a, [0.5, 0.2]),
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_correct_rules_pass(name):
    fn, inputs = FUNCTIONS[name]
    assert gradcheck(fn, inputs) is True
    assert gradcheck(fn, [Value(x) for x in inputs]) is True


def wrong_square(a: Value) -> Value:
    """a² whose local derivative forgets the factor 2."""
    return Value(a.data**2, (a,), "square", _partials=(a.data,))


def test_a_wrong_partial_raises_naming_the_input():
    x, y = Value(1.5, label="x"), Value(2.0, label="y")
    with pytest.raises(GradcheckError) as caught:
        gradcheck(lambda x, y: y * 3 + wrong_square(x) * y, [x, y])
    message = str(caught.value)
    assert message.splitlines()[0] == "Jacobian mismatch for output 0 with respect to input 0,"
    assert "'x'" in message
    # d/dx (x² y) = 2xy = 6 against the wrong rule's x·y = 3
    assert "numerical 5.99999" in message or "numerical 6.0" in message
    assert "analytical 3.0" in message


def test_a_wrong_partial_returns_false_when_asked_not_to_raise():
    assert gradcheck(wrong_square, [1.5], raise_exception=False) is False
    assert gradcheck(lambda a: a * a, [1.5], raise_exception=False) is True


def test_a_wrong_rule_in_the_table_is_caught(monkeypatch):
    def tanh_without_square(x):
        t = math.tanh(x)
        return t, 1.0 - t  # should be 1 - t²

    monkeypatch.setattr(rules, "tanh", tanh_without_square)
    assert gradcheck(lambda a: a.tanh(), [0.5], raise_exception=False) is False
    with pytest.raises(GradcheckError, match="with respect to input 1"):
        gradcheck(lambda a, b: a + b.tanh(), [0.1, 0.5])


def test_the_worst_input_is_reported():
    # Both inputs have wrong derivatives; b's error is the larger one.
    def f(a, b):
        return wrong_square(a) + wrong_square(b)

    with pytest.raises(GradcheckError, match="with respect to input 1"):
        gradcheck(f, [1.0, 4.0])


def test_nan_derivative_fails():
    nan_partial = lambda a: Value(a.data, (a,), "id", _partials=(math.nan,))
    assert gradcheck(nan_partial, [1.0], raise_exception=False) is False


def test_tolerances_are_used():
    # Analytical 1.0005 against numerical 1.0: inside rtol=1e-3, outside rtol=1e-4.
    almost = lambda a: Value(a.data, (a,), "id", _partials=(1.0005,))
    assert gradcheck(almost, [1.0]) is True
    assert gradcheck(almost, [1.0], rtol=1e-4, raise_exception=False) is False


def test_the_callers_values_are_left_alone():
    a = Value(0.7, label="a")
    outside = Value(2.0)  # fn closes over it, so backward reaches it
    assert gradcheck(lambda a: (a * outside).tanh(), [a])
    assert (a.data, a.grad, outside.data, outside.grad) == (0.7, 0.0, 2.0, 0.0)


def test_one_input_need_not_be_in_a_list():
    assert gradcheck(lambda a: a.exp(), Value(0.2))
    assert gradcheck(lambda a: a.exp(), 0.2)


def test_fn_must_return_a_value():
    with pytest.raises(TypeError, match=r"fn must return a Value.*got float"):
        gradcheck(lambda a: a.data * 2, [1.0])


def test_inputs_of_an_unknown_kind_are_refused():
    with pytest.raises(TypeError, match="cannot check inputs of type str"):
        gradcheck(lambda a: a, ["x"])


def test_gradcheck_error_is_a_runtime_error_like_pytorchs():
    assert issubclass(GradcheckError, RuntimeError)
    assert mg.GradcheckError is GradcheckError and mg.gradcheck is gradcheck
