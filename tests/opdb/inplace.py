"""In-place operations (issue 12): recorded on a non-leaf, so differentiable like any op.

Each case changes a fresh non-leaf (``x * 1.0``) in place and returns it: the
gradients reach ``x`` through the rebased history and the other operand
through the in-place op's own record, and must equal PyTorch's.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

from opdb.strategies import Case, _viewed, broadcast_shapes, inputs, normal, positive


def _changed(method, *args, **kwargs):
    """``x * 1.0`` changed in place by ``method`` (a non-leaf, so the change is recorded)."""

    def run(x, *others):
        y = x * 1.0
        getattr(y, method)(*others, *args, **kwargs)
        return y

    return run


@st.composite
def inplace_binary(draw, method, domain=normal, **kwargs):
    """``x.method(y)`` where ``y`` broadcasts to ``x``'s shape (in place cannot grow ``x``)."""
    shapes = draw(broadcast_shapes(2))
    arrays, views, _ = draw(inputs([shapes.result_shape, shapes.input_shapes[1]],
                                   [normal, domain]))  # fmt: skip
    fn = _changed(method, **kwargs)
    return Case(_viewed(fn, views), _viewed(fn, views), arrays)


@st.composite
def setitem_case(draw):
    """``y = x * 1.0; y[index] = v`` for a basic, integer-array or mask index."""
    n, m = draw(st.integers(2, 4)), draw(st.integers(1, 3))
    kind = draw(st.sampled_from(["slice", "column", "integers", "mask", "broadcast"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rows = rng.permutation(n)[: draw(st.integers(1, n))]  # distinct: each written once
    mask = rng.random((n, m)) < 0.5
    index, v_shape = {
        "slice": ((slice(1, None), slice(None)), (n - 1, m)),
        "column": ((slice(None), 0), (n,)),
        "integers": (rows, (len(rows), m)),
        "mask": (mask, (int(mask.sum()),)),
        "broadcast": ((slice(None, None, 2),), (m,)),
    }[kind]
    arrays, views, _ = draw(inputs([(n, m), v_shape], [normal, normal]))

    def put(lib_index):
        def run(x, v):
            y = x * 1.0
            y[lib_index] = v
            return y

        return run

    t_index = torch.from_numpy(index) if isinstance(index, np.ndarray) else index
    return Case(_viewed(put(index), views), _viewed(put(t_index), views), arrays)


@st.composite
def clamp_case(draw):
    shape = draw(broadcast_shapes(1)).input_shapes[0]
    arrays, views, _ = draw(inputs([shape], [normal]))
    fn = _changed("clamp_", -0.5, 0.7)
    return Case(_viewed(fn, views), _viewed(fn, views), arrays)


CASES = {
    "Tensor.__setitem__": setitem_case(),
    "Tensor.add_": inplace_binary("add_"),
    "Tensor.add_:alpha": inplace_binary("add_", alpha=-2.5),
    "Tensor.sub_": inplace_binary("sub_"),
    "Tensor.mul_": inplace_binary("mul_"),
    "Tensor.div_": inplace_binary("div_", positive),
    "Tensor.copy_": inplace_binary("copy_"),
    "Tensor.clamp_": clamp_case(),
}
NOT_SMOOTH = {"Tensor.clamp_"}
NO_GRAD: set[str] = set()
