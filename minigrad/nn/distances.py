"""Lengths, angles and distances between vectors, and the losses built on them (lesson 06).

``normalize`` scales vectors to length 1; ``cosine_similarity`` is the
cosine of the angle between two vectors; ``pairwise_distance`` the p-norm of
their difference. Three losses compare *pairs* of things instead of a
prediction with a label: ``margin_ranking_loss`` wants one score above
another, ``triplet_margin_loss`` an anchor closer to a positive example
than to a negative one, ``cosine_embedding_loss`` two vectors pointing the
same way (target 1) or apart (target -1).

All are compositions of norms, sums, ``clamp`` and ``where``: no rows of
their own. Where PyTorch guards a division by a small ``eps``, the same
guard is here, and where it clamps a norm *without* recording the clamp
(``cosine_similarity``), so does this code: the value is clamped, the
gradient is the unclamped norm's.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> a, b = mg.tensor([[1.0, 0.0]]), mg.tensor([[1.0, 1.0]])
    >>> F.cosine_similarity(a, b), F.pairwise_distance(a, b)
    (tensor([0.7071]), tensor([1.]))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.nn.losses import _check_reduction, _legacy, _reduce
from minigrad.nn.module import Module
from minigrad.tensor import dtypes, factories
from minigrad.tensor.composite import composite
from minigrad.tensor.ops.broadcasting import broadcast_shape
from minigrad.tensor.ops.elementwise import abs, minimum, where
from minigrad.tensor.ops.indexing import index_select
from minigrad.tensor.ops.logic import isfinite
from minigrad.tensor.ops.math import clamp
from minigrad.tensor.ops.norms import vector_norm
from minigrad.tensor.ops.reductions import amax
from minigrad.tensor.tensor import Tensor


def _tensor(x: Any, like: Tensor | None = None) -> Tensor:
    if isinstance(x, Tensor):
        return x
    if like is None:
        return Tensor.concrete(x)
    return Tensor.concrete(x, dtype=like.dtype, device=like.device)


@composite("normalize")
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Any = None) -> Tensor:  # fmt: skip
    """``input / max(||input||_p, eps)`` along ``dim``: unit vectors (zero vectors stay 0).

    >>> import minigrad as mg
    >>> mg.nn.functional.normalize(mg.tensor([[3.0, 4.0], [0.0, 0.0]]))
    tensor([[0.6, 0.8],
            [0. , 0. ]])
    """
    if out is not None:
        raise TypeError("normalize(): out= is not supported; use the returned tensor")
    x = _tensor(input)
    norm = vector_norm(x, p, dim, keepdim=True)
    return x / clamp(norm, min=eps)


def _clamped_without_gradient(norm: Tensor, eps: float) -> Tensor:
    """``norm``'s values clamped to at least ``eps``, its gradient that of ``norm`` itself.

    PyTorch clamps the norms in place under ``no_grad``. Here the norm minus
    its own value (0, with the norm's gradient) is added to the clamped value,
    which it leaves exact; where the norm is infinite, 0 stands in for
    ``inf - inf``.
    """
    fixed = norm.detach()
    return where(fixed == float("inf"), 0.0, norm - fixed) + clamp(fixed, min=eps)


@composite("cosine_similarity")
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``<x1, x2> / (max(||x1||, eps) max(||x2||, eps))`` along ``dim`` (inputs broadcast).

    >>> import minigrad as mg
    >>> mg.nn.functional.cosine_similarity(mg.tensor([1.0, 0.0]), mg.tensor([-2.0, 0.0]), dim=0)
    tensor(-1.)
    """
    x1 = _tensor(x1)
    x2 = _tensor(x2, x1)
    shape = broadcast_shape(x1.shape, x2.shape)
    x1, x2 = x1.broadcast_to(shape), x2.broadcast_to(shape)
    n1 = _clamped_without_gradient(vector_norm(x1, 2, dim, keepdim=True), eps)
    n2 = _clamped_without_gradient(vector_norm(x2, 2, dim, keepdim=True), eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:  # fmt: skip
    """``||x1 - x2 + eps||_p`` along the last axis (``eps`` keeps the norm off its kink at 0).

    >>> import minigrad as mg
    >>> mg.nn.functional.pairwise_distance(mg.tensor([[0.0, 0.0]]), mg.tensor([[3.0, 4.0]]))
    tensor([5.])
    """
    x1 = _tensor(x1)
    x2 = _tensor(x2, x1)
    if x1.dtype == x2.dtype == dtypes.bool_:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead."
        )
    ndim = max(x1.ndim, x2.ndim)
    if ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    return vector_norm(x1 - x2 + eps, p, ndim - 1, keepdim=keepdim)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """``||x_i - x_j||_p`` for every pair of rows ``i < j`` of ``input`` ``(N, M)``, in row order.

    The result has ``N (N - 1) / 2`` entries: the upper triangle of the
    distance matrix, read row by row.

    >>> import minigrad as mg
    >>> mg.nn.functional.pdist(mg.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
    tensor([5.    , 1.    , 4.2426])
    """
    x = _tensor(input)
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if x.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {x.ndim}D")
    if not dtypes.is_floating(x.dtype):
        raise RuntimeError("pdist only supports floating-point dtypes")
    rows = x.shape[0]
    first, second = np.triu_indices(rows, 1)  # from the shape alone: fixed under jit
    pick = [factories.tensor(i.astype(np.int64), device=x.device) for i in (first, second)]
    diff = index_select(x, 0, pick[0]) - index_select(x, 0, pick[1])
    if p == float("inf") and x.shape[1]:
        return _largest_with_every_tie(diff)
    return vector_norm(diff, p, 1)


def _largest_with_every_tie(diff: Tensor) -> Tensor:
    """``max |diff|`` along axis 1, whose slope reaches *every* element that attains it.

    PyTorch's pdist gives each tied element the whole cotangent, where ``amax``
    shares it out. The value is the detached maximum; each tied ``|d|`` adds
    ``|d| - |d|`` (0, but with slope ``sign(d)``). An infinite maximum gets no slope.
    """
    size = abs(diff)
    top = amax(size, 1, keepdim=True).detach()
    tied = (size == top) & isfinite(top)
    return top.squeeze(1) + where(tied, size - size.detach(), 0.0).sum(1)


@composite("margin_ranking_loss")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:  # fmt: skip
    """``max(0, -target (input1 - input2) + margin)``: target 1 wants input1 ranked higher.

    >>> import minigrad as mg
    >>> mg.nn.functional.margin_ranking_loss(mg.tensor([2.0, 0.0]), mg.tensor([1.0, 1.0]),
    ...                                      mg.tensor([1.0, 1.0]), margin=0.5)
    tensor(0.75)
    """
    _check_reduction(_legacy(size_average, reduce, reduction))
    x1, x2 = _tensor(input1), _tensor(input2)
    y = _tensor(target, x1)
    if not x1.ndim == x2.ndim == y.ndim:
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {x1.shape}, input2: {x2.shape}, target: {y.shape} "
        )
    losses = clamp(-y * (x1 - x2) + margin, min=0)
    return _reduce(losses, _legacy(size_average, reduce, reduction))


@composite("triplet_margin_loss")
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:  # fmt: skip
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))``, d ``pairwise_distance``.

    With ``swap=True`` the negative's distance is the smaller of its
    distances to the anchor and to the positive.

    >>> import minigrad as mg
    >>> a, pos, neg = mg.tensor([[0.0, 0.0]]), mg.tensor([[0.0, 1.0]]), mg.tensor([[3.0, 0.0]])
    >>> mg.nn.functional.triplet_margin_loss(a, pos, neg, eps=0.0)
    tensor(0.)
    """
    if margin <= 0:  # checked first, as PyTorch
        raise ValueError(f"margin must be greater than 0, got {margin}")
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, pos, neg = _tensor(anchor), _tensor(positive), _tensor(negative)
    if not a.ndim == pos.ndim == neg.ndim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {a.ndim}D, positive {pos.ndim}D, and negative "
            f"{neg.ndim}D inputs"
        )
    d_pos = pairwise_distance(a, pos, p, eps)
    d_neg = pairwise_distance(a, neg, p, eps)
    if swap:
        d_neg = minimum(d_neg, pairwise_distance(pos, neg, p, eps))
    return _reduce(clamp(margin + d_pos - d_neg, min=0), reduction)


#: PyTorch's guard against a zero length in ``cosine_embedding_loss``.
EPSILON = 1e-12


@composite("cosine_embedding_loss")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> Tensor:  # fmt: skip
    """``1 - cos`` where target is 1, ``max(0, cos - margin)`` where it is -1 (0 elsewhere).

    ``cos`` is the cosine between the rows of ``input1`` and ``input2``
    (vectors along the last axis), with ``1e-12`` added to each squared length.

    >>> import minigrad as mg
    >>> x = mg.tensor([[1.0, 0.0], [1.0, 0.0]])
    >>> mg.nn.functional.cosine_embedding_loss(x, x, mg.tensor([1, -1]), reduction="none")
    tensor([0., 1.])
    """
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    x1, x2 = _tensor(input1), _tensor(input2, None)
    y = _tensor(target)
    if y.ndim > 1:
        raise RuntimeError(f"cosine_embedding_loss: 0D or 1D target tensor expected, multi-target "
                           f"not supported (target of shape {y.shape})")  # fmt: skip
    if y.ndim == 0 and (x1.ndim != 1 or x2.ndim != 1):
        raise RuntimeError(
            "0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{list(x1.shape)} and {list(x2.shape)}."
        )
    if y.ndim == 1 and (x1.ndim != 2 or x2.ndim != 2):
        raise RuntimeError(
            "1D target tensor expects 2D input tensors, but found inputs with sizes "
            f"{list(x1.shape)} and {list(x2.shape)}."
        )
    axis = x1.ndim - 1
    dot = (x1 * x2).sum(axis)
    square1 = (x1 * x1).sum(axis) + EPSILON
    square2 = (x2 * x2).sum(axis) + EPSILON
    cos = dot / (square1 * square2).sqrt()
    zero = cos * 0.0
    losses = where(y == 1, 1 - cos, zero) + where(y == -1, clamp(cos - margin, min=0), zero)
    return _reduce(losses, reduction)


# -- the same functions as layers ---------------------------------------------------------------
class CosineSimilarity(Module):
    """``cosine_similarity(x1, x2, dim, eps)`` as a layer.

    >>> import minigrad as mg
    >>> mg.nn.CosineSimilarity(dim=0)(mg.tensor([1.0, 0.0]), mg.tensor([1.0, 0.0]))
    tensor(1.)
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``pairwise_distance(x1, x2, p, eps, keepdim)`` as a layer."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class MarginRankingLoss(Module):
    """``margin_ranking_loss`` with its margin and reduction kept on the module."""

    def __init__(self, margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__()
        self.margin, self.reduction = margin, _legacy(size_average, reduce, reduction)

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return margin_ranking_loss(input1, input2, target, self.margin, reduction=self.reduction)


class TripletMarginLoss(Module):
    """``triplet_margin_loss`` with its settings kept on the module."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                 swap: bool = False, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__()
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap
        self.reduction = _legacy(size_average, reduce, reduction)

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return triplet_margin_loss(anchor, positive, negative, self.margin, self.p, self.eps,
                                   self.swap, reduction=self.reduction)  # fmt: skip


class CosineEmbeddingLoss(Module):
    """``cosine_embedding_loss`` with its margin and reduction kept on the module."""

    def __init__(self, margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__()
        self.margin, self.reduction = margin, _legacy(size_average, reduce, reduction)

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return cosine_embedding_loss(input1, input2, target, self.margin,
                                     reduction=self.reduction)  # fmt: skip
