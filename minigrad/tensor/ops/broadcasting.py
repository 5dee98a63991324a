"""Broadcasting, and the two primitives that make its gradient right (lessons 04-05).

NumPy broadcasting lines two shapes up from the right; each pair of sizes must
be equal or contain a 1, and the result takes the larger. ``broadcast_to``
copies a tensor along the new or size-1 axes (as a stride-0 view: no memory);
``stretch_to`` is the same for an operation's own use, without a view's bookkeeping.

Its backward is ``sum_to``: every copy of an element received a gradient, and
the element's gradient is their sum. And ``sum_to``'s backward is
``broadcast_to``. Elementwise operations broadcast their inputs with
``stretch_to`` *before* the kernel runs, so each elementwise rule only ever
sees equal shapes and is right on broadcast inputs by construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.base import note_view
from minigrad.tensor.mode import current
from minigrad.tensor.primitive import Primitive, ranked
from minigrad.tensor.record import apply


class ShapeError(RuntimeError, ValueError):
    """Shapes that do not fit an operation (a RuntimeError, as in PyTorch)."""


def broadcast_shape(*shapes: tuple[int, ...], op: str = "broadcast") -> tuple[int, ...]:
    """The shape NumPy broadcasting gives ``shapes``.

    >>> broadcast_shape((2, 1, 3), (4, 1))
    (2, 4, 3)
    """
    return common_shape(shapes, op)


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    """The shape that tensors of these shapes broadcast to (ints count as 1-D shapes):
    PyTorch's ``broadcast_shapes``, with its checks and its words.

    >>> import minigrad as mg
    >>> mg.broadcast_shapes((2, 1), (3,), 1)
    (2, 3)
    """
    sizes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    if any(n < 0 for shape in sizes for n in shape):
        raise ValueError("Attempting to broadcast a dimension with negative length!")
    try:
        return common_shape(sizes, "broadcast_shapes") if sizes else ()
    except ShapeError:
        pass
    # PyTorch's words: the first shape that does not fit those before it, and where.
    width = max(len(shape) for shape in sizes)
    before: tuple[int, ...] = ()
    for i, shape in enumerate(sizes):
        try:
            before = common_shape([before, shape], "broadcast_shapes")
        except ShapeError:
            expected = [1] * (width - len(before)) + list(before)
            j = next(j for j in range(-1, -1 - len(shape), -1)
                     if shape[j] != 1 and expected[j] not in (1, shape[j]))  # fmt: skip
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {shape[j]} at {j}! "
                f"Mismatching argument at index {i} had {shape}; but expected shape "
                f"should be broadcastable to {expected}"
            ) from None
    raise AssertionError("unreachable: the shapes broadcast one by one")


def common_shape(shapes: Sequence[tuple[int, ...]], op: str) -> tuple[int, ...]:
    """``broadcast_shape(*shapes)``, taking the shapes as one sequence; ``op`` names the
    operation in the error. (The library's form: exercise 4.1 asks for two shapes.)

    >>> common_shape([(2, 1, 3), (4, 1)], "add")
    (2, 4, 3)
    """
    ndim = max(len(s) for s in shapes)
    result = []
    for axis in reversed(range(ndim)):  # right to left, so errors name the axis PyTorch names
        size = 1
        for shape in shapes:
            k = axis - (ndim - len(shape))
            if k < 0 or shape[k] == 1:
                continue
            if size not in (1, shape[k]):
                a, b = size, shape[k]
                raise ShapeError(
                    f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                    f"non-singleton dimension {axis}\n"
                    f"{op}: shapes {' and '.join(str(tuple(s)) for s in shapes)} do not "
                    "broadcast (lesson 04: sizes must be equal or 1, aligned from the right)"
                )
            size = shape[k]
        result.append(size)
    return tuple(reversed(result))


def summed_axes(shape: tuple[int, ...], target: tuple[int, ...]) -> tuple[int, ...]:
    """The axes of ``shape`` that broadcasting ``target`` up to ``shape`` created.

    >>> summed_axes((2, 4, 3), (4, 1))
    (0, 2)
    """
    lead = len(shape) - len(target)
    return tuple(
        axis
        for axis in range(len(shape))
        if axis < lead or (target[axis - lead] == 1 and shape[axis] != 1)
    )


def _sum_to_forward(backend, x, shape):
    summed = backend.reduce("sum", x, summed_axes(x.shape, shape), True)
    return backend.reshape(summed, shape)


# Two linear maps, each the other's transpose.
BROADCAST_TO = Primitive(
    "broadcast_to",
    lambda backend, x, shape: backend.broadcast_to(x, shape),
    linear=(lambda g, x, shape: sum_to(g, x.shape),),
    batch=lambda xs, batched, shape: stretch_to(ranked(xs[0], len(shape)), (len(xs[0]), *shape)),
)
SUM_TO = Primitive(
    "sum_to",
    _sum_to_forward,
    linear=(lambda g, x, shape: stretch_to(g, x.shape),),
    batch=lambda xs, batched, shape: _sum_to_batched(xs[0], shape),
)


def _sum_to_batched(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``sum_to`` of each example of the batch ``x`` (batch on axis 0): sum, then drop the axes."""
    lead = x.ndim - 1 - len(shape)
    summed = sum_to(x, (len(x), *(1,) * lead, *shape))
    return summed.reshape((len(x), *shape))


def stretch_to(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``x`` repeated along new or size-1 axes to ``shape`` (no copy), for an operation's own
    use: the broadcasts inside ``x + y`` and inside the derivative rules, which nobody else
    sees, so they skip the bookkeeping of a view (``broadcast_to`` below is the user's).

    >>> import minigrad as mg
    >>> stretch_to(mg.tensor([1.0, 2.0]), (2, 2))
    tensor([[1., 2.],
            [1., 2.]])
    """
    shape = tuple(shape)
    if x.shape == shape:
        return x
    lead = len(shape) - x.ndim
    if lead < 0:
        raise ShapeError(
            f"broadcast_to(shape {x.shape}, size={list(shape)}): the number of sizes provided "
            f"({len(shape)}) must be greater or equal to the number of dimensions in the tensor "
            f"({x.ndim})"
        )
    for axis, n in enumerate(x.shape):
        if n not in (1, shape[lead + axis]):
            raise ShapeError(
                f"The expanded size of the tensor ({shape[lead + axis]}) must match the existing "
                f"size ({n}) at non-singleton dimension {lead + axis}.  Target sizes: "
                f"{list(shape)}.  Tensor sizes: {list(x.shape)}"
            )
    return apply(BROADCAST_TO, (x,), shape=shape)


def broadcast_to(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``x`` repeated along new or size-1 axes to ``shape``: a view (no copy), as in PyTorch.

    A recorded in-place change of ``x`` reaches the view (``inplace.py``); writing
    into the view itself is refused where two of its elements are one memory
    location (PyTorch's error).

    >>> import minigrad as mg
    >>> mg.broadcast_to(mg.tensor([1.0, 2.0]), (2, 2))
    tensor([[1., 2.],
            [1., 2.]])
    """
    out = stretch_to(x, shape)
    note_view(out, x, BROADCAST_TO, {"shape": tuple(shape)}, current().grad_enabled)
    return out


def sum_to(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum ``x`` down to ``shape``: undo broadcasting (the VJP of ``broadcast_to``).

    >>> import minigrad as mg
    >>> mg.ones((3, 2)).sum_to((1, 2))
    tensor([[3., 3.]])
    """
    shape = tuple(shape)
    if x.shape == shape:
        return x
    if broadcast_shape(x.shape, shape, op="sum_to") != x.shape:
        raise ShapeError(f"sum_to: shape {x.shape} cannot be summed down to {shape}")
    return apply(SUM_TO, (x,), shape=shape)
