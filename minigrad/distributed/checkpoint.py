"""Checkpoints of a data-parallel job: rank 0 writes, atomically; any world size reads (lesson 18).

Under data parallelism every rank holds the same model, so one copy is
enough: rank 0 writes it. A job killed while writing must not leave a torn
file where the last good one was, so the file is written beside its target
and renamed over it (``os.replace`` is atomic on one file system): a reader
sees the old checkpoint or the new one, never half of one. Every rank waits
at a barrier until the file is complete.

What is saved is world-size free: the model's state dict (the same on every
rank) and, for ``ZeroRedundancyOptimizer``, its state gathered from every
shard into whole tensors. So a job of 4 ranks can resume one of 2.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from minigrad.distributed.process_group import default_group
from minigrad.nn.serialization import load, save
from minigrad.tensor.tensor import Tensor


def save_checkpoint(state: dict[str, Tensor], path: str | os.PathLike,
                    group: Any = None) -> None:  # fmt: skip
    """Rank 0 writes ``state`` (names -> tensors) to ``path`` atomically; all ranks wait."""
    g = default_group(group)
    if g.rank == 0:
        path = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(path))
        fd, partial = tempfile.mkstemp(prefix=".partial-", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                save(dict(state), f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(partial, path)
        except BaseException:
            if os.path.exists(partial):
                os.unlink(partial)
            raise
    g.barrier()


def load_checkpoint(path: str | os.PathLike) -> dict[str, Tensor]:
    """Read a checkpoint on any rank, at any world size."""
    return dict(load(path))
