"""Batching: the interpreter of ``mg.vmap``, the fourth reading of a row (lesson 14).

Inside ``mg.vmap(f)``, ``f`` sees one example, yet every operation it runs
acts on the whole batch at once. Its arguments are *batched* tensors
(``batched.py``): each holds a *physical* tensor, batch on axis 0, and the
vmap ``Level`` below that the batch belongs to.

Each ``vmap`` opens a ``Level`` on the stack of interpreters
(``minigrad.tensor.mode``). When an input of an operation is batched at that
level, ``apply`` hands the operation to it (``claims``) instead of calling
the row's kernel, and the level runs the row's **batch rule** below itself
(``process``): its tensors are replaced by their physical tensors, and the
rule returns the physical result, batch on axis 0. A rule is an ordinary
function of tensors, ``batch(xs, batched, **params)``: ``batched[i]`` says
whether ``xs[i]`` carries the batch. It runs operations through ``apply``
again, so the rules compose: nested vmaps unwrap one level per call, and
gradients and tangents of the physical tensors are recorded as usual.

- **Elementwise rows** (a ``scalar`` body) share one rule, ``elementwise``:
  line the batch axes up in front, broadcast, and run the same row.
- Rows that name axes (reductions, transpose, softmax) shift them by one.
- ``matmul`` batches natively: a batch of matrices times a matrix is one
  bigger matrix product (``linalg.py``).
- A row without a rule runs once per example and stacks the results
  (``loop``), with a one-time warning naming it: correct, but slow.

**Two records of one operation.** When ``f`` closes over a tensor that
requires grad (``grad(vmap(f))``, or ``vmap(f)`` inside a training step), an
operation inside vmap is recorded twice: the rule's operations on the
physical tensors, which an outer ``grad`` walks back through, and the logical
operation on the batched tensor, which a gradient taken *inside* ``f`` walks
(``mg.autograd.grad(loss, w)`` per example). When the operation runs, nobody
knows yet which of the two will be asked for, so both are kept. The logical
record saves batched tensors that wrap the very physical tensors the physical
records save: it costs one small record per operation, no array memory.

    >>> import minigrad as mg
    >>> mg.vmap(lambda x: x.sum())(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([3., 7.])
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from minigrad.tensor import mode
from minigrad.tensor.primitive import (
    REGISTRY,
    Primitive,
    aligned,
)
from minigrad.tensor.record import apply, record
from minigrad.transforms.batched import BatchedArray, batched_draw


class Level(mode.Level):
    """One open ``vmap``, the batching interpreter: its batch size, its name, its randomness.

    ``apply`` hands it every operation with an input batched at this level
    (``claims``); it runs the row's batch rule below itself (``process``). A
    named level (``vmap(f, axis_name="i")``) is also a *group* that the
    collectives of ``collectives.py`` reduce over (lesson 18).
    """

    kind = "batch"

    def __init__(self, size: int, randomness: str, name: Any = None) -> None:
        super().__init__()
        self.name = name
        self.size = size
        self.randomness = randomness

    def __repr__(self) -> str:
        return f"Level({self.id}, size={self.size})"

    def claims(self, inputs: Sequence[Any], params: dict) -> bool:
        """Is an input batched at this level (or is this level the collective's group)?"""
        if params.get("group") is self:
            return True
        for t in inputs:
            data = t.data
            if type(data) is BatchedArray and data.level is self:
                return True
        return False

    def process(self, prim: Primitive, inputs: tuple, params: dict) -> Any:
        """The batched result: the row's batch rule on the physical tensors, run below."""
        if prim.multiple_results:  # control flow (lesson 16): the row's own rule, several results
            return prim.rules[self.kind](self, inputs, params)
        with self.lowered():
            physical = batch_forward(self, prim, inputs, params)
        device = params.get("device", inputs[0].device if inputs else physical.device)
        out = type(physical)._wrap(BatchedArray(physical, self), device)
        record(prim, inputs, params, out)  # the logical record (see "two records")
        return out

    def draw(self, make: Callable[[tuple], Any], shape: tuple) -> Any:
        """``batched_draw``: random numbers, one draw per example where asked."""
        return batched_draw(make, shape)


# -- the dispatch: what apply() does when an input is batched -----------------------------
def batch_forward(level: Level, prim: Primitive, inputs: Sequence[Any], params: dict) -> Any:
    """The physical value of ``prim(*inputs)``, batch on axis 0, for ``level``'s inputs.

    The tensors batched at ``level`` are replaced by their physical tensors,
    the others pass as they are (they are the same for every example), and
    the row's batch rule runs on them.
    """
    xs, batched = [], []
    for t in inputs:
        data = t.data
        mine = type(data) is BatchedArray and data.level is level
        xs.append(data.physical if mine else t)
        batched.append(mine)
    if params.get("group") is not None:  # a collective's rule asks which level it is peeling
        out = prim.batch(xs, batched, level=level, **params)
    elif prim.batch is not None:
        out = prim.batch(xs, batched, **params)
    elif prim.scalar is not None:
        out = elementwise(prim, xs, batched, params, apply)
    else:
        out = loop(prim, xs, batched, params, apply, level.size)
    if out.shape[:1] != (level.size,):  # a broken rule must not pass silently
        raise RuntimeError(
            f"the batch rule of {prim.name!r} returned shape {out.shape}; a batch of "
            f"{level.size} on axis 0 was expected"
        )
    return out


def elementwise(prim: Primitive, xs: Sequence[Any], batched: Sequence[bool], params: dict,
                apply: Callable[..., Any]) -> Any:  # fmt: skip
    """The one batch rule of every elementwise row: the same row on aligned operands."""
    return apply(prim, tuple(aligned(xs, batched)), **params)


def batch_size(xs: Sequence[Any], batched: Sequence[bool]) -> int:
    """The batch size: axis 0 of any batched operand."""
    return next(x.shape[0] for x, b in zip(xs, batched) if b)


# -- the fallback: one call per example ---------------------------------------------------
class BatchingFallbackWarning(UserWarning):
    """A primitive without a batch rule ran once per example inside vmap (slow)."""


#: Names of the primitives that fell back to the loop in this process (tests read it).
fallbacks: set[str] = set()


def loop(prim: Primitive, xs: Sequence[Any], batched: Sequence[bool], params: dict,
         apply: Callable[..., Any], size: int) -> Any:  # fmt: skip
    """``prim`` run once per example, the results stacked: right for any row, but slow."""
    if prim.name not in fallbacks:
        fallbacks.add(prim.name)
        warnings.warn(
            f"vmap: primitive {prim.name!r} has no batching rule, so it runs once per example "
            f"and the results are stacked (slow). Give its row a batch= rule (lesson 14).",
            BatchingFallbackWarning,
            stacklevel=4,
        )
    results = []
    for i in range(size):
        args = tuple(x[i] if b else x for x, b in zip(xs, batched))
        out = apply(prim, args, **params)
        results.append(out.reshape((1, *out.shape)))
    if not results:
        raise RuntimeError(f"vmap: cannot run {prim.name!r} without a batch rule on an empty batch")
    return apply(REGISTRY["concatenate"], tuple(results), axis=0)
