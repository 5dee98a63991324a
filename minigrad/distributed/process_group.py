"""A process group on MPI: the collectives' kernels when the workers are processes (lesson 18).

``minigrad.tensor.ops.collectives`` writes each collective once, as a row of
the primitive table, and calls its group's method of the same name on NumPy
arrays. A ``ProcessGroup`` answers those calls with MPI, through ``mpi4py``'s
buffer interface: the array's memory is handed to MPI as it is, never pickled.

Two promises that MPI alone does not make:

- **No hang.** Every call is MPI's non-blocking form, waited on with a
  deadline (``timeout``, 30 minutes by default as in PyTorch). A rank that
  misses its deadline prints what it was waiting for and aborts the whole job;
  so does a rank that raises (``init_process_group`` installs the hook).
- **Same shapes everywhere.** Before a collective, the ranks compare the
  shapes and dtypes they pass (one small all-gather); a mismatch raises on
  every rank an error that names the ranks and what each passed.

Bytes sent by the point-to-point calls and by ``ring_all_reduce`` are counted
(``bytes_sent``), so a lesson can set them beside the ring's bound.
"""

from __future__ import annotations

import sys
import time
import traceback
from typing import Any

import numpy as np

INSTALL_HINT = (
    "minigrad.distributed needs mpi4py and an MPI library: pip install 'minigrad[distributed]' "
    "(or: pip install mpi4py mpich)"
)
MAX_DIMS = 16
# Seconds an aborting rank waits after printing why, before it ends the job.
ABORT_GRACE = 0.2


def mpi() -> Any:
    """The ``mpi4py.MPI`` module (imported on first use: ``import minigrad`` stays cheap)."""
    try:
        from mpi4py import MPI
    except ImportError as error:
        raise RuntimeError(INSTALL_HINT) from error
    return MPI


class ProcessGroup:
    """The processes of an MPI communicator, with deadlines and shape checks.

    ``size`` and ``rank`` as in MPI; ``timeout`` in seconds.
    """

    def __init__(self, comm: Any, timeout: float = 1800.0) -> None:
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.timeout = float(timeout)
        self.bytes_sent = 0
        self.check_shapes = True

    def __repr__(self) -> str:
        return f"ProcessGroup(rank {self.rank} of {self.size})"

    # -- waiting with a deadline ------------------------------------------------------
    def wait(self, request: Any, what: str) -> None:
        """Wait for ``request``; past the deadline, abort every rank with a message."""
        if request.Test():
            return
        start = time.perf_counter()
        pause = 1e-5
        while not request.Test():
            if time.perf_counter() - start > self.timeout:
                self.abort(
                    f"{what} timed out after {self.timeout:g} s: another rank never joined it "
                    "(it raised, exited, or runs a different sequence of collectives)"
                )
            time.sleep(pause)
            pause = min(pause * 2, 2e-3)

    def abort(self, message: str, code: int = 1) -> None:
        """Print ``message`` for this rank and end every rank of the job."""
        sys.stderr.write(f"[rank {self.rank}] {message}\n")
        sys.stderr.flush()
        # The launcher stops forwarding output once an abort reaches it: a moment first,
        # so that the message it is given is also shown (it was lost about once in 9).
        time.sleep(ABORT_GRACE)
        mpi().COMM_WORLD.Abort(code)

    # -- every rank must pass the same shape -------------------------------------------
    def agree(self, what: str, array: np.ndarray) -> None:
        """Raise (on every rank) if the ranks' ``array`` shapes or dtypes differ."""
        if not self.check_shapes or self.size == 1:
            return
        if array.ndim > MAX_DIMS:
            raise ValueError(f"{what}: at most {MAX_DIMS} dimensions are supported")
        mine = np.full(MAX_DIMS + 2, -1, dtype=np.int64)
        mine[0], mine[1] = ord(array.dtype.char), array.ndim
        mine[2 : 2 + array.ndim] = array.shape
        everyone = np.empty((self.size, MAX_DIMS + 2), dtype=np.int64)
        self.wait(self.comm.Iallgather(mine, everyone), f"{what} (comparing shapes)")
        if (everyone == mine).all():
            return
        described: dict[tuple, list[int]] = {}
        for rank, row in enumerate(everyone):
            shape = tuple(int(s) for s in row[2 : 2 + row[1]])
            described.setdefault((np.dtype(chr(row[0])).name, shape), []).append(rank)
        listed = "; ".join(
            f"rank{'s' if len(r) > 1 else ''} {', '.join(map(str, r))}: {d} {s}"
            for (d, s), r in described.items()
        )
        raise RuntimeError(
            f"{what}: the ranks passed tensors of different shapes or dtypes ({listed}); "
            "every rank must pass the same shape and dtype to a collective"
        )

    # -- the collectives' kernels (NumPy arrays in, NumPy arrays out) ------------------------
    def all_reduce(self, a: np.ndarray, op: str = "sum") -> np.ndarray:
        """The elementwise sum (or ``op``: "sum", "product", "min", "max") over the ranks."""
        self.agree("all_reduce", a)
        out = np.empty_like(a)
        self.wait(self.comm.Iallreduce(a, out, op=_op(op)), "all_reduce")
        return out

    def all_gather(self, a: np.ndarray) -> np.ndarray:
        """Every rank's ``a``, stacked on a new axis 0 in rank order."""
        self.agree("all_gather", a)
        out = np.empty((self.size, *a.shape), dtype=a.dtype)
        self.wait(self.comm.Iallgather(a, out), "all_gather")
        return out

    def reduce_scatter(self, a: np.ndarray) -> np.ndarray:
        """Of ``a``'s axis 0 (one piece per rank), this rank's piece summed over the ranks."""
        self.agree("reduce_scatter", a)
        out = np.empty(a.shape[1:], dtype=a.dtype)
        self.wait(self.comm.Ireduce_scatter_block(a, out, op=_op("sum")), "reduce_scatter")
        return out

    def all_to_all(self, a: np.ndarray) -> np.ndarray:
        """``out[k]`` is rank ``k``'s ``a[rank]``: pieces exchanged pairwise."""
        self.agree("all_to_all", a)
        out = np.empty_like(a)
        self.wait(self.comm.Ialltoall(a, out), "all_to_all")
        return out

    def broadcast(self, a: np.ndarray, source: int) -> np.ndarray:
        """Rank ``source``'s ``a``, on every rank."""
        self.agree("broadcast", a)
        out = a.copy()
        self.wait(self.comm.Ibcast(out, root=source), "broadcast")
        return out

    def reduce(self, a: np.ndarray, source: int) -> np.ndarray:
        """The sum over the ranks on rank ``source``; zeros on the others."""
        self.agree("reduce", a)
        out = np.zeros_like(a)
        self.wait(self.comm.Ireduce(a, out, op=_op("sum"), root=source), "reduce")
        return out if self.rank == source else np.zeros_like(a)

    # -- what DistributedDataParallel and the lesson use directly ---------------------------
    def start_all_reduce(self, buffer: np.ndarray) -> Any:
        """Start summing ``buffer`` over the ranks, in place; returns the MPI request."""
        return self.comm.Iallreduce(mpi().IN_PLACE, buffer, op=_op("sum"))

    def barrier(self) -> None:
        self.wait(self.comm.Ibarrier(), "barrier")

    def send(self, a: np.ndarray, dest: int, tag: int = 0) -> Any:
        """Start sending ``a`` to rank ``dest``; returns the request (``wait`` it)."""
        self.bytes_sent += a.nbytes
        return self.comm.Isend(np.ascontiguousarray(a), dest=dest, tag=tag)

    def recv(self, a: np.ndarray, source: int, tag: int = 0) -> Any:
        """Start receiving into ``a`` from rank ``source``; returns the request."""
        return self.comm.Irecv(a, source=source, tag=tag)

    def ring_all_reduce(self, buffer: np.ndarray) -> np.ndarray:
        """The sum over ranks, in place, by a ring of point-to-point sends (counted).

        Reduce-scatter: ``N - 1`` steps, each rank passing one chunk to its right
        neighbour and adding the chunk from its left; all-gather: ``N - 1`` more
        steps passing the finished chunks on. Each rank sends ``2 (N-1)/N`` of
        the buffer: the least any all-reduce can (lesson 18).
        """
        n, rank = self.size, self.rank
        if n == 1:
            return buffer
        if not buffer.flags.c_contiguous:
            raise ValueError("ring_all_reduce: the buffer must be C-contiguous (summed in place)")
        flat = buffer.reshape(-1)
        bounds = np.linspace(0, flat.size, n + 1).astype(int)
        chunk = [flat[bounds[i] : bounds[i + 1]] for i in range(n)]
        right, left = (rank + 1) % n, (rank - 1) % n
        incoming = np.empty(max(len(c) for c in chunk), dtype=flat.dtype)
        for step in range(2 * (n - 1)):
            # reduce-scatter sends the chunk it just added to; all-gather the finished ones
            out_i = (rank - step) % n if step < n - 1 else (rank + 1 - (step - n + 1)) % n
            in_i = (out_i - 1) % n
            got = incoming[: len(chunk[in_i])]
            reqs = [self.recv(got, left, tag=step), self.send(chunk[out_i], right, tag=step)]
            for r in reqs:
                self.wait(r, "ring_all_reduce")
            if step < n - 1:
                chunk[in_i] += got
            else:
                chunk[in_i][...] = got
        return buffer


def _op(name: str) -> Any:
    MPI = mpi()
    ops = {"sum": MPI.SUM, "product": MPI.PROD, "min": MPI.MIN, "max": MPI.MAX}
    if name not in ops:
        raise ValueError(f"reduce op must be one of {sorted(ops)}, got {name!r}")
    return ops[name]


#: The default group, once ``init_process_group`` has run (a list: empty before).
WORLD: list[ProcessGroup] = []


def default_group(group: ProcessGroup | None = None) -> ProcessGroup:
    """``group``, or the default one; a clear error before ``init_process_group``."""
    if group is not None:
        return group
    if not WORLD:
        raise RuntimeError(
            "Default process group has not been initialized, please make sure to call "
            "init_process_group."
        )
    return WORLD[0]


def abort_on_uncaught_exception(group: ProcessGroup) -> None:
    """Make an exception that no one catches end every rank, not only its own (no hang)."""
    previous = sys.excepthook

    def hook(kind: Any, value: Any, tb: Any) -> None:
        text = "".join(traceback.format_exception(kind, value, tb))
        sys.stderr.write(f"[rank {group.rank}] {text}")
        sys.stderr.write(f"[rank {group.rank}] aborting every rank of the job\n")
        sys.stderr.flush()
        time.sleep(ABORT_GRACE)  # (as in ``ProcessGroup.abort``)
        try:
            mpi().COMM_WORLD.Abort(1)
        finally:
            previous(kind, value, tb)

    sys.excepthook = hook
