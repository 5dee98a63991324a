"""Adagrad and Adadelta: a step size per parameter from its gradients' history (lesson 06).

Adagrad (Duchi, Hazan and Singer, 2011) adds up every squared gradient,
``s <- s + g^2``, and steps by ``lr * g / (sqrt(s) + eps)``: a parameter that
has had large gradients takes small steps. The sum only grows, so the steps
shrink for good. Adadelta (Zeiler, 2012) replaces the sum by a running mean
(as RMSprop) and multiplies by a running size of the past *updates*, so the
step has the units of the parameter and ``lr`` (default 1.0) is only a scale.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from minigrad.optim.optimizer import Optimizer
from minigrad.tensor.factories import full_like, zeros_like
from minigrad.tensor.tensor import Tensor


class Adagrad(Optimizer):
    """``torch.optim.Adagrad``: same arguments, defaults and arithmetic.

    >>> import minigrad as mg
    >>> p = mg.tensor([1.0, 1.0], requires_grad=True)
    >>> opt = mg.optim.Adagrad([p], lr=0.1)
    >>> (p * mg.tensor([100.0, 0.01])).sum().backward(); opt.step()
    >>> p   # first step: lr * g / |g| = lr, whatever the gradient's size
    tensor([0.9, 0.9], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "maximize": maximize}  # fmt: skip
        super().__init__(params, defaults)
        # As torch's: the sums exist from the start (so state_dict() shows them).
        for group in self.param_groups:
            for p in group["params"]:
                init = group["initial_accumulator_value"]
                self.state[p] = {"step": 0, "sum": full_like(p, init)}

    def update(self, p: Tensor, g: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        if not state:  # a group added later
            state.update(step=0, sum=full_like(p, group["initial_accumulator_value"]))
        state["step"] += 1
        g = -g if group["maximize"] else g
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
        state["sum"].addcmul_(g, g, value=1)
        p.addcdiv_(g, state["sum"].sqrt() + group["eps"], value=-clr)


class Adadelta(Optimizer):
    """``torch.optim.Adadelta``: same arguments, defaults and arithmetic.

    >>> import minigrad as mg
    >>> p = mg.tensor([1.0], requires_grad=True)
    >>> opt = mg.optim.Adadelta([p])
    >>> (p * 2.0).sum().backward(); opt.step()
    >>> round(p.item(), 6)   # the first step is tiny: sqrt(eps) / sqrt(0.1 * g^2) * g
    0.996838
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize}  # fmt: skip
        super().__init__(params, defaults)

    def update(self, p: Tensor, g: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        rho, eps = group["rho"], group["eps"]
        if not state:
            state.update(step=0, square_avg=zeros_like(p), acc_delta=zeros_like(p))
        state["step"] += 1
        g = -g if group["maximize"] else g
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(g, g, value=1 - rho)
        std = (square_avg + eps).sqrt()
        delta = (acc_delta + eps).sqrt() / std * g
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        p.add_(delta, alpha=-group["lr"])
