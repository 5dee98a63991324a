"""Every elementwise, reduction, matmul and convolution row of the correctness database
in float16 and bfloat16 (lesson 15), against PyTorch computing in the same dtype, on the
NumPy and numba CPU backends (the CUDA backend: ``backends/cuda_sim/test_cuda_opdb.py``).

Lean on purpose (CI time): two draws per row and dtype (Hypothesis's simplest one and one
more), values and first derivatives; the float32 and float64 tests sample the same rows
far more widely. The numba backend runs with its NumPy crossover at 0, so the compiled
float32 kernels do the arithmetic.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from minigrad import backends
from minigrad.backends.numba_backend import NUMPY_BELOW
from opdb import DATABASE, LOW_PRECISION, NO_GRAD, SEEDS
from opdb.oracles import torch_check_low

LEAN = settings(max_examples=2, derandomize=True, database=None, deadline=None,
                phases=[Phase.generate])  # fmt: skip


@pytest.fixture(scope="module", params=["numpy", "numba"])
def backend(request):
    name = request.param
    engine = backends.get(name)
    if name == "numba":  # every size to the kernels, none to NumPy
        saved = engine.numpy_below, engine.numpy_ops
        engine.numpy_below, engine.numpy_ops = dict.fromkeys(NUMPY_BELOW, 0), frozenset()
    with backends.use(name):
        yield name
    if name == "numba":
        engine.numpy_below, engine.numpy_ops = saved


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("key", LOW_PRECISION)
@LEAN
@given(data=st.data())
def test_low_precision_rows_match_torch(backend, key, dtype, data):
    case = data.draw(DATABASE[key])
    torch_check_low(case, np.random.default_rng(data.draw(SEEDS)), dtype, grads=key not in NO_GRAD)
