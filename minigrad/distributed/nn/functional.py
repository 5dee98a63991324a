"""Differentiable collectives, as ``torch.distributed.nn.functional`` (lesson 18).

Each returns a new tensor and is recorded like any operation: its gradient
runs the row's transpose across the ranks (all_reduce's is all_reduce,
all_gather's is reduce_scatter, broadcast's is reduce to the source).

    out = all_reduce(x)        # every rank: sum of every rank's x; grad: all_reduce of grads
"""

from __future__ import annotations

from typing import Any

from minigrad.distributed.process_group import default_group
from minigrad.tensor.ops import collectives
from minigrad.tensor.tensor import Tensor

_group = default_group


def all_reduce(tensor: Tensor, op: str = "sum", group: Any = None) -> Tensor:
    """The sum over ranks (``op="sum"`` only: the one with a derivative written)."""
    if op != "sum":
        raise ValueError("all_reduce: only ReduceOp.SUM is differentiable")
    return collectives.all_reduce(tensor, _group(group))


def all_gather(tensor: Tensor, group: Any = None) -> tuple[Tensor, ...]:
    """Every rank's ``tensor``, one per rank, in rank order."""
    out = collectives.all_gather(tensor, _group(group))
    return tuple(out[i] for i in range(out.shape[0]))


def reduce_scatter(output: Tensor, input_list: list[Tensor], op: str = "sum",
                   group: Any = None) -> Tensor:  # fmt: skip
    """On rank ``r``: the sum over ranks of their ``input_list[r]`` (``output`` gives the shape)."""
    from minigrad.tensor import stack

    return collectives.reduce_scatter(stack(list(input_list)), _group(group))


def broadcast(tensor: Tensor, src: int, group: Any = None) -> Tensor:
    """Rank ``src``'s ``tensor`` on every rank."""
    return collectives.broadcast(tensor, _group(group), src)


def reduce(tensor: Tensor, dst: int, op: str = "sum", group: Any = None) -> Tensor:
    """The sum over ranks on rank ``dst``, zeros elsewhere."""
    return collectives.reduce(tensor, _group(group), dst)


def all_to_all(output_tensor_list: list[Tensor], input_tensor_list: list[Tensor],
               group: Any = None) -> tuple[Tensor, ...]:  # fmt: skip
    """``input_tensor_list[j]`` goes to rank ``j``; returns what every rank sent here."""
    from minigrad.tensor import stack

    out = collectives.all_to_all(stack(list(input_tensor_list)), _group(group))
    return tuple(out[i] for i in range(out.shape[0]))
