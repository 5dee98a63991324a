"""Negative log-likelihood losses for counts and for measurements with a spread (lesson 06).

A model that predicts a *distribution* is scored by how unlikely it makes
the observed targets: ``-log p(target | prediction)``, up to constants.

- ``poisson_nll_loss``: the target is a count with Poisson rate ``lambda``.
  ``-log p = lambda - y log lambda + log(y!)``; with ``log_input=True`` (the
  default) the model predicts ``log lambda``, and ``exp`` makes it positive.
  ``full=True`` adds Stirling's approximation of ``log(y!)`` for ``y > 1``.
- ``gaussian_nll_loss``: the target is a measurement with mean ``input`` and
  variance ``var``; ``-log p = (log var + (y - mu)^2 / var) / 2`` (+ ``log(2 pi) / 2``
  with ``full``). ``var`` is clamped to at least ``eps`` for the value only:
  PyTorch clamps it in place under ``no_grad``, so the slope is that of the
  unclamped formula at the clamped point, and so it is here.

Both are compositions in PyTorch's order of operations.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.poisson_nll_loss(mg.tensor([0.0]), mg.tensor([2.0]))  # e^0 - 2 * 0
    tensor(1.)
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.backends.contract import TracerError
from minigrad.nn.distances import _clamped_without_gradient
from minigrad.nn.losses import _check_reduction, _legacy, _Loss, _reduce
from minigrad.tensor import factories
from minigrad.tensor.base import every_value
from minigrad.tensor.composite import composite
from minigrad.tensor.ops.elementwise import exp, log, where
from minigrad.tensor.tensor import Tensor


@composite("poisson_nll_loss")
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:  # fmt: skip
    """``exp(x) - y x`` (``log_input``), else ``x - y log(x + eps)``; reduced.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.poisson_nll_loss(mg.tensor([2.0]), mg.tensor([3.0]), log_input=False, full=True)
    tensor(1.6846)
    """
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if log_input:
        loss = exp(input) - target * input
    else:
        loss = input - target * log(input + eps)
    if full:
        # log(y!) ~ y log y - y + log(2 pi y) / 2, used for y > 1 only (0 elsewhere)
        stirling = target * log(target) - target + 0.5 * log(2 * math.pi * target)
        loss = loss + where(target <= 1, 0.0, stirling)
    return _reduce(loss, reduction)


@composite("gaussian_nll_loss")
def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:  # fmt: skip
    """``(log max(var, eps) + (input - target)^2 / max(var, eps)) / 2``, reduced.

    ``var`` is shaped like ``input``, or like it with the last axis missing or
    of size 1 (one variance for the whole vector), or a float.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.gaussian_nll_loss(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 4.0]), mg.tensor([1.0, 2.0]))
    tensor(0.6733)
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * factories.ones_like(input)
    elif isinstance(var, int):  # PyTorch reads `any(var < 0)`, a bool there
        raise TypeError(
            "any() received an invalid combination of arguments - got (bool), but expected one "
            "of:\nvar must be a tensor or a float (write 1.0, not 1)"
        )
    else:
        try:
            values = every_value(var)
        except TracerError:  # traced by jit: no values to check yet
            values = None
        if values is not None and (values < 0).any():
            raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)  # one variance per vector
        elif not (
            input.ndim == var.ndim
            and sum(v for i, v in zip(input.shape, var.shape, strict=True) if i != v) == 1
        ):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    var = _clamped_without_gradient(var, eps)
    loss = 0.5 * (log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


class PoissonNLLLoss(_Loss):
    """``poisson_nll_loss`` as a layer."""

    def __init__(self, log_input: bool = True, full: bool = False, size_average: Any = None,
                 eps: float = 1e-8, reduce: Any = None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                eps=self.eps, reduction=self.reduction)  # fmt: skip


class GaussianNLLLoss(_Loss):
    """``gaussian_nll_loss`` as a layer: ``loss(input, target, var)``."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:
        return gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                 reduction=self.reduction)  # fmt: skip
