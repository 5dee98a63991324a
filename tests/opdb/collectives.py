"""Collectives over a named vmap axis (lesson 18), read the three ways of their rows.

Each case maps a function over one axis of its input, named ``"i"``, and runs
a collective across it. PyTorch's side is the same computation written on the
whole batch at once (the mapped axis moved to the front): a sum over the
examples for ``psum``, a stack for ``all_gather``, and so on, as JAX defines
them.

The gradient of such a case, taken from outside the vmap, walks the batch
rules' operations; the rows' own transposes run when the derivative is taken
*inside* the vmap. So each collective has three keys:

- ``"psum"``: the collective itself;
- ``"psum:vjp"``: ``vjp`` of it inside the vmap, fed a batched cotangent, which
  runs the row's transpose (all_reduce's is all_reduce, all_gather's is
  reduce_scatter, broadcast's is reduce, ...); PyTorch's side is
  ``torch.func.vjp`` of the whole-batch function;
- ``"psum:jvp"``: ``jvp`` inside the vmap, which runs the collective on the
  tangents; PyTorch's side is ``torch.func.jvp``.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.strategies import Case, _viewed, inputs, normal


@st.composite
def _named(draw, build, reading):
    """A case: ``build(draw, n) -> (rest, mg_op, torch_op)`` mapped over an axis of size n."""
    n = draw(st.integers(1, 3))
    rest, mg_op, torch_op = build(draw, n)
    a = draw(st.integers(0, len(rest)))  # where the mapped axis lies in the input
    shape = (*rest[:a], n, *rest[a:])
    whole = lambda t: torch_op(t.movedim(a, 0))
    if reading == "value":
        arrays, views, _ = draw(inputs([shape], [normal]))
        mg_fn = lambda x: mg.vmap(mg_op, in_axes=a, axis_name="i")(x)
        return Case(_viewed(mg_fn, views), _viewed(whole, views), arrays)
    if reading == "vjp":
        out_shape = tuple(whole(torch.zeros(shape, dtype=torch.float64)).shape)
        arrays, views, _ = draw(inputs([shape, out_shape], [normal, normal]))

        def mg_fn(x, c):
            inside = lambda r, cr: mg.vjp(mg_op, r)[1](cr)[0]
            return mg.vmap(inside, in_axes=(a, 0), axis_name="i")(x, c)

        torch_fn = lambda t, c: torch.func.vjp(whole, t)[1](c)[0].movedim(a, 0)
        return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)
    arrays, views, _ = draw(inputs([shape, shape], [normal, normal]))

    def mg_fn(x, v):
        inside = lambda r, vr: mg.jvp(mg_op, (r,), (vr,))[1]
        return mg.vmap(inside, in_axes=(a, a), axis_name="i")(x, v)

    # (torch.func.jvp refuses a tangent that is a stride-0 view: contiguous copies.)
    torch_fn = lambda t, v: torch.func.jvp(whole, (t.contiguous(),), (v.contiguous(),))[1]
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


def _rest(draw, min_dims=0):
    return tuple(draw(st.lists(st.integers(1, 3), min_size=min_dims, max_size=2)))


def _psum(draw, n):
    return _rest(draw), (lambda r: mg.psum(r, "i")), (lambda u: u.sum(0, True).expand(u.shape))


def _psum_product(draw, n):  # not linear: second derivatives run the transposes too
    return (
        _rest(draw),
        lambda r: mg.psum(r * r, "i") * r,
        lambda u: (u * u).sum(0, True) * u,
    )


def _pmean(draw, n):
    return _rest(draw), (lambda r: mg.pmean(r, "i")), (lambda u: u.mean(0, True).expand(u.shape))


def _all_gather(draw, n):
    rest = _rest(draw)
    axis = draw(st.integers(0, len(rest)))

    def theirs(u):
        v = u.movedim(0, axis)
        return v.unsqueeze(0).expand(n, *v.shape)

    return rest, (lambda r: mg.all_gather(r, "i", axis=axis)), theirs


def _all_gather_tiled(draw, n):
    rest = _rest(draw, min_dims=1)
    axis = draw(st.integers(0, len(rest) - 1))

    def theirs(u):
        v = u.movedim(0, axis)
        merged = (*rest[:axis], n * rest[axis], *rest[axis + 1 :])
        return v.reshape(merged).unsqueeze(0).expand(n, *merged)

    return rest, (lambda r: mg.all_gather(r, "i", axis=axis, tiled=True)), theirs


def _psum_scatter(draw, n):
    rest = list(_rest(draw))
    dim = draw(st.integers(0, len(rest)))
    rest.insert(dim, n)
    mine = lambda r: mg.psum_scatter(r, "i", scatter_dimension=dim)
    return tuple(rest), mine, lambda u: u.sum(0).movedim(dim, 0)


def _psum_scatter_tiled(draw, n):
    rest = list(_rest(draw))
    dim = draw(st.integers(0, len(rest)))
    m = draw(st.integers(1, 2))
    rest.insert(dim, n * m)

    def theirs(u):
        s = u.sum(0)
        s = s.reshape((*s.shape[:dim], n, m, *s.shape[dim + 1 :]))
        return s.movedim(dim, 0)

    mine = lambda r: mg.psum_scatter(r, "i", scatter_dimension=dim, tiled=True)
    return tuple(rest), mine, theirs


def _all_to_all(draw, n):
    rest = list(_rest(draw))
    split = draw(st.integers(0, len(rest)))
    rest.insert(split, n)
    concat = draw(st.integers(0, len(rest) - 1))
    # example j, at position k of concat_axis, gets example k's j-th piece along split_axis
    theirs = lambda u: u.movedim(split + 1, 0).movedim(1, concat + 1)
    return tuple(rest), (lambda r: mg.all_to_all(r, "i", split, concat)), theirs


def _pbroadcast(draw, n):
    source = draw(st.integers(0, n - 1))
    mine = lambda r: mg.pbroadcast(r, "i", source)
    return _rest(draw), mine, lambda u: u[source].unsqueeze(0).expand(u.shape)


BUILDS = {
    "psum": _psum,
    "psum:product": _psum_product,
    "pmean": _pmean,
    "all_gather": _all_gather,
    "all_gather:tiled": _all_gather_tiled,
    "psum_scatter": _psum_scatter,
    "psum_scatter:tiled": _psum_scatter_tiled,
    "all_to_all": _all_to_all,
    "pbroadcast": _pbroadcast,
}
CASES = {}
for _key, _build in BUILDS.items():
    CASES[_key] = _named(_build, "value")
    _sep = "-" if ":" in _key else ":"
    CASES[f"{_key}{_sep}vjp"] = _named(_build, "vjp")
    CASES[f"{_key}{_sep}jvp"] = _named(_build, "jvp")
NOT_SMOOTH: set[str] = set()
NO_GRAD: set[str] = set()
