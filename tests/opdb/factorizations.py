"""Correctness-database rows: the symmetric eigendecomposition and the QR decomposition.

Not run in float16 or bfloat16: LAPACK has no 16-bit routines, and PyTorch and
minigrad both refuse them (``tests/tensor/test_factorizations.py`` checks the refusals).
Eigenvectors are compared through what does not depend on their signs (LAPACK
libraries choose them differently, see ``minigrad/tensor/ops/factorizations.py``), on
matrices whose eigenvalues are at least 0.1 apart; QR factors are compared as they
are (Householder's signs are the same in every LAPACK), on matrices of full rank.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from opdb.strategies import Case, _viewed, inputs, normal


def _batch(draw):
    return draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=0, max_side=2))


@st.composite
def _eigh(draw, values_only=False):
    """``(X + X^T) / 2`` in any layout, either triangle read, eigenvalues apart."""
    n = draw(st.integers(0, 4))
    uplo = draw(st.sampled_from(["L", "U"]))
    arrays, views, _ = draw(inputs([(*_batch(draw), n, n)], [normal]))
    matrices = views[0](torch.from_numpy(arrays[0])).numpy()
    if n > 1:
        values = np.linalg.eigvalsh(matrices + matrices.swapaxes(-1, -2))
        assume(values.size == 0 or (np.diff(values, axis=-1) > 0.2).all())

    def seen(lib):
        def run(x):
            a = (x + x.mT) / 2
            if values_only:
                return lib.linalg.eigvalsh(a, UPLO=uplo)
            L, V = lib.linalg.eigh(a, UPLO=uplo)
            return L, V * V, (V * L.unsqueeze(-2)) @ V.mT

        return run

    return Case(_viewed(seen(mg), views), _viewed(seen(torch), views), arrays)


@st.composite
def _qr(draw, differentiable=True):
    """Full-rank matrices (each leading square block too), every mode; the modes without
    a derivative (``"r"``, ``"complete"`` of a tall matrix) in ``linalg.qr:values``."""
    m, n = draw(st.integers(0, 4)), draw(st.integers(0, 4))
    if differentiable:
        mode = draw(st.sampled_from(["reduced", "complete"] if m <= n else ["reduced"]))
    else:
        mode = draw(st.sampled_from(["r", "complete"] if m > n else ["r"]))
    arrays, views, _ = draw(inputs([(*_batch(draw), m, n)], [normal]))
    matrices = views[0](torch.from_numpy(arrays[0])).numpy()
    k = min(m, n)
    if matrices.size:
        assume(np.linalg.svd(matrices[..., :k], compute_uv=False).min() > 0.3)

    def run(lib):
        return lambda x: tuple(lib.linalg.qr(x, mode=mode))

    return Case(_viewed(run(mg), views), _viewed(run(torch), views), arrays)


CASES = {
    "linalg.eigh": _eigh(),
    "linalg.eigvalsh": _eigh(values_only=True),
    "linalg.qr": _qr(),
    "linalg.qr:values": _qr(differentiable=False),
}
NOT_SMOOTH: set[str] = set()
NO_GRAD = {"linalg.qr:values"}
