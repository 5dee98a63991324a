"""In-place changes through views of CUDA tensors write through to their base, and the
graphs follow, as in PyTorch (the cases of ``tests/opdb/views.py``, issue 22)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/: the database
from opdb.views import CASES, compare


@pytest.mark.parametrize("name", CASES)
def test_view_case_matches_torch_on_cuda(name):
    compare(name, "cuda")
