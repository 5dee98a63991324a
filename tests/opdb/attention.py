"""Correctness-database rows: ``scaled_dot_product_attention`` (see ``opdb/__init__.py``).

Query, key and value are drawn with mutually broadcastable batch axes (size
0 and 1 included), ``L`` and ``S`` from 0 to 4. Masks are constants closed
over by both functions (boolean, with some rows fully masked, or additive
with ``-inf`` entries), except in the ``:float_mask_grad`` row, where an
additive mask is a differentiated input (the reference composition runs).
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from opdb.strategies import Case, _viewed, inputs, normal

F = mg.nn.functional
TF = torch.nn.functional


def _constant(array, like):
    if isinstance(like, torch.Tensor):
        return torch.from_numpy(array).to(like.dtype if array.dtype != np.bool_ else torch.bool)
    return mg.tensor(array, dtype=like.dtype if array.dtype != np.bool_ else mg.bool_)


@st.composite
def attention_case(draw, mask=None, causal=False, mask_grad=False, scale=False):
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=2,
                                                   min_side=0, max_side=3))  # fmt: skip
    length, keys = draw(st.integers(0, 4)), draw(st.integers(0, 4))
    e, ev = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    qb, kb, vb = batch.input_shapes
    whole = batch.result_shape
    if 0 in whole or 0 in (length, keys):
        # Empty inputs of different ranks get shapes from PyTorch that follow no one rule
        # (its empty-input shortcuts differ by kernel): empty cases share their batch axes.
        qb = kb = vb = whole
    # A mask broadcasts into the batch of q @ k.T (a suffix, some axes 1), never enlarges it.
    whole = np.broadcast_shapes(qb, kb)
    mb = tuple(n if draw(st.booleans()) else 1 for n in whole[len(whole) - draw(
        st.integers(0, len(whole))):])  # fmt: skip
    shapes = [(*qb, length, e), (*kb, keys, e), (*vb, keys, ev)]
    mask_shape = (*mb, *draw(st.sampled_from([(length, keys), (1, keys), (length, 1)])))
    if mask_grad:
        shapes.append(mask_shape)
    arrays, views, rng = draw(inputs(shapes, [normal] * len(shapes)))
    options = {"is_causal": causal}
    if scale:
        options["scale"] = draw(st.sampled_from([0.3, 1.0, 2.5]))
    constant = None
    if mask == "bool":
        constant = rng.random(mask_shape) > 0.3
    elif mask == "float":
        constant = np.where(rng.random(mask_shape) > 0.2, rng.standard_normal(mask_shape), -np.inf)

    def run(sdpa, q, k, v, *given):
        m = given[0] if given else None if constant is None else _constant(constant, q)
        return sdpa(q, k, v, attn_mask=m, **options)

    return Case(
        _viewed(lambda *xs: run(F.scaled_dot_product_attention, *xs), views),
        _viewed(lambda *xs: run(TF.scaled_dot_product_attention, *xs), views),
        arrays,
    )


CASES = {
    "nn.functional.scaled_dot_product_attention": attention_case(scale=True),
    "nn.functional.scaled_dot_product_attention:causal": attention_case(causal=True),
    "nn.functional.scaled_dot_product_attention:bool_mask": attention_case(mask="bool"),
    "nn.functional.scaled_dot_product_attention:float_mask": attention_case(mask="float"),
    "nn.functional.scaled_dot_product_attention:float_mask_grad": attention_case(mask_grad=True),
}
NOT_SMOOTH: set[str] = set()
NO_GRAD: set[str] = set()
FIRST_ORDER_ONLY: set[str] = set()
