"""Correctness-database rows: ``mg.fft.fftshift`` and ``ifftshift`` (``minigrad/fft.py``).

Both on the usual random views (transposed, strided, stride-0, 0-d skipped: PyTorch
refuses a 0-d input, "`shifts` required"), over every axis (``dim=None``), one axis or a
tuple of axes (repeated ones too: each is rolled again, as PyTorch's), in float64,
int64 and bool. The windows of ``mg.signal.windows`` take no tensor input; they are
compared with PyTorch in tests/tensor/test_signal.py.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.daily import _as, one_shape


def _shift(name, dtype=None):
    def build(draw, shape, rng):
        n = len(shape)
        pick = draw(st.sampled_from(["none", "int", "tuple"]))
        if pick == "none":
            dim = None
        elif pick == "int":
            dim = draw(st.integers(-n, n - 1))
        else:
            dim = tuple(draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3)))

        def cast(x):
            return x if dtype is None else _as(x * 3, dtype)

        return (
            lambda x: getattr(mg.fft, name)(cast(x), dim),
            lambda t: getattr(torch.fft, name)(cast(t), dim),
        )

    return one_shape(build, min_dims=1)


CASES = {}
for _name in ("fftshift", "ifftshift"):
    CASES[f"fft.{_name}"] = _shift(_name)
    CASES[f"fft.{_name}:int64"] = _shift(_name, "int64")
    CASES[f"fft.{_name}:bool"] = _shift(_name, "bool")

NOT_SMOOTH: set[str] = set()
NO_GRAD = {k for k in CASES if k.endswith((":int64", ":bool"))}
