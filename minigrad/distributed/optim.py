"""``ZeroRedundancyOptimizer``: ZeRO-1, each rank keeps the optimizer state of a shard (lesson 18).

Under plain data parallelism every rank holds the whole optimizer state
(Adam: two numbers per parameter), the same on every rank: N copies of one
thing. ZeRO-1 splits it: the parameters are laid end to end in one flat
vector, cut into N equal shards, and rank ``r`` keeps the state of shard
``r`` only. A step is then

1. **reduce-scatter** of the flat gradient: rank ``r`` receives the sum over
   ranks of shard ``r`` (divided by N: the average), and nothing else;
2. the wrapped optimizer's step, on shard ``r`` alone;
3. **all-gather** of the updated shards: every rank has every parameter again.

A reduce-scatter and an all-gather move as many bytes as one all-reduce (a
ring all-reduce *is* the two), so the communication costs the same as plain
data parallelism, while each rank's optimizer state is ``1/N`` of it. Use it
on the model itself (not wrapped in ``DistributedDataParallel``, whose
all-reduce it replaces). Adam and SGD act elementwise, so the result equals
the plain optimizer's step on the averaged gradients.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.distributed.process_group import ProcessGroup, default_group
from minigrad.nn.parameter import Parameter
from minigrad.tensor import no_grad
from minigrad.tensor.tensor import Tensor


class ZeroRedundancyOptimizer:
    """``optimizer_class`` run on this rank's shard of ``params`` (see above).

    Arguments as ``torch.distributed.optim.ZeroRedundancyOptimizer``:
    ``ZeroRedundancyOptimizer(model.parameters(), mg.optim.Adam, lr=1e-3)``.
    """

    def __init__(self, params: Any, optimizer_class: type,
                 process_group: ProcessGroup | None = None, **defaults: Any) -> None:  # fmt: skip
        self.group = group = default_group(process_group)
        self.params = [p for p in params if p.requires_grad]
        if not self.params:
            raise ValueError("ZeroRedundancyOptimizer got an empty parameter list")
        dtypes = {np.dtype(p.dtype) for p in self.params}
        if len(dtypes) > 1:
            raise TypeError(
                "ZeroRedundancyOptimizer: all parameters must have one dtype, got "
                f"{sorted(map(str, dtypes))}"
            )
        self.dtype = dtypes.pop()
        self.offsets = np.cumsum([0] + [p.size for p in self.params])
        total = int(self.offsets[-1])
        self.shard_size = -(-total // group.size)  # padded so every shard is equal
        flat = np.zeros(self.shard_size * group.size, dtype=self.dtype)
        for i, p in enumerate(self.params):
            flat[self.offsets[i] : self.offsets[i + 1]] = p.detach().numpy().reshape(-1)
        # Replicas start equal: rank 0's parameters everywhere.
        group.wait(group.comm.Ibcast(flat, root=0), "ZeroRedundancyOptimizer (broadcast)")
        self._flat = flat
        self._write_back()
        mine = flat[group.rank * self.shard_size : (group.rank + 1) * self.shard_size]
        self.shard = Parameter(Tensor(mine.copy()))
        self.optim = optimizer_class([self.shard], **defaults)

    @property
    def param_groups(self) -> list[dict]:
        return self.optim.param_groups

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.params:
            p.grad = None

    def step(self, closure: Any = None) -> Any:
        """Average this rank's shard of the gradients, step it, gather every shard."""
        group = self.group
        grads = np.zeros(self.shard_size * group.size, dtype=self.dtype)
        for i, p in enumerate(self.params):
            if p.grad is not None:
                grads[self.offsets[i] : self.offsets[i + 1]] = p.grad.numpy().reshape(-1)
        shard_grad = np.empty(self.shard_size, dtype=self.dtype)
        group.wait(group.comm.Ireduce_scatter_block(grads, shard_grad), "ZeRO reduce_scatter")
        shard_grad /= group.size
        self.shard.grad = Tensor(shard_grad)
        loss = self.optim.step(closure) if closure is not None else self.optim.step()
        shard = np.ascontiguousarray(self.shard.detach().numpy())
        group.wait(group.comm.Iallgather(shard, self._flat), "ZeRO all_gather")
        self._write_back()
        return loss

    def _write_back(self) -> None:
        with no_grad():
            for i, p in enumerate(self.params):
                piece = self._flat[self.offsets[i] : self.offsets[i + 1]]
                p.copy_(Tensor(piece.reshape(tuple(p.shape)).copy()))

    # -- memory and checkpoints ----------------------------------------------------------
    def state_bytes(self) -> int:
        """Bytes of optimizer state this rank holds (its shard's)."""
        return sum(
            v.detach().numpy().nbytes
            for state in self.optim.state.values()
            for v in state.values()
            if isinstance(v, Tensor)
        )

    def consolidated_state(self) -> dict[str, Tensor]:
        """Every rank's optimizer state, gathered in full (a collective: call it on every rank).

        Returns ``{name: flat tensor over all parameters}`` (padding dropped),
        which any world size can cut into its own shards again.
        """
        state = self.optim.state.get(self.shard, {})
        out = {}
        total = int(self.offsets[-1])
        for name in sorted(state):
            value = state[name]
            if not isinstance(value, Tensor) or tuple(value.shape) != (self.shard_size,):
                continue
            full = np.empty(self.shard_size * self.group.size, dtype=self.dtype)
            self.group.wait(
                self.group.comm.Iallgather(np.ascontiguousarray(value.detach().numpy()), full),
                "ZeRO consolidate",
            )
            out[name] = Tensor(full[:total].copy())
        return out

    def load_consolidated_state(self, full: dict[str, Tensor], step: int | None = None) -> None:
        """Take this rank's shard of a consolidated state (from any world size)."""
        total = int(self.offsets[-1])
        state = self.optim.state.setdefault(self.shard, {})
        start = self.group.rank * self.shard_size
        for name, value in full.items():
            flat = np.zeros(self.shard_size * self.group.size, dtype=self.dtype)
            flat[:total] = value.detach().numpy().reshape(-1)
            state[name] = Tensor(flat[start : start + self.shard_size].copy())
        if step is not None:
            state["step"] = step
