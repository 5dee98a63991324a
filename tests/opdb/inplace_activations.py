"""The in-place activations of ``nn.functional`` (``relu_``, ``elu_``, ...), recorded on a non-leaf.

Each case changes a fresh non-leaf (``x * 1.0``) in place and returns it, so the
gradient reaches ``x`` through the in-place op's record and must equal PyTorch's.
"""

from __future__ import annotations

import torch

import minigrad as mg
from opdb.strategies import elementwise, normal


def _changed(name, *args, **kwargs):
    """``F.name(x * 1.0, ...)`` for minigrad and for torch: the in-place change of a non-leaf."""

    def run(F):
        def fn(x):
            y = x * 1.0
            getattr(F, name)(y, *args, **kwargs)
            return y

        return fn

    return run(mg.nn.functional), run(torch.nn.functional)


CASES = {
    "nn.functional.relu_": elementwise(*_changed("relu_"), [normal]),
    "nn.functional.elu_": elementwise(*_changed("elu_", 0.5), [normal]),
    "nn.functional.celu_": elementwise(*_changed("celu_", alpha=2.0), [normal]),
    "nn.functional.selu_": elementwise(*_changed("selu_"), [normal]),
    "nn.functional.leaky_relu_": elementwise(*_changed("leaky_relu_", 0.2), [normal]),
    "nn.functional.hardtanh_": elementwise(*_changed("hardtanh_", -0.5, 0.8), [normal]),
    "nn.functional.threshold_": elementwise(*_changed("threshold_", 0.1, -2.0), [normal]),
}
NOT_SMOOTH: set[str] = set()
NO_GRAD: set[str] = set()
