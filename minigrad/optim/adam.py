"""Adam: momentum plus a per-parameter step size (lesson 06).

Adam keeps two running averages per parameter: ``m`` of the gradient (like
momentum) and ``v`` of its square. The step is ``m / sqrt(v)``: a parameter
whose gradient is always large gets the same step as one whose gradient is
always small, about ``lr`` either way. Both averages start at zero, so early
on they are too small by the factors ``1 - beta1**t`` and ``1 - beta2**t``;
dividing by those factors (bias correction) removes the bias.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from minigrad.optim.optimizer import Optimizer
from minigrad.tensor.tensor import Tensor


class Adam(Optimizer):
    """``torch.optim.Adam`` (Kingma and Ba, 2015), with the same defaults.

    >>> import minigrad as mg
    >>> p = mg.tensor([1.0, -1.0], requires_grad=True)
    >>> opt = mg.optim.Adam([p], lr=0.1)
    >>> (p * mg.tensor([100.0, 0.01])).sum().backward(); opt.step()
    >>> p   # the first step is about lr against the gradient's sign, whatever its size
    tensor([ 0.9, -1.1], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Tensor],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, lr)
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"Invalid beta parameters: {betas} (each must be in [0, 1))")
        if eps < 0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        self.betas = betas
        self.eps = eps
        self.weight_decay = weight_decay
        n = len(self.params)
        self.steps = [0] * n  # per parameter: one without a gradient does not advance
        self.m: list[Tensor | None] = [None] * n
        self.v: list[Tensor | None] = [None] * n

    def update(self, i: int, p: Tensor, g: Tensor) -> Tensor:
        beta1, beta2 = self.betas
        if self.weight_decay:
            g = g + self.weight_decay * p
        self.steps[i] += 1
        t = self.steps[i]
        m = (1 - beta1) * g if self.m[i] is None else beta1 * self.m[i] + (1 - beta1) * g
        v = (1 - beta2) * g * g if self.v[i] is None else beta2 * self.v[i] + (1 - beta2) * g * g
        self.m[i], self.v[i] = m, v
        # The same arithmetic, in the same order, as torch.optim.Adam's loop.
        step_size = self.lr / (1 - beta1**t)
        denom = v.sqrt() / math.sqrt(1 - beta2**t) + self.eps
        return p - step_size * m / denom
