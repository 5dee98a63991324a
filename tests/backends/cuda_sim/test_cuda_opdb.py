"""Every operation of the correctness database on the CUDA backend equals the NumPy reference.

Run in a child process on numba's simulator (see ``conftest.py``): small
shapes, two draws per operation, values and gradients in float64 and float32;
and the elementwise, reduction, matmul and convolution rows in float16 and
bfloat16 (lesson 15), two draws each.
Tensors a case makes itself with ``mg.tensor`` (index tensors, labels, class
weights) are made on the device under test, as a user moving a whole program
to the GPU would.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg
from minigrad import backends
from minigrad.tensor import dtypes

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/: the database
from opdb import DATABASE, LOW_PRECISION, NO_GRAD, SEEDS
from opdb.oracles import LOW_TOLERANCE, outputs

TOLERANCE = {np.float32: {"rtol": 1e-4, "atol": 1e-5}, np.float64: {"rtol": 1e-10, "atol": 1e-12}}


@contextlib.contextmanager
def tensors_made_on(device):
    """``mg.tensor(...)`` without a ``device`` makes its tensor on ``device``."""
    make = mg.tensor

    def on_device(*args, **kwargs):
        kwargs.setdefault("device", device)
        return make(*args, **kwargs)

    mg.tensor = on_device
    try:
        yield
    finally:
        mg.tensor = make


def run(case, arrays, device, grads, rng_seed, dtype=None):
    with tensors_made_on(device):
        return _run(case, arrays, device, grads, rng_seed, dtype)


def _run(case, arrays, device, grads, rng_seed, dtype=None):
    xs = [mg.tensor(a, dtype, device=device, requires_grad=grads) for a in arrays]
    outs = outputs(case.mg_fn(*xs))
    values = [o.detach().numpy() for o in outs]
    floating = [o for o in outs if dtypes.is_floating(o.dtype) and o.requires_grad]
    if not grads or not floating:
        return values, []
    rng = np.random.default_rng(rng_seed)
    cotangents = [mg.tensor(rng.standard_normal(o.shape), o.dtype, device=device) for o in floating]
    found = mg.autograd.grad(floating, xs, grad_outputs=cotangents, allow_unused=True)
    assert all(g is None or g.device == device for g in found)
    return values, [None if g is None else g.detach().numpy() for g in found]


@pytest.mark.parametrize("name", sorted(DATABASE))
@settings(max_examples=2, deadline=None)
@given(data=st.data(), dtype=st.sampled_from([np.float32, np.float64]))
def test_operation_on_cuda_equals_the_numpy_reference(name, data, dtype):
    case = data.draw(DATABASE[name])
    seed = data.draw(SEEDS)
    arrays = [np.asarray(a, dtype) for a in case.arrays]
    grads = name not in NO_GRAD
    with np.errstate(all="ignore"):
        values, gradients = run(case, arrays, "cuda", grads, seed)
        with backends.use("numpy"):
            want_values, want_gradients = run(case, arrays, "cpu", grads, seed)
    for got, want in zip(values, want_values):
        assert got.dtype == want.dtype and got.shape == want.shape
        # A float32 result of integer or bool inputs is float32 arithmetic, whatever dtype
        # the case runs in: the GPU's float32 library is one ulp from the C library's.
        kept = TOLERANCE[np.float32] if want.dtype == np.float32 else TOLERANCE[dtype]
        np.testing.assert_allclose(got, want, **kept)
    for got, want in zip(gradients, want_gradients):
        assert (got is None) == (want is None)
        if got is not None:
            np.testing.assert_allclose(got, want, **TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", LOW_PRECISION)
@settings(max_examples=2, deadline=None, database=None)
@given(data=st.data())
def test_low_precision_row_on_cuda_equals_the_numpy_reference(name, dtype, data):
    # Both backends compute in float32 and round each primitive's result once; they
    # differ in the order of float32 sums only, so by a rounding of the 16-bit result.
    case = data.draw(DATABASE[name])
    seed = data.draw(SEEDS)
    arrays = [
        np.asarray(mg.tensor(np.asarray(a, np.float32)).to(dtype).numpy()) for a in case.arrays
    ]
    grads = name not in NO_GRAD
    with np.errstate(all="ignore"):
        values, gradients = run(case, arrays, "cuda", grads, seed, dtype)
        with backends.use("numpy"):
            want_values, want_gradients = run(case, arrays, "cpu", grads, seed, dtype)
    wide = [(a, b) for a, b in zip(values, want_values)] + [
        (a, b) for a, b in zip(gradients, want_gradients) if a is not None or b is not None
    ]
    for got, want in wide:
        assert got is not None and want is not None
        assert got.dtype == want.dtype and got.shape == want.shape
        if dtypes.is_floating(got.dtype):
            got, want = got.astype(np.float32), want.astype(np.float32)
            np.testing.assert_allclose(got, want, **LOW_TOLERANCE[dtype])
        else:
            np.testing.assert_array_equal(got, want)
