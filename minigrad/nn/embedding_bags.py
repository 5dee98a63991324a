"""Embedding bags: the sum, mean or max of the rows of a bag of ids, per bag (lesson 06).

A sentence as a bag of words, a user as the bag of items they clicked: each
bag is a list of ids, and a model wants one vector per bag. ``embedding_bag``
reads the rows ``weight[id]`` and combines each bag's rows by ``mode``
(``"sum"``, ``"mean"`` or ``"max"``, elementwise), without building the
``(bags, ids, dim)`` tensor of an ``embedding`` followed by a reduction.

Bags come as a 2-D ``input`` (one bag per row, all of one length), or as a
1-D ``input`` of all the ids one after another with ``offsets`` saying where
each bag starts (bags of any length, empty ones too, whose result is 0).
``per_sample_weights`` scales each id's row (``mode="sum"`` only), and ids
equal to ``padding_idx`` are left out of their bag (a mean does not count them).

Here the bags are a ``gather`` plan made on the host from the ids and offsets
(PyTorch's kernel reads them there too): the ids each bag keeps, in order.
Sums are an ``index_add`` of the rows into their bags; the max takes, per
column, the first largest row (a NaN only if it comes first, as in PyTorch's
loop) by ``argmax`` and ``gather``, so its gradient reaches that one row only.

``scale_grad_by_freq`` divides the slope of each use of a row by the number of
uses of that row in the batch, the rule of PyTorch's documentation and of its
``embedding``. PyTorch 2.13's CPU ``embedding_bag`` divides by another count
(that of the k-th smallest id, for the k-th distinct id), so its slopes differ
when the ids repeat unevenly; minigrad keeps the documented rule.

    >>> import minigrad as mg
    >>> table = mg.tensor([[1.0, 0.0], [0.0, 2.0], [4.0, 4.0]])
    >>> ids, starts = mg.tensor([0, 1, 2, 2]), mg.tensor([0, 2])
    >>> mg.nn.functional.embedding_bag(ids, table, starts, mode="sum")
    tensor([[1., 2.],
            [8., 8.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.nn.embedding import _gradient_scaled_by_frequency, _renorm_
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import dtypes, factories
from minigrad.tensor.base import every_value
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.indexing import gather, index_select
from minigrad.tensor.ops.logic import isnan
from minigrad.tensor.ops.scattering import index_add
from minigrad.tensor.tensor import Tensor

_TYPES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes


def _type(t: Tensor) -> str:
    return f"torch.{_TYPES.get(t.dtype.name, t.dtype.name)}Tensor"


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:  # fmt: skip
    """One row per bag: the ``mode`` (sum, mean, max) of the rows ``weight[id]`` of its ids.

    ``input`` is ``(bags, n)`` (no ``offsets``), or 1-D with ``offsets`` the
    start of each bag (``include_last_offset=True``: one more offset, the end).
    ``max_norm``, ``norm_type``, ``scale_grad_by_freq`` and ``sparse`` are
    ``embedding``'s.

    >>> import minigrad as mg
    >>> table = mg.tensor([[1.0, 0.0], [0.0, 2.0], [4.0, 4.0]])
    >>> bags = mg.tensor([[0, 1], [2, 0]])
    >>> mg.nn.functional.embedding_bag(bags, table, mode="max")
    tensor([[1., 2.],
            [4., 4.]])
    >>> mg.nn.functional.embedding_bag(bags, table, padding_idx=0)  # the mean of the others
    tensor([[0., 2.],
            [4., 4.]])
    """
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({_size(per_sample_weights)}) is not None, "
            f"then it must have the same shape as the input ({_size(input)})"
        )
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                f"mini-batch of fixed length sequences. However, found offsets of type "
                f"{type(offsets)}"
            )
        if input.shape[1] == 0:
            raise RuntimeError("step must be nonzero")  # (PyTorch's arange of the starts)
        starts = np.arange(0, input.numel(), input.shape[1])
        include_last_offset = False
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = None
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}"
        )
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        _renorm_(weight, input, float(max_norm), float(norm_type))
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub."
        )
    _check_types(input, weight, offsets, per_sample_weights)
    ids = every_value(input).astype(np.int64).reshape(-1)  # (a constant's values, under jit)
    if starts is None:
        starts = _checked_starts(every_value(offsets).astype(np.int64), ids.size,
                                 include_last_offset)  # fmt: skip
    rows = weight.shape[0]
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise RuntimeError(
                f"padding_idx must be within the number of embeddings, -{rows} through "
                f"{rows - 1}, but got {padding_idx}"
            )
        padding_idx %= rows
    bad = ids[(ids < 0) | (ids >= rows)]
    if bad.size:
        raise RuntimeError(
            f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {bad[0]}"
        )
    bag_of = np.repeat(np.arange(starts.size), np.diff(np.append(starts, ids.size)))
    kept = np.flatnonzero(ids != padding_idx) if padding_idx is not None else np.arange(ids.size)
    picked = index_select(weight, 0, _index(ids[kept], weight))
    if scale_grad_by_freq:
        picked = _gradient_scaled_by_frequency(picked, ids[kept], rows)
    if mode == "max":
        return _bag_max(picked, bag_of[kept], starts.size)
    if per_sample_weights is not None:
        picked = picked * index_select(per_sample_weights, 0, _index(kept, weight)).unsqueeze(1)
    zeros = factories.zeros((starts.size, weight.shape[1]), dtype=weight.dtype,
                            device=weight.device)  # fmt: skip
    total = index_add(zeros, 0, _index(bag_of[kept], weight), picked)
    if mode == "sum":
        return total
    counts = np.maximum(np.bincount(bag_of[kept], minlength=starts.size), 1)
    return total / Tensor.concrete(counts[:, None].astype(np.float64), dtype=weight.dtype,
                                   device=weight.device)  # fmt: skip


def _size(t: Tensor) -> str:
    return f"torch.Size({list(t.shape)})"


def _index(values: np.ndarray, like: Tensor) -> Tensor:
    return factories.tensor(values.astype(np.int64), device=like.device)


def _check_types(input: Tensor, weight: Tensor, offsets: Tensor | None,
                 per_sample_weights: Tensor | None) -> None:  # fmt: skip
    for t in (input, offsets):
        if t is not None and t.dtype not in (dtypes.int64, dtypes.int32):
            raise RuntimeError(
                "Expected tensor for argument #1 'indices' to have one of the following scalar "
                f"types: Long, Int; but got {_type(t)} instead (while checking arguments for "
                "embedding_bag)"
            )
    if not dtypes.is_floating(weight.dtype):
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have one of the following scalar types: "
            f"Half, BFloat16, Float, Double; but got {_type(weight)} instead (while checking "
            "arguments for embedding_bag)"
        )
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have the same type as tensor for "
            f"argument #1 'per_sample_weights'; but type {_type(weight)} does not equal "
            f"{_type(per_sample_weights)} (while checking arguments for embedding_bag)"
        )


def _checked_starts(offsets: np.ndarray, count: int, include_last_offset: bool) -> np.ndarray:
    """Where each bag starts. With ``include_last_offset`` the last offset closes the list
    (PyTorch's last bag still runs to the end of the ids)."""
    if offsets.size and offsets[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {offsets[0]}"
        )
    if offsets.size and offsets[-1] > count:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {count} but got offsets[-1] "
            f"of {offsets[-1]}"
        )
    if (np.diff(offsets) < 0).any():
        raise RuntimeError(
            f"embedding_bag: offsets must not decrease, got {offsets.tolist()}\neach offset "
            "is where a bag starts in input: give them in order"
        )
    return offsets[:-1] if include_last_offset else offsets


def _bag_max(picked: Tensor, bag_of: np.ndarray, bags: int) -> Tensor:
    """Per bag and column, the first largest kept row (NaN first); 0 for an empty bag."""
    counts = np.bincount(bag_of, minlength=bags)
    width = max(int(counts.max()) if counts.size else 0, 1)
    # A (bags, width) plan of positions in ``picked``; a bag's kept rows come first, so the
    # filler after them (-inf) never wins a tie against a real row.
    slot = np.arange(bag_of.size) - np.concatenate([[0], np.cumsum(counts)[:-1]])[bag_of]
    plan = np.zeros((bags, width), dtype=np.int64)
    plan[bag_of, slot] = np.arange(bag_of.size)
    filled = np.zeros((bags, width), dtype=bool)
    filled[bag_of, slot] = True
    if not bags or not picked.shape[0]:  # all 0, still a function of the table (slope 0)
        zeros = factories.zeros((bags, picked.shape[1]), dtype=picked.dtype, device=picked.device)
        return index_add(zeros, 0, _index(bag_of, picked), picked)
    grid = index_select(picked, 0, _index(plan.reshape(-1), picked))
    grid = grid.reshape(bags, width, picked.shape[1])
    mask = Tensor.concrete(filled[:, :, None], device=picked.device)
    # PyTorch's loop keeps a bag's first row and replaces it by each larger one: a NaN is
    # kept if it comes first, and never replaces (NaN > x is false).
    key = where(mask & ~isnan(grid), grid, float("-inf"))
    winner = where(isnan(grid[:, :1]), 0, key.argmax(1, keepdim=True))
    best = gather(grid, 1, winner).squeeze(1)
    return where(Tensor.concrete(counts[:, None] > 0, device=picked.device), best, 0.0)


class EmbeddingBag(Module):
    """``embedding_bag`` with a learned table ``weight`` of ``(num_embeddings, embedding_dim)``,
    drawn from a standard normal (the padding row 0), as PyTorch's.

    >>> import minigrad as mg
    >>> mg.nn.EmbeddingBag(10, 3, mode="sum")
    EmbeddingBag(10, 3, mode='sum')
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight: Tensor | None = None,
                 include_last_offset: bool = False, padding_idx: int | None = None,
                 device: Any = "cpu", dtype: Any = dtypes.float32) -> None:  # fmt: skip
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset = include_last_offset
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            table = factories.randn(num_embeddings, embedding_dim, dtype=dtype, device=device)
            if padding_idx is not None:
                table[padding_idx] = 0.0
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError(
                    "Shape of weight does not match num_embeddings and embedding_dim"
                )
            table = _weight
        self.weight = Parameter(table)

    @classmethod
    def from_pretrained(
        cls, embeddings: Tensor, freeze: bool = True, **kwargs: Any
    ) -> EmbeddingBag:
        """A bag layer around the table ``embeddings`` (not learned if ``freeze``)."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        bag = cls(*embeddings.shape, _weight=embeddings, **kwargs)
        bag.weight.requires_grad_(not freeze)
        return bag

    def forward(self, input: Tensor, offsets: Tensor | None = None,
                per_sample_weights: Tensor | None = None) -> Tensor:  # fmt: skip
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights,
                             self.include_last_offset, self.padding_idx)  # fmt: skip

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            text += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        text += f", mode='{self.mode}'"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text
