"""``mg.signal.windows`` and ``mg.fft``'s shifts against PyTorch (lessons 04-05).

Windows take no tensor input, so the correctness database has no case for them:
here every window, at the lengths where the formulas branch (0, 1, 2) and beyond,
symmetric and periodic, float32 and float64, with its parameters, and PyTorch's
refusals (type and first line). The shifts' values and slopes are database rows
(tests/opdb/spectral.py); their refusals are here.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg

WINDOWS = [
    ("hamming", {}), ("hann", {}), ("bartlett", {}), ("blackman", {}), ("cosine", {}),
    ("nuttall", {}), ("exponential", {}), ("exponential", {"tau": 2.5}),
    ("gaussian", {}), ("gaussian", {"std": 0.3}), ("kaiser", {}), ("kaiser", {"beta": 0.0}),
    ("kaiser", {"beta": 3.5}), ("kaiser", {"beta": 100.0}), ("general_cosine", {"a": [0.5, 0.3, 0.2]}),
    ("general_hamming", {}), ("general_hamming", {"alpha": 0.7}),
]  # fmt: skip


@pytest.mark.parametrize("name, params", WINDOWS, ids=[f"{n}{p}" for n, p in WINDOWS])
def test_windows_are_torchs(name, params):
    for M in (0, 1, 2, 5, 8):
        for sym in (True, False):
            for dtype in ("default", "float64"):
                kw = dict(params, sym=sym)
                ours = getattr(mg.signal.windows, name)(
                    M, **kw, **({} if dtype == "default" else {"dtype": mg.float64})
                )
                theirs = getattr(torch.signal.windows, name)(
                    M, **kw, **({} if dtype == "default" else {"dtype": torch.float64})
                )
                want = theirs.numpy()
                assert ours.shape == want.shape and ours.dtype == want.dtype, (M, sym, dtype)
                tol = 1e-12 if want.dtype == np.float64 else 2e-6
                np.testing.assert_allclose(ours.numpy(), want, rtol=tol, atol=tol, err_msg=f"{M}")


def test_a_periodic_exponential_window_takes_a_center_and_requires_grad_is_kept():
    ours = mg.signal.windows.exponential(6, center=1.5, sym=False, requires_grad=True)
    theirs = torch.signal.windows.exponential(6, center=1.5, sym=False, requires_grad=True)
    assert ours.requires_grad and theirs.requires_grad
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=2e-6)


ERRORS = [
    ("hann", (-1,), {}),
    ("kaiser", (4,), {"dtype": "int64"}),
    ("exponential", (4,), {"tau": 0.0}),
    ("exponential", (4,), {"center": 1.0}),
    ("gaussian", (4,), {"std": -1.0}),
    ("kaiser", (4,), {"beta": -1.0}),
    ("general_cosine", (4,), {"a": []}),
    ("general_cosine", (4,), {"a": 3.0}),
    ("blackman", (-2,), {}),
]


@pytest.mark.parametrize("name, args, kwargs", ERRORS)
def test_window_refusals_are_torchs(name, args, kwargs):
    raised = []
    for lib in (torch, mg):
        kw = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
        with pytest.raises(Exception) as info:
            getattr(lib.signal.windows, name)(*args, **kw)
        raised.append(info.value)
    theirs, ours = raised
    assert type(ours) is type(theirs)
    assert str(ours).splitlines()[0] == str(theirs).splitlines()[0]


SHIFT_ERRORS = [
    (np.array(2.0), None),  # a 0-d input: no axis to roll
    (np.array(2.0), 0),
    (np.zeros((2, 3)), ()),
    (np.zeros((2, 3)), 2),
    (np.zeros((2, 3)), 1.0),
    (np.zeros((2, 3)), (0, 1.0)),
]


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("case", range(len(SHIFT_ERRORS)))
def test_shift_refusals_are_torchs(name, case):
    array, dim = SHIFT_ERRORS[case]
    raised = []
    for lib in (torch, mg):
        with pytest.raises(Exception) as info:
            getattr(lib.fft, name)(lib.tensor(array), dim)
        raised.append(info.value)
    theirs, ours = raised
    assert type(ours).__name__ == type(theirs).__name__
    assert str(ours).splitlines()[0] == str(theirs).splitlines()[0]
