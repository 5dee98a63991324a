"""Correctness-database rows: one recurrent step, ``mg.rnn_tanh_cell`` ... ``mg.lstm_cell``.

Input ``(N, input_size)`` and states ``(N, hidden)`` with ``N`` and
``input_size`` from 0 to 3; the weights and (when drawn) the biases are
differentiated inputs too. See ``opdb/__init__.py``.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.strategies import Case, _viewed, inputs, normal

GATES = {"rnn_tanh_cell": 1, "rnn_relu_cell": 1, "gru_cell": 3, "lstm_cell": 4}


@st.composite
def cell_case(draw, name):
    n, features, hidden = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(1, 3))
    gates = GATES[name] * hidden
    states = 2 if name == "lstm_cell" else 1
    bias = draw(st.booleans())
    shapes = [(n, features)] + [(n, hidden)] * states + [(gates, features), (gates, hidden)]
    shapes += [(gates,), (gates,)] if bias else []
    arrays, views, _ = draw(inputs(shapes, [normal] * len(shapes)))

    def run(f, x, *rest):
        hx, rest = (tuple(rest[:2]), rest[2:]) if states == 2 else (rest[0], rest[1:])
        return f(x, hx, *rest)

    return Case(
        _viewed(lambda *xs: run(getattr(mg, name), *xs), views),
        _viewed(lambda *xs: run(getattr(torch, name), *xs), views),
        arrays,
    )


CASES = {name: cell_case(name) for name in GATES}
NOT_SMOOTH = {"rnn_relu_cell"}  # relu's kink
NO_GRAD: set[str] = set()
FIRST_ORDER_ONLY: set[str] = set()
