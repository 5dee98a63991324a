"""Margin losses: a score should beat the others by a margin, or pay the shortfall (lesson 06).

A classifier's scores are good when the right class's score is above every
wrong class's by at least ``margin``; the *hinge* ``max(0, margin - right +
wrong)`` is what is missing, and 0 once the margin is met. Summed over the
wrong classes it is ``multi_margin_loss`` (one label per example) or
``multilabel_margin_loss`` (several labels per example, each against every
class that is not a label). ``soft_margin_loss`` and
``multilabel_soft_margin_loss`` replace the hinge by the smooth
``log(1 + e^-y x)``, ``hinge_embedding_loss`` reads a distance ``x``: small
for similar pairs (``y = 1``), above ``margin`` for dissimilar ones
(``y = -1``).

Each is a composition of elementwise operations, ``gather`` and sums, in
PyTorch's order of operations, so the values, the slopes and the higher
derivatives are PyTorch's. The hinge is ``where(z > 0, z, 0)``, as
PyTorch's loop ``if (z > 0) sum += z`` is: a NaN score adds nothing and has
slope 0, and so does a margin met exactly. Only the label checks read the
labels' values.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.multi_margin_loss(mg.tensor([[0.1, 0.2, 0.4, 0.8]]), mg.tensor([3]))  # (0.3+0.4+0.6)/4
    tensor(0.325)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad.backends.contract import TracerError
from minigrad.nn.activation_functions import logsigmoid
from minigrad.nn.distances import PairwiseDistance, pairwise_distance
from minigrad.nn.losses import TORCH_NAMES, _check_reduction, _legacy, _Loss, _reduce
from minigrad.tensor import dtypes, factories
from minigrad.tensor.base import every_value
from minigrad.tensor.composite import composite
from minigrad.tensor.mode import is_grad_enabled
from minigrad.tensor.ops.elementwise import exp, minimum, where
from minigrad.tensor.ops.indexing import gather
from minigrad.tensor.ops.math import clamp, log1p
from minigrad.tensor.ops.scans import cumprod
from minigrad.tensor.tensor import Tensor


def _hinge(z: Tensor) -> Tensor:
    """``z`` where it is positive, else 0 (NaN too): PyTorch's ``if (z > 0)``."""
    return where(z > 0, z, 0.0)


def _values(t: Tensor) -> Any:
    """``t``'s values for a check, or None while jit traces (no values yet)."""
    try:
        return every_value(t)
    except TracerError:
        return None


def _dtype_name(t: Tensor) -> str:
    return TORCH_NAMES.get(t.dtype.name, t.dtype.name)


def _check_scores(name: str, input: Tensor) -> None:
    """Float scores of shape ``()``, ``(C,)`` or ``(N, C)`` with ``C > 0``, as PyTorch's kernels."""
    if not dtypes.is_floating(input.dtype):
        raise NotImplementedError(f"\"{name}\" not implemented for '{_dtype_name(input)}'")
    if not (input.ndim == 0 or (input.ndim in (1, 2) and input.shape[-1] != 0)):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(input.shape)}"
        )


def _refuse_grad(name: str, argument: str, t: Tensor | None) -> None:
    """PyTorch's kernels have no slope for labels, weights or targets given as data."""
    if t is not None and t.requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"The function '{name}' is not differentiable with respect to argument "
            f"'{argument}'. This input cannot have requires_grad True."
        )


def _check_long(t: Tensor) -> None:
    if t.dtype != dtypes.int64:
        raise RuntimeError(f"expected scalar type Long but found {_dtype_name(t)}")


# -- one label per example -------------------------------------------------------------------------
@composite("multi_margin_loss")
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average: Any = None, reduce: Any = None,
                      reduction: str = "mean") -> Tensor:  # fmt: skip
    """``sum_{j != y} w[y] max(0, margin - x[y] + x[j])^p / C`` for each example's label ``y``.

    ``input`` is ``(N, C)``, ``(C,)`` or ``()``; ``target`` one int64 label per
    example; ``p`` is 1 or 2.

    >>> import minigrad as mg
    >>> x = mg.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> mg.nn.functional.multi_margin_loss(x, mg.tensor([3]), p=2, margin=0.5)  # 0.01/4
    tensor(0.0025)
    """
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    _check_scores("multi_margin_loss_cpu_kernel", input)
    frames = 1 if input.ndim <= 1 else input.shape[0]
    classes = 1 if input.ndim == 0 else input.shape[-1]
    if target.ndim > 1 or target.numel() != frames:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{frames}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}."
        )
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(
            f"inconsistent weight size, expected {classes} but got {list(weight.shape)}"
        )
    _check_long(target)
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(
            f"expected scalar type {_dtype_name(input)} but found {_dtype_name(weight)}"
        )
    values = _values(target)
    if values is not None and ((values < 0) | (values >= classes)).any():
        raise RuntimeError("target out of range")
    _refuse_grad("multi_margin_loss", "weight", weight)
    x = input.reshape(frames, classes)
    labels = target.reshape(frames, 1)
    z = (margin - gather(x, 1, labels)) + x
    h = _hinge(z)
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * gather(weight, 0, labels.reshape(-1)).reshape(frames, 1)
    others = factories.arange(classes, device=input.device) != labels  # skip j = y
    losses = where(others, h, 0.0).sum(1) / classes
    return _reduce(losses.reshape(target.shape), reduction)


# -- several labels per example --------------------------------------------------------------------
@composite("multilabel_margin_loss")
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None,
                           reduce: Any = None, reduction: str = "mean") -> Tensor:  # fmt: skip
    """``sum_{j in labels} sum_{k not in labels} max(0, 1 - x[j] + x[k]) / C`` per example.

    Each row of ``target`` (int64, shaped like ``input``) lists the example's
    labels first and ends them with ``-1``; what follows the first ``-1`` is
    not read (but must still be a valid class or -1, as in PyTorch).

    >>> import minigrad as mg
    >>> x = mg.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> mg.nn.functional.multilabel_margin_loss(x, mg.tensor([[3, 0, -1, 1]]))
    tensor(0.85)
    """
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_scores("multilabel_margin_loss_forward_out_frame", input)
    classes = 1 if input.ndim == 0 else input.shape[-1]
    if input.ndim <= 1:
        fits = target.ndim <= 1 and target.numel() == classes
    else:
        fits = target.shape == input.shape
    if not fits:
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    _check_long(target)
    values = _values(target)
    if values is not None and values.size and (values.min() < -1 or values.max() >= classes):
        raise RuntimeError("argument #2 'target' is out of range")
    x = input.reshape(-1, classes)
    labels = target.reshape(-1, classes)
    # Slot j holds a label while no -1 came before it (or at it).
    listed = cumprod((labels != -1).to(dtypes.int64), 1) != 0
    picked = gather(x, 1, where(listed, labels, 0))
    classes_axis = factories.arange(classes, device=input.device)
    is_label = ((labels.unsqueeze(2) == classes_axis) & listed.unsqueeze(2)).any(1)
    z = (1.0 - picked).unsqueeze(2) + x.unsqueeze(1)  # (example, slot j, class k)
    counted = listed.unsqueeze(2) & ~is_label.unsqueeze(1)
    losses = where(counted, _hinge(z), 0.0).sum((1, 2)) / classes
    return _reduce(losses.reshape(input.shape[:-1] if input.ndim == 2 else ()), reduction)


@composite("multilabel_soft_margin_loss")
def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: Any = None, reduce: Any = None,
                                reduction: str = "mean") -> Tensor:  # fmt: skip
    """``-mean_c (y log sigmoid(x) + (1 - y) log sigmoid(-x))`` over the last axis, per example.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.multilabel_soft_margin_loss(mg.tensor([[0.0, 0.0]]), mg.tensor([[1.0, 0.0]]))  # log 2
    tensor(0.6931)
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    if input.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    loss = loss.sum(input.ndim - 1) / input.shape[-1]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    return _reduce(loss, reduction)


# -- a score against +-1 ---------------------------------------------------------------------------
@composite("soft_margin_loss")
def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:  # fmt: skip
    """``log(1 + exp(-y x))``: the logistic loss of scores ``x`` against labels ``y = +-1``.

    >>> import minigrad as mg
    >>> mg.nn.functional.soft_margin_loss(mg.tensor([0.0, 2.0]), mg.tensor([1.0, -1.0]),
    ...                                   reduction="none")
    tensor([0.6931, 2.1269])
    """
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not dtypes.is_floating(input.dtype):
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {_dtype_name(input)}"
        )
    _refuse_grad("soft_margin_loss", "target", target)
    return _reduce(log1p(exp(-input * target)), reduction)


@composite("hinge_embedding_loss")
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:  # fmt: skip
    """``x`` where ``y = 1``, ``max(0, margin - x)`` where ``y = -1`` (both where y is neither).

    >>> import minigrad as mg
    >>> mg.nn.functional.hinge_embedding_loss(mg.tensor([0.3, 0.3]), mg.tensor([1, -1]),
    ...                                       reduction="none")
    tensor([0.3, 0.7])
    """
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input.dtype == dtypes.bool_:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead."
        )
    if not dtypes.is_floating(input.dtype):
        margin = int(margin)  # PyTorch casts the margin to the integer dtype (toward 0)
    zeros = factories.zeros_like(input)
    margin_part = where(target != 1, clamp(margin - input, min=0), zeros)
    self_part = where(target != -1, input, zeros)
    return _reduce(margin_part + self_part, reduction)


# -- triplets under any distance -------------------------------------------------------------------
@composite("triplet_margin_with_distance_loss")
def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` for any distance ``d``.

    ``d`` defaults to ``pairwise_distance``; with ``swap=True`` the negative's
    distance is the smaller of ``d(anchor, negative)`` and ``d(positive, negative)``.

    >>> import minigrad as mg
    >>> a, pos, neg = mg.tensor([[0.0]]), mg.tensor([[1.0]]), mg.tensor([[1.5]])
    >>> l1 = lambda u, v: (u - v).abs().sum(-1)
    >>> mg.nn.functional.triplet_margin_with_distance_loss(a, pos, neg, distance_function=l1)
    tensor(0.5)
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and "
            f"negative {negative.ndim}D inputs"
        )
    distance = pairwise_distance if distance_function is None else distance_function
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = minimum(d_neg, distance(positive, negative))
    return _reduce(clamp(margin + d_pos - d_neg, min=0), reduction)


# -- the same losses as layers ---------------------------------------------------------------------
class SoftMarginLoss(_Loss):
    """``soft_margin_loss`` as a layer."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """``multilabel_margin_loss`` as a layer."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """``multilabel_soft_margin_loss`` as a layer, its class weights a buffer."""

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return multilabel_soft_margin_loss(input, target, self.weight, reduction=self.reduction)


class MultiMarginLoss(_Loss):
    """``multi_margin_loss`` as a layer, its class weights a buffer.

    >>> import minigrad as mg
    >>> mg.nn.MultiMarginLoss(p=3)
    Traceback (most recent call last):
    ValueError: only p == 1 and p == 2 supported
    """

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                 size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.ndim != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.ndim}D instead")  # fmt: skip
        self.register_buffer("weight", weight)
        self.p, self.margin = p, margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                 reduction=self.reduction)  # fmt: skip


class HingeEmbeddingLoss(_Loss):
    """``hinge_embedding_loss`` as a layer."""

    def __init__(self, margin: float = 1.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """``triplet_margin_with_distance_loss`` as a layer."""

    def __init__(self, *, distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
                 margin: float = 1.0, swap: bool = False,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(reduction=reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
                f"{margin} instead"
            )
        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin, self.swap = margin, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction,
        )  # fmt: skip
