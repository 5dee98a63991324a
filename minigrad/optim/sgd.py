"""Stochastic gradient descent, with momentum (lesson 06).

Plain SGD steps against the gradient: ``p <- p - lr * g``. Momentum keeps a
running velocity ``v <- momentum * v + (1 - dampening) * g`` and steps along it
instead, ``p <- p - lr * v``: gradients that agree from step to step add up,
ones that flip sign cancel, so the walk speeds up along a long valley and stops
zig-zagging across it. This is PyTorch's form of momentum (the first step
uses ``v = g``); some texts scale ``g`` by ``1 - momentum``, which only
changes what a given ``lr`` means. Nesterov's variant steps along
``g + momentum * v``: where the velocity is about to take the parameter.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from minigrad.optim.optimizer import Optimizer
from minigrad.tensor.tensor import Tensor


class SGD(Optimizer):
    """``torch.optim.SGD``: same arguments, defaults and arithmetic.

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
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
    ) -> None:
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov,
                    "maximize": maximize}  # fmt: skip
        super().__init__(params, defaults)

    def update(self, p: Tensor, g: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        g = -g if group.get("maximize") else g  # maximize: climb the objective instead
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p
        momentum = group["momentum"]
        if momentum:
            v = state.get("momentum_buffer")
            if v is None:
                v = state["momentum_buffer"] = g.clone()
            else:
                v.mul_(momentum).add_(g, alpha=1 - group["dampening"])
            g = g + momentum * v if group["nesterov"] else v
        p.add_(g, alpha=-group["lr"])
