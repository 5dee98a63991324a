# Generated from solutions/ by `python -m minigrad.grade.generate`: replace each
# `raise NotImplementedError(...)` with your code, then run `python -m minigrad.grade`.
"""Lesson 18 exercises: the ring all-reduce, all-gather's transpose, DDP's gradient buckets.

Grade them with ``python -m minigrad.grade --exercise 18``.

The workers here are simulated in one process: worker ``k``'s data is item
``k`` of a Python list, and a message is something you write down. The
grader replays what you wrote down, so the algorithm itself is checked, not
only its result.
"""

import numpy as np


def ring_all_reduce(buffers: "list[np.ndarray]") -> "tuple[list[np.ndarray], list[tuple]]":
    """Exercise 18.1: sum N workers' buffers with the ring algorithm; log every message.

    ``buffers[k]`` is worker ``k``'s 1-D buffer (all of length ``L``). Cut
    every buffer into ``N`` chunks, chunk ``i`` being elements
    ``[i * L // N, (i + 1) * L // N)``. The workers form a ring: worker ``k``
    sends only to worker ``(k + 1) % N``. In each of ``2 (N - 1)`` steps every
    worker sends exactly one chunk to its right neighbour:

    - steps ``0 .. N-2`` (reduce-scatter): the receiver **adds** the chunk
      to its own copy of that chunk;
    - steps ``N-1 .. 2N-3`` (all-gather): the receiver **replaces** its copy.

    Messages of one step are sent at once: each carries the sender's chunk
    as it was when the step began. Return ``(sums, log)``: ``sums[k]`` is
    worker ``k``'s buffer at the end (every one the elementwise sum of all
    buffers), and ``log`` lists each message as ``(step, sender, receiver,
    start, stop)``. Do not change the input buffers.

    >>> sums, log = ring_all_reduce([np.array([1.0, 2.0]), np.array([10.0, 20.0])])
    >>> [s.tolist() for s in sums], len(log)
    ([[11.0, 22.0], [11.0, 22.0]], 4)

    Hint (lesson 18): in reduce-scatter step s, worker k sends chunk (k - s) % N; it ends
    holding the full sum of chunk (k + 1) % N, which it sends first in the all-gather.
    """
    raise NotImplementedError(
        "Exercise 18.1: in reduce-scatter step s, worker k sends chunk (k - s) % N; it ends "
        "holding the full sum of chunk (k + 1) % N, which it sends first in the all-gather. "
        "(lesson 18)"
    )


def all_gather_transpose(cotangents: "list[np.ndarray]") -> "list[np.ndarray]":
    """Exercise 18.2: the vjp of all-gather, for every worker at once.

    Under all-gather, worker ``j``'s output is every worker's input stacked:
    ``out_j[k] = x_k``. ``cotangents[j]`` is the cotangent of ``out_j`` (an
    array whose axis 0 has one entry per worker). Return the list of the
    cotangents of the inputs: item ``k`` for ``x_k``, shaped like ``x_k``.

    >>> g = [np.array([[1.0], [2.0]]), np.array([[10.0], [20.0]])]
    >>> [c.tolist() for c in all_gather_transpose(g)]
    [[11.0], [22.0]]

    Hint (lesson 18): x_k reaches every worker's output, at position k; its cotangent sums what
    came back from each of them. That is a reduce-scatter.
    """
    raise NotImplementedError(
        "Exercise 18.2: x_k reaches every worker's output, at position k; its cotangent sums what "
        "came back from each of them. That is a reduce-scatter. (lesson 18)"
    )


def gradient_buckets(nbytes: "list[int]", cap: int) -> "list[list[int]]":
    """Exercise 18.3: DistributedDataParallel's buckets of gradients.

    ``nbytes[i]`` is the size of parameter ``i``'s gradient, in the order the
    model registered its parameters. Backward makes the last layers'
    gradients first, so buckets are filled in **reverse** order: start with
    the last parameter, and add parameters to the current bucket while its
    total stays at most ``cap`` bytes; a parameter that does not fit starts a
    new bucket (a bucket always holds at least one parameter, even one
    larger than ``cap``). Return the buckets, in the order they are filled,
    each as the list of its parameters' indices in the order they were added.

    >>> gradient_buckets([4, 4, 8, 2], 10)
    [[3, 2], [1, 0]]

    Hint (lesson 18): walk i from len(nbytes) - 1 down to 0 with a running total.
    """
    raise NotImplementedError(
        "Exercise 18.3: walk i from len(nbytes) - 1 down to 0 with a running total. (lesson 18)"
    )
