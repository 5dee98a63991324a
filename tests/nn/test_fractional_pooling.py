"""fractional_max_pool2d/3d, histogramdd and conv_tbc: PyTorch's refusals, the samples
drawn from minigrad's generator, the modules, and half-precision windows (what the
correctness database, ``tests/opdb/fractional.py``, cannot express)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg


def _fn(lib):
    return mg.nn.functional if lib is mg else torch.nn.functional


def _u(lib, *shape, dtype=None):
    values = np.linspace(0.05, 0.95, int(np.prod(shape))).reshape(shape)
    return lib.tensor(values, dtype=dtype or lib.float32)


REFUSALS = {
    "no size": lambda L: _fn(L).fractional_max_pool2d(L.ones(1, 2, 5, 5), 2),
    "float ratio": lambda L: _fn(L).fractional_max_pool2d(L.ones(1, 2, 5, 5), 2, None, 0.5),
    "3 ratios": lambda L: _fn(L).fractional_max_pool2d(L.ones(1, 2, 5, 5), 2, None, (0.5,) * 3),
    "3 kernel sizes": lambda L: _fn(L).fractional_max_pool2d(
        L.ones(1, 2, 5, 5), (2, 2, 2), 3, _random_samples=_u(L, 1, 2, 2)
    ),
    "too large": lambda L: _fn(L).fractional_max_pool2d(
        L.ones(1, 2, 5, 5), 2, (4, 5), _random_samples=_u(L, 1, 2, 2)
    ),
    "3-d too large": lambda L: _fn(L).fractional_max_pool3d(
        L.ones(1, 2, 5, 5, 5), 2, (3, 3, 4), _random_samples=_u(L, 1, 2, 3)
    ),
    "negative size": lambda L: _fn(L).fractional_max_pool2d(
        L.ones(1, 2, 5, 5), 2, -1, _random_samples=_u(L, 1, 2, 2)
    ),
    "2-d input": lambda L: _fn(L).fractional_max_pool2d(
        L.ones(5, 5), 2, 3, _random_samples=_u(L, 1, 2, 2)
    ),
    "2-d input, no samples": lambda L: _fn(L).fractional_max_pool2d(L.ones(5, 5), 2, 3),
    "empty channels": lambda L: _fn(L).fractional_max_pool3d(
        L.ones(1, 0, 5, 5, 5), 2, 3, _random_samples=_u(L, 1, 2, 3)
    ),
    "samples dtype": lambda L: _fn(L).fractional_max_pool2d(
        L.ones(1, 2, 5, 5), 2, 3, _random_samples=_u(L, 1, 2, 2, dtype=L.float64)
    ),
    "samples 2-d": lambda L: _fn(L).fractional_max_pool2d(
        L.ones(1, 2, 5, 5), 2, 3, _random_samples=_u(L, 2, 2)
    ),
    "samples batch": lambda L: _fn(L).fractional_max_pool2d(
        L.ones(3, 2, 5, 5), 2, 3, _random_samples=_u(L, 2, 2, 2)
    ),
    "samples channels": lambda L: _fn(L).fractional_max_pool2d(
        L.ones(1, 2, 5, 5), 2, 3, _random_samples=_u(L, 1, 3, 2)
    ),
    "samples axes": lambda L: _fn(L).fractional_max_pool3d(
        L.ones(1, 2, 5, 5, 5), 2, 3, _random_samples=_u(L, 1, 2, 2)
    ),
    "integer input": lambda L: _fn(L).fractional_max_pool2d(L.ones(1, 2, 5, 5).long(), 2, 3),
    "float kernel": lambda L: _fn(L).fractional_max_pool2d(
        L.ones(1, 2, 5, 5), 2.0, 3, _random_samples=_u(L, 1, 2, 2)
    ),
    "module without size": lambda L: L.nn.FractionalMaxPool2d(2),
    "module ratio 1.5": lambda L: L.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    "module size and ratio": lambda L: L.nn.FractionalMaxPool3d(2, 3, 0.5),
    "module kernel 0": lambda L: L.nn.FractionalMaxPool3d(0, 3),
    "histogramdd 1-d": lambda L: L.histogramdd(L.ones(4), 2),
    "histogramdd 0-d": lambda L: L.histogramdd(L.tensor(1.0), 2),
    "histogramdd bins count": lambda L: L.histogramdd(L.ones(4, 2), [2]),
    "histogramdd range size": lambda L: L.histogramdd(L.ones(4, 2), 2, range=[0.0, 1.0]),
    "histogramdd 0 bins": lambda L: L.histogramdd(L.ones(4, 2), [2, 0]),
    "histogramdd -1 bins": lambda L: L.histogramdd(L.ones(4, 2), -1),
    "histogramdd -5 bins": lambda L: L.histogramdd(L.ones(4, 2), -5),
    "histogramdd float bins": lambda L: L.histogramdd(L.ones(4, 2), 2.5),
    "histogramdd inf": lambda L: L.histogramdd(L.tensor([[float("inf"), 1.0]]), 2),
    "histogramdd min > max": lambda L: L.histogramdd(L.ones(4, 2), 2, range=[1.0, 0, 0, 1]),
    "histogramdd weight shape": lambda L: L.histogramdd(L.ones(4, 2), 2, weight=L.ones(4, 1)),
    "histogramdd weight dtype": lambda L: L.histogramdd(
        L.ones(4, 2), 2, weight=L.ones(4, dtype=L.float64)
    ),
    "histogramdd edges dtype": lambda L: L.histogramdd(
        L.ones(4, 2), [L.ones(2), L.ones(2, dtype=L.float64)]
    ),
    "histogramdd edges 2-d": lambda L: L.histogramdd(L.ones(4, 2), [L.ones(2), L.ones(1, 2)]),
    "histogramdd one edge": lambda L: L.histogramdd(L.ones(4, 2), [L.ones(2), L.ones(1)]),
    "histogramdd mixed bins": lambda L: L.histogramdd(L.ones(4, 2), [L.ones(2), 3]),
    "histogramdd integers": lambda L: L.histogramdd(L.ones(4, 2, dtype=L.int64), 2),
    "histogramdd half": lambda L: L.histogramdd(L.ones(4, 2, dtype=L.float16), 2),
    "conv_tbc no bias": lambda L: L.conv_tbc(L.ones(5, 2, 3), L.ones(2, 3, 4), None),
    "conv_tbc 2-d input": lambda L: L.conv_tbc(L.ones(5, 2), L.ones(2, 3, 4), L.ones(4)),
    "conv_tbc 2-d weight": lambda L: L.conv_tbc(L.ones(5, 2, 3), L.ones(3, 4), L.ones(4)),
    "conv_tbc 2-d bias": lambda L: L.conv_tbc(L.ones(5, 2, 3), L.ones(2, 3, 4), L.ones(1, 4)),
    "conv_tbc channels": lambda L: L.conv_tbc(L.ones(5, 2, 3), L.ones(2, 2, 4), L.ones(4)),
    "conv_tbc bias size": lambda L: L.conv_tbc(L.ones(5, 2, 3), L.ones(2, 3, 4), L.ones(3)),
    "conv_tbc too short": lambda L: L.conv_tbc(L.ones(5, 2, 3), L.ones(7, 3, 4), L.ones(4)),
    "conv_tbc dtypes": lambda L: L.conv_tbc(
        L.ones(5, 2, 3, dtype=L.float64), L.ones(2, 3, 4), L.ones(4)
    ),
    "conv_tbc float pad": lambda L: L.conv_tbc(L.ones(5, 2, 3), L.ones(2, 3, 4), L.ones(4), 1.5),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_are_pytorchs(name):
    """The same exception type and first line as PyTorch."""
    got = []
    for lib in (mg, torch):
        with pytest.raises(Exception) as error:
            REFUSALS[name](lib)
        got.append((type(error.value).__name__, str(error.value).splitlines()[0]))
    assert got[0] == got[1]


def test_samples_come_from_minigrads_generator():
    """Without ``_random_samples`` the pool draws ``mg.rand(N, C, 2)`` in the input's dtype."""
    x = mg.randn(2, 3, 9, 9)
    mg.manual_seed(7)
    drawn = mg.nn.functional.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5))
    mg.manual_seed(7)
    given = mg.nn.functional.fractional_max_pool2d(x, 2, 4, _random_samples=mg.rand(2, 3, 2))
    assert np.array_equal(drawn.numpy(), given.numpy())
    assert not np.array_equal(
        drawn.numpy(), mg.nn.functional.fractional_max_pool2d(x, 2, 4).numpy()
    )


@pytest.mark.parametrize("dims", [2, 3])
def test_modules_keep_their_samples_as_a_buffer(dims):
    shape, samples = (1, 2) + (6,) * dims, np.linspace(0.1, 0.9, 2 * dims).reshape(1, 2, dims)
    x = np.random.default_rng(0).standard_normal(shape)
    layers = [getattr(lib.nn, f"FractionalMaxPool{dims}d")(
        2, output_ratio=0.5, return_indices=True,
        _random_samples=lib.tensor(samples, dtype=lib.float32)) for lib in (mg, torch)]  # fmt: skip
    assert "_random_samples" in dict(layers[0].named_buffers())
    (mv, mi), (tv, ti) = (
        layers[0](mg.tensor(x, dtype=mg.float32)),
        layers[1](torch.tensor(x, dtype=torch.float32)),
    )
    assert np.array_equal(mv.numpy(), tv.numpy()) and np.array_equal(mi.numpy(), ti.numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_windows_are_pytorchs(dtype):
    """The window starts round at every step in the input's dtype, as PyTorch's kernel."""
    rng = np.random.default_rng(3)
    x, u = rng.standard_normal((2, 3, 40, 33)), rng.random((2, 3, 2))
    got = [_fn(lib).fractional_max_pool2d(
        lib.tensor(x).to(getattr(lib, dtype)), (3, 2), (17, 30), return_indices=True,
        _random_samples=lib.tensor(u).to(getattr(lib, dtype)))[1].numpy()
        for lib in (mg, torch)]  # fmt: skip
    assert np.array_equal(got[0], got[1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram_edges_are_pytorchs_bit_for_bit(dtype):
    """Bin edges are PyTorch's linspace in the input's dtype (one fused multiply-add each),
    so a point on an edge lands in PyTorch's bin; float64-then-rounded edges differ."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        x = rng.standard_normal((int(rng.integers(2, 12)), 2)) * 3
        bins = [int(b) for b in rng.integers(1, 12, 2)]
        t = torch.histogramdd(torch.tensor(x, dtype=getattr(torch, dtype)), bins)
        m = mg.histogramdd(mg.tensor(x, dtype=getattr(mg, dtype)), bins)
        assert all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(t.bin_edges, m.bin_edges))
        t1 = torch.histogram(torch.tensor(x[:, 0], dtype=getattr(torch, dtype)), bins[0])
        m1 = mg.histogram(mg.tensor(x[:, 0], dtype=getattr(mg, dtype)), bins[0])
        assert np.array_equal(t1.bin_edges.numpy(), m1.bin_edges.numpy())
        assert np.array_equal(t1.hist.numpy(), m1.hist.numpy())
