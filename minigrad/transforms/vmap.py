"""``vmap``: write a function for one example, run it on a batch (lesson 14).

``mg.vmap(f)(xs)`` is ``stack([f(x) for x in xs])`` without the loop: ``f``
runs once, on *batched* tensors (``minigrad/transforms/batched.py``) that look
like one example to ``f`` but carry the whole batch, and each operation runs
its row's batch rule, one kernel call for the batch. Because batching is one
more reading of the primitive table, it composes with the others:

- ``vmap(grad(loss), in_axes=(None, 0, 0))(params, xs, ys)``: per-example
  gradients (the gradient of each example's loss, for clipping or privacy);
- ``vmap(vjp_fn)(basis)``, ``vmap(jvp ...)(basis)``: whole Jacobians in one
  batched pass (``jacrev``, ``jacfwd``, ``hessian`` are written so);
- ``vmap(vmap(f))``: two batch axes, one level each.

``in_axes`` says, per argument, which axis is the batch (``None``: the
argument is shared by every example); it may be an int, ``None``, or one
entry per positional argument, and an entry may itself be a tuple, list or
dict matching that argument's structure (JAX's pytrees). ``out_axes`` says
where the batch axis goes in each output.

**Random numbers.** An operation that draws random numbers (``mg.randn``,
``mg.rand``, dropout) inside ``vmap`` follows ``randomness``, as in
``torch.func.vmap``: ``"error"`` (the default) raises, ``"different"`` draws
one batch, different numbers for each example, ``"same"`` draws once and
shares the numbers across the batch.

    >>> import minigrad as mg
    >>> xs, w = mg.tensor([[1.0, 2.0], [3.0, 4.0]]), mg.tensor([10.0, 1.0])
    >>> mg.vmap(lambda x: (x * w).sum())(xs)
    tensor([12., 34.])
    >>> mg.vmap(lambda x, y: x * y, in_axes=(0, None))(xs, mg.tensor(2.0))
    tensor([[2., 4.],
            [6., 8.]])
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from minigrad import tree
from minigrad.tensor.ops.movement import transpose
from minigrad.tensor.tensor import Tensor
from minigrad.transforms import batching
from minigrad.transforms.batched import BatchedArray

RANDOMNESS = ("error", "different", "same")


def _describe(axes: Any) -> str:
    return "None" if axes is None else repr(axes)


def _is_axis(a: Any) -> bool:
    return a is None or (isinstance(a, int) and not isinstance(a, bool))


def _leaves(value: Any, axes: Any, path: str, where: str) -> list[tuple[str, Any, Any]]:
    """``(path, leaf, axis)`` for every leaf of ``value``, ``axes`` a prefix of its structure.

    ``axes`` is matched against ``value`` as a prefix tree (``minigrad.tree``):
    an int or None where ``value`` has a whole subtree applies to each leaf of it.
    """
    entries, prefix = tree.flatten(axes, is_leaf=lambda a: a is None)
    for a in entries:
        if not _is_axis(a):
            raise ValueError(
                f"vmap: {where} entries must be an int, None, or a tuple, list or dict of them; "
                f"got {_describe(a)} ({type(a).__name__}) for {path}"
            )
    try:
        subtrees = prefix.flatten_up_to(value, path)
    except ValueError as error:
        raise ValueError(
            f"vmap: {where} is not compatible with the structure of {path}: {where} "
            f"{_describe(axes)} against a {type(value).__name__} ({error})"
        ) from None
    found = []
    for sub, axis in zip(subtrees, entries):
        for p, leaf in tree.flatten_with_paths(sub):
            found.append((path + p, leaf, axis))
    return found


def _axis(axis: int, ndim: int, path: str, shape: tuple, where: str) -> int:
    """``axis`` checked against a tensor of ``ndim`` axes, made non-negative."""
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"vmap: {where}={axis} for {path}, but that is a tensor of shape {shape} "
            f"(dimensionality {ndim}), so the axis must satisfy {-ndim} <= axis < {ndim}"
        )
    return axis % ndim


def _moved(x: Tensor, source: int, destination: int) -> Tensor:
    """``x`` with axis ``source`` moved to ``destination`` (the other axes keep their order)."""
    if source == destination:
        return x
    order = [a for a in range(x.ndim) if a != source]
    order.insert(destination, source)
    return transpose(x, tuple(order))


def _batch_inputs(args: tuple, in_axes: Any) -> tuple[list, int]:
    """The argument leaves with their batch axes checked, and the one batch size."""
    if isinstance(in_axes, (tuple, list)) and len(in_axes) != len(args):
        raise ValueError(
            f"vmap: in_axes has {len(in_axes)} entries but f was called with {len(args)} "
            "positional argument(s); give one entry per argument (or one int for all)"
        )
    top = in_axes if isinstance(in_axes, (tuple, list)) else [in_axes] * len(args)
    leaves = [
        leaf
        for i, (arg, axes) in enumerate(zip(args, top))
        for leaf in _leaves(arg, axes, f"argument {i}", "in_axes")
    ]
    sizes = []
    for path, x, axis in leaves:
        if axis is None:
            continue
        if not isinstance(x, Tensor):
            raise ValueError(
                f"vmap: got in_axes={axis} for {path}, a {type(x).__name__}; vmap maps over "
                "tensors only, so give None as that argument's in_axes entry"
            )
        axis = _axis(axis, x.ndim, path, x.shape, "in_axes")
        sizes.append((path, x.shape[axis], axis))
    if not sizes:
        raise ValueError(
            f"vmap: in_axes={_describe(in_axes)} maps over no tensor; at least one argument "
            "must have a batch axis (an int in in_axes)"
        )
    if len({n for _, n, _ in sizes}) > 1:
        listed = ", ".join(f"{path} has size {n} along axis {a}" for path, n, a in sizes)
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {[n for _, n, _ in sizes]} for the mapped dimension: {listed}"
        )
    return leaves, sizes[0][1]


def _unbatch(out: Any, axis: Any, level: batching.Level, path: str) -> Any:
    """One output of ``f``: the batch axis of ``level`` made physical, at ``axis``."""
    if axis is None:
        if isinstance(out, Tensor) and type(out.data) is BatchedArray and out.data.level is level:
            raise ValueError(
                f"vmap: out_axes=None for {path}, but it depends on the batch; return it with "
                "an int out_axes entry, or return something that does not depend on the batch"
            )
        return out
    if not isinstance(out, Tensor):
        raise ValueError(
            f"vmap: f must return tensors, but {path} is a {type(out).__name__}; give None as "
            "its out_axes entry to return it unchanged"
        )
    data = out.data
    if type(data) is BatchedArray and data.level is level:
        physical = data.physical
    else:  # the same for every example: broadcast it along the batch
        physical = out.broadcast_to((level.size, *out.shape))
    return _moved(physical, 0, _axis(axis, physical.ndim, path, physical.shape, "out_axes"))


def vmap(
    f: Callable[..., Any],
    in_axes: Any = 0,
    out_axes: Any = 0,
    randomness: str = "error",
    *,
    axis_name: Any = None,
    in_dims: Any = None,
    out_dims: Any = None,
) -> Callable[..., Any]:
    """``f`` vectorized over a batch axis of its arguments (see the module docstring).

    ``in_dims`` and ``out_dims`` are accepted as PyTorch's names for ``in_axes``
    and ``out_axes``. Keyword arguments of the returned function are passed to
    ``f`` unbatched. ``axis_name`` names the batch axis, as in JAX, so that
    collectives inside ``f`` (``mg.psum(x, "i")``, lesson 18) can act across it.

    >>> import minigrad as mg
    >>> mg.vmap(mg.vmap(lambda a, b: a * b, in_axes=(None, 0)), in_axes=(0, None))(
    ...     mg.tensor([1.0, 2.0]), mg.tensor([1.0, 10.0, 100.0]))
    tensor([[  1.,  10., 100.],
            [  2.,  20., 200.]])
    """
    if in_dims is not None:
        in_axes = in_dims
    if out_dims is not None:
        out_axes = out_dims
    if randomness not in RANDOMNESS:
        raise ValueError(f"vmap: randomness must be one of {RANDOMNESS}, got {randomness!r}")
    if not callable(f):
        raise TypeError(f"vmap: f must be a function, got {type(f).__name__}")

    @functools.wraps(f)
    def vmapped(*args: Any, **kwargs: Any) -> Any:
        leaves, size = _batch_inputs(args, in_axes)
        with batching.Level(size, randomness, axis_name) as level:
            wrapped = []
            for path, x, axis in leaves:
                if axis is None:
                    wrapped.append(x)
                    continue
                physical = _moved(x, _axis(axis, x.ndim, path, x.shape, "in_axes"), 0)
                one = Tensor._wrap(BatchedArray(physical, level), x.device)
                one._label = x.label  # f's view of x keeps x's name (draw, nested vmap)
                wrapped.append(one)
            result = f(*tree.unflatten(tree.structure(args), wrapped), **kwargs)
            outs = _leaves(result, out_axes, "output", "out_axes")
            structure = tree.structure(result)
            return tree.unflatten(structure, [_unbatch(o, a, level, p) for p, o, a in outs])

    vmapped.__name__ = f"vmap({getattr(f, '__name__', 'f')})"
    return vmapped
