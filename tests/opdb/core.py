"""The database's first rows: the operations of lessons 04-06 (elementwise, reductions, shape, matmul).

Keys are public names (``"exp"`` covers ``mg.exp`` and ``Tensor.exp``), with
``":variant"`` for a second sampling of the same op (ties, scalars, NumPy
arrays on either side).
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.strategies import (
    _T,
    Case,
    _cast,
    _integer_array,
    _mask,
    _permute,
    _reshape,
    _slicing,
    _squeeze,
    _swap,
    _unsqueeze,
    binary,
    broadcast_to_case,
    elementwise,
    joined,
    matmul_case,
    normal,
    one_input,
    positive,
    reduction,
    small_integers,
    sum_to_case,
    unary,
    where_case,
    with_constant,
)

pos2 = (normal, positive)


def _max_or_amax(name):
    """PyTorch's ``max(dim)`` -> (values, indices) along one axis, ``amax`` over several."""

    def torch_fn(t, dims, keep):
        if isinstance(dims, int):
            return getattr(t, name)(dims, keepdim=keep)
        return getattr(t, "a" + name)(dims, keepdim=keep)

    return torch_fn


CASES = {
    # elementwise, unary
    "neg": unary(lambda x: -x),
    "exp": unary(lambda x: x.exp()),
    "log": unary(lambda x: x.log(), positive),
    "sqrt": unary(lambda x: x.sqrt(), positive),
    "tanh": unary(lambda x: x.tanh()),
    "sigmoid": unary(lambda x: x.sigmoid()),
    "relu": unary(lambda x: x.relu()),
    "abs": unary(lambda x: x.abs()),
    "relu:at_zero": unary(lambda x: x.relu(), small_integers),
    "abs:at_zero": unary(lambda x: x.abs(), small_integers),
    "exp:function": elementwise(mg.exp, torch.exp, [normal]),
    "sigmoid:function": elementwise(mg.sigmoid, torch.sigmoid, [normal]),
    # elementwise, binary and ternary
    "add": binary(lambda x, y: x + y),
    "sub": binary(lambda x, y: x - y),
    "mul": binary(lambda x, y: x * y),
    "div": binary(lambda x, y: x / y, pos2),
    "power": binary(lambda x, y: x**y, (positive, normal)),
    "maximum": elementwise(mg.maximum, torch.maximum, [normal, normal]),
    "minimum": elementwise(mg.minimum, torch.minimum, [normal, normal]),
    "maximum:ties": elementwise(mg.maximum, torch.maximum, [small_integers] * 2),
    "minimum:ties": elementwise(mg.minimum, torch.minimum, [small_integers] * 2),
    "where": where_case(),
    # a Python number or a NumPy array on either side
    "add:scalar": unary(lambda x: 2.5 + x + 1),
    "sub:scalar": unary(lambda x: 2 - x - 0.5),
    "mul:scalar": unary(lambda x: 3 * x * 0.5),
    "div:scalar": unary(lambda x: 2.5 / x / 4, positive),
    "power:int": unary(lambda x: x**2 + x**3),
    "power:zero_one": unary(lambda x: x**0 + x**1),
    "power:float": unary(lambda x: x**0.5 + x**-1.5, positive),
    "power:rpow": unary(lambda x: 2.0**x),
    "pow": binary(lambda x, y: x.pow(y) + x.pow(2), (positive, normal)),
    "add:numpy": with_constant(lambda x, c: c + x, lambda x, c: c + x, normal, normal),
    "sub:numpy": with_constant(lambda x, c: c - x, lambda x, c: c - x, normal, normal),
    "mul:numpy": with_constant(lambda x, c: c * x, lambda x, c: c * x, normal, normal),
    "div:numpy": with_constant(lambda x, c: c / x, lambda x, c: c / x, positive, normal),
    "power:numpy": with_constant(lambda x, c: c**x, lambda x, c: c**x, normal, positive),
    # reductions
    "sum": reduction("sum", lambda t, d, k: t.sum(d, keepdim=k)),
    "mean": reduction("mean", lambda t, d, k: t.mean(d, keepdim=k)),
    "max": reduction("max", _max_or_amax("max")),
    "min": reduction("min", _max_or_amax("min")),
    "max:ties": reduction("max", _max_or_amax("max"), small_integers),
    "min:ties": reduction("min", _max_or_amax("min"), small_integers),
    "var": reduction("var", lambda t, d, k: t.var(d, correction=0, keepdim=k), ddof=0),
    "logsumexp": reduction("logsumexp", lambda t, d, k: t.logsumexp(d, keepdim=k)),
    # shape
    "reshape": one_input(_reshape),
    "transpose": one_input(_permute),
    "transpose:two_axes": one_input(_swap, min_dims=3),
    "transpose:T": one_input(_T),
    "squeeze": one_input(_squeeze),
    "unsqueeze": one_input(_unsqueeze),
    "broadcast_to": broadcast_to_case(),
    "sum_to": sum_to_case(),
    "getitem:basic": one_input(_slicing, min_dims=1),
    "getitem:integer_array": one_input(_integer_array, min_dims=1),
    "getitem:mask": one_input(_mask, min_dims=1),
    "concatenate": joined(mg.concatenate, torch.cat, new_axis=False),
    "stack": joined(mg.stack, torch.stack, new_axis=True),
    "matmul": matmul_case(),
    "astype": one_input(_cast),
}
# Ties, kinks and float32 rounding: no derivative for finite differences to approximate.
NOT_SMOOTH = {"relu:at_zero", "abs:at_zero", "maximum:ties", "minimum:ties", "max:ties",
              "min:ties", "astype", "sign"}  # fmt: skip


# -- results without a derivative: compared by value only ------------------------------------
def _compare(method):
    return binary(lambda x, y: getattr(x, method)(y), [small_integers] * 2)


@st.composite
def _integers(draw, fn, torch_fn, n):
    """Integer tensors made from the (viewed) float inputs, then ``fn`` on them."""
    views = draw(elementwise(lambda *xs: xs, lambda *xs: xs, [small_integers] * n))
    return Case(
        lambda *xs: fn(*[x.to(mg.int64) for x in views.mg_fn(*xs)]),
        lambda *ts: torch_fn(*[t.to(torch.int64) for t in views.torch_fn(*ts)]),
        views.arrays,
    )


for _name in ("lt", "le", "gt", "ge", "eq", "ne"):
    CASES[_name] = _compare(f"__{_name}__")
CASES["sign"] = unary(lambda x: x.sign(), small_integers)
CASES["logical_not"] = unary(lambda x: ~(x > 0), small_integers)
CASES["bitwise_and"] = _integers(lambda x, y: x & y, lambda x, y: x & y, 2)
CASES["bitwise_or"] = _integers(lambda x, y: x | y, lambda x, y: x | y, 2)
CASES["bitwise_not"] = _integers(lambda x: ~x, lambda x: ~x, 1)
CASES["bitwise_xor"] = _integers(lambda x, y: x ^ y, lambda x, y: x ^ y, 2)
CASES["bitwise_left_shift"] = _integers(lambda x, y: (x * 5) << (y + 1),
                                        lambda x, y: (x * 5) << (y + 1), 2)  # fmt: skip
CASES["bitwise_right_shift"] = _integers(lambda x, y: (x * 7) >> (y + 1),
                                         lambda x, y: (x * 7) >> (y + 1), 2)  # fmt: skip


def _permute_method(draw, shape):
    perm = tuple(draw(st.permutations(range(len(shape)))))
    return (lambda x: x.permute(*perm)), (lambda t: t.permute(perm))


CASES["permute"] = one_input(_permute_method)
NO_GRAD = {"lt", "le", "gt", "ge", "eq", "ne", "logical_not", "bitwise_and", "bitwise_or",
           "bitwise_not", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"}  # fmt: skip
FIRST_ORDER_ONLY: set[str] = set()


def _softmax(function, method=False):
    def build(draw, shape):
        axis = draw(st.integers(-len(shape), len(shape) - 1)) if shape else -1
        if method:  # x.softmax(dim), PyTorch's Tensor method
            return (lambda x: getattr(x, function)(axis)), (lambda t: getattr(t, function)(axis))
        mine = getattr(mg.nn.functional, function)
        theirs = getattr(torch, function)
        return (lambda x: mine(x, axis)), (lambda t: theirs(t, axis))

    return build


CASES["nn.functional.softmax"] = one_input(_softmax("softmax"))
CASES["nn.functional.log_softmax"] = one_input(_softmax("log_softmax"))
CASES["Tensor.softmax"] = one_input(_softmax("softmax", method=True))
CASES["Tensor.log_softmax"] = one_input(_softmax("log_softmax", method=True))
CASES["swapaxes"] = one_input(_swap, min_dims=3)
