"""Softmax and the losses, written as compositions of Tensor operations (lesson 06).

The losses have no backward rule of their own. Each is a few tensor
operations, so reverse mode, forward mode and higher order derivatives come
from the rules of those operations, by the chain rule. ``softmax`` and
``log_softmax`` could be written the same way (max, subtract, exp, sum,
log); they are primitives instead (``minigrad/tensor/softmax.py``), which
records one graph node where the composition records six (lesson 10).

Numerical stability is the one subtle point. ``exp(1000)`` overflows, yet the
softmax of ``[1000, 1000]`` is just ``[0.5, 0.5]``. Softmax does not change
when a constant is subtracted from every score, so we subtract the largest
one first (``exp`` then only ever sees numbers <= 0). In log space the same
idea gives ``log_softmax(x) = x - logsumexp(x)``, computed from the shifted
scores too; the loss never takes the log of a probability that underflowed
to 0.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.softmax(mg.tensor([1000.0, 1000.0]))
    tensor([0.5, 0.5])
"""

from __future__ import annotations

import warnings
from typing import Any

from minigrad.tensor import factories
from minigrad.tensor import softmax as primitives
from minigrad.tensor.broadcasting import ShapeError
from minigrad.tensor.convolution import conv1d, conv2d
from minigrad.tensor.elementwise import relu, sigmoid, tanh
from minigrad.tensor.padding import pad
from minigrad.tensor.pooling import avg_pool2d, max_pool2d
from minigrad.tensor.tensor import Tensor

__all__ = [
    "avg_pool2d", "conv1d", "conv2d", "max_pool2d", "pad",
    "cross_entropy", "log_softmax", "mse_loss", "nll_loss", "relu", "sigmoid", "softmax", "tanh",
]  # fmt: skip

REDUCTIONS = ("mean", "sum", "none")


def softmax(x: Tensor, axis: int = -1, *, dim: int | None = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``axis``: scores -> probabilities that sum to 1.

    >>> import minigrad as mg
    >>> mg.nn.functional.softmax(mg.tensor([[0.0, 0.0], [0.0, 1000.0]]), dim=1)
    tensor([[0.5, 0.5],
            [0. , 1. ]])
    """
    axis = dim if dim is not None else axis
    return primitives.softmax(x, axis)


def log_softmax(x: Tensor, axis: int = -1, *, dim: int | None = None) -> Tensor:
    """``log(softmax(x))``, that is ``x - logsumexp(x)``: finite even for huge scores.

    Computed as ``(x - m) - log(sum(exp(x - m)))`` with ``m`` the max: the
    subtraction ``x - m`` happens first, where it is exact, before any
    rounding of a large number like ``m + log(...)`` could lose digits.

    >>> import minigrad as mg
    >>> mg.nn.functional.log_softmax(mg.tensor([0.0, -1000.0]))
    tensor([    0., -1000.])
    """
    axis = dim if dim is not None else axis
    return primitives.log_softmax(x, axis)


def nll_loss(log_probs: Tensor, labels: Any, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood: ``-log_probs[i, labels[i]]``, reduced over the batch.

    >>> import minigrad as mg
    >>> mg.nn.functional.nll_loss(mg.tensor([[-1.0, -2.0], [-3.0, -4.0]]), [1, 0])
    tensor(2.5)
    """
    _check_reduction(reduction)
    labels = labels if isinstance(labels, Tensor) else factories.tensor(labels)
    if log_probs.ndim == 1:  # one example: (C,) scores and a single label
        return nll_loss(log_probs.reshape(1, -1), labels.reshape(1), reduction).reshape(())
    if log_probs.ndim != 2:
        raise ShapeError(
            f"cross_entropy/nll_loss expects scores of shape (batch, classes) or (classes,); "
            f"got shape {log_probs.shape}"
        )
    n, classes = log_probs.shape
    if labels.dtype.kind not in "iu":
        raise RuntimeError(
            f"expected scalar type Long but found {labels.dtype.name}\n"
            "class labels must be an integer tensor (e.g. mg.tensor([0, 2, 1])); for class "
            "probabilities pass a float tensor shaped like the scores to cross_entropy"
        )
    if labels.shape != (n,):
        raise ValueError(
            f"Expected input batch_size ({n}) to match target batch_size "
            f"({labels.shape[0] if labels.ndim else labels.shape})."
        )
    values = labels.numpy()
    if n and (values.min() < 0 or values.max() >= classes):
        bad = values[(values < 0) | (values >= classes)][0]
        raise IndexError(f"Target {bad} is out of bounds. (there are {classes} classes)")
    rows = factories.arange(n, device=log_probs.device)
    picked = log_probs[rows, labels.to(log_probs.device)]
    return _reduce(-picked, reduction)


def cross_entropy(logits: Tensor, labels: Any, reduction: str = "mean") -> Tensor:
    """Softmax cross-entropy between raw scores ``(N, C)`` and integer class ``labels`` ``(N,)``.

    The loss of one example is ``-log softmax(logits)[label]``: small when the
    right class gets most of the probability. ``labels`` may also be class
    probabilities (a float tensor shaped like ``logits``), as in PyTorch.

    >>> import minigrad as mg
    >>> logits = mg.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    >>> mg.nn.functional.cross_entropy(logits, mg.tensor([0, 2]), reduction="none")
    tensor([0.2395, 1.0986])
    """
    _check_reduction(reduction)
    labels = labels if isinstance(labels, Tensor) else factories.tensor(labels)
    log_probs = log_softmax(logits, axis=1 if logits.ndim > 1 else 0)
    if labels.dtype.kind != "f":
        return nll_loss(log_probs, labels, reduction)
    if labels.shape != logits.shape:
        raise ShapeError(
            f"cross_entropy: class probabilities must be shaped like the scores; got "
            f"labels of shape {labels.shape} for scores of shape {logits.shape}"
        )
    return _reduce(-(labels * log_probs).sum(axis=-1), reduction)


def mse_loss(pred: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    """Mean squared error: the average of ``(pred - target) ** 2``.

    >>> import minigrad as mg
    >>> mg.nn.functional.mse_loss(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 4.0]))
    tensor(2.)
    """
    _check_reduction(reduction)
    target_shape = target.shape if isinstance(target, Tensor) else None
    if target_shape is not None and target_shape != pred.shape:
        warnings.warn(
            f"Using a target size ({target_shape}) that is different to the input size "
            f"({pred.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=2,
        )
    diff = pred - target
    return _reduce(diff * diff, reduction)


def _check_reduction(reduction: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(
            f"{reduction} is not a valid value for reduction (choose one of {REDUCTIONS})"
        )


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    return losses
