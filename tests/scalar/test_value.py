"""The scalar layer: Value (reverse mode) and Dual (forward mode) against PyTorch in float64.

Random expression programs are drawn by hypothesis: leaves, then steps that
apply ``+ - * / **``, unary minus and ``relu tanh exp log sigmoid`` to earlier
nodes (so nodes are reused: fan-out) or to a plain number on either side.
Each step's domain is checked on the Value result as the program is drawn
(log and fractional powers of positive numbers, no division near 0, relu away
from its kink, bounded magnitudes); the same program is then replayed on
PyTorch tensors and on Dual numbers.
"""

import gc
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
from minigrad.graph import topological_order
from minigrad.scalar import Dual, Value, zero_grad

ROOT = Path(__file__).resolve().parents[2]

# name -> (f(a), domain check on a's number)
UNARY = {
    "neg": (lambda a: -a, lambda a: True),
    "relu": (lambda a: a.relu(), lambda a: abs(a) > 1e-3),
    "tanh": (lambda a: a.tanh(), lambda a: True),
    "exp": (lambda a: a.exp(), lambda a: a < 4.0),
    "log": (lambda a: a.log(), lambda a: a > 0.1),
    "sigmoid": (lambda a: a.sigmoid(), lambda a: True),
    "square": (lambda a: a**2, lambda a: True),
    "cube": (lambda a: a**3, lambda a: True),
}
# name -> (f(a, b), domain check on the numbers a, b); b is a node or a plain number
BINARY = {
    "add": (lambda a, b: a + b, lambda a, b: True),
    "radd": (lambda a, b: b + a, lambda a, b: True),
    "sub": (lambda a, b: a - b, lambda a, b: True),
    "rsub": (lambda a, b: b - a, lambda a, b: True),
    "mul": (lambda a, b: a * b, lambda a, b: True),
    "rmul": (lambda a, b: b * a, lambda a, b: True),
    "div": (lambda a, b: a / b, lambda a, b: abs(b) > 0.1),
    "rdiv": (lambda a, b: b / a, lambda a, b: abs(a) > 0.1),
    "pow": (lambda a, b: a**b, lambda a, b: a > 0.1 and abs(b) <= 3.0),
    "rpow": (lambda a, b: b**a, lambda a, b: b > 0.1 and abs(a) <= 3.0),
}
numbers = st.floats(-3.0, 3.0, allow_nan=False)


def apply(step, nodes):
    name, i, other = step
    if name in UNARY:
        return UNARY[name][0](nodes[i])
    b = nodes[other[1]] if other[0] == "node" else other[1]
    return BINARY[name][0](nodes[i], b)


def run(program, leaves):
    """Replay a program on leaf nodes of any engine; returns every node and their sum."""
    nodes = list(leaves)
    for step in program:
        nodes.append(apply(step, nodes))
    out = nodes[0]
    for node in nodes[1:]:
        out = out + node
    return nodes, out


@st.composite
def programs(draw):
    """(leaf numbers, steps): each step (name, operand index, other operand)."""
    xs = draw(st.lists(numbers, min_size=1, max_size=4))
    values = [Value(x) for x in xs]
    program = []
    for _ in range(draw(st.integers(1, 14))):
        i = draw(st.integers(0, len(values) - 1))
        a = values[i]
        name = draw(st.sampled_from(sorted(UNARY) + sorted(BINARY)))
        if name in UNARY:
            other, ok = None, UNARY[name][1](a.data)
        else:
            if draw(st.booleans()):
                other = ("node", draw(st.integers(0, len(values) - 1)))
                b_number = values[other[1]].data
            else:
                other = ("number", draw(numbers))
                b_number = other[1]
            ok = BINARY[name][1](a.data, b_number)
        if not ok:
            continue
        result = apply((name, i, other), values)
        if abs(result.data) > 50.0:  # keep magnitudes tame, so tolerances can stay tight
            continue
        values.append(result)
        program.append((name, i, other))
    return xs, program


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


@given(programs())
def test_values_and_grads_match_pytorch(case):
    xs, program = case
    nodes, out = run(program, [Value(x) for x in xs])
    out.backward()

    leaves = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    t_nodes, t_out = run(program, leaves)
    for t in t_nodes[len(xs) :]:
        t.retain_grad()
    t_out.backward()

    assert close(out.data, t_out.item())
    for node, t in zip(nodes, t_nodes):
        assert close(node.data, t.item()), (program, node.data, t.item())
        assert close(node.grad, t.grad.item()), (program, node.grad, t.grad.item())


@given(programs())
def test_dual_tangents_equal_value_grads(case):
    xs, program = case
    nodes, out = run(program, [Value(x) for x in xs])
    out.backward()
    for k in range(len(xs)):
        seeded = [Dual(x, 1.0 if j == k else 0.0) for j, x in enumerate(xs)]
        _, dual_out = run(program, seeded)
        assert close(dual_out.primal, out.data)
        assert close(dual_out.tangent, nodes[k].grad), (program, k)


def test_backward_twice_doubles_every_grad():
    a, b = Value(1.5), Value(-2.0)
    c = a * b
    d = (c + a).tanh() * c  # c and a are used twice
    d.backward()
    first = [n.grad for n in (a, b, c, d)]
    d.backward()
    assert [n.grad for n in (a, b, c, d)] == [2 * g for g in first]
    assert first[-1] == 1.0


def test_fan_out_sums_the_paths():
    a = Value(3.0)
    b = a * a + a  # three uses of a
    b.backward()
    assert a.grad == 2 * 3.0 + 1


def test_backward_adds_to_grads_already_there():
    a = Value(2.0)
    a.grad = 10.0
    (a * a).backward()
    assert a.grad == 14.0


def test_manual_backward_with_underscore_backward_matches_backward():
    a, b = Value(2.0), Value(-3.0)
    out = (a * b + b.exp()).sigmoid()
    out.grad = 1.0
    for node in reversed(topological_order(out)):
        node._backward()
    by_hand = (a.grad, b.grad)
    zero_grad(out)
    out.backward()
    assert by_hand == (a.grad, b.grad)


def test_micrograd_names():
    a = Value(2.0, label="a")
    b = Value(3)
    c = a * b
    assert (a.data, a.grad, a.label, a._op, a._prev) == (2.0, 0.0, "a", "", set())
    assert isinstance(b.data, float) and isinstance(b.grad, float)
    assert c._op == "*" and c._prev == {a, b}
    assert (a**2)._op == "**2" and (a + 1)._op == "+" and a.relu()._op == "relu"
    assert repr(c) == "Value(data=6.0, grad=0.0)"
    assert repr(a) == "Value(data=2.0, grad=0.0, label='a')"


def test_zero_grad_clears_the_whole_graph():
    a, b = Value(2.0), Value(4.0)
    c = a * b
    d = c + a
    d.backward()
    d.zero_grad()
    assert [n.grad for n in (a, b, c, d)] == [0.0] * 4
    d.backward()
    mg.zero_grad([d])
    assert [n.grad for n in (a, b, c, d)] == [0.0] * 4


def test_numpy_scalars_are_numbers():
    a = Value(np.float32(2.0))
    b = a * np.float64(3.0) + np.int64(1)
    assert type(a.data) is float and b.data == 7.0


@pytest.mark.parametrize("bad", ["abc", None, [1.0], 1j])
def test_value_of_a_non_number_names_the_type(bad):
    with pytest.raises(
        TypeError, match=rf"Value\(\) expects a real number .*got {type(bad).__name__}"
    ):
        Value(bad)


@pytest.mark.parametrize(
    ("op", "symbol"),
    [
        (lambda a: a + "abc", r"\+"),
        (lambda a: "abc" - a, "-"),
        (lambda a: a * None, r"\*"),
        (lambda a: a / "x", "/"),
        (lambda a: a ** "x", r"\*\*"),
    ],
)
def test_arithmetic_with_a_non_number_names_the_types(op, symbol):
    # Python's own message, which is also PyTorch's for tensors.
    with pytest.raises(TypeError, match=rf"unsupported operand type\(s\) for {symbol}"):
        op(Value(1.0))


def test_children_need_partials():
    with pytest.raises(ValueError, match="one local derivative per child"):
        Value(1.0, (Value(2.0),), "f")


EDGE_CASES = [
    ("1/0", lambda a, b: a / b, 1.0, 0.0),
    ("0/0", lambda a, b: a / b, 0.0, 0.0),
    ("log 0", lambda a, b: a.log() * b, 0.0, 1.0),
    ("log -1", lambda a, b: a.log() * b, -1.0, 1.0),
    ("exp big", lambda a, b: a.exp() * b, 1000.0, 1.0),
    ("sigmoid -big", lambda a, b: a.sigmoid() * b, -1000.0, 1.0),
    ("0 ** 2", lambda a, b: a**b, 0.0, 2.0),
    ("0 ** 0", lambda a, b: a**b, 0.0, 0.0),
    ("0 ** -1", lambda a, b: a**b, 0.0, -1.0),
    ("-0 ** -1", lambda a, b: a**b, -0.0, -1.0),
    ("-2 ** 2", lambda a, b: a**b, -2.0, 2.0),
    ("-8 ** 1/3", lambda a, b: a**b, -8.0, 1 / 3),
    ("10 ** 400", lambda a, b: a**b, 10.0, 400.0),
    ("-10 ** 401", lambda a, b: a**b, -10.0, 401.0),
    ("relu 0", lambda a, b: a.relu() * b, 0.0, 1.0),
    # nan in, nan out, for every function of one variable (relu once returned 0)
    ("relu nan", lambda a, b: a.relu() * b, math.nan, 1.0),
    ("tanh nan", lambda a, b: a.tanh() * b, math.nan, 1.0),
    ("exp nan", lambda a, b: a.exp() * b, math.nan, 1.0),
    ("log nan", lambda a, b: a.log() * b, math.nan, 1.0),
    ("sigmoid nan", lambda a, b: a.sigmoid() * b, math.nan, 1.0),
]


def same(x: float, y: float) -> bool:
    return (math.isnan(x) and math.isnan(y)) or x == y or close(x, y)


@pytest.mark.parametrize(("name", "f", "x", "y"), EDGE_CASES, ids=[c[0] for c in EDGE_CASES])
def test_ieee_edge_cases_follow_pytorch(name, f, x, y):
    a, b = Value(x), Value(y)
    out = f(a, b)
    out.backward()
    ta, tb = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (x, y))
    t_out = f(ta, tb)
    t_out.backward()
    assert same(out.data, t_out.item()), (out.data, t_out.item())
    assert same(a.grad, ta.grad.item()), (a.grad, ta.grad.item())
    assert same(b.grad, tb.grad.item()), (b.grad, tb.grad.item())


@pytest.mark.parametrize("name", ["relu", "tanh", "exp", "log", "sigmoid"])
def test_a_nan_passes_through_both_readings_of_the_table(name):
    a = Value(math.nan)
    out = getattr(a, name)()
    out.backward()
    dual_out = getattr(Dual(math.nan, 1.0), name)()
    assert math.isnan(out.data) and math.isnan(dual_out.primal)
    assert same(dual_out.tangent, a.grad), (dual_out.tangent, a.grad)


def test_dual_basics():
    x = Dual(2.0, 1.0)
    y = 3 / x + 2**x - (1 - x) * x.exp()
    assert y.primal == 3 / 2 + 4 - (1 - 2) * math.exp(2)
    assert close(y.tangent, -3 / 4 + 4 * math.log(2) + math.exp(2) + (2 - 1) * math.exp(2))
    assert repr(Dual(1.0)) == "Dual(primal=1.0, tangent=0.0)"
    with pytest.raises(TypeError, match=r"Dual.*got str"):
        Dual("1")
    with pytest.raises(TypeError, match="unsupported operand"):
        Dual(1.0) + "a"
    assert mg.Dual is Dual


CHAIN_SCRIPT = """
import gc, math, sys, time
sys.path.insert(0, sys.argv[1])
from minigrad.scalar import Value
gc.collect()
gc.disable()  # only reference counting may free the chain
start = time.perf_counter()
x = Value(1.0)
y = x
for _ in range(1_000_000):
    y = y * 1.000001
y.backward()
assert math.isclose(x.grad, 1.000001 ** 1_000_000, rel_tol=1e-8), x.grad
assert math.isclose(y.data, x.grad, rel_tol=1e-8)
del y
print("cyclic garbage:", gc.collect())
print("seconds:", round(time.perf_counter() - start, 2))
"""


def test_a_chain_of_a_million_nodes_backprops_and_frees():
    # In a child process: a crash while freeing the chain must fail this test,
    # not the test run.
    done = subprocess.run(
        [sys.executable, "-c", CHAIN_SCRIPT, str(ROOT)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "cyclic garbage: 0" in done.stdout, done.stdout


def test_a_graph_needs_no_garbage_collector():
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        a = Value(1.0)
        out = ((a * 2 + 1).tanh() ** 2 / a).log()
        out.backward()
        del a, out
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
