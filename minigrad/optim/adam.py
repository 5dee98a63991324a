"""Adam and AdamW: momentum plus a per-parameter step size (lesson 06).

Adam keeps two running averages per parameter: ``m`` of the gradient (like
momentum) and ``v`` of its square. The step is ``m / sqrt(v)``: a parameter
whose gradient is always large gets the same step as one whose gradient is
always small, about ``lr`` either way. Both averages start at zero, so early
on they are too small by the factors ``1 - beta1**t`` and ``1 - beta2**t``;
dividing by those factors (bias correction) removes the bias.

Weight decay pulls parameters towards 0. Adam adds it to the gradient
(``g + wd * p``), so it too is divided by ``sqrt(v)``: heavily-used
parameters are barely decayed. AdamW (Loshchilov and Hutter, 2019) decouples
it: every step shrinks ``p`` by the factor ``1 - lr * wd`` directly, then
takes Adam's step without decay.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from minigrad.optim.optimizer import Optimizer
from minigrad.tensor.factories import zeros_like
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

    #: Whether weight decay is decoupled from the gradient (AdamW) or added to it.
    decoupled = False

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"Invalid beta parameters: {betas} (each must be in [0, 1))")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize,
                    "decoupled_weight_decay": decoupled_weight_decay or self.decoupled}  # fmt: skip
        super().__init__(params, defaults)

    def update(self, p: Tensor, g: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (beta1, beta2), wd = group["lr"], group["betas"], group["weight_decay"]
        if not state:  # a parameter's first step: its own count, so a late joiner is corrected
            state.update(step=0, exp_avg=zeros_like(p), exp_avg_sq=zeros_like(p))
            if group.get("amsgrad"):
                state["max_exp_avg_sq"] = zeros_like(p)
        g = -g if group.get("maximize") else g
        if wd and group.get("decoupled_weight_decay", self.decoupled):
            p.mul_(1 - lr * wd)
        elif wd:
            g = g + wd * p
        state["step"] += 1
        t = state["step"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.mul_(beta1).add_(g, alpha=1 - beta1)
        v.mul_(beta2).add_(g * g, alpha=1 - beta2)
        # The same arithmetic, in the same order, as torch.optim.Adam's loop.
        step_size = lr / (1 - beta1**t)
        if group.get("amsgrad"):  # AMSGrad: divide by the largest v so far, never less
            v = state["max_exp_avg_sq"]
            v.copy_(v.maximum(state["exp_avg_sq"]))
        denom = v.sqrt() / math.sqrt(1 - beta2**t) + group["eps"]
        p.sub_(m / denom, alpha=step_size)


class AdamW(Adam):
    """``torch.optim.AdamW``: Adam with decoupled weight decay (default 1e-2, as torch's).

    >>> import minigrad as mg
    >>> p = mg.tensor([1.0], requires_grad=True)
    >>> opt = mg.optim.AdamW([p], lr=0.1, weight_decay=0.5)
    >>> (p * 0.0).sum().backward(); opt.step()   # no gradient: only the decay acts
    >>> p   # 1 * (1 - 0.1 * 0.5)
    tensor([0.95], requires_grad=True)
    """

    decoupled = True

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
    ) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)
