"""Rprop and ASGD: two older rules, kept by torch.optim (lesson 06).

Rprop (Riedmiller and Braun, 1993) ignores the gradient's size and uses only
its sign: each parameter has its own step size, which grows by ``etas[1]``
while the gradient keeps its sign and shrinks by ``etas[0]`` when it flips
(and that step is skipped). Meant for full-batch training.

ASGD (Polyak and Juditsky, 1992) is SGD with a step size that decays as
``lr / (1 + lambd * lr * t) ** alpha``, and which also keeps the running
*average* of the parameters after step ``t0`` in ``state["ax"]``: averaged
iterates are less noisy than the last one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from minigrad.optim.optimizer import Optimizer
from minigrad.tensor.factories import full_like, zeros_like
from minigrad.tensor.tensor import Tensor


def _float32(x: float) -> float:
    """``x`` rounded to float32: torch keeps this scalar of the state in a float32 tensor."""
    return float(np.float32(x))


class Rprop(Optimizer):
    """``torch.optim.Rprop``: same arguments, defaults and arithmetic.

    >>> import minigrad as mg
    >>> p = mg.tensor([1.0, 1.0], requires_grad=True)
    >>> opt = mg.optim.Rprop([p], lr=0.1)
    >>> for _ in range(2):
    ...     opt.zero_grad(); (p * mg.tensor([100.0, -0.01])).sum().backward(); opt.step()
    >>> p   # 0.1, then 0.1 * 1.2, against the gradient's sign, whatever its size
    tensor([0.78, 1.22], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": tuple(etas), "step_sizes": tuple(step_sizes),
                    "maximize": maximize}  # fmt: skip
        super().__init__(params, defaults)

    def update(self, p: Tensor, g: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        if not state:
            state.update(step=0, prev=zeros_like(p), step_size=full_like(p, group["lr"]))
        state["step"] += 1
        g = -g if group["maximize"] else g
        prev, step_size = state["prev"], state["step_size"]
        sign = (g * prev).sign()
        # Same sign as last step: grow; flipped: shrink (and skip); a zero: keep.
        factor = sign.masked_fill(sign > 0, etaplus).masked_fill(sign < 0, etaminus)
        factor = factor.masked_fill(sign == 0, 1)
        step_size.mul_(factor).clamp_(step_size_min, step_size_max)
        g = g.masked_fill(factor == etaminus, 0)
        p.addcmul_(g.sign(), step_size, value=-1)
        prev.copy_(g)


class ASGD(Optimizer):
    """``torch.optim.ASGD``: same arguments, defaults and arithmetic.

    >>> import minigrad as mg
    >>> p = mg.tensor([1.0], requires_grad=True)
    >>> opt = mg.optim.ASGD([p], lr=0.1, lambd=0.0, t0=0)
    >>> for _ in range(4):
    ...     opt.zero_grad(); (p * 1.0).sum().backward(); opt.step()
    >>> p, opt.state[p]["ax"]   # the mean of the iterates 0.8, 0.7, 0.6 (torch's averaging)
    (tensor([0.6], requires_grad=True), tensor([0.7]))
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "maximize": maximize}  # fmt: skip
        super().__init__(params, defaults)

    def update(self, p: Tensor, g: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, lambd = group["lr"], group["lambd"]
        if not state:
            state.update(step=0, eta=_float32(lr), mu=1.0, ax=zeros_like(p))
        state["step"] += 1
        g = -g if group["maximize"] else g
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        eta = state["eta"]
        p.mul_(1 - lambd * eta)
        p.add_(g, alpha=-eta)
        ax = state["ax"]
        if state["mu"] != 1:
            ax.add_((p - ax) * state["mu"])
        else:
            ax.copy_(p)
        step = state["step"]
        state["eta"] = _float32(lr / (1 + lambd * lr * step) ** group["alpha"])
        state["mu"] = _float32(1 / max(1, step - group["t0"]))
