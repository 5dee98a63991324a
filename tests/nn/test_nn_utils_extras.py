"""mg.nn.utils: parameters as a vector, get_total_norm/clip_grads_with_norm_, and rnn padding and
packing, each against torch.nn.utils (values, gradients, errors)."""

import numpy as np
import pytest
import torch
from torch.nn.utils import rnn as trnn

import minigrad as mg
from minigrad.nn.utils import rnn as mrnn


def same_error(ours, theirs):
    """Both calls raise: the same exception type and the same first line."""
    with pytest.raises(Exception) as expected:
        theirs()
    with pytest.raises(type(expected.value)) as got:
        ours()
    assert str(got.value).splitlines()[0] == str(expected.value).splitlines()[0]


def pair(shape, seed=0, dtype=np.float64):
    """The same random values as a minigrad and a torch leaf that require grad."""
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)


def close(a, b):
    if a is None or b is None:
        assert a is None and b is None
        return
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    assert a.shape == tuple(b.shape) and a.dtype.name == b.dtype.name
    np.testing.assert_allclose(a.detach().numpy(), b, rtol=1e-12, atol=0)


def test_parameters_to_vector_and_back_as_torch():
    (a, ta), (b, tb) = pair((2, 3)), pair((4,), 1)
    v, tv = mg.nn.utils.parameters_to_vector([a, b]), torch.nn.utils.parameters_to_vector([ta, tb])
    close(v, tv)
    w = np.arange(10.0)
    (v * mg.tensor(w)).sum().backward()
    (tv * torch.tensor(w)).sum().backward()
    close(a.grad, ta.grad)
    close(b.grad, tb.grad)
    layer = mg.nn.Linear(3, 2, dtype=mg.float64)
    mg.nn.utils.vector_to_parameters(mg.arange(9.0, dtype=mg.float64) * 2, layer.parameters())
    tlayer = torch.nn.Linear(3, 2, dtype=torch.float64)
    torch.nn.utils.vector_to_parameters(
        torch.arange(9.0, dtype=torch.float64) * 2, tlayer.parameters()
    )
    close(layer.weight, tlayer.weight)
    close(layer.bias, tlayer.bias)
    assert layer.weight.requires_grad and layer.weight.grad_fn is None


def test_parameter_vector_errors_are_torchs_and_change_nothing():
    same_error(
        lambda: mg.nn.utils.parameters_to_vector([]),
        lambda: torch.nn.utils.parameters_to_vector([]),
    )
    same_error(lambda: mg.nn.utils.vector_to_parameters([1.0], [mg.ones(2, 2)]),
               lambda: torch.nn.utils.vector_to_parameters([1.0], [torch.ones(2, 2)]))  # fmt: skip
    same_error(lambda: mg.nn.utils.vector_to_parameters(np.ones(4), [mg.ones(2, 2)]),
               lambda: torch.nn.utils.vector_to_parameters(np.ones(4), [torch.ones(2, 2)]))  # fmt: skip
    first, second = mg.zeros(2), mg.zeros(2, 2)
    same_error(lambda: mg.nn.utils.vector_to_parameters(mg.ones(3), [first, second]),
               lambda: torch.nn.utils.vector_to_parameters(torch.ones(3), [torch.zeros(2), torch.zeros(2, 2)]))  # fmt: skip
    assert first.tolist() == [0.0, 0.0]  # nothing half-written


@pytest.mark.parametrize("norm_type", [2.0, 1, "inf", 0.5, -np.inf])
@pytest.mark.parametrize("poison", [None, np.nan, np.inf])
def test_get_total_norm_and_clip_grads_with_norm_as_torch(norm_type, poison):
    (a, ta), (b, tb) = pair((3,)), pair((2, 2), 1)
    if poison is not None:
        with mg.no_grad():
            a.data = mg.tensor([1.0, poison, 2.0], dtype=mg.float64)
        ta.data = torch.tensor([1.0, poison, 2.0], dtype=torch.float64)
    total = mg.nn.utils.get_total_norm([a, b], norm_type)
    expected = torch.nn.utils.get_total_norm([ta, tb], norm_type)
    np.testing.assert_allclose(total.numpy(), expected.numpy(), rtol=1e-12)
    assert total.dtype == mg.float64 and total.shape == ()
    a.grad, b.grad = a.detach() * 1, b.detach() * 1
    ta.grad, tb.grad = ta.detach() * 1, tb.detach() * 1
    mg.nn.utils.clip_grads_with_norm_([a, b], 0.5, total)
    torch.nn.utils.clip_grads_with_norm_([ta, tb], 0.5, expected)
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-12)
    if not torch.isfinite(expected):
        same_error(lambda: mg.nn.utils.get_total_norm([a], norm_type, error_if_nonfinite=True),
                   lambda: torch.nn.utils.get_total_norm([ta], norm_type, error_if_nonfinite=True))  # fmt: skip
    else:
        mg.nn.utils.get_total_norm([a, b], norm_type, error_if_nonfinite=True)


def test_get_total_norm_edges_as_torch():
    assert (
        mg.nn.utils.get_total_norm([]).tolist() == torch.nn.utils.get_total_norm([]).tolist() == 0.0
    )
    mixed = mg.nn.utils.get_total_norm([mg.tensor([3.0]), mg.tensor([4.0], dtype=mg.float64)])
    tmixed = torch.nn.utils.get_total_norm(
        [torch.tensor([3.0]), torch.tensor([4.0], dtype=torch.float64)]
    )
    assert mixed.item() == tmixed.item() and mixed.dtype.name == "float64"
    same_error(lambda: mg.nn.utils.get_total_norm([mg.ones(2)], "fro"),
               lambda: torch.nn.utils.get_total_norm([torch.ones(2)], "fro"))  # fmt: skip
    with pytest.warns(UserWarning, match="empty generator"):
        mg.nn.utils.clip_grad_norm_((p for p in []), 1.0)


def packed_equal(ours, theirs):
    assert isinstance(ours, mrnn.PackedSequence) and isinstance(ours, tuple)
    assert ours._fields == theirs._fields
    for a, b in zip(ours, theirs, strict=True):
        close(a, b)


LENGTHS = [[3, 3, 1], [1, 3, 2, 3], [2], [2, 1, 2, 1]]


@pytest.mark.parametrize("lengths", LENGTHS)
@pytest.mark.parametrize("batch_first", [False, True])
def test_packing_round_trip_equals_torchs(lengths, batch_first):
    steps, batch = max(lengths), len(lengths)
    shape = (batch, steps, 2) if batch_first else (steps, batch, 2)
    x, tx = pair(shape, 3)
    descending = lengths == sorted(lengths, reverse=True)
    for enforce_sorted in [False, True] if descending else [False]:
        packed = mrnn.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
        tpacked = trnn.pack_padded_sequence(tx, torch.tensor(lengths), batch_first, enforce_sorted)
        packed_equal(packed, tpacked)
        padded, out_lengths = mrnn.pad_packed_sequence(packed, batch_first, -1.5, steps + 1)
        tpadded, tout_lengths = trnn.pad_packed_sequence(tpacked, batch_first, -1.5, steps + 1)
        close(padded, tpadded)
        close(out_lengths, tout_lengths)
        weights = np.random.default_rng(1).standard_normal(tuple(tpadded.shape))
        x.grad = tx.grad = None
        (padded * mg.tensor(weights)).sum().backward()
        (tpadded * torch.tensor(weights)).sum().backward()
        close(x.grad, tx.grad)
    sequences = [x[b, :n] if batch_first else x[:n, b] for b, n in enumerate(lengths)]
    tsequences = [tx[b, :n] if batch_first else tx[:n, b] for b, n in enumerate(lengths)]
    packed = mrnn.pack_sequence(sequences, enforce_sorted=False)
    packed_equal(packed, trnn.pack_sequence(tsequences, enforce_sorted=False))
    for got, expected in zip(mrnn.unpack_sequence(packed), tsequences, strict=True):
        close(got, expected)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_and_unpad_equal_torchs(batch_first, padding_side):
    parts = [pair((n, 2), n) for n in (2, 4, 1)]
    padded = mrnn.pad_sequence([p for p, _ in parts], batch_first, 7.0, padding_side)
    tpadded = trnn.pad_sequence([t for _, t in parts], batch_first, 7.0, padding_side)
    close(padded, tpadded)
    weights = np.random.default_rng(2).standard_normal(tuple(tpadded.shape))
    (padded * mg.tensor(weights)).sum().backward()
    (tpadded * torch.tensor(weights)).sum().backward()
    for p, t in parts:
        close(p.grad, t.grad)
    ints = [mg.tensor([1, 2]), mg.tensor([3])]
    close(
        mrnn.pad_sequence(ints, batch_first),
        trnn.pad_sequence([torch.tensor([1, 2]), torch.tensor([3])], batch_first),
    )
    if padding_side == "right":
        for got, (_, expected) in zip(
            mrnn.unpad_sequence(padded, [2, 4, 1], batch_first), parts, strict=True
        ):
            close(got, expected)


@pytest.mark.parametrize(
    "call",
    [
        lambda m, t: m.pad_sequence([]),
        lambda m, t: m.pad_sequence([t.ones(3, 2), t.ones(1, 3)]),
        lambda m, t: m.pad_sequence([t.ones(3, 2)], padding_side="middle"),
        lambda m, t: m.pad_sequence([t.tensor(1.0), t.tensor(2.0)]),
        lambda m, t: m.pack_padded_sequence(t.ones(3, 2), [3, 0]),
        lambda m, t: m.pack_padded_sequence(t.ones(3, 2), [-1, 2], enforce_sorted=False),
        lambda m, t: m.pack_padded_sequence(t.ones(3, 2), [1, 3]),
        lambda m, t: m.pack_padded_sequence(t.ones(3, 2), [3, 2, 1]),
        lambda m, t: m.pack_padded_sequence(t.ones(3, 2), [[3, 2]]),
        lambda m, t: m.pack_padded_sequence(t.ones(3), [3]),
        lambda m, t: m.pack_padded_sequence(t.ones(0, 2), [0, 0]),
        lambda m, t: m.pad_packed_sequence(m.pack_sequence([t.ones(3), t.ones(1)]), total_length=2),
        lambda m, t: m.pack_sequence([]),
    ],
)
def test_rnn_errors_are_torchs(call):
    same_error(lambda: call(mrnn, mg), lambda: call(trnn, torch))
