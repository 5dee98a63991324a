"""Learning-rate schedules: change ``group["lr"]`` as training goes on (lesson 06).

A large step size early moves fast; a small one late settles into a minimum.
A scheduler holds an optimizer and, at each ``step()`` (usually once per
epoch, after ``optimizer.step()``), sets every parameter group's ``"lr"`` from
a closed formula in the number of steps so far, ``last_epoch``:

- ``StepLR``: ``base_lr * gamma ** (last_epoch // step_size)``, a staircase;
- ``CosineAnnealingLR``: ``eta_min + (base_lr - eta_min) * (1 + cos(pi * last_epoch
  / T_max)) / 2``, half a cosine wave from ``base_lr`` down to ``eta_min``.

These are the formulas of PyTorch's documentation; its classes compute the same
numbers step by step from the previous rate.
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.optim.optimizer import Optimizer


class LRScheduler:
    """The base: ``step()`` counts a step and sets each group's lr to ``lr_at(base_lr)``."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        elif any("initial_lr" not in group for group in optimizer.param_groups):
            raise KeyError(
                "param 'initial_lr' is not specified in param_groups when resuming an optimizer"
            )
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.step()  # as PyTorch: the rates for step 0 are set at once

    def lr_at(self, base_lr: float) -> float:
        """The learning rate of a group whose first rate was ``base_lr``, at ``last_epoch``."""
        raise NotImplementedError(f"{type(self).__name__} must define lr_at(base_lr)")

    def step(self) -> None:
        """Count one step and set every group's ``"lr"`` for it."""
        self.last_epoch += 1
        for group, base_lr in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = self.lr_at(base_lr)
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def get_last_lr(self) -> list[float]:
        """The learning rates the last ``step()`` set, one per parameter group."""
        return list(self._last_lr)

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer (which has its own ``state_dict``)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)


class StepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every ``step_size`` steps.

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = mg.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> rates = []
    >>> for _ in range(5):
    ...     rates.append(sched.get_last_lr()[0]); opt.step(); sched.step()
    >>> rates
    [1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:  # fmt: skip
        if not isinstance(step_size, int) or step_size <= 0:
            raise ValueError(f"step_size must be a positive integer, got {step_size!r}")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr: float) -> float:
        return base_lr * self.gamma ** (self.last_epoch // self.step_size)


class CosineAnnealingLR(LRScheduler):
    """Anneal the learning rate from its first value to ``eta_min`` along half a cosine.

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = mg.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    >>> rates = []
    >>> for _ in range(5):
    ...     rates.append(round(sched.get_last_lr()[0], 4)); opt.step(); sched.step()
    >>> rates
    [1.0, 0.8536, 0.5, 0.1464, 0.0]
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:  # fmt: skip
        if T_max <= 0:
            raise ValueError(f"T_max must be a positive number of steps, got {T_max!r}")
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr: float) -> float:
        cosine = 1 + math.cos(math.pi * self.last_epoch / self.T_max)
        return self.eta_min + (base_lr - self.eta_min) * cosine / 2
