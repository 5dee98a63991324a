"""Embedding: a learned vector for each of ``num_embeddings`` tokens (lesson 06).

A word, a character or a user id is a whole number, and a network needs
vectors. An embedding is a table with one learned row per id:
``embedding(ids, weight)`` is ``weight[ids]``, the rows of the ids, in the
ids' shape. It is the same as multiplying one-hot vectors by ``weight``,
without building them, and its gradient is that product's too: each row's
gradient is the sum of the gradients of the places that used it (integer-array
indexing adds repeated rows' gradients up).

    >>> import minigrad as mg
    >>> table = mg.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
    >>> mg.nn.functional.embedding(mg.tensor([[2, 1], [1, 1]]), table)
    tensor([[[3., 4.],
             [1., 2.]],
    <BLANKLINE>
            [[1., 2.],
             [1., 2.]]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import dtypes, factories
from minigrad.tensor.mode import no_grad
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.logic import isfinite
from minigrad.tensor.ops.norms import vector_norm
from minigrad.tensor.tensor import Tensor


def embedding(input: Any, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:  # fmt: skip
    """The rows ``weight[input]``: one vector of ``weight.shape[1]`` numbers per id.

    Ids equal to ``padding_idx`` still read their row, but send it no
    gradient (PyTorch's padding: the row for "no token" stays as it is).
    ``max_norm``: first, each row that an id reads and whose ``norm_type``
    norm is above ``max_norm`` is scaled down to it, *in place* in
    ``weight`` (as PyTorch does; the scaling is not recorded).
    ``scale_grad_by_freq``: a row's gradient is divided by how many times
    the ids read it. ``sparse=True`` is accepted for PyTorch's sake; the
    gradient is the same numbers, dense (minigrad has no sparse tensors).

    >>> import minigrad as mg
    >>> w = mg.ones(3, 2, requires_grad=True)
    >>> mg.nn.functional.embedding([0, 2, 2], w, padding_idx=0).sum().backward()
    >>> w.grad
    tensor([[0., 0.],
            [0., 0.],
            [2., 2.]])
    >>> table = mg.tensor([[3.0, 4.0], [0.5, 0.0]])
    >>> mg.nn.functional.embedding([0, 1], table, max_norm=1.0), table[0]
    (tensor([[0.6, 0.8],
            [0.5, 0. ]]), tensor([0.6, 0.8]))
    """
    ids = input if isinstance(input, Tensor) else factories.tensor(input)
    if padding_idx is not None and weight.ndim:
        padding_idx = _padding_row(padding_idx, weight.shape[0])
    if max_norm is not None:
        _renorm_(weight, ids, float(max_norm), float(norm_type))
    if ids.dtype.kind not in "iu":
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {ids.dtype.name} instead (while checking arguments for "
            "embedding)\nids select rows of the table: give integers, e.g. mg.tensor([0, 3])"
        )
    if weight.ndim != 2:
        raise RuntimeError(f"'weight' must be 2-D\ngot a table of shape {weight.shape}")
    rows = weight.shape[0]
    values = ids.detach().numpy()
    if values.size and (values.min() < 0 or values.max() >= rows):
        bad = values[(values < 0) | (values >= rows)].flat[0]
        raise IndexError(
            f"index out of range in self\nid {bad} is not a row of a table with {rows} rows "
            f"(ids 0 to {rows - 1})"
        )
    out = weight[ids]
    if scale_grad_by_freq:
        out = _gradient_scaled_by_frequency(out, values, rows)
    if padding_idx is None:
        return out
    return where((ids == padding_idx).unsqueeze(-1), out.detach(), out)


_TENSOR_TYPES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes


def _renorm_(weight: Tensor, ids: Tensor, max_norm: float, norm_type: float) -> None:
    """PyTorch's ``embedding_renorm_``: each row read whose norm exceeds ``max_norm`` is
    multiplied by ``max_norm / (norm + 1e-7)``, in place, unrecorded."""
    if ids.dtype.kind not in "iu":
        raise RuntimeError(
            "Expected tensor for argument #2 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{_TENSOR_TYPES.get(ids.dtype.name, '')}Tensor "
            "instead (while checking arguments for embedding_renorm_)"
        )
    if not dtypes.is_floating(weight.dtype):
        names = {"int64": "Long", "int32": "Int"}
        name = names.get(weight.dtype.name, weight.dtype.name)
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got {name} instead."
        )
    rows = weight.shape[0]
    with no_grad():
        for row in np.unique(ids.detach().numpy()):  # sorted, each row once
            if not -rows <= row < rows:
                raise IndexError(f"select(): index {row} out of range for tensor of size "
                                 f"{list(weight.shape)} at dimension 0")  # fmt: skip
            norm = float(vector_norm(weight[int(row)], norm_type))
            if norm > max_norm:
                weight[int(row)] = weight[int(row)] * (max_norm / (norm + 1e-7))


def _gradient_scaled_by_frequency(picked: Tensor, ids: np.ndarray, rows: int) -> Tensor:
    """``picked``'s values, with the gradient of each use divided by how often its id occurs.

    ``scaled - scaled.detach()`` is an exact 0 that carries ``scaled``'s
    gradient, so the finite values are the rows' own to the bit (``-0.0``
    too: ``v - (+0) = v``); an infinite or NaN value equals its ``scaled``.
    """
    counts = np.bincount(ids.reshape(-1), minlength=rows)[ids]
    share = Tensor.concrete((1.0 / counts)[..., None], dtype=picked.dtype, device=picked.device)
    scaled = picked * share
    value = picked.detach()
    return where(isfinite(value), value - (scaled.detach() - scaled), scaled)


def _padding_row(padding_idx: int, rows: int) -> int:
    """``padding_idx`` as a row number; negative ones count from the end, as in PyTorch."""
    if not dtypes.is_integer(padding_idx) or not -rows <= padding_idx < rows:
        raise ValueError(
            f"Padding_idx must be within num_embeddings\ngot padding_idx={padding_idx!r} for "
            f"{rows} embeddings"
        )
    return padding_idx % rows


class Embedding(Module):
    """A table of ``num_embeddings`` learned vectors of ``embedding_dim`` numbers.

    The rows start as draws from N(0, 1), as in PyTorch; the ``padding_idx``
    row starts at 0 and gets no gradient.

    >>> import minigrad as mg
    >>> layer = Embedding(10, 3, padding_idx=0)
    >>> layer(mg.tensor([[0, 4, 4]])).shape, layer.weight[0]
    ((1, 3, 3), tensor([0., 0., 0.], grad_fn=<getitem>))
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        dtype: Any = dtypes.float32,
        device: str = "cpu",
    ) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        self.padding_idx = None
        if padding_idx is not None:
            self.padding_idx = _padding_row(padding_idx, num_embeddings)
        table = factories.generator().standard_normal((num_embeddings, embedding_dim))
        if self.padding_idx is not None:
            table[self.padding_idx] = 0.0
        self.weight = Parameter(factories.tensor(table, dtype=dtype, device=device))

    def forward(self, ids: Any) -> Tensor:
        return embedding(ids, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                         self.scale_grad_by_freq, self.sparse)  # fmt: skip

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            text += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse:
            text += ", sparse=True"
        return text


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Each class id as a row of zeros with a 1 at the id: shape ``(*tensor.shape, num_classes)``.

    ``num_classes=-1`` takes the largest id plus one. The result is int64
    (it is an embedding with the identity matrix as table, and no gradient).

    >>> import minigrad as mg
    >>> mg.nn.functional.one_hot(mg.tensor([0, 2]))
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    ids = tensor if isinstance(tensor, Tensor) else factories.tensor(tensor)
    if ids.dtype != dtypes.int64:
        raise RuntimeError(
            "one_hot is only applicable to index tensor of type LongTensor.\n"
            f"got {ids.dtype.name}; convert with .to(mg.int64)"
        )
    values = ids.detach().numpy()
    if num_classes == -1:
        if values.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(values.max()) + 1
    if values.size and values.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if values.size and values.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    classes = factories.arange(num_classes, device=ids.device)
    return (ids.unsqueeze(-1) == classes).to(dtypes.int64)
