"""Batches of sequences of different lengths: padding and packing (lesson 06).

Sequences in one batch rarely have one length. ``pad_sequence`` stacks them
into one tensor, filling the short ones with ``padding_value``;
``unpad_sequence`` cuts them out again. A ``PackedSequence`` keeps no
padding at all: ``data`` holds the first steps of every sequence, then the
second steps of those that have one, and so on, and ``batch_sizes[t]`` says
how many sequences are still running at step ``t`` (the sequences sorted
longest first; ``sorted_indices`` / ``unsorted_indices`` record that order).
Every function is differentiable in its data, as PyTorch's:

    >>> import minigrad as mg
    >>> from minigrad.nn.utils.rnn import pack_sequence, pad_packed_sequence
    >>> packed = pack_sequence([mg.tensor([1, 2, 3]), mg.tensor([4])])
    >>> packed.data, packed.batch_sizes
    (tensor([1, 4, 2, 3]), tensor([2, 1, 1]))
    >>> padded, lengths = pad_packed_sequence(packed, batch_first=True)
    >>> padded.tolist(), lengths.tolist()
    ([[1, 2, 3], [4, 0, 0]], [3, 1])
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from minigrad.tensor import factories
from minigrad.tensor.ops.indexing import index_select
from minigrad.tensor.ops.movement import stack
from minigrad.tensor.ops.rearrange import cat
from minigrad.tensor.tensor import Tensor

__all__ = [
    "PackedSequence",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


class PackedSequence(NamedTuple):
    """A batch of sequences with no padding: a named tuple of four tensors.

    ``(data, batch_sizes, sorted_indices, unsorted_indices)``, as PyTorch's.
    ``data`` is ``(sum of lengths, *)``: step 0 of every sequence, then step 1
    of those longer than 1, ...; ``batch_sizes`` (int64) counts the sequences at
    each step. ``sorted_indices[i]`` is the batch position of the ``i``-th
    longest sequence and ``unsorted_indices`` its inverse (both ``None`` when
    the batch came sorted). Make one with ``pack_padded_sequence`` or
    ``pack_sequence``, not by hand.
    """

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None


def _pad_rows(t: Tensor, rows: int, padding_value: float, before: bool = False) -> Tensor:
    """``t`` with ``rows`` more rows of ``padding_value`` on its first axis."""
    if rows == 0:
        return t
    fill = factories.full((rows, *t.shape[1:]), padding_value, dtype=t.dtype, device=t.device)
    return cat([fill, t] if before else [t, fill])


def pad_sequence(
    sequences: Tensor | Sequence[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of shapes ``(L_i, *)`` into ``(max L, B, *)``, or ``(B, max L, *)``.

    ``batch_first=True`` gives the second. The short ones are filled with
    ``padding_value`` on the right, or on the left with ``padding_side="left"``.

    >>> import minigrad as mg
    >>> pad_sequence([mg.tensor([1, 2]), mg.tensor([3])], batch_first=True).tolist()
    [[1, 2], [3, 0]]
    >>> pad_sequence([mg.tensor([1, 2]), mg.tensor([3])], True, -1, "left").tolist()
    [[1, 2], [-1, 3]]
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    for s in sequences:
        if not isinstance(s, Tensor):
            raise TypeError(f"pad_sequence: sequences must be tensors, got a {type(s).__name__}")
        if s.ndim == 0:
            raise RuntimeError(
                "ArrayRef: invalid slice, N = 1; size = 0\n"
                "pad_sequence: each sequence needs a first (time) axis; got a 0-d tensor"
            )
    trailing = sequences[0].shape[1:]
    for s in sequences[1:]:
        if s.shape[1:] != trailing:
            if len(s.shape) != len(sequences[0].shape):
                raise RuntimeError(
                    f"pad_sequence: sequences of shapes {sequences[0].shape} and {s.shape} "
                    "differ in their number of axes"
                )
            axis = next(
                i for i, (a, b) in enumerate(zip(s.shape, sequences[0].shape)) if i and a != b
            )
            raise RuntimeError(
                f"The size of tensor a ({sequences[0].shape[axis]}) must match the size of "
                f"tensor b ({s.shape[axis]}) at non-singleton dimension {axis}"
            )
    longest = max(s.shape[0] for s in sequences)
    padded = [
        _pad_rows(s, longest - s.shape[0], padding_value, before=padding_side == "left")
        for s in sequences
    ]
    return stack(padded, 0 if batch_first else 1)


def unpad_sequence(
    padded_sequences: Tensor, lengths: Tensor | Sequence[int], batch_first: bool = False
) -> list[Tensor]:
    """The sequences of a right-padded batch, cut to their ``lengths``: ``pad_sequence`` undone.

    >>> import minigrad as mg
    >>> padded = mg.tensor([[1, 2], [3, 0]])
    >>> [s.tolist() for s in unpad_sequence(padded, [2, 1], batch_first=True)]
    [[1, 2], [3]]
    """
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    counts = _lengths_list(lengths)
    if len(counts) != padded_sequences.shape[0]:
        raise RuntimeError(
            f"unpad_sequence: {len(counts)} lengths for a batch of {padded_sequences.shape[0]}"
        )
    return [padded_sequences[b][: counts[b]] for b in range(len(counts))]


def _lengths_list(lengths: Any) -> list[int]:
    if isinstance(lengths, Tensor):
        if lengths.ndim != 1 or lengths.dtype.kind not in "iu":
            raise RuntimeError(
                "'lengths' argument should be a 1D CPU int64 tensor, but got "
                f"{lengths.ndim}D {lengths.dtype.name} tensor"
            )
        return [int(v) for v in lengths.tolist()]
    array = np.asarray(lengths)
    if array.ndim != 1:
        raise RuntimeError(
            f"'lengths' argument should be a 1D CPU int64 tensor, but got {array.ndim}D cpu Long "
            "tensor"
        )
    return [int(v) for v in array.tolist()]


def pack_padded_sequence(
    input: Tensor,
    lengths: Tensor | Sequence[int],
    batch_first: bool = False,
    enforce_sorted: bool = True,
) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` batch first) of sequences of ``lengths``.

    With ``enforce_sorted=True`` the lengths must be in decreasing order;
    otherwise the batch is sorted here (ties keep their order) and the
    ``PackedSequence`` records the permutation.

    >>> import minigrad as mg
    >>> packed = pack_padded_sequence(mg.tensor([[1, 2, 3], [4, 0, 0]]), [3, 1], batch_first=True)
    >>> packed.data.tolist(), packed.batch_sizes.tolist()
    ([1, 4, 2, 3], [2, 1, 1])
    """
    if isinstance(lengths, Tensor) and lengths.dtype.kind == "f":
        raise RuntimeError(
            "'lengths' argument should be a 1D CPU int64 tensor, but got 1D cpu Float tensor"
        )
    counts = _lengths_list(lengths)
    if input.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{max(input.ndim, 1)}, "
            f"{max(input.ndim, 1) - 1}], but got 1)"
        )
    if enforce_sorted:
        if any(a < b for a, b in itertools.pairwise(counts)):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
        sorted_indices = None
    else:
        order = np.argsort(-np.asarray(counts, dtype=np.int64), kind="stable")
        sorted_indices = factories.tensor(order.astype(np.int64))
        counts = [counts[i] for i in order]
        input = index_select(input, 0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if len(counts) != input.shape[1]:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(counts)} "
            f"(batch_size={input.shape[1]})"
        )
    if counts and counts[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    if counts[0] > input.shape[0]:
        raise RuntimeError(
            f"pack_padded_sequence: a sequence of length {counts[0]} in a batch padded to "
            f"{input.shape[0]} steps"
        )
    sizes = [sum(1 for n in counts if n > t) for t in range(counts[0])]
    data = cat([input[t][:size] for t, size in enumerate(sizes)])
    batch_sizes = factories.tensor(np.asarray(sizes, dtype=np.int64))
    unsorted = None
    if sorted_indices is not None:
        unsorted = factories.tensor(np.argsort(order, kind="stable").astype(np.int64))
    return PackedSequence(data, batch_sizes, sorted_indices, unsorted)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """``pack_padded_sequence`` undone: ``(padded, lengths)``, in the batch's original order.

    ``padded`` is ``(T, B, *)`` (``(B, T, *)`` batch first) with ``T`` the
    longest length, or ``total_length`` if given (at least the longest);
    ``lengths`` is int64.

    >>> import minigrad as mg
    >>> packed = pack_sequence([mg.tensor([1.0]), mg.tensor([2.0, 3.0])], enforce_sorted=False)
    >>> padded, lengths = pad_packed_sequence(packed, batch_first=True, padding_value=-1)
    >>> padded.tolist(), lengths.tolist()
    ([[1.0, -1.0], [2.0, 3.0]], [1, 2])
    """
    sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    steps, batch = len(sizes), sizes[0]
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        steps = total_length
    data, rows, start = sequence.data, [], 0
    for size in sizes:
        rows.append(_pad_rows(data[start : start + size], batch - size, padding_value))
        start += size
    padded = stack(rows, 0)
    if steps > len(sizes):
        fill = (steps - len(sizes), *padded.shape[1:])
        padded = cat(
            [padded, factories.full(fill, padding_value, dtype=data.dtype, device=data.device)]
        )
    counts = [sum(1 for s in sizes if s > b) for b in range(batch)]
    lengths = factories.tensor(np.asarray(counts, dtype=np.int64))
    if sequence.unsorted_indices is not None:
        padded = index_select(padded, 1, sequence.unsorted_indices)
        lengths = index_select(lengths, 0, sequence.unsorted_indices)
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack sequences of shapes ``(L_i, *)``: ``pack_padded_sequence`` of their ``pad_sequence``.

    >>> import minigrad as mg
    >>> pack_sequence([mg.tensor([1, 2]), mg.tensor([3])]).data.tolist()
    [1, 3, 2]
    """
    lengths = [s.shape[0] if isinstance(s, Tensor) and s.ndim else 0 for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The sequences of a ``PackedSequence``, in the batch's original order.

    >>> import minigrad as mg
    >>> packed = pack_sequence([mg.tensor([1]), mg.tensor([2, 3])], enforce_sorted=False)
    >>> [s.tolist() for s in unpack_sequence(packed)]
    [[1], [2, 3]]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
