"""The checks of every exercise, one module per part of the course.

Importing this package registers every exercise in ``EXERCISES``, in course order.
"""

# Importing a module registers its exercises.
from minigrad.grade.checks import (
    attention,
    backprop,
    batching,
    control_flow,
    convolution,
    data_parallel,
    kernels,
    mixed_precision,
    scalars,
    static_graphs,
    tensors,
    transforms,
)
from minigrad.grade.spec import EXERCISES

EXERCISES.sort(key=lambda ex: tuple(int(n) for n in ex.number.split(".")))

__all__ = ["EXERCISES"]
