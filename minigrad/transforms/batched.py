"""Batched values: what ``f`` sees inside ``mg.vmap`` (lesson 14).

A *batched* tensor is an ordinary ``Tensor`` whose ``data`` is a
``BatchedArray``: a *physical* tensor whose axis 0 is the batch, and the
vmap level (``batching.Level``) that axis belongs to. The tensor's ``shape``
is the *logical* one, without the batch axis, so ``f``'s code (and every
shape check in the library) reads one example. What a batched tensor cannot
give is a single value: ``.item()`` or ``float()`` inside vmap raise, saying
why, and so does a batched tensor kept after its vmap returned. A random
draw inside vmap (``batched_draw``) is one per example or one for the whole
batch, as vmap's ``randomness`` says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad.tensor.base import Box
from minigrad.tensor.mode import current
from minigrad.tensor.ops import inplace

ESCAPED = (
    "a batched tensor was used after its vmap returned (it was stored outside f, or "
    "returned inside a non-tensor); return tensors from f instead, so that vmap can "
    "unbatch them"
)
NOT_VALUES = (
    "vmap: a batched tensor has no single value: .item(), .numpy(), float() and bool() "
    "are not supported inside vmap (the batch holds many values). Write the computation "
    "with tensor operations (e.g. mg.where instead of if), or move it out of vmap"
)


class BatchedValueError(AttributeError, RuntimeError):
    """A batched tensor's values were asked for: inside vmap, or after it returned.

    An ``AttributeError`` too, so that ``hasattr`` and ``getattr(x, name, default)``
    still answer "no" for an array attribute that a batch does not have.
    """


class BatchedArray(Box):
    """The ``data`` of a batched tensor: a physical tensor with the batch on axis 0.

    It answers ``shape`` and ``dtype`` like an array, with the *logical*
    shape, so code that reads a tensor's shape sees one example.

    >>> import minigrad as mg
    >>> from minigrad.transforms.batching import Level
    >>> b = BatchedArray(mg.zeros((5, 2, 3)), Level(5, "error"))
    >>> b.shape, b.ndim, b
    ((2, 3), 2, BatchedArray(batch 5 on axis 0, shape (2, 3), float32))
    """

    __slots__ = ("__weakref__", "dtype", "level", "physical", "shape")

    def __init__(self, physical: Any, level: Any) -> None:
        self.physical = physical
        self.level = level
        self.shape = physical.shape[1:]
        self.dtype = physical.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def detached(self) -> BatchedArray:
        """The same batch, cut off from every graph (``Tensor.detach`` of a batched tensor)."""
        return BatchedArray(self.physical.detach(), self.level)

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(NOT_VALUES if self.level.open else ESCAPED)

    # -- what the tensor layer asks a stand-in (contract.StandIn, base.Box) ------
    def to_numpy(self) -> Any:
        self.__array__()  # raises, saying why: one tensor, many values

    def tensor_repr(self) -> str:
        return f"BatchedTensor(level={self.level.id}, batch=0, value={self.physical!r})"

    def write(self, x: Any, new: Any) -> None:
        """Write a batch in place: into the physical tensor, which holds every example."""
        if isinstance(new, BatchedArray) and new.level.id > self.level.id:
            raise RuntimeError(inplace.WIDER_MESSAGE)
        if type(new) is not BatchedArray or new.level is not self.level:  # same for every example
            new = BatchedArray(
                x.concrete._wrap(new, x.device).broadcast_to(self.physical.shape), self.level
            )
        if new.physical.requires_grad or new.physical._tangents:
            # A grad (or jvp) outside vmap differentiates through the change: the batch
            # takes the new physical tensor, whose graph records it. (Writing into the
            # old memory would change values that graph saved.)
            self.physical = new.physical
        else:
            inplace._write(self.physical, new.physical.data)

    def __getattr__(self, name: str) -> Any:
        # Reached only for what a BatchedArray lacks (an array's size, strides...):
        # a kernel was handed a batch, i.e. a batched tensor escaped its vmap.
        if name == "level" or name.startswith("__"):  # not set up yet (copy, pickle)
            raise AttributeError(name)
        raise BatchedValueError(f"{NOT_VALUES if self.level.open else ESCAPED} (asked for .{name})")

    def __repr__(self) -> str:
        return (
            f"BatchedArray(batch {self.physical.shape[0]} on axis 0, shape {self.shape}, "
            f"{self.dtype})"
        )


def is_batched(x: Any) -> bool:
    """Is ``x`` a batched tensor (its data a ``BatchedArray``)?"""
    return type(getattr(x, "data", None)) is BatchedArray


# -- random numbers inside vmap: one draw per example, or one for all ---------------------
RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap"
)


def random_sizes() -> list[Any]:
    """The open vmap levels a random draw must cover, outermost first (``randomness``).

    ``"error"`` raises (as ``torch.func.vmap``); ``"different"`` asks for one draw
    per example of that level; ``"same"`` shares one draw across it.
    """
    levels = current().open_levels("batch")
    if any(level.randomness == "error" for level in levels):
        raise RuntimeError(RANDOM_ERROR)
    return [level for level in levels if level.randomness == "different"]


def batched_draw(draw: Callable[[tuple], Any], shape: tuple) -> Any:
    """``draw(shape)``, inside vmap one draw per example where asked.

    ``draw(sizes)`` makes a tensor of random numbers of shape ``sizes``.
    """
    levels = random_sizes() if current().open_levels("batch") else []
    t = draw((*(level.size for level in levels), *shape))
    for level in levels:  # outermost first: each wraps the one outside it
        t = type(t)._wrap(BatchedArray(t, level), t.device)
    return t
