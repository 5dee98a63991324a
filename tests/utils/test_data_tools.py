"""mg.utils.data's datasets, samplers and loader options, each against torch.utils.data."""

import warnings

import numpy as np
import pytest
import torch
from torch.utils import data as tdata

import minigrad as mg
from minigrad.utils import data as mdata


def same_error(ours, theirs):
    """Both calls raise: the same exception type and the same first line."""
    with pytest.raises(Exception) as expected:
        theirs()
    with pytest.raises(type(expected.value)) as got:
        ours()
    assert str(got.value).splitlines()[0] == str(expected.value).splitlines()[0]


def plain(x):
    """Batches as nested lists of numbers, to compare minigrad's with torch's."""
    if isinstance(x, (mg.Tensor, torch.Tensor)):
        return ("tensor", x.tolist(), str(x.dtype).removeprefix("torch."))
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [plain(v) for v in x])
    return x


class Stream(mdata.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


class TorchStream(tdata.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_subset_concat_stack_and_chain_read_as_torchs():
    a, b = list(range(5)), [10, 11]
    for ours, theirs in [
        (mdata.Subset(a, [4, 0, 2]), tdata.Subset(a, [4, 0, 2])),
        (mdata.ConcatDataset([a, b]), tdata.ConcatDataset([a, b])),
        (mdata.StackDataset(a, "abcde"), tdata.StackDataset(a, "abcde")),
        (mdata.StackDataset(n=a, c="abcde"), tdata.StackDataset(n=a, c="abcde")),
    ]:
        assert len(ours) == len(theirs)
        assert [ours[i] for i in range(-len(ours), len(ours))] == [
            theirs[i] for i in range(-len(theirs), len(theirs))
        ]
    assert mdata.ConcatDataset([a, b]).cumulative_sizes == [5, 7]
    assert mdata.Subset(np.arange(5) * 2, [3, 1])[[1, 0]].tolist() == [2, 6]
    glued = mdata.TensorDataset(mg.arange(2)) + mdata.TensorDataset(mg.arange(3))
    assert isinstance(glued, mdata.ConcatDataset) and len(glued) == 5
    chained = Stream(2) + Stream(3)
    assert isinstance(chained, mdata.ChainDataset)
    assert list(chained) == list(tdata.ChainDataset([TorchStream(2), TorchStream(3)]))
    assert len(chained) == 5


def test_dataset_errors_are_torchs():
    same_error(lambda: mdata.ConcatDataset([]), lambda: tdata.ConcatDataset([]))
    same_error(
        lambda: mdata.ConcatDataset([Stream(2)]), lambda: tdata.ConcatDataset([TorchStream(2)])
    )
    same_error(lambda: mdata.ConcatDataset([[1, 2]])[-3], lambda: tdata.ConcatDataset([[1, 2]])[-3])
    same_error(lambda: mdata.ConcatDataset([[1, 2]])[2], lambda: tdata.ConcatDataset([[1, 2]])[2])
    same_error(lambda: mdata.StackDataset(), lambda: tdata.StackDataset())
    same_error(lambda: mdata.StackDataset([1], b=[2]), lambda: tdata.StackDataset([1], b=[2]))
    same_error(lambda: mdata.StackDataset([1], [2, 3]), lambda: tdata.StackDataset([1], [2, 3]))
    same_error(lambda: list(mdata.ChainDataset([[1]])), lambda: list(tdata.ChainDataset([[1]])))


@pytest.mark.parametrize(
    "n, lengths",
    [(10, [0.5, 0.3, 0.2]), (11, [0.5, 0.5]), (7, [0.1, 0.1, 0.8]), (3, [1.0]), (5, [2, 3]),
     (4, [0.25, 0.25, 0.25, 0.25]), (2, [0.6, 0.2, 0.2]), (0, [0, 0])],
)  # fmt: skip
def test_random_split_lengths_warnings_and_partition_are_torchs(n, lengths):
    with warnings.catch_warnings(record=True) as theirs_warned:
        warnings.simplefilter("always")
        theirs = tdata.random_split(range(n), lengths, generator=torch.Generator().manual_seed(0))
    with warnings.catch_warnings(record=True) as ours_warned:
        warnings.simplefilter("always")
        ours = mdata.random_split(range(n), lengths, generator=mg.Generator().manual_seed(0))
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    assert [str(w.message) for w in ours_warned] == [str(w.message) for w in theirs_warned]
    drawn = [x for s in ours for x in s]
    assert sorted(drawn) == list(range(n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = mdata.random_split(range(n), lengths, generator=mg.Generator().manual_seed(0))
    assert [list(s) for s in again] == [list(s) for s in ours]


@pytest.mark.parametrize("lengths", [[1.5, -0.5], [0.5, 0.4], [3, 3], [2.0, -1.0]])
def test_random_split_errors_are_torchs(lengths):
    same_error(lambda: mdata.random_split(range(5), lengths),
               lambda: tdata.random_split(range(5), lengths))  # fmt: skip


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("size", [1, 3, 5, 6])
def test_batch_and_sequential_samplers_equal_torchs(drop_last, size):
    ours = mdata.BatchSampler(mdata.SequentialSampler(range(5)), size, drop_last)
    theirs = tdata.BatchSampler(tdata.SequentialSampler(range(5)), size, drop_last)
    assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_random_samplers_draw_what_torch_draws():
    gen = mg.Generator().manual_seed(3)
    first = list(mdata.RandomSampler(range(6), generator=gen))
    assert sorted(first) == list(range(6)) and first != list(
        mdata.RandomSampler(range(6), generator=gen)
    )
    long = list(mdata.RandomSampler(range(4), num_samples=10))
    assert (
        len(long) == 10
        and sorted(long[:8]) == sorted(list(range(4)) * 2)
        and len(set(long[8:])) == 2
    )
    drawn = list(mdata.RandomSampler(range(3), replacement=True, num_samples=50))
    assert len(drawn) == 50 and set(drawn) <= {0, 1, 2}
    assert len(mdata.RandomSampler(range(3), num_samples=7)) == 7
    assert sorted(mdata.SubsetRandomSampler([7, 2, 9], generator=gen)) == [2, 7, 9]
    weighted = mdata.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 40)
    assert len(weighted) == 40 and set(weighted) <= {1, 3}
    assert sorted(
        mdata.WeightedRandomSampler(mg.tensor([0.0, 1.0, 2.0]), 2, replacement=False)
    ) == [1, 2]
    assert mdata.WeightedRandomSampler([1, 2], 1).weights.dtype == mg.float64
    seeded = [list(mdata.WeightedRandomSampler([1.0, 2.0, 3.0], 5, generator=mg.Generator().manual_seed(1)))
              for _ in range(2)]  # fmt: skip
    assert seeded[0] == seeded[1]


@pytest.mark.parametrize(
    "make",
    [
        lambda d: d.RandomSampler(range(3), replacement=1),
        lambda d: d.RandomSampler(range(3), num_samples=0),
        lambda d: d.RandomSampler([], num_samples=None),
        lambda d: d.WeightedRandomSampler([1.0, 2.0], 0),
        lambda d: d.WeightedRandomSampler([1.0, 2.0], True),
        lambda d: d.WeightedRandomSampler([1.0, 2.0], 2, replacement=0),
        lambda d: d.WeightedRandomSampler([[1.0, 2.0]], 2),
        lambda d: list(d.WeightedRandomSampler([1.0, 2.0], 3, replacement=False)),
        lambda d: list(d.WeightedRandomSampler([1.0, -2.0], 1)),
        lambda d: d.BatchSampler(range(3), 0, False),
        lambda d: d.BatchSampler(range(3), True, False),
        lambda d: d.BatchSampler(range(3), 2, 1),
    ],
)
def test_sampler_errors_are_torchs(make):
    same_error(lambda: make(mdata), lambda: make(tdata))


def test_loader_options_give_torchs_batches():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    ours, theirs = mdata.TensorDataset(mg.tensor(x)), tdata.TensorDataset(torch.tensor(x))
    cases = [
        dict(sampler=[5, 0, 3], batch_size=2),
        dict(batch_sampler=[[1, 2], [0], [5, 4, 3]]),
        dict(batch_size=None),
        dict(batch_size=4, collate_fn=lambda batch: len(batch)),
        dict(batch_size=4, drop_last=True),
    ]
    for kwargs in cases:
        a, b = mdata.DataLoader(ours, **kwargs), tdata.DataLoader(theirs, **kwargs)
        assert len(a) == len(b)
        assert [plain(batch) for batch in a] == [plain(batch) for batch in b]
    listed = [(np.float32(i), {"k": i}) for i in range(5)]
    for kwargs in [
        dict(batch_size=2),
        dict(batch_size=None),
        dict(sampler=mdata.SequentialSampler(listed)),
    ]:
        a, b = mdata.DataLoader(listed, **kwargs), tdata.DataLoader(listed, **kwargs)
        assert [plain(batch) for batch in a] == [plain(batch) for batch in b]
    subset_ours = mdata.Subset(ours, [4, 1, 2])
    subset_theirs = tdata.Subset(theirs, [4, 1, 2])
    assert [plain(v) for v in mdata.DataLoader(subset_ours, batch_size=2)] == [
        plain(v) for v in tdata.DataLoader(subset_theirs, batch_size=2)
    ]
    made = mdata.DataLoader(ours, batch_size=4, shuffle=True)
    assert isinstance(made.sampler, mdata.RandomSampler)
    assert isinstance(made.batch_sampler, mdata.BatchSampler) and made.batch_sampler.batch_size == 4
    assert isinstance(mdata.DataLoader(ours).sampler, mdata.SequentialSampler)


@pytest.mark.parametrize(
    "kwargs", [dict(batch_size=2), dict(batch_size=2, drop_last=True), dict(batch_size=None)]
)
def test_loader_batches_an_iterable_dataset_as_torch(kwargs):
    a, b = mdata.DataLoader(Stream(5), **kwargs), tdata.DataLoader(TorchStream(5), **kwargs)
    assert len(a) == len(b)
    assert [plain(batch) for batch in a] == [plain(batch) for batch in b]


@pytest.mark.parametrize(
    "make",
    [
        lambda d, s: d.DataLoader(s, shuffle=True),
        lambda d, s: d.DataLoader(s, sampler=[0, 1]),
        lambda d, s: d.DataLoader(s, batch_sampler=[[0]]),
        lambda d, s: d.DataLoader(range(3), batch_size=None, drop_last=True),
        lambda d, s: d.DataLoader(range(3), batch_sampler=[[0]], drop_last=True),
        lambda d, s: d.DataLoader(range(3), sampler=[0], shuffle=True),
    ],
)
def test_loader_errors_are_torchs(make):
    same_error(lambda: make(mdata, Stream(3)), lambda: make(tdata, TorchStream(3)))


def test_default_convert_matches_torchs():
    from collections import namedtuple

    Pair = namedtuple("Pair", "a b")
    for value in [(np.arange(3), "s"), {"x": np.float64(2.5)}, [np.array(["a"]), 3],
                  Pair(np.int32(1), np.ones(2, np.float32))]:  # fmt: skip
        ours, theirs = mdata.default_convert(value), tdata.default_convert(value)
        assert type(ours) is type(theirs)
        assert repr(plain(ours)) == repr(plain(theirs))
