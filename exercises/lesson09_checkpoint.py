# Generated from solutions/ by `python -m minigrad.grade.generate`: replace each
# `raise NotImplementedError(...)` with your code, then run `python -m minigrad.grade`.
"""Lesson 09 exercise: gradient checkpointing on a chain of layers.

Grade it with ``python -m minigrad.grade --exercise 9.1``.
"""

import numpy as np


def checkpointed_grad(layers: list, x: np.ndarray, g: np.ndarray, segments: int) -> tuple:
    """Exercise 9.1: reverse mode through ``layers`` keeping only segment inputs alive.

    Each layer has ``layer.forward(x) -> y`` and ``layer.vjp(x, gy) -> gx``
    (the pullback needs the layer's *input*). The chain computes
    ``y = layers[-1].forward(... layers[0].forward(x))``. Return ``(y, gx)``:
    the output and the cotangent of ``x`` for the output cotangent ``g``.

    Plain backprop keeps every layer's input alive until the backward pass.
    Instead, split the layers into ``segments`` consecutive groups as even as
    possible (``np.array_split(np.arange(len(layers)), segments)``) and keep
    only each group's input during the forward pass. In the backward pass,
    for the groups from last to first, recompute the group's layer inputs
    from its saved input, then pull the cotangent back through the group.
    Each layer's ``forward`` runs at most twice, and at any time only the
    saved group inputs plus one group's recomputed inputs are alive.

    Hint (lesson 09): forward: for each group, save its input, then run it without
    keeping the intermediates; backward: rebuild one group's inputs in a list, then vjp in reverse.
    """
    raise NotImplementedError(
        "Exercise 9.1: forward: for each group, save its input, then run it without keeping the "
        "intermediates; backward: rebuild one group's inputs in a list, then vjp in reverse. "
        "(lesson 09)"
    )
