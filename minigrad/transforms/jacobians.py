"""Whole Jacobians and Hessians, by rows or by columns (lessons 07-08, 14).

The Jacobian of ``f: R^n -> R^m`` is an ``m x n`` matrix, and the two modes
build it from opposite ends:

- ``jacrev``: the reverse pass of cotangent ``e_i`` gives row ``i``
  (``e_i^T J``, a vjp). Cheap when there are few outputs (a loss: one row).
- ``jacfwd``: the forward pass of tangent ``e_j`` gives column ``j``
  (``J e_j``, a jvp). Cheap when there are few inputs.

Every row (or column) asks the same question of a different basis vector, so
both run them all at once: ``vmap`` over the basis (lesson 14), one batched
pass instead of one pass per element, as ``torch.func`` and JAX do. Where
``f`` cannot be batched (a custom ``Function`` whose backward calls
``.item()``, say), they fall back to one pass per row or column, with one
``JacobianFallbackWarning``, as ``torch.autograd.functional.jacobian`` does.

A Hessian is the Jacobian of the gradient: ``jacfwd(jacrev(f))``, forward
over reverse, which is one gradient computation per input direction. A
Hessian-vector product needs only one of those directions: ``hvp``.

Shapes follow JAX: the Jacobian of an output of shape ``S_out`` with
respect to an input of shape ``S_in`` has shape ``S_out + S_in``. Inputs and
outputs may be pytrees (``minigrad.tree``): the answer has the output's
structure, each leaf holding the inputs' structure of Jacobian blocks.

    >>> import minigrad as mg
    >>> mg.jacobian(lambda x: x * x)(mg.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minigrad import tree
from minigrad.tensor import factories
from minigrad.tensor.ops.movement import stack
from minigrad.tensor.tensor import Tensor
from minigrad.transforms.arguments import (
    argnums_partial,
    as_tensor,
    like_argnums,
    normalize_argnums,
    outputs_of,
    primals_and_tangents,
)
from minigrad.transforms.forward import jvp, push_forward
from minigrad.transforms.reverse import value_and_grad, vjp
from minigrad.transforms.vmap import vmap


def _basis(shape: tuple[int, ...], index: int, like: Tensor) -> Tensor:
    """The one-hot tensor of ``shape`` with a 1 at flat position ``index``."""
    if not shape:
        return factories.ones_like(like)
    e = np.zeros(shape, dtype=like.dtype)
    e.flat[index] = 1
    return factories.tensor(e, device=like.device)


def _assemble(blocks: list[list[Tensor]], out_structure: tree.TreeDef,
              in_structure: tree.TreeDef, argnums: int | Sequence[int]) -> Any:  # fmt: skip
    """blocks[k][i] is the Jacobian of output leaf k with respect to input leaf i: nest like JAX."""
    per_output = [like_argnums(argnums, tree.unflatten(in_structure, b)) for b in blocks]
    return tree.unflatten(out_structure, per_output)


def _chosen(f: Callable, args: tuple, argnums: int | Sequence[int], where: str) -> tuple:
    """``f`` as a function of the chosen arguments' tensors, those tensors, and their structure."""
    of_chosen, chosen = argnums_partial(f, args, normalize_argnums(argnums, len(args), where))
    flat, structure = tree.flatten(chosen)

    def of_leaves(*leaves: Any) -> Any:
        return of_chosen(*tree.unflatten(structure, leaves))

    of_leaves.__name__ = getattr(f, "__name__", "f")
    return of_leaves, [as_tensor(x, where) for x in flat], structure


def _basis_batch(shape: tuple[int, ...], like: Tensor) -> Tensor:
    """Every one-hot tensor of ``shape``, stacked: the identity, shaped ``(size, *shape)``."""
    size = int(np.prod(shape))
    eye = np.eye(size, dtype=like.dtype).reshape((size, *shape))
    return factories.tensor(eye, device=like.device)


class JacobianFallbackWarning(UserWarning):
    """A Jacobian was built one row (or column) per pass: ``f`` could not be batched."""


def _every(one: Callable[..., tuple], basis: Tensor, *rest: Any, where: str) -> tuple:
    """``one(e, *rest)`` for every basis vector ``e``, stacked: batched by vmap if it can be.

    If vmap fails on ``f`` (code that reads values, which a batch has many of),
    each basis vector takes a pass of its own, with one warning: slower, but
    the Jacobian is still the one ``f``'s rules give (so gradcheck can judge it).
    """
    try:
        return vmap(one, in_axes=(0, *(None,) * len(rest)))(basis, *rest)
    except (RuntimeError, TypeError, ValueError, NotImplementedError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        warnings.warn(
            f"{where}: f could not be batched with vmap ({reason}); computing the "
            f"Jacobian with one pass per {'row' if where == 'jacrev' else 'column'} instead "
            "(slower)",
            JacobianFallbackWarning,
            stacklevel=4,
        )
    passes = [one(basis[i], *rest) for i in range(basis.shape[0])]
    return tuple(stack([p[k] for p in passes]) for k in range(len(passes[0])))


def jacrev(f: Callable[..., Any], argnums: int | Sequence[int] = 0) -> Callable[..., Any]:
    """The Jacobian of ``f`` by reverse mode: the vjps of every output element (its rows).

    >>> import minigrad as mg
    >>> mg.jacrev(lambda x: x.sum(keepdims=True) * x)(mg.tensor([1.0, 2.0]))
    tensor([[4., 1.],
            [2., 5.]])
    """

    def jacrev_f(*args: Any) -> Any:
        of_chosen, chosen, in_structure = _chosen(f, args, argnums, "jacrev")
        result, vjp_fn = vjp(of_chosen, *chosen)
        outs, out_structure = outputs_of(result, "jacrev")
        blocks = []
        for k, out in enumerate(outs):

            def row(e: Tensor, k: int = k) -> tuple[Tensor, ...]:
                # the other outputs get zero cotangents
                us = [e if j == k else factories.zeros_like(o) for j, o in enumerate(outs)]
                return vjp_fn(tree.unflatten(out_structure, us))

            if out.size == 1:  # one row: no batch needed
                rows = row(_basis(out.shape, 0, out))
            elif out.size:  # every row in one batched reverse pass
                rows = _every(row, _basis_batch(out.shape, out), where="jacrev")
            else:
                rows = tuple(_empty(x) for x in chosen)
            blocks.append([r.reshape(out.shape + x.shape) for r, x in zip(rows, chosen)])
        return _assemble(blocks, out_structure, in_structure, argnums)

    jacrev_f.__name__ = f"jacrev({getattr(f, '__name__', 'f')})"
    return jacrev_f


def _empty(like: Tensor) -> Tensor:
    """No rows (or columns) at all: shaped ``(0, *like.shape)``."""
    return factories.zeros((0, *like.shape), dtype=like.dtype, device=like.device)


def jacfwd(f: Callable[..., Any], argnums: int | Sequence[int] = 0) -> Callable[..., Any]:
    """The Jacobian of ``f`` by forward mode: one jvp per input element (its columns).

    >>> import minigrad as mg
    >>> mg.jacfwd(lambda x: x.sum(keepdims=True) * x)(mg.tensor([1.0, 2.0]))
    tensor([[4., 1.],
            [2., 5.]])
    """

    def jacfwd_f(*args: Any) -> Any:
        restricted, chosen, in_structure = _chosen(f, args, argnums, "jacfwd")
        per_input = []  # per_input[i][k]: the Jacobian of output k with respect to input i
        seen: dict[str, Any] = {}  # f's outputs (their shapes) and the structure of its result

        def column(e: Tensor, i: int) -> tuple[Tensor, ...]:
            directions = [e if k == i else None for k in range(len(chosen))]
            outs, tangents, seen["structure"], _ = push_forward(
                restricted, chosen, directions, where="jacfwd"
            )
            seen["outs"] = outs
            return tangents

        for i, x in enumerate(chosen):
            if x.size == 1:  # one column: no batch needed
                columns = column(_basis(x.shape, 0, x), i)
            elif x.size:  # every column in one batched forward pass
                columns = _every(column, _basis_batch(x.shape, x), i, where="jacfwd")
            else:  # no directions, but the outputs' shapes still count
                if "outs" not in seen:
                    seen["outs"], seen["structure"] = outputs_of(restricted(*chosen), "jacfwd")
                columns = tuple(_empty(out) for out in seen["outs"])
            outs = seen["outs"]
            per_input.append(
                [
                    c.reshape(x.shape + out.shape).permute(_moved(x.ndim, out.ndim))
                    for c, out in zip(columns, outs)
                ]
            )
        if not chosen:  # no input tensors at all
            outs, seen["structure"] = outputs_of(restricted(), "jacfwd")
            per_input = []
        n_out = len(per_input[0]) if per_input else len(outs)
        blocks = [[per_input[i][k] for i in range(len(chosen))] for k in range(n_out)]
        return _assemble(blocks, seen["structure"], in_structure, argnums)

    jacfwd_f.__name__ = f"jacfwd({getattr(f, '__name__', 'f')})"
    return jacfwd_f


def _moved(n_in: int, n_out: int) -> tuple[int, ...]:
    """The permutation taking axes (input..., output...) to (output..., input...)."""
    return tuple(range(n_in, n_in + n_out)) + tuple(range(n_in))


def jacobian(f: Callable[..., Any], argnums: int | Sequence[int] = 0) -> Callable[..., Any]:
    """The Jacobian of ``f`` (by reverse mode, as ``jax.jacobian``): see ``jacrev``."""
    return jacrev(f, argnums)


def hessian(f: Callable[..., Any], argnums: int | Sequence[int] = 0) -> Callable[..., Any]:
    """The Hessian of scalar-valued ``f``: ``jacfwd(jacrev(f))``, forward over reverse.

    >>> import minigrad as mg
    >>> mg.hessian(lambda x: (x ** 3).sum())(mg.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(f, argnums), argnums)


def hvp(
    f: Callable[..., Any],
    primals: Sequence[Any],
    tangents: Sequence[Any],
    mode: str = "forward-over-reverse",
) -> tuple[Tensor, Any]:
    """``(f(*primals), H v)``: a Hessian-vector product without forming ``H``.

    ``primals`` and ``tangents`` are tuples as in ``jvp`` (of pytrees); ``hv``
    is shaped like the primal (a tuple of them for several primals). The default is
    forward over reverse, ``jvp(grad(f))``: one gradient computation carrying
    tangents. ``mode="reverse-over-reverse"`` computes ``grad(<grad f, v>)``
    instead: two reverse passes, the second through the graph of the first.

    >>> import minigrad as mg
    >>> x, v = mg.tensor([1.0, 2.0]), mg.tensor([1.0, 1.0])
    >>> mg.hvp(lambda x: (x ** 3).sum(), (x,), (v,))
    (tensor(9.), tensor([ 6., 12.]))
    """
    primals, tangents = primals_and_tangents(primals, tangents, "hvp")
    argnums = tuple(range(len(primals)))
    if mode == "forward-over-reverse":

        def grads_and_value(*xs: Any) -> tuple[tuple[Tensor, ...], Tensor]:
            value, grads = value_and_grad(f, argnums)(*xs)
            return grads, value

        _, hv, out = jvp(grads_and_value, primals, tangents, has_aux=True)
    elif mode == "reverse-over-reverse":
        vs = [as_tensor(v, "hvp") for v in tree.leaves(tangents)]

        def directional(*xs: Any) -> tuple[Tensor, Tensor]:
            value, grads = value_and_grad(f, argnums)(*xs)
            return sum((g * v).sum() for g, v in zip(tree.leaves(grads), vs)), value

        (_, out), hv = value_and_grad(directional, argnums, has_aux=True)(*primals)
    else:
        raise ValueError(
            f"hvp: unknown mode {mode!r}; use 'forward-over-reverse' or 'reverse-over-reverse'"
        )
    return out, hv[0] if len(primals) == 1 else hv
