"""RMSprop: divide each step by a running size of the gradient (lesson 06).

Hinton's RMSprop keeps ``s <- alpha * s + (1 - alpha) * g^2``, a running mean
of the squared gradient, and steps by ``lr * g / (sqrt(s) + eps)``: like Adam
without the average of ``g`` itself and without bias correction. ``centered``
also keeps the running mean ``a`` of ``g`` and divides by the running
*variance*, ``sqrt(s - a^2)``, instead; ``momentum`` adds a velocity on top.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from minigrad.optim.optimizer import Optimizer
from minigrad.tensor.factories import zeros_like
from minigrad.tensor.tensor import Tensor


class RMSprop(Optimizer):
    """``torch.optim.RMSprop``: same arguments, defaults and arithmetic.

    >>> import minigrad as mg
    >>> p = mg.tensor([1.0, 1.0], requires_grad=True)
    >>> opt = mg.optim.RMSprop([p], lr=0.01)
    >>> (p * mg.tensor([100.0, 0.01])).sum().backward(); opt.step()
    >>> p   # first step: lr / sqrt(1 - alpha) = 0.1, whatever the gradient's size
    tensor([0.9, 0.9], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum: float = 0.0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if alpha < 0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "alpha": alpha, "eps": eps, "weight_decay": weight_decay,
                    "momentum": momentum, "centered": centered,
                    "maximize": maximize}  # fmt: skip
        super().__init__(params, defaults)

    def update(self, p: Tensor, g: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        alpha, momentum = group["alpha"], group["momentum"]
        if not state:
            state.update(step=0, square_avg=zeros_like(p))
            if momentum > 0:
                state["momentum_buffer"] = zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = zeros_like(p)
        state["step"] += 1
        g = -g if group.get("maximize") else g
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).addcmul_(g, g, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(g, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt()
        else:
            avg = square_avg.sqrt()
        avg = avg + group["eps"]
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf.mul_(momentum).addcdiv_(g, avg)
            p.add_(buf, alpha=-group["lr"])
        else:
            p.add_(g / avg, alpha=-group["lr"])
