"""``minigrad.distributed``: PyTorch's ``torch.distributed`` API on MPI (lesson 18).

Launch N copies of a script with ``python -m minigrad.distributed.run -n N
script.py`` (it calls ``mpiexec``), and in the script:

    import minigrad as mg
    import minigrad.distributed as dist

    dist.init_process_group(backend="mpi")     # rank and size come from MPI
    x = mg.tensor([float(dist.get_rank())])
    dist.all_reduce(x)                         # in place: every rank now holds the sum
    dist.destroy_process_group()

The functions here follow ``torch.distributed``: collectives change their
tensors in place and are not recorded for autograd; ``async_op=True`` returns
a ``Work`` to ``wait()`` on. The differentiable forms, which return new
tensors and whose gradients run the transposed collective, are in
``minigrad.distributed.nn.functional`` (as ``torch.distributed.nn.functional``).
Both run the same rows of the primitive table as ``mg.psum`` and friends
(``minigrad.tensor.ops.collectives``); only the group differs: processes here,
a vmap axis there.

Training: ``DistributedDataParallel`` (bucketed gradient all-reduce, overlapped
with the backward pass) and ``ZeroRedundancyOptimizer`` (ZeRO-1: each rank
keeps the optimizer state of its shard). Checkpoints: ``save_checkpoint`` and
``load_checkpoint`` (rank 0 writes atomically; any world size reads).
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any

import numpy as np

from minigrad.distributed.checkpoint import load_checkpoint, save_checkpoint
from minigrad.distributed.optim import ZeroRedundancyOptimizer
from minigrad.distributed.parallel import DistributedDataParallel
from minigrad.distributed.process_group import (
    WORLD,
    ProcessGroup,
    abort_on_uncaught_exception,
    default_group,
    mpi,
)
from minigrad.tensor import no_grad
from minigrad.tensor.ops import collectives
from minigrad.tensor.tensor import Tensor


class ReduceOp:
    """The reductions ``all_reduce`` and ``reduce`` accept (``dist.ReduceOp.SUM``, ...)."""

    SUM = "sum"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    AVG = "avg"


class Work:
    """What ``async_op=True`` returns: ``wait()`` finishes the operation."""

    def __init__(self, finish: Any) -> None:
        self._finish = finish
        self._done = False

    def wait(self, timeout: Any = None) -> bool:
        if not self._done:
            self._finish()
            self._done = True
        return True

    def is_completed(self) -> bool:
        return self._done


def is_available() -> bool:
    """Can this process use MPI (is mpi4py installed)?"""
    try:
        mpi()
    except RuntimeError:
        return False
    return True


def is_mpi_available() -> bool:
    return is_available()


def is_initialized() -> bool:
    return bool(WORLD)


def init_process_group(backend: str = "mpi", init_method: str | None = None,
                       timeout: timedelta | float | None = None, world_size: int = -1,
                       rank: int = -1, **kwargs: Any) -> None:  # fmt: skip
    """Join the job: rank and world size come from MPI (``mpiexec -n N``).

    ``timeout`` (a ``timedelta`` or seconds; 30 minutes by default) bounds
    every wait: a rank that waits longer aborts the job. An exception that no
    one catches on any rank ends every rank (no hang).
    """
    if backend not in ("mpi", None):
        raise ValueError(
            f"minigrad.distributed supports backend='mpi' only, got {backend!r} "
            "(launch with python -m minigrad.distributed.run -n N script.py)"
        )
    if WORLD:
        raise RuntimeError("trying to initialize the default process group twice!")
    MPI = mpi()
    seconds = timeout.total_seconds() if isinstance(timeout, timedelta) else timeout
    group = ProcessGroup(MPI.COMM_WORLD.Dup(), 1800.0 if seconds is None else seconds)
    for name, got in (("world_size", group.size), ("rank", group.rank)):
        asked = world_size if name == "world_size" else rank
        if asked not in (-1, got):
            raise ValueError(f"init_process_group: {name}={asked}, but MPI says {got}")
    launched = os.environ.get("MINIGRAD_WORLD_SIZE")
    if launched is not None and int(launched) != group.size:
        raise RuntimeError(
            f"launched as {launched} processes, but MPI sees a world of {group.size}: the "
            "mpiexec that started this job belongs to another MPI library than mpi4py's "
            f"({MPI.Get_library_version().splitlines()[0].strip()}); launch with the mpiexec "
            "installed beside this Python (python -m minigrad.distributed.run finds it)"
        )
    abort_on_uncaught_exception(group)
    WORLD.append(group)


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Leave the job (after a barrier, so no rank leaves while others still send)."""
    if WORLD:
        WORLD[0].barrier()
        WORLD.pop().comm.Free()


_group = default_group


def group_world() -> ProcessGroup:
    """The default group (every rank of the job)."""
    return _group()


def get_rank(group: ProcessGroup | None = None) -> int:
    return _group(group).rank


def get_world_size(group: ProcessGroup | None = None) -> int:
    return _group(group).size


def barrier(group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    _group(group).barrier()
    return Work(lambda: None) if async_op else None


def _cpu(name: str, tensor: Tensor) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{name}: expected a Tensor, got {type(tensor).__name__}")
    if tensor.device != "cpu":
        raise RuntimeError(
            f"{name}: the MPI backend sends CPU tensors; got one on {tensor.device!r}. "
            "Move it with .to('cpu') first"
        )


def _write(tensor: Tensor, value: Tensor) -> None:
    with no_grad():
        tensor.copy_(value)


def _done(async_op: bool) -> Work | None:
    return Work(lambda: None) if async_op else None


def all_reduce(tensor: Tensor, op: str = ReduceOp.SUM, group: ProcessGroup | None = None,
               async_op: bool = False) -> Work | None:  # fmt: skip
    """Replace ``tensor`` on every rank by the sum (or ``op``) of every rank's ``tensor``."""
    _cpu("all_reduce", tensor)
    g = _group(group)
    with no_grad():
        if op == ReduceOp.SUM:
            out = collectives.all_reduce(tensor, g)
        elif op == ReduceOp.AVG:
            out = collectives.all_reduce(tensor, g) / g.size
        else:
            out = Tensor(g.all_reduce(np.ascontiguousarray(tensor.detach().numpy()), op))
    _write(tensor, out)
    return _done(async_op)


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: ProcessGroup | None = None,
               async_op: bool = False) -> Work | None:  # fmt: skip
    """Fill ``tensor_list`` (one tensor per rank) with every rank's ``tensor``."""
    _cpu("all_gather", tensor)
    g = _group(group)
    if len(tensor_list) != g.size:
        raise ValueError(
            f"all_gather: tensor_list has {len(tensor_list)} tensors; world size {g.size}"
        )
    with no_grad():
        out = collectives.all_gather(tensor, g)
    for i, t in enumerate(tensor_list):
        _write(t, out[i])
    return _done(async_op)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor,
                           group: ProcessGroup | None = None, async_op: bool = False):  # fmt: skip
    """Every rank's ``input_tensor`` concatenated along axis 0 into ``output_tensor``."""
    _cpu("all_gather_into_tensor", input_tensor)
    with no_grad():
        out = collectives.all_gather(input_tensor, _group(group))
        out = out.reshape(tuple(output_tensor.shape))
    _write(output_tensor, out)
    return _done(async_op)


def reduce_scatter(output: Tensor, input_list: list[Tensor], op: str = ReduceOp.SUM,
                   group: ProcessGroup | None = None, async_op: bool = False):  # fmt: skip
    """``output`` on rank ``r``: the sum over ranks of their ``input_list[r]``."""
    g = _group(group)
    if op != ReduceOp.SUM:
        raise ValueError("reduce_scatter: minigrad's MPI backend supports ReduceOp.SUM only")
    if len(input_list) != g.size:
        raise ValueError(
            f"reduce_scatter: input_list has {len(input_list)} tensors; world size {g.size}"
        )
    from minigrad.tensor import stack

    with no_grad():
        out = collectives.reduce_scatter(stack(list(input_list)), g)
    _write(output, out)
    return _done(async_op)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: str = ReduceOp.SUM,
                          group: ProcessGroup | None = None, async_op: bool = False):  # fmt: skip
    """``input`` cut into world-size chunks along axis 0; rank ``r`` gets chunk ``r`` summed."""
    g = _group(group)
    with no_grad():
        pieces = input.reshape((g.size, *tuple(output.shape)))
        out = collectives.reduce_scatter(pieces, g)
    _write(output, out)
    return _done(async_op)


def broadcast(tensor: Tensor, src: int, group: ProcessGroup | None = None,
              async_op: bool = False) -> Work | None:  # fmt: skip
    """Replace ``tensor`` on every rank by rank ``src``'s."""
    _cpu("broadcast", tensor)
    with no_grad():
        out = collectives.broadcast(tensor, _group(group), src)
    _write(tensor, out)
    return _done(async_op)


def reduce(tensor: Tensor, dst: int, op: str = ReduceOp.SUM, group: ProcessGroup | None = None,
           async_op: bool = False) -> Work | None:  # fmt: skip
    """The sum of every rank's ``tensor`` into rank ``dst``'s (the others keep theirs)."""
    _cpu("reduce", tensor)
    if op != ReduceOp.SUM:
        raise ValueError("reduce: minigrad's MPI backend supports ReduceOp.SUM only")
    g = _group(group)
    with no_grad():
        out = collectives.reduce(tensor, g, dst)
    if g.rank == dst:
        _write(tensor, out)
    return _done(async_op)


def all_to_all_single(output: Tensor, input: Tensor, group: ProcessGroup | None = None,
                      async_op: bool = False) -> Work | None:  # fmt: skip
    """Axis 0 of ``input`` cut into world-size chunks; chunk ``j`` goes to rank ``j``."""
    g = _group(group)
    with no_grad():
        pieces = input.reshape((g.size, -1))
        out = collectives.all_to_all(pieces, g).reshape(tuple(output.shape))
    _write(output, out)
    return _done(async_op)


def send(tensor: Tensor, dst: int, group: ProcessGroup | None = None, tag: int = 0) -> None:
    isend(tensor, dst, group, tag).wait()


def recv(tensor: Tensor, src: int, group: ProcessGroup | None = None, tag: int = 0) -> int:
    irecv(tensor, src, group, tag).wait()
    return src


def isend(tensor: Tensor, dst: int, group: ProcessGroup | None = None, tag: int = 0) -> Work:
    """Start sending ``tensor``'s buffer to rank ``dst``."""
    _cpu("isend", tensor)
    g = _group(group)
    data = np.ascontiguousarray(tensor.detach().numpy())
    request = g.send(data, dst, tag)
    return Work(lambda: g.wait(request, f"send to rank {dst}"))


def irecv(tensor: Tensor, src: int, group: ProcessGroup | None = None, tag: int = 0) -> Work:
    """Start receiving rank ``src``'s message into ``tensor``."""
    _cpu("irecv", tensor)
    g = _group(group)
    buffer = np.empty(tuple(tensor.shape), dtype=tensor.dtype)
    request = g.recv(buffer, src, tag)

    def finish() -> None:
        g.wait(request, f"receive from rank {src}")
        _write(tensor, Tensor(buffer))

    return Work(finish)


__all__ = [
    "DistributedDataParallel", "ProcessGroup", "ReduceOp", "Work", "ZeroRedundancyOptimizer",
    "all_gather", "all_gather_into_tensor", "all_reduce", "all_to_all_single", "barrier",
    "broadcast", "destroy_process_group", "get_rank", "get_world_size", "init_process_group",
    "irecv", "is_available", "is_initialized", "is_mpi_available", "isend", "load_checkpoint",
    "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "save_checkpoint", "send",
]  # fmt: skip
