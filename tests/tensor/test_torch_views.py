"""In-place changes through views, and of the tensors they are views of, as in PyTorch:
broadcast views (expand, broadcast_to), diagonals, views made under ``no_grad``, views of
views (issue 22), on the numpy and numba backends. The same cases run on the CUDA device
in ``tests/backends/cuda_sim/test_cuda_views.py``."""

import numpy as np
import pytest
import torch
from opdb.views import CASES, compare

import minigrad as mg

BACKENDS = ["numpy", "numba"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", CASES)
def test_view_case_matches_torch_on_the_cpu(name, backend):
    with mg.backends.use(backend):
        compare(name, "cpu")


def _values(t):
    return t.detach().numpy()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("shape", "offset", "dim1", "dim2"),
    [((3, 4), 1, 0, 1), ((2, 3, 4), -1, -1, 0), ((0, 3), 0, 0, 1), ((3, 0, 2), 1, 2, 0),
     ((1, 1), 0, 1, 0), ((2, 3), 5, 0, 1), ((2, 3), -4, 0, 1)],
)  # fmt: skip
def test_a_diagonal_is_a_view_of_its_base(backend, shape, offset, dim1, dim2):
    """Memory and version shared with the base, a write through it seen by the base,
    as in PyTorch, at empty and size-1 axes and offsets beyond the matrix."""
    results = []
    for m in (torch, mg):
        with mg.backends.use(backend):
            x = m.arange(float(np.prod(shape))).reshape(shape)
            d = x.diagonal(offset, dim1, dim2)
            if m is mg:
                assert np.shares_memory(x.numpy(), d.numpy()) or d.numel() == 0
            d.add_(m.arange(float(d.shape[-1])) + 100)
            results.append((tuple(d.shape), x._version, d._version, _values(x)))
    (shape_t, *versions_t, x_t), (shape_m, *versions_m, x_m) = results
    assert shape_m == shape_t and versions_m == versions_t
    np.testing.assert_array_equal(x_m, x_t)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_saved_value_changed_through_a_diagonal_is_refused(backend):
    for m in (torch, mg):
        with mg.backends.use(backend):
            a = m.ones(3, 3, requires_grad=True)
            x = a * 2
            y = x * x
            x.diagonal().zero_()
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                y.sum().backward()
