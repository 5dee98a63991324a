"""Stochastic gradient descent, with momentum (lesson 06).

Plain SGD steps against the gradient: ``p <- p - lr * g``. Momentum keeps a
running velocity ``v <- momentum * v + g`` and steps along it instead,
``p <- p - lr * v``: gradients that agree from step to step add up, ones that
flip sign cancel, so the walk speeds up along a long valley and stops
zig-zagging across it. This is PyTorch's form of momentum (the first step
uses ``v = g``); some texts scale ``g`` by ``1 - momentum``, which only
changes what a given ``lr`` means.
"""

from __future__ import annotations

from collections.abc import Iterable

from minigrad.optim.optimizer import Optimizer
from minigrad.tensor.tensor import Tensor


class SGD(Optimizer):
    """``torch.optim.SGD`` with ``momentum`` and ``weight_decay`` (no dampening, no Nesterov).

    >>> import minigrad as mg
    >>> p = mg.tensor(1.0, requires_grad=True)
    >>> opt = mg.optim.SGD([p], lr=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     opt.zero_grad(); (p * 1.0).backward(); opt.step()   # g = 1 each step
    >>> round(p.item(), 4)   # 1 - 0.1 * 1 - 0.1 * (0.9 + 1)
    0.71
    """

    def __init__(
        self,
        params: Iterable[Tensor],
        lr: float,
        momentum: float = 0.0,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, lr)
        if momentum < 0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.velocities: list[Tensor | None] = [None] * len(self.params)

    def update(self, i: int, p: Tensor, g: Tensor) -> Tensor:
        if self.weight_decay:
            g = g + self.weight_decay * p
        if self.momentum:
            v = self.velocities[i]
            g = g if v is None else self.momentum * v + g
            self.velocities[i] = g
        return p - self.lr * g
