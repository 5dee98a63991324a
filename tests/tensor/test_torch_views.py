"""In-place changes through views, and of the tensors they are views of, as in PyTorch:
broadcast views (expand, broadcast_to), diagonals, views made under ``no_grad``, views of
views (issue 22), on the numpy and numba backends. The same cases run on the CUDA device
in ``tests/backends/cuda_sim/test_cuda_views.py``."""

import pytest
from opdb.views import CASES, compare

import minigrad as mg


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("name", CASES)
def test_view_case_matches_torch_on_the_cpu(name, backend):
    with mg.backends.use(backend):
        compare(name, "cpu")
