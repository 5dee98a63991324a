"""In-place changes through views, and of the tensors they are views of, as in PyTorch:
broadcast views (expand), views made under ``no_grad``, views of views (issue 22).
The same cases run on the CUDA device in ``tests/backends/cuda_sim/test_cuda_views.py``."""

import pytest
from opdb.views import CASES, compare


@pytest.mark.parametrize("name", CASES)
def test_view_case_matches_torch_on_the_cpu(name):
    compare(name, "cpu")
