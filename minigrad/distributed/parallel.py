"""``DistributedDataParallel``: one model per process, gradients averaged as made (lesson 18).

Each rank runs the same model on its own slice of the batch. For every rank
to take the same optimizer step, the gradients must be averaged across ranks
after ``backward()``. Waiting for the whole backward pass and then sending
every gradient would leave the network idle while computing, and the CPU idle
while sending. So, as PyTorch's DDP does:

1. At construction, the parameters are **broadcast from rank 0** (every
   replica starts equal) and their shapes compared across ranks.
2. Parameters are grouped into **buckets** of about ``bucket_cap_mb``
   megabytes, in reverse order of registration (roughly the order in which
   backward produces their gradients).
3. A **hook on the tape** (``register_post_accumulate_grad_hook``) copies each
   gradient into its bucket as backward writes it. When a bucket is full, its
   **non-blocking** all-reduce starts at once (MPI ``Iallreduce``), while
   backward goes on computing the next gradients.
4. When backward ends (``autograd.queue_callback``), every bucket is waited
   on and the averaged gradients are written back to ``.grad``: the optimizer
   step sees them as if one process had run the whole batch.

``no_sync()`` skips the communication, for gradient accumulation over several
backward passes; the first backward outside it sends the accumulated sums.
``timeline`` records when each bucket started and finished (for the lesson's
picture) and ``wait_seconds`` how long the end of backward waited.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from minigrad.distributed.process_group import ProcessGroup, default_group
from minigrad.nn.module import Module
from minigrad.tensor import autograd, no_grad
from minigrad.tensor.tensor import Tensor


class _Bucket:
    """Gradients of a few parameters, packed in one buffer that is all-reduced at once."""

    def __init__(self, index: int, params: list[Tensor]) -> None:
        self.index = index
        self.params = params
        self.offsets = np.cumsum([0] + [p.size for p in params])
        self.buffer = np.zeros(int(self.offsets[-1]), dtype=params[0].dtype)
        self.ready: set[int] = set()
        self.request: Any = None

    def slot(self, i: int) -> np.ndarray:
        return self.buffer[self.offsets[i] : self.offsets[i + 1]]


class DistributedDataParallel(Module):
    """``module`` replicated on every rank, its gradients averaged across ranks (see above).

    Arguments follow ``torch.nn.parallel.DistributedDataParallel``; those about
    GPUs (``device_ids``, ``output_device``) are accepted and unused.
    """

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None,
                 dim: int = 0, broadcast_buffers: bool = True,
                 process_group: ProcessGroup | None = None, bucket_cap_mb: float = 25.0,
                 find_unused_parameters: bool = False, overlap: bool = True,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__()
        self.module = module
        group = default_group(process_group)
        object.__setattr__(self, "process_group", group)
        self.broadcast_buffers = broadcast_buffers
        self.overlap = overlap
        self.require_backward_grad_sync = True
        params = [p for p in module.parameters() if p.requires_grad]
        for p in params:
            if p.device != "cpu":
                raise RuntimeError(
                    f"DistributedDataParallel: the MPI backend sends CPU tensors; a parameter "
                    f"is on {p.device!r}"
                )
        _check_same_parameters(group, params)
        with no_grad():
            for t in [*params, *module.buffers()]:
                _broadcast_in_place(group, t)
        object.__setattr__(self, "_buckets", _make_buckets(params, bucket_cap_mb))
        object.__setattr__(self, "_where", {
            id(p): (b, i) for b in self._buckets for i, p in enumerate(b.params)
        })  # fmt: skip
        object.__setattr__(self, "_hooks", [
            p.register_post_accumulate_grad_hook(self._gradient_ready) for p in params
        ])  # fmt: skip
        self._pending = False
        self.timeline: list[tuple[int, float, float]] = []
        self.wait_seconds = 0.0
        self.bytes_per_step = sum(b.buffer.nbytes for b in self._buckets)

    @property
    def bucket_sizes(self) -> list[int]:
        """The bytes of each bucket, in the order they are sent."""
        return [b.buffer.nbytes for b in self._buckets]

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        if self.broadcast_buffers and self.module.training:
            with no_grad():
                for t in self.module.buffers():
                    _broadcast_in_place(self.process_group, t)
        return self.module(*args, **kwargs)

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Backward passes inside accumulate gradients locally, sending nothing."""
        before = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = before

    # -- during backward ------------------------------------------------------------------
    def _gradient_ready(self, p: Tensor) -> None:
        if not self.require_backward_grad_sync:
            return
        if not self._pending:
            self._pending = True
            self._step_start = time.perf_counter()
            autograd.queue_callback(self._finish)
        bucket, i = self._where[id(p)]
        bucket.slot(i)[...] = p.grad.numpy().reshape(-1)
        bucket.ready.add(i)
        if self.overlap and len(bucket.ready) == len(bucket.params):
            self._start(bucket)
        for b in self._buckets:  # MPI moves a started message along only when called
            if b.request is not None:
                b.request.Test()

    def _start(self, bucket: _Bucket) -> None:
        bucket.buffer /= self.process_group.size
        bucket.started = time.perf_counter()
        bucket.request = self.process_group.start_all_reduce(bucket.buffer)

    def _finish(self) -> None:
        """The end of backward: send what is left, wait for everything, write .grad back."""
        self._pending = False
        group = self.process_group
        for b in self._buckets:  # parameters backward never reached count as zero gradients
            for i, p in enumerate(b.params):
                if i not in b.ready:
                    b.slot(i)[...] = 0.0 if p.grad is None else p.grad.numpy().reshape(-1)
            if b.request is None:
                self._start(b)
        waited = time.perf_counter()
        for b in self._buckets:
            group.wait(b.request, f"DistributedDataParallel bucket {b.index}")
            self.timeline.append((b.index, b.started - self._step_start,
                                  time.perf_counter() - self._step_start))  # fmt: skip
        self.wait_seconds += time.perf_counter() - waited
        with no_grad():
            for b in self._buckets:
                for i, p in enumerate(b.params):
                    averaged = Tensor(b.slot(i).reshape(tuple(p.shape)).copy())
                    if p.grad is None:
                        p.grad = averaged
                    else:
                        p.grad.copy_(averaged)
                b.ready.clear()
                b.request = None


def _make_buckets(params: list[Tensor], cap_mb: float) -> list[_Bucket]:
    """Parameters in reverse order, cut into runs of at most ``cap_mb`` MiB of one dtype."""
    cap = cap_mb * 2**20
    buckets: list[list[Tensor]] = []
    size = 0.0
    for p in reversed(params):
        nbytes = p.size * np.dtype(p.dtype).itemsize
        if not buckets or size + nbytes > cap or buckets[-1][0].dtype != p.dtype:
            if not buckets or buckets[-1]:
                buckets.append([])
            size = 0.0
        buckets[-1].append(p)
        size += nbytes
    return [_Bucket(i, b) for i, b in enumerate(buckets) if b]


def _check_same_parameters(group: ProcessGroup, params: list[Tensor]) -> None:
    """Every rank must hold the same parameter shapes: compare them (an error names the ranks)."""
    signature = np.full((len(params), 18), -1, dtype=np.int64)
    for i, p in enumerate(params):
        signature[i, 0], signature[i, 1] = ord(np.dtype(p.dtype).char), p.ndim
        signature[i, 2 : 2 + p.ndim] = p.shape
    group.agree("DistributedDataParallel (the number of parameters)", signature)
    everyone = np.empty((group.size, *signature.shape), dtype=np.int64)
    group.wait(group.comm.Iallgather(signature, everyone), "DistributedDataParallel")
    for i in range(len(params)):
        rows = {tuple(everyone[r, i]) for r in range(group.size)}
        if len(rows) > 1:
            shapes = ", ".join(
                f"rank {r}: {tuple(int(s) for s in everyone[r, i, 2 : 2 + everyone[r, i, 1]])}"
                for r in range(group.size)
            )
            raise RuntimeError(
                f"DistributedDataParallel: parameter {i} differs across ranks ({shapes}); "
                "every rank must build the same model"
            )


def _broadcast_in_place(group: ProcessGroup, t: Tensor) -> None:
    data = t.data
    if not (isinstance(data, np.ndarray) and data.flags.c_contiguous and data.flags.writeable):
        t.copy_(Tensor(np.ascontiguousarray(t.detach().numpy())))
        data = t.data
    group.wait(group.comm.Ibcast(data, root=0), "broadcast of the parameters from rank 0")
