"""mg.utils.data: TensorDataset and DataLoader, batch for batch like torch.utils.data."""

import numpy as np
import pytest
import torch
from torch.utils import data as tdata

import minigrad as mg
from minigrad.utils.data import DataLoader, TensorDataset, default_collate


def datasets(n=7):
    x = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    y = np.arange(n) % 3
    return (TensorDataset(mg.tensor(x), mg.tensor(y)),
            tdata.TensorDataset(torch.tensor(x), torch.tensor(y)))  # fmt: skip


@pytest.mark.parametrize("batch_size", [1, 2, 3, 7, 10])
@pytest.mark.parametrize("drop_last", [False, True])
def test_unshuffled_batches_equal_torchs(batch_size, drop_last):
    ours, theirs = datasets()
    a = DataLoader(ours, batch_size=batch_size, drop_last=drop_last)
    b = tdata.DataLoader(theirs, batch_size=batch_size, drop_last=drop_last)
    assert len(a) == len(b)
    got, expected = list(a), list(b)
    assert len(got) == len(expected)
    for (xa, ya), (xb, yb) in zip(got, expected, strict=True):
        np.testing.assert_array_equal(xa.numpy(), xb.numpy())
        np.testing.assert_array_equal(ya.numpy(), yb.numpy())
        assert ya.dtype == mg.int64


def test_shuffling_covers_every_example_once_and_follows_the_generator():
    ours, _ = datasets(10)

    def epoch(loader):  # the example numbers of one pass, in the order drawn (x[i, 0] == 2 i)
        return [int(row) for xb, _ in loader for row in xb.numpy()[:, 0] // 2]

    one = DataLoader(ours, batch_size=3, shuffle=True, generator=mg.Generator().manual_seed(5))
    two = DataLoader(ours, batch_size=3, shuffle=True, generator=mg.Generator().manual_seed(5))
    first, second = epoch(one), epoch(one)
    assert sorted(first) == list(range(10)) and sorted(second) == list(range(10))
    assert first != second  # a new order every epoch
    assert epoch(two) == first  # the same seed, the same order
    mg.manual_seed(0)
    default = epoch(DataLoader(ours, batch_size=4, shuffle=True))
    mg.manual_seed(0)
    assert epoch(DataLoader(ours, batch_size=4, shuffle=True)) == default


def test_default_collate_matches_torchs_structure_and_dtypes():
    examples = [(np.ones(2, np.float32) * i, i, float(i), {"k": i}) for i in range(3)]
    ours = default_collate(examples)
    theirs = tdata.default_collate(examples)
    assert isinstance(ours, list) and isinstance(theirs, list)
    for a, b in zip(ours[:3], theirs[:3], strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert a.dtype.name == str(b.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(ours[3]["k"].numpy(), theirs[3]["k"].numpy())
    # A custom dataset goes through the collate function.
    loader = DataLoader([(mg.tensor([i, i]), i) for i in range(5)], batch_size=2)
    xb, yb = next(iter(loader))
    assert xb.tolist() == [[0, 0], [1, 1]] and yb.tolist() == [0, 1]
    assert [len(b[1]) for b in loader] == [2, 2, 1]


def test_samplers_and_no_batching():
    ours, _ = datasets(5)
    picked = DataLoader(ours, batch_size=2, sampler=[4, 0, 2])
    assert [yb.tolist() for _, yb in picked] == [[1, 0], [2]] and len(picked) == 2
    pairs = DataLoader(ours, batch_sampler=[[3, 1], [0]])
    assert [yb.tolist() for _, yb in pairs] == [[0, 1], [0]] and len(pairs) == 2
    single = list(DataLoader(ours, batch_size=None))
    assert len(single) == 5 and single[2][0].shape == (2,)


def test_bad_arguments_are_refused_as_torch_does():
    ours, theirs = datasets()
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(mg.zeros(3), mg.zeros(4))
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        tdata.TensorDataset(torch.zeros(3), torch.zeros(4))
    for kwargs, message in [
        ({"batch_size": 0}, "batch_size should be a positive integer value"),
        ({"sampler": [0], "shuffle": True}, "sampler option is mutually exclusive with shuffle"),
        ({"batch_sampler": [[0]], "batch_size": 2}, "batch_sampler option is mutually exclusive"),
    ]:
        with pytest.raises(ValueError, match=message):
            DataLoader(ours, **kwargs)
        with pytest.raises(ValueError, match=message):
            tdata.DataLoader(theirs, **kwargs)
    with pytest.raises(ValueError, match="num_workers=0"):
        DataLoader(ours, num_workers=2)
