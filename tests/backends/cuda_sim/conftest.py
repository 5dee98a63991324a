"""The CUDA backend's tests, run in a child process by ``tests/test_cuda_backend.py``.

numba reads ``NUMBA_ENABLE_CUDASIM`` once, when it is first imported, and the
main test run imports numba for the CPU backend. So these tests run in a fresh
interpreter that sets the variable first:

    MINIGRAD_CUDA_TESTS=1 NUMBA_ENABLE_CUDASIM=1 python -m pytest tests/backends/cuda_sim

(on a machine with a GPU, leave out ``NUMBA_ENABLE_CUDASIM`` to run them on it).
Without ``MINIGRAD_CUDA_TESTS=1`` this folder is not collected.
"""

import os

import pytest

if os.environ.get("MINIGRAD_CUDA_TESTS") != "1":
    collect_ignore_glob = ["*.py"]


@pytest.fixture
def backend():
    from minigrad import backends

    return backends.get("cuda")
