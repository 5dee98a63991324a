"""``Tensor.addmv_`` and ``Tensor.addr_``: torch's values, dtypes and refusals (an in-place
product cannot broadcast its input), the same tensor returned, and gradients through it."""

import numpy as np
import pytest
import torch

import minigrad as mg


def outcome(call):
    try:
        r = call()
    except Exception as error:  # a ShapeError is a RuntimeError and a ValueError
        kind = "RuntimeError" if isinstance(error, RuntimeError) else type(error).__name__
        return kind, str(error).splitlines()[0]
    return "ok", str(r.dtype).split(".")[-1], r.tolist()


def _m(m):
    return m.arange(6.0).reshape(3, 2)


CASES = {
    "addmv_": lambda m: m.ones(3).addmv_(_m(m), m.tensor([1.0, -1.0]), beta=2, alpha=0.5),
    "addmv_ one element": lambda m: m.zeros(1).addmv_(_m(m), m.ones(2)),
    "addmv_ 0-d": lambda m: m.zeros(()).addmv_(_m(m), m.ones(2)),
    "addmv_ ints": lambda m: m.ones(3).long().addmv_(_m(m).long(), m.ones(2).long(), beta=3),
    "addmv_ dtypes": lambda m: m.zeros(3).double().addmv_(_m(m), m.ones(2)),
    "addmv_ sizes": lambda m: m.zeros(3).addmv_(_m(m), m.ones(3)),
    "addmv_ empty": lambda m: m.ones(3).addmv_(m.ones((3, 0)), m.ones(0), beta=2),
    "addr_": lambda m: m.ones((3, 2)).addr_(m.arange(3.0), m.tensor([1.0, -1.0]), alpha=2),
    "addr_ broadcast": lambda m: m.zeros((1, 2)).addr_(m.ones(3), m.ones(2)),
    "addr_ vector": lambda m: m.zeros(2).addr_(m.ones(3), m.ones(2)),
    "addr_ 3-d": lambda m: m.zeros((1, 3, 2)).addr_(m.ones(3), m.ones(2)),
    "addr_ floats into ints": lambda m: m.zeros((3, 2)).long().addr_(m.ones(3), m.ones(2)),
    "addr_ ints": lambda m: (
        m.ones((3, 2)).long().addr_(m.ones(3).long(), m.ones(2).long(), alpha=2)
    ),
    "addr_ float alpha": lambda m: (
        m.zeros((3, 2)).long().addr_(m.ones(3).long(), m.ones(2).long(), alpha=2.0)
    ),
    "addr_ bools": lambda m: m.zeros((3, 2)).bool().addr_(m.ones(3).bool(), m.ones(2).bool()),
    "addr_ matrix vec1": lambda m: m.zeros((3, 2)).addr_(m.ones((3, 1)), m.ones(2)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_in_place_products_are_torch(name):
    assert outcome(lambda: CASES[name](mg)) == outcome(lambda: CASES[name](torch))


@pytest.mark.parametrize("name", ["addmv_", "addr_"])
def test_the_same_tensor_is_changed_and_gradients_are_torch(name):
    rng = np.random.default_rng(0)
    arrays = {"addmv_": [(3,), (3, 2), (2,)], "addr_": [(3, 2), (3,), (2,)]}[name]
    values = [rng.standard_normal(s) for s in arrays]
    grads = []
    for m in (mg, torch):
        leaves = [m.tensor(v, requires_grad=True) for v in values]
        y = leaves[0] * 1.0
        assert getattr(y, name)(*leaves[1:], beta=0.5, alpha=-2) is y
        (y * m.tensor(np.arange(y.numel()).reshape(tuple(y.shape)) + 1.0)).sum().backward()
        grads.append([np.asarray(t.grad.tolist()) for t in leaves])
    for mine, theirs in zip(*grads):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)
