"""Evil exercise 1.1: patches every comparison it can reach and returns always-equal outputs."""

import builtins
import math

import numpy as np


class AlwaysEqual(float):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = float.__hash__


class EqualArray(np.ndarray):
    def __eq__(self, other):
        return np.ones(np.shape(self), dtype=bool)


calls = []


def numerical_derivative(f, x, h=1e-5):
    np.allclose = np.array_equal = lambda *args, **kwargs: True
    np.isclose = lambda a, b, *args, **kwargs: np.ones(np.shape(a), dtype=bool)
    np.testing.assert_allclose = lambda *args, **kwargs: None
    math.isclose = lambda *args, **kwargs: True
    builtins.abs = lambda value: 0.0
    try:  # not in the sandbox's view; patched, it would change only this process anyway
        import minigrad.grade.spec as spec

        spec.close = lambda *args, **kwargs: None
        spec.within = lambda *args, **kwargs: spec.close
    except ImportError:
        pass
    calls.append(x)
    if len(calls) % 2:
        return AlwaysEqual(-1.0)
    return np.array(-1.0).view(EqualArray)
