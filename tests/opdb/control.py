"""Correctness-database rows: control flow in graphs (lesson 16, issue 26).

``scan``, ``cond``, ``while_loop`` and ``fori_loop`` against the same loop or
branch written in PyTorch (an unrolled Python loop, an ``if``). Each
runs three ways: as written (outside a trace, plain Python), and under
``mg.jit`` (the ``:jit`` keys), where it is one operation of a traced graph;
every oracle of the database then reads that operation's rules (reverse mode
through ``scan``'s reversed scan, forward mode through the body's jvp, the
batch rule inside ``vmap``). Inputs are random views, with scans of 0, 1 and
several steps.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.strategies import Case, _viewed, inputs, normal


def _rnn_step(lib):
    def step(h, xw):
        x, w = xw
        new = lib.tanh(h @ w + x)
        return new, new * x

    return step


def _mg_scan(reverse: bool, jitted: bool):
    def fn(h, xs, w):
        step = _rnn_step(mg)
        return mg.scan(lambda c, x: step(c, (x, w)), h, xs, reverse=reverse)

    return mg.jit(fn) if jitted else fn


def _torch_scan(reverse: bool):
    def fn(h, xs, w):
        step = _rnn_step(torch)
        order = range(xs.shape[0] - 1, -1, -1) if reverse else range(xs.shape[0])
        ys = [None] * xs.shape[0]
        for t in order:
            h, ys[t] = step(h, (xs[t], w))
        return h, torch.stack(ys) if ys else xs.new_zeros((0, *h.shape))

    return fn


@st.composite
def _scan(draw, reverse=False, jitted=False):
    n = draw(st.integers(1, 3))
    steps = draw(st.integers(0, 3))
    arrays, views, _ = draw(inputs([(n,), (steps, n), (n, n)], [normal] * 3))
    return Case(
        _viewed(_mg_scan(reverse, jitted), views), _viewed(_torch_scan(reverse), views), arrays
    )


def _branches(lib):
    return (lambda a, b: (lib.exp(a) * b).sum(dim=-1), lambda a, b: (lib.sin(a) - b).sum(dim=-1))


def _mg_cond(jitted: bool):
    yes, no = _branches(mg)

    def fn(x, y):
        return mg.cond(x.sum() > 0, yes, no, x, y)

    return mg.jit(fn) if jitted else fn


def _torch_cond(x, y):
    # Python's if, not torch.cond: torch.cond's second derivatives come back as zeros
    # (torch 2.13), and torch.func.vmap cannot batch this if, so the oracles loop over
    # examples. tests/compile/test_control_flow.py compares with torch.cond itself.
    yes, no = _branches(torch)
    return yes(x, y) if bool(x.sum() > 0) else no(x, y)


@st.composite
def _cond(draw, jitted=False):
    shape = draw(st.sampled_from([(3,), (2, 3), (1,), (0,)]))
    arrays, views, _ = draw(inputs([shape, shape], [normal, normal]))
    return Case(_viewed(_mg_cond(jitted), views), _viewed(_torch_cond, views), arrays)


def _mg_fori(jitted: bool):
    def fn(x, w):
        return mg.fori_loop(0, 3, lambda i, v: (v * w + i).tanh(), x)

    return mg.jit(fn) if jitted else fn


def _torch_fori(x, w):
    for i in range(3):
        x = torch.tanh(x * w + i)
    return x


@st.composite
def _fori(draw, jitted=False):
    shape = draw(st.sampled_from([(3,), (2, 2), ()]))
    arrays, views, _ = draw(inputs([shape, shape], [normal, normal]))
    return Case(_viewed(_mg_fori(jitted), views), _viewed(_torch_fori, views), arrays)


def _mg_while(jitted: bool):
    # Doubles until the sum is past 4: how many steps depends on the values.
    def fn(x):
        return mg.while_loop(lambda v: v.abs().sum() < 4, lambda v: v * 2, x)

    return mg.jit(fn) if jitted else fn


def _torch_while(x):
    while bool(x.abs().sum() < 4):
        x = x * 2
    return x


@st.composite
def _while(draw, jitted=False):
    shape = draw(st.sampled_from([(3,), (2, 2), ()]))
    arrays, views, _ = draw(inputs([shape], [lambda rng, s: normal(rng, s) + 0.5]))
    return Case(_viewed(_mg_while(jitted), views), _viewed(_torch_while, views), arrays)


CASES = {
    "scan": _scan(),
    "scan:reverse": _scan(reverse=True),
    "scan:jit": _scan(jitted=True),
    "scan:jit_reverse": _scan(reverse=True, jitted=True),
    "cond": _cond(),
    "cond:jit": _cond(jitted=True),
    "fori_loop": _fori(),
    "fori_loop:jit": _fori(jitted=True),
    "while_loop": _while(),
    "while_loop:jit": _while(jitted=True),
}
NOT_SMOOTH: set[str] = set()
# A while loop has no reverse mode (its trip count is known only once it ran): values only.
NO_GRAD = {"while_loop", "while_loop:jit"}
FIRST_ORDER_ONLY: set[str] = set()
