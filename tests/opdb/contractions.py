"""Correctness-database rows: einsum and the products it names (see ``opdb/__init__.py``).

``einsum`` is drawn from a list of equations that covers each rule: a
contraction, a batch axis, an outer product, implicit output, a repeated
subscript (diagonal, trace), ``...`` with broadcast leading axes, a size-1
subscript that broadcasts, three operands, and size-0 axes.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.strategies import Case, _viewed, broadcast_shapes, inputs, normal, one_input

EQUATIONS = [
    "ij,jk->ik",  # matmul
    "ij,jk",  # implicit output: ik
    "bij,bjk->bik",  # a batch axis
    "i,i->",  # dot product
    "i,j->ij",  # outer product, no sum
    "ij,ij->ij",  # elementwise
    "ij->ji",  # a permutation
    "ijk->",  # a full sum
    "ijk->ki",  # a sum over one axis and a permutation
    "ii->i",  # a diagonal
    "ii",  # the trace (implicit output: nothing)
    "iij->j",  # a diagonal of the first two axes, summed
    "iji->ij",  # a repeated subscript apart
    "ab,bc,cd->ad",  # three operands
    "ab,b,cb->ac",  # three operands with a shared summed subscript
    "bi,bj->bij",  # a batched outer product
    "ij,i->j",  # a vector-matrix product
    "aB,Bc->ac",  # upper case subscripts
]


SIZES = st.integers(1, 3)


@st.composite
def _einsum(draw, sizes=SIZES):
    equation = draw(st.sampled_from(EQUATIONS))
    terms = equation.split("->")[0].split(",")
    size = {s: draw(sizes) for s in sorted(set("".join(terms)))}
    shapes = [tuple(size[s] for s in term) for term in terms]
    if draw(st.booleans()):  # one operand reads a subscript of size 1: it broadcasts
        k = draw(st.integers(0, len(shapes) - 1))
        if shapes[k]:
            i = draw(st.integers(0, len(shapes[k]) - 1))
            if terms[k].count(terms[k][i]) == 1:
                shapes[k] = (*shapes[k][:i], 1, *shapes[k][i + 1 :])
    arrays, views, _ = draw(inputs(shapes, [normal] * len(shapes)))
    return Case(
        _viewed(lambda *xs: mg.einsum(equation, *xs), views),
        _viewed(lambda *ts: torch.einsum(equation, *ts), views),
        arrays,
    )


@st.composite
def _einsum_ellipsis(draw):
    """``...`` on both operands: the leading axes broadcast (and may be empty)."""
    a_batch, b_batch = draw(broadcast_shapes(2)).input_shapes
    n, k, m = (draw(st.integers(1, 3)) for _ in range(3))
    equation = draw(st.sampled_from(["...ij,...jk->...ik", "...ij,...jk", "i...j,j->...i"]))
    if equation.startswith("i..."):
        shapes = [(n, *a_batch, k), (k,)]
    else:
        shapes = [(*a_batch, n, k), (*b_batch, k, m)]
    arrays, views, _ = draw(inputs(shapes, [normal, normal]))
    return Case(
        _viewed(lambda *xs: mg.einsum(equation, *xs), views),
        _viewed(lambda *ts: torch.einsum(equation, *ts), views),
        arrays,
    )


@st.composite
def _tensordot(draw):
    kind = draw(st.sampled_from(["int", "pairs"]))
    if kind == "int":
        dims = draw(st.integers(0, 2))
        shared = tuple(draw(st.integers(1, 3)) for _ in range(dims))
        a_shape = (*(draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 2)))), *shared)
        b_shape = (*shared, *(draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 2)))))
    else:
        a_shape = tuple(draw(st.integers(1, 3)) for _ in range(3))
        pairs = draw(st.integers(1, 2))
        ours = list(draw(st.permutations(range(3)))[:pairs])
        theirs = list(draw(st.permutations(range(pairs + 1)))[:pairs])
        b_shape = [draw(st.integers(1, 3)) for _ in range(pairs + 1)]
        for i, j in zip(ours, theirs):
            b_shape[j] = a_shape[i]
        b_shape = tuple(b_shape)
        dims = (ours, theirs)
    arrays, views, _ = draw(inputs([a_shape, b_shape], [normal, normal]))
    return Case(
        _viewed(lambda a, b: mg.tensordot(a, b, dims), views),
        _viewed(lambda a, b: torch.tensordot(a, b, dims), views),
        arrays,
    )


@st.composite
def _outer(draw):
    shapes = [(draw(st.integers(0, 3)),), (draw(st.integers(1, 3)),)]
    arrays, views, _ = draw(inputs(shapes, [normal, normal]))
    if draw(st.booleans()):
        return Case(_viewed(mg.outer, views), _viewed(torch.outer, views), arrays)
    return Case(
        _viewed(lambda a, b: a.outer(b), views), _viewed(lambda a, b: a.outer(b), views), arrays
    )


def _diag(draw, shape):
    offset = draw(st.integers(-3, 3))
    if draw(st.booleans()):
        return (lambda x: mg.diag(x, offset)), (lambda t: torch.diag(t, offset))
    return (lambda x: mg.diag(x, k=offset)), (lambda t: torch.diag(t, offset))


def _diagonal(draw, shape):
    ndim = len(shape)
    dim1, dim2 = draw(st.permutations(range(-ndim, 0)))[:2]
    offset = draw(st.integers(-3, 3))
    if draw(st.booleans()):
        mine = lambda x: mg.diagonal(x, offset, dim1, dim2)
    else:
        mine = lambda x: x.diagonal(offset=offset, dim1=dim1, dim2=dim2)
    return mine, (lambda t: torch.diagonal(t, offset, dim1, dim2))


def _trace(draw, shape):
    return (lambda x: x.trace()), (lambda t: t.trace())


def _triangle(name):
    def build(draw, shape):
        offset = draw(st.integers(-3, 3))
        spelling = draw(st.sampled_from(["method", "function", "k"]))
        if spelling == "method":
            mine = lambda x: getattr(x, name)(offset)
        elif spelling == "function":
            mine = lambda x: getattr(mg, name)(x, diagonal=offset)
        else:
            mine = lambda x: getattr(mg, name)(x, k=offset)
        return mine, (lambda t: getattr(torch, name)(t, offset))

    return build


CASES = {
    "einsum": _einsum(),
    "einsum:ellipsis": _einsum_ellipsis(),
    "einsum:empty": _einsum(st.integers(0, 2)),
    "tensordot": _tensordot(),
    "outer": _outer(),
    "diag": one_input(_diag, min_dims=1, max_dims=2),
    "diagonal": one_input(_diagonal, min_dims=2, max_dims=3),
    "trace": one_input(_trace, min_dims=2, max_dims=2),
    "tril": one_input(_triangle("tril"), min_dims=2),
    "triu": one_input(_triangle("triu"), min_dims=2),
}
NOT_SMOOTH: set[str] = set()
NO_GRAD: set[str] = set()
FIRST_ORDER_ONLY: set[str] = set()
