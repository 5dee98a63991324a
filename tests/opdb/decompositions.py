"""Correctness-database rows: the singular value decomposition and the norms made of it.

Not run in float16 or bfloat16: LAPACK has no 16-bit routines, and PyTorch and
minigrad both refuse them (``tests/tensor/test_decompositions.py`` checks the refusal).
Every case draws matrices whose singular values are distinct and nonzero (see
``_separated``); the singular vectors are compared through what does not depend on
their signs.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from opdb.strategies import Case, _viewed, inputs, normal


@st.composite
def _separated(draw, build, pair=lambda draw, ndim: (-2, -1)):
    """A case on matrices (the axes ``pair`` draws) whose singular values are distinct and
    nonzero, in any layout. Where two are equal (a stride-0 view makes a matrix of rank 1)
    the singular vectors are any basis of a plane, so the LAPACK library picks them,
    and with them the slopes: PyTorch's and NumPy's libraries pick differently."""
    shape = draw(hnp.array_shapes(min_dims=2, max_dims=3, max_side=3))
    arrays, views, _ = draw(inputs([shape], [normal]))
    dims = pair(draw, len(shape))
    matrices = torch.movedim(views[0](torch.from_numpy(arrays[0])), dims, (-2, -1))
    values = np.linalg.svd(matrices.numpy(), compute_uv=False)
    assume(values.min() > 0.05 and (-np.diff(values, axis=-1) > 0.05).all())
    mg_fn, torch_fn = build(draw, dims)
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


def _any_pair(draw, ndim):
    return tuple(draw(st.permutations(range(ndim)))[:2])


def _singular_norm(name):
    """matrix_norm or linalg.norm with an order made of singular values."""

    def build(draw, dims):
        ord = draw(st.sampled_from(["nuc", 2, -2]))
        keep = draw(st.booleans())
        return (
            lambda x: getattr(mg.linalg, name)(x, ord, dims, keepdim=keep),
            lambda t: getattr(torch.linalg, name)(t, ord, dims, keepdim=keep),
        )

    return build


def _svdvals(draw, dims):
    return (lambda x: mg.linalg.svdvals(x)), (lambda t: torch.linalg.svdvals(t))


def _svd(draw, dims):
    """The factors through what does not depend on LAPACK's choice of signs: ``U diag(S) Vh``
    and the squares of the first k singular vectors (the rest of a full basis is any basis)."""
    full = draw(st.booleans())

    def seen(U, S, Vh):
        k = S.shape[-1]
        u, vh = U[..., :k], Vh[..., :k, :]
        return (u * S.unsqueeze(-2)) @ vh, u * u, vh * vh, S

    return (
        lambda x: seen(*mg.linalg.svd(x, full_matrices=full)),
        lambda t: seen(*torch.linalg.svd(t, full_matrices=full)),
    )


CASES = {
    "linalg.matrix_norm:singular": _separated(_singular_norm("matrix_norm"), _any_pair),
    "linalg.norm:singular": _separated(_singular_norm("norm"), _any_pair),
    "linalg.svdvals": _separated(_svdvals),
    "linalg.svd": _separated(_svd),
}
NOT_SMOOTH: set[str] = set()
NO_GRAD: set[str] = set()
