"""Datasets and minibatches: ``TensorDataset`` and ``DataLoader`` (lesson 06).

Training takes one step per *minibatch*: a few dozen examples drawn from
the training set, in a new random order every epoch. Written by hand that
is a permutation cut into slices; ``DataLoader`` is that loop, named as in
PyTorch, so training code reads the same in both:

    >>> import minigrad as mg
    >>> from minigrad.utils.data import DataLoader, TensorDataset
    >>> X, y = mg.arange(10.0).reshape(5, 2), mg.arange(5)
    >>> loader = DataLoader(TensorDataset(X, y), batch_size=2, shuffle=True,
    ...                     generator=mg.Generator().manual_seed(0))
    >>> [yb.tolist() for xb, yb in loader]  # every example once, in a random order
    [[2, 4], [3, 0], [1]]
    >>> len(loader)
    3

A *dataset* is anything with ``len(ds)`` and ``ds[i]`` (one example). The
loader draws the order of the indices (``shuffle``: from ``generator``, or
from minigrad's own generator, so ``mg.manual_seed`` fixes it), groups them
into batches of ``batch_size`` (the last one shorter unless ``drop_last``),
and *collates* each batch's examples into tensors with a leading batch axis.
A ``TensorDataset`` is collated in one indexing per tensor, not one per example.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from minigrad.tensor import factories
from minigrad.tensor.generator import Generator
from minigrad.tensor.ops.movement import stack
from minigrad.tensor.tensor import Tensor

__all__ = ["DataLoader", "Dataset", "TensorDataset", "default_collate"]


class Dataset:
    """Base class of map-style datasets: define ``__getitem__`` (and ``__len__``)."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")


class TensorDataset(Dataset):
    """Example ``i`` is ``tuple(t[i] for t in tensors)``: tensors that share their first axis.

    >>> import minigrad as mg
    >>> ds = TensorDataset(mg.zeros(3, 2), mg.tensor([7, 8, 9]))
    >>> len(ds), ds[1][1]
    (3, tensor(8))
    """

    def __init__(self, *tensors: Tensor) -> None:
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset holds tensors; got a {type(t).__name__}")
            if t.ndim == 0:
                raise ValueError("TensorDataset: a 0-d tensor has no first axis to index")
        if len({t.shape[0] for t in tensors}) > 1:
            raise AssertionError(
                "Size mismatch between tensors\n(first axes "
                f"{', '.join(str(t.shape[0]) for t in tensors)}; each tensor needs one row "
                "per example)"
            )
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0] if self.tensors else 0


def default_collate(batch: Sequence[Any]) -> Any:
    """The examples of one batch, joined along a new first axis, field by field.

    Tensors and NumPy arrays are stacked; Python floats become a float64
    tensor, ints an int64 tensor (PyTorch's rule); tuples and lists of
    fields give a list of collated fields, dicts a dict; strings stay a list.

    >>> import minigrad as mg
    >>> default_collate([(mg.zeros(2), 1), (mg.ones(2), 0)])
    [tensor([[0., 0.],
            [1., 1.]]), tensor([1, 0])]
    """
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(list(batch))
    if isinstance(first, np.ndarray):
        return stack([factories.tensor(x) for x in batch])
    if isinstance(first, (bool, np.bool_)):
        return factories.tensor(list(batch))
    if isinstance(first, float):
        return factories.tensor(list(batch), dtype="float64")
    if isinstance(first, (int, np.number)):
        return factories.tensor(np.asarray(batch))
    if isinstance(first, (str, bytes)):
        return list(batch)
    if isinstance(first, Mapping):
        return {key: default_collate([example[key] for example in batch]) for key in first}
    if isinstance(first, Sequence):
        if len({len(example) for example in batch}) > 1:
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(field)) for field in zip(*batch, strict=True)]
    raise TypeError(
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        f"found {type(first).__name__}"
    )


class DataLoader:
    """Minibatches of ``dataset``: an iterable, one pass over the data per ``for`` loop.

    ``shuffle=True`` draws a new order every pass, from ``generator`` (an
    ``mg.Generator``) or else from minigrad's generator (``mg.manual_seed``).
    ``sampler`` (an iterable of indices) or ``batch_sampler`` (of lists of
    indices) give the order instead. ``collate_fn`` turns a list of examples
    into a batch (``default_collate``); ``batch_size=None`` yields the
    examples one at a time, uncollated. Batches are made in this process
    (``num_workers=0``).

    >>> import minigrad as mg
    >>> loader = DataLoader(TensorDataset(mg.arange(5)), batch_size=2, drop_last=True)
    >>> [xb.tolist() for (xb,) in loader]
    [[0, 1], [2, 3]]
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Iterable[int] | None = None,
        batch_sampler: Iterable[list[int]] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable | None = None,
        multiprocessing_context: Any = None,
        generator: Generator | None = None,
    ) -> None:
        if num_workers != 0:
            raise ValueError(
                f"DataLoader: num_workers={num_workers}, but minigrad makes batches in this "
                "process only; use num_workers=0"
            )
        if batch_size is not None and (
            isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0
        ):
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (
            batch_size != 1 or shuffle or sampler is not None or drop_last
        ):
            raise ValueError(
                "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                "sampler, and drop_last"
            )
        if generator is not None and not isinstance(generator, Generator):
            raise TypeError(f"generator must be an mg.Generator, got {type(generator).__name__}")
        self.dataset = dataset
        self.batch_size = None if batch_sampler is not None else batch_size
        self.shuffle = bool(shuffle)
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.num_workers, self.drop_last = num_workers, drop_last
        self.collate_fn = collate_fn
        self.generator = generator

    def _order(self) -> Iterable[int]:
        """The indices of one pass, in the order they are drawn."""
        if self.sampler is not None:
            return self.sampler
        n = len(self.dataset)
        if not self.shuffle:
            return range(n)
        if self.generator is not None:
            return self.generator.permutation(n)
        return factories.generator().permutation(n)

    def _batches(self) -> Iterator[list[int]]:
        if self.batch_sampler is not None:
            yield from self.batch_sampler
            return
        batch: list[int] = []
        for index in self._order():
            batch.append(int(index))
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __iter__(self) -> Iterator[Any]:
        if self.batch_size is None and self.batch_sampler is None:
            for index in self._order():
                example = self.dataset[int(index)]
                yield self.collate_fn(example) if self.collate_fn is not None else example
            return
        fast = self.collate_fn is None and type(self.dataset) is TensorDataset
        for rows in self._batches():
            if fast:  # one gather per tensor instead of one index per example and a stack
                picked = np.asarray(rows, dtype=np.int64)
                yield [t[picked] for t in self.dataset.tensors]
            else:
                collate = self.collate_fn or default_collate
                yield collate([self.dataset[i] for i in rows])

    def __len__(self) -> int:
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
