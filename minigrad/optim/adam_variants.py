"""Adamax, NAdam and RAdam: three variations on Adam (lesson 06).

- Adamax (Kingma and Ba, 2015, section 7) divides by a running *maximum* of
  ``|g|`` (the infinity norm) instead of ``sqrt`` of a running mean of ``g^2``.
- NAdam (Dozat, 2016) puts Nesterov's look-ahead into Adam: the step uses the
  momentum the *next* step will have, with a momentum that warms up
  (``momentum_decay``).
- RAdam (Liu et al., 2020) rectifies Adam's early steps: while too few squared
  gradients have been seen for ``v`` to be trusted, it takes a plain momentum
  step, then scales Adam's step by a factor that rises towards 1.

NAdam and RAdam with ``decoupled_weight_decay=True`` decay as AdamW does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from minigrad.optim.optimizer import Optimizer
from minigrad.tensor.factories import zeros_like
from minigrad.tensor.tensor import Tensor


def _check_betas(lr: float, eps: float, betas: tuple[float, float], weight_decay: float) -> None:
    """torch's checks, in its order and words."""
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adamax(Optimizer):
    """``torch.optim.Adamax``: same arguments, defaults and arithmetic.

    >>> import minigrad as mg
    >>> p = mg.tensor([1.0, 1.0], requires_grad=True)
    >>> opt = mg.optim.Adamax([p], lr=0.1)
    >>> (p * mg.tensor([100.0, 0.01])).sum().backward(); opt.step()
    >>> p   # first step: about lr against the gradient's sign
    tensor([0.9, 0.9], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
    ) -> None:
        _check_betas(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize}  # fmt: skip
        super().__init__(params, defaults)

    def update(self, p: Tensor, g: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        if not state:
            state.update(step=0, exp_avg=zeros_like(p), exp_inf=zeros_like(p))
        state["step"] += 1
        g = -g if group["maximize"] else g
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(g, 1 - beta1)
        exp_inf.copy_((exp_inf * beta2).maximum(g.abs() + group["eps"]))
        clr = group["lr"] / (1 - beta1 ** state["step"])
        p.addcdiv_(exp_avg, exp_inf, value=-clr)


class NAdam(Optimizer):
    """``torch.optim.NAdam``: same arguments, defaults and arithmetic.

    >>> import minigrad as mg
    >>> p = mg.tensor([1.0], requires_grad=True)
    >>> opt = mg.optim.NAdam([p], lr=0.1)
    >>> (p * 3.0).sum().backward(); opt.step()
    >>> round(p.item(), 4)   # about lr against the gradient's sign
    0.9
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        _check_betas(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize}  # fmt: skip
        super().__init__(params, defaults)

    def update(self, p: Tensor, g: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (beta1, beta2), wd = group["lr"], group["betas"], group["weight_decay"]
        if not state:
            state.update(step=0, mu_product=1.0, exp_avg=zeros_like(p), exp_avg_sq=zeros_like(p))
        state["step"] += 1
        step = state["step"]
        g = -g if group["maximize"] else g
        bias_correction2 = 1 - beta2**step
        if wd and group["decoupled_weight_decay"]:
            p.mul_(1 - lr * wd)
        elif wd:
            g = g.add(p, alpha=wd)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * group["momentum_decay"]))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * group["momentum_decay"]))
        # The product of every step's momentum, kept (as torch keeps it) in float32.
        mu_product = state["mu_product"] = float(np.float32(state["mu_product"]) * np.float32(mu))
        mu_product_next = mu_product * mu_next
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(g, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        denom = (exp_avg_sq / bias_correction2).sqrt() + group["eps"]
        p.addcdiv_(g, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
        p.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product_next))


class RAdam(Optimizer):
    """``torch.optim.RAdam``: same arguments, defaults and arithmetic.

    >>> import minigrad as mg
    >>> p = mg.tensor([1.0], requires_grad=True)
    >>> opt = mg.optim.RAdam([p], lr=0.1)
    >>> (p * 3.0).sum().backward(); opt.step()
    >>> round(p.item(), 4)   # the first steps are momentum SGD's: 1 - lr * 3
    0.7
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        _check_betas(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize}  # fmt: skip
        super().__init__(params, defaults)

    def update(self, p: Tensor, g: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (beta1, beta2), wd = group["lr"], group["betas"], group["weight_decay"]
        if not state:
            state.update(step=0, exp_avg=zeros_like(p), exp_avg_sq=zeros_like(p))
        state["step"] += 1
        step = state["step"]
        g = -g if group["maximize"] else g
        if wd and group["decoupled_weight_decay"]:
            p.mul_(1 - lr * wd)
        elif wd:
            g = g.add(p, alpha=wd)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(g, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        corrected = exp_avg / bias_correction1
        # The length of the approximated simple moving average; > 5: v can be trusted.
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2**step / bias_correction2
        if rho_t > 5.0:
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            adaptive = bias_correction2**0.5 / (exp_avg_sq.sqrt() + group["eps"])
            p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            p.add_(corrected * lr, alpha=-1.0)
