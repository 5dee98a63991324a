"""Datasets and minibatches: ``TensorDataset``, samplers and ``DataLoader`` (lesson 06).

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

The pieces are PyTorch's and can be swapped one at a time: a *sampler*
yields the indices of one pass (``SequentialSampler``, ``RandomSampler``,
``SubsetRandomSampler``, ``WeightedRandomSampler``), a ``BatchSampler``
groups them, and ``Subset``/``random_split``/``ConcatDataset``/
``StackDataset``/``ChainDataset`` make new datasets out of old ones.
"""

from __future__ import annotations

import bisect
import copy
import itertools
import math
import warnings
from collections.abc import (
    Callable,
    Iterable,
    Iterator,
    Mapping,
    MutableMapping,
    MutableSequence,
    Sequence,
)
from typing import Any

import numpy as np

from minigrad.tensor import factories
from minigrad.tensor.generator import Generator
from minigrad.tensor.ops.movement import stack
from minigrad.tensor.sampling import multinomial
from minigrad.tensor.tensor import Tensor

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "random_split",
]


class Dataset:
    """Base class of map-style datasets: define ``__getitem__`` (and ``__len__``)."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """Base class of datasets that are a stream: define ``__iter__`` (no ``ds[i]``).

    ``DataLoader`` batches the stream in the order it comes; ``a + b`` chains two.
    """

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __add__(self, other: Dataset) -> ChainDataset:
        return ChainDataset([self, other])


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


def _check_generator(generator: Any) -> None:
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"generator must be an mg.Generator, got {type(generator).__name__}")


def _stream(generator: Generator | None) -> np.random.Generator:
    """The NumPy stream behind ``generator``, or minigrad's own (``mg.manual_seed``)."""
    return generator.numpy() if generator is not None else factories.generator()


class Subset(Dataset):
    """The examples of ``dataset`` at ``indices``: ``Subset(ds, [4, 0])[1]`` is ``ds[0]``.

    >>> Subset(range(10), [4, 0, 7])[1], len(Subset(range(10), [4, 0, 7]))
    (0, 3)
    """

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list[Any]:
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(
    dataset: Any, lengths: Sequence[int | float], generator: Generator | None = None
) -> list[Subset]:
    """``dataset`` cut at random into ``Subset``s of the given ``lengths`` (or fractions).

    Fractions that sum to 1 become ``floor(len(dataset) * f)`` examples each,
    and the examples left over go one each to the first splits in turn (a
    split of none warns). The order comes from ``generator`` (an
    ``mg.Generator``), else from minigrad's own (``mg.manual_seed``).

    >>> import minigrad as mg
    >>> [len(s) for s in random_split(range(10), [0.5, 0.3, 0.2])]
    [5, 3, 2]
    >>> [len(s) for s in random_split(range(11), [0.5, 0.5])]
    [6, 5]
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        split_lengths: list[int] = []
        for i, fraction in enumerate(lengths):
            if fraction < 0 or fraction > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            split_lengths.append(math.floor(len(dataset) * fraction))
        for i in range(len(dataset) - sum(split_lengths)):
            split_lengths[i % len(split_lengths)] += 1
        lengths = split_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    _check_generator(generator)
    indices = _stream(generator).permutation(int(sum(lengths))).tolist()
    return [
        Subset(dataset, indices[end - length : end])
        for end, length in zip(itertools.accumulate(lengths), lengths, strict=True)
    ]


class ConcatDataset(Dataset):
    """The examples of several datasets one after another (``ds1 + ds2`` makes one).

    >>> ds = ConcatDataset([range(3), range(10, 12)])
    >>> len(ds), ds[3], ds[-1], ds.cumulative_sizes
    (5, 10, 11, [3, 5])
    """

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class StackDataset(Dataset):
    """Example ``i`` is ``(a[i], b[i], ...)``, or ``{"k": a[i], ...}`` given keywords.

    >>> StackDataset(range(3), "xyz")[1], StackDataset(n=range(3), c="xyz")[2]
    ((1, 'y'), {'n': 2, 'c': 'z'})
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                "input/output, but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets: tuple | dict = args if args else kwargs

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length


class ChainDataset(IterableDataset):
    """The streams of several ``IterableDataset`` objects, one after another.

    >>> class Count(IterableDataset):
    ...     def __init__(self, n): self.n = n
    ...     def __iter__(self): return iter(range(self.n))
    >>> list(ChainDataset([Count(2), Count(3)]))
    [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Sampler:
    """Samplers' base class: ``__iter__`` yields the indices of one pass; ``__len__`` optional."""

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``: the loader's order without ``shuffle``."""

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """Indices in a random order: a new permutation each pass (``shuffle=True``'s sampler).

    ``replacement=True`` draws ``num_samples`` indices independently;
    without it ``num_samples`` (default ``len(data_source)``) may exceed the
    length, taking whole permutations and then part of one more.

    >>> import minigrad as mg
    >>> sorted(RandomSampler(range(4), generator=mg.Generator().manual_seed(1)))
    [0, 1, 2, 3]
    >>> len(RandomSampler(range(4), num_samples=6))
    6
    """

    def __init__(
        self,
        data_source: Any,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )
        _check_generator(generator)

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        rng = _stream(self.generator)
        if self.replacement:
            yield from rng.integers(0, n, size=self.num_samples).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from rng.permutation(n).tolist()
        if self.num_samples % n:
            yield from rng.permutation(n).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices``, in a new random order each pass.

    >>> sorted(SubsetRandomSampler([5, 2, 9]))
    [2, 5, 9]
    """

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        _check_generator(generator)
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        rng = _stream(self.generator)
        for i in rng.permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probability proportional to ``weights``.

    ``replacement=False`` draws each index at most once (``mg.multinomial``'s rule
    and errors).

    >>> sorted(WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], 2, replacement=False))
    [1, 3]
    """

    def __init__(
        self,
        weights: Sequence[float],
        num_samples: int,
        replacement: bool = True,
        generator: Generator | None = None,
    ) -> None:
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        _check_generator(generator)
        if isinstance(weights, Tensor):
            weights = weights.detach().numpy()
        weights_tensor = factories.tensor(np.asarray(weights, dtype=np.float64))
        if weights_tensor.ndim != 1:
            raise ValueError(
                "weights should be a 1d sequence but given weights have shape "
                f"{tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Indices of ``sampler`` in lists of ``batch_size``; the last shorter unless ``drop_last``.

    >>> list(BatchSampler(range(5), 2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    >>> list(BatchSampler(range(5), 2, drop_last=True))
    [[0, 1], [2, 3]]
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        batch = list(itertools.islice(indices, self.batch_size))
        while batch:
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch
            batch = list(itertools.islice(indices, self.batch_size))

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


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


def default_convert(data: Any) -> Any:
    """One example made of tensors, as ``collate_fn`` when batching is off (``batch_size=None``).

    NumPy arrays and scalars become tensors (arrays of strings or objects stay);
    tuples become lists, other containers keep their type; tensors and
    everything else pass through.

    >>> import numpy as np
    >>> default_convert((np.arange(2), "a"))
    [tensor([0, 1]), 'a']
    """
    kind = type(data)
    if isinstance(data, Tensor):
        return data
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_"):
        if isinstance(data, np.ndarray) and data.dtype.kind in "SaUO":
            return data
        return factories.tensor(np.asarray(data))
    if isinstance(data, Mapping):
        try:
            if isinstance(data, MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return kind({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return kind([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


class DataLoader:
    """Minibatches of ``dataset``: an iterable, one pass over the data per ``for`` loop.

    ``shuffle=True`` draws a new order every pass, from ``generator`` (an
    ``mg.Generator``) or else from minigrad's generator (``mg.manual_seed``).
    ``sampler`` (an iterable of indices) or ``batch_sampler`` (of lists of
    indices) give the order instead; the loader keeps the ones it made as
    ``loader.sampler`` / ``loader.batch_sampler`` (``RandomSampler`` or
    ``SequentialSampler``, then a ``BatchSampler``), as PyTorch's does.
    ``collate_fn`` turns a list of examples into a batch (``default_collate``);
    ``batch_size=None`` yields the examples one at a time, through
    ``default_convert``. An ``IterableDataset`` is batched in the order it
    streams. Batches are made in this process (``num_workers=0``).

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
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            if shuffle not in {False, None}:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, "
                    f"but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}"
                )
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        _check_generator(generator)
        if sampler is None and not iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else (
                SequentialSampler(dataset))  # fmt: skip
        if batch_size is not None and batch_sampler is None and not iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size, self.drop_last = batch_size, drop_last
        self.shuffle = bool(shuffle)
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.num_workers = num_workers
        self._auto_collation = batch_sampler is not None or (iterable and batch_size is not None)
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self._fast = collate_fn is default_collate and type(dataset) is TensorDataset
        self.generator = generator

    def _iterable_batches(self) -> Iterator[Any]:
        stream = iter(self.dataset)
        if self.batch_size is None:
            for example in stream:
                yield self.collate_fn(example)
            return
        batch = list(itertools.islice(stream, self.batch_size))
        while batch:
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield self.collate_fn(batch)
            batch = list(itertools.islice(stream, self.batch_size))

    def __iter__(self) -> Iterator[Any]:
        if isinstance(self.dataset, IterableDataset):
            yield from self._iterable_batches()
            return
        if not self._auto_collation:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        getitems = getattr(self.dataset, "__getitems__", None)
        for rows in self.batch_sampler:
            if self._fast:  # one gather per tensor instead of one index per example and a stack
                picked = np.asarray(rows, dtype=np.int64)
                yield [t[picked] for t in self.dataset.tensors]
            elif callable(getitems):
                yield self.collate_fn(getitems(list(rows)))
            else:
                yield self.collate_fn([self.dataset[i] for i in rows])

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
        if self._auto_collation:
            return len(self.batch_sampler)
        return len(self.sampler)
