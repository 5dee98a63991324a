"""Every operation of the correctness database against PyTorch and finite differences.

One test per (oracle, key): values and gradients in float64 and float32
against PyTorch, reverse mode against central differences, second
derivatives against PyTorch; and the completeness check, which fails when a
public operation has no case. (Forward mode and the numba backend read the
same table: ``transforms/test_forward_mode.py``, ``backends/test_numba_backend.py``.)
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg
from opdb import DATABASE, DIFFERENTIABLE, NO_GRAD, SECOND_ORDER, SEEDS, SMOOTH, uncovered
from opdb.oracles import hessian_vector, numerical_vjp_check, outputs, torch_check


def test_every_public_operation_has_a_case():
    missing = uncovered()
    assert not missing, (
        f"{len(missing)} public operations have no case in tests/opdb: {', '.join(missing)}"
    )


@pytest.mark.parametrize("name", sorted(DATABASE))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_float64_values_and_gradients_match_torch(name, data):
    case = data.draw(DATABASE[name])
    torch_check(case, np.random.default_rng(data.draw(SEEDS)), grads=name not in NO_GRAD)


# A NumPy float64 array on one side promotes by NumPy's rule (float64), where
# torch keeps a 0-d float64 tensor's partner float32: those keys are float64 only.
FLOAT32 = sorted(k for k in DATABASE if not k.endswith(":numpy"))


@pytest.mark.parametrize("name", FLOAT32)
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_float32_values_and_gradients_match_torch(name, data):
    case = data.draw(DATABASE[name])
    torch_check(case, np.random.default_rng(data.draw(SEEDS)), np.float32,
                grads=name not in NO_GRAD)  # fmt: skip


@pytest.mark.parametrize("name", SMOOTH)
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_gradients_match_finite_differences(name, data):
    case = data.draw(DATABASE[name])
    numerical_vjp_check(case.mg_fn, case.arrays, np.random.default_rng(data.draw(SEEDS)))


@pytest.mark.parametrize("name", SECOND_ORDER)
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_second_derivatives_match_torch(name, data):
    case = data.draw(DATABASE[name])
    rng = np.random.default_rng(data.draw(SEEDS))
    refs = outputs(case.torch_fn(*[torch.from_numpy(a) for a in case.arrays]))
    us = [np.asarray(rng.standard_normal(r.shape)) for r in refs if r.dtype.is_floating_point]
    w = [np.asarray(rng.standard_normal(a.shape)) for a in case.arrays]
    ours = hessian_vector(mg, case.mg_fn, case.arrays, us, w)
    theirs = hessian_vector(torch, case.torch_fn, case.arrays, us, w)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


def test_flags_name_differentiable_keys():
    assert set(SMOOTH) <= set(DIFFERENTIABLE) <= set(DATABASE)
