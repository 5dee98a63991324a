"""Learning-rate schedules: change ``group["lr"]`` as training goes on (lesson 06).

A large step size early moves fast; a small one late settles into a minimum.
A scheduler holds an optimizer and, at each ``step()`` (usually once per
epoch, after ``optimizer.step()``), sets every parameter group's ``"lr"`` from
a closed formula in the number of steps so far, ``last_epoch``:

- ``StepLR``: ``base_lr * gamma ** (last_epoch // step_size)``, a staircase;
- ``CosineAnnealingLR``: ``eta_min + (base_lr - eta_min) * (1 + cos(pi * last_epoch
  / T_max)) / 2``, half a cosine wave from ``base_lr`` down to ``eta_min``.

Those are the closed formulas of PyTorch's documentation. These two and the
others (``LambdaLR``, ``MultiplicativeLR``, ``MultiStepLR``, ``ConstantLR``,
``LinearLR``, ``ExponentialLR``, ``PolynomialLR``, ``CosineAnnealingWarmRestarts``,
``OneCycleLR``, ``CyclicLR``, ``ReduceLROnPlateau``, and the combinators
``SequentialLR`` and ``ChainedScheduler``) compute what PyTorch's classes compute:
most step by step from each group's current rate (so schedulers on one optimizer
multiply together), in the same arithmetic order, so the rates are the same floats.
"""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from minigrad.optim.optimizer import Optimizer

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
]  # fmt: skip


class LRScheduler:
    """The base: ``step()`` counts a step and sets each group's lr to what ``get_lr()`` says.

    As PyTorch's, most schedules are *chainable*: ``get_lr()`` works from each
    group's current ``"lr"`` (multiplying it by a factor), so two schedulers on
    one optimizer compose. A subclass defines ``get_lr()`` (or the closed
    formula ``lr_at(base_lr)``); ``_get_closed_form_lr()``, where there is one,
    is what ``SequentialLR`` uses at a milestone.
    """

    _is_initial = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                        "scheduler with last_epoch >= 0.\n(load the optimizer's state_dict "
                        "first, or start with last_epoch=-1)"
                    )
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()  # as PyTorch: the rates for step 0 are set at once

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def lr_at(self, base_lr: float) -> float:
        """The learning rate of a group whose first rate was ``base_lr``, at ``last_epoch``."""
        raise NotImplementedError(f"{type(self).__name__} must define get_lr() or lr_at(base_lr)")

    def get_lr(self) -> list[float]:
        """The rates for the step ``last_epoch``, one per parameter group."""
        return [self.lr_at(base_lr) for base_lr in self.base_lrs]

    def step(self, epoch: int | None = None) -> None:
        """Count one step and set every group's ``"lr"`` for it."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
                "1.1.0 and later, you should call them in the opposite order: "
                "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                "result in PyTorch skipping the first value of the learning rate schedule. See "
                "more details at "
                "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                UserWarning,
                stacklevel=2,
            )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def get_last_lr(self) -> list[float]:
        """The learning rates the last ``step()`` set, one per parameter group."""
        return list(self._last_lr)

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer (which has its own ``state_dict``)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict()`` returned."""
        self.__dict__.update(state_dict)


EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


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

    def get_lr(self) -> list[float]:
        groups = self.optimizer.param_groups
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [group["lr"] for group in groups]
        return [group["lr"] * self.gamma for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


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

    def get_lr(self) -> list[float]:
        groups, t, T, low = self.optimizer.param_groups, self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return [group["lr"] for group in groups]
        if self._step_count == 1 and t > 0:  # resumed at last_epoch: the closed formula
            return self._get_closed_form_lr()
        if (t - 1 - T) % (2 * T) == 0:  # at the bottom of the wave the ratio below is 0/0
            return [g["lr"] + (b - low) * (1 - math.cos(math.pi / T)) / 2
                    for b, g in zip(self.base_lrs, groups)]  # fmt: skip
        ratio = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [ratio * (group["lr"] - low) + low for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        cosine = 1 + math.cos(math.pi * self.last_epoch / self.T_max)
        return [self.eta_min + (b - self.eta_min) * cosine / 2 for b in self.base_lrs]


def _lambdas(optimizer: Optimizer, lr_lambda: Any) -> list[Callable[[int], float]]:
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(
            f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}"
        )
    return list(lr_lambda)


def _format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    """One value per parameter group: a list of the right length, or one value repeated."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. {name} has "
                f"{len(param)} values, param_groups has {len(optimizer.param_groups)}."
            )
        return list(param)
    return [param] * len(optimizer.param_groups)


class _LambdaState:
    """``state_dict`` for schedulers holding functions: a plain function is not saved,
    a callable object's attributes are (as PyTorch's)."""

    lr_lambdas: list[Callable[[int], float]]

    def state_dict(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
            for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        saved = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, attrs in zip(self.lr_lambdas, saved):
            if attrs is not None:
                fn.__dict__.update(attrs)


class LambdaLR(_LambdaState, LRScheduler):
    """Set each group's rate to ``base_lr * lr_lambda(last_epoch)``.

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = mg.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.5**epoch)
    >>> rates = []
    >>> for _ in range(3):
    ...     rates.append(sched.get_last_lr()[0]); opt.step(); sched.step()
    >>> rates
    [1.0, 0.5, 0.25]
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Any, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        return [
            base_lr * fn(self.last_epoch)
            for fn, base_lr in zip(self.lr_lambdas, self.base_lrs, strict=True)
        ]


class MultiplicativeLR(_LambdaState, LRScheduler):
    """Multiply each group's rate by ``lr_lambda(last_epoch)`` at every step (not the first).

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = mg.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
    >>> for _ in range(2):
    ...     opt.step(); sched.step()
    >>> sched.get_last_lr()
    [0.25]
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Any, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        groups = self.optimizer.param_groups
        if self._is_initial:
            return [group["lr"] for group in groups]
        return [
            g["lr"] * fn(self.last_epoch) for fn, g in zip(self.lr_lambdas, groups, strict=True)
        ]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each of the ``milestones`` (a step listed twice: twice).

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = mg.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
    >>> rates = []
    >>> for _ in range(4):
    ...     rates.append(sched.get_last_lr()[0]); opt.step(); sched.step()
    >>> rates
    [1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:  # fmt: skip
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        groups = self.optimizer.param_groups
        if self.last_epoch not in self.milestones:
            return [group["lr"] for group in groups]
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch] for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        milestones = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(milestones, self.last_epoch) for b in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scale the rate by ``factor`` for the first ``total_iters`` steps, then restore it.

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = mg.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    >>> rates = []
    >>> for _ in range(3):
    ...     rates.append(sched.get_last_lr()[0]); opt.step(); sched.step()
    >>> rates
    [0.5, 0.5, 1.0]
    """

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:  # fmt: skip
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in groups]
        if self.last_epoch != self.total_iters:
            return [group["lr"] for group in groups]
        return [group["lr"] * (1.0 / self.factor) for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        after = self.last_epoch >= self.total_iters
        return [b * (self.factor + after * (1 - self.factor)) for b in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the rate by a factor going linearly from ``start_factor`` to ``end_factor``
    over ``total_iters`` steps (a warm-up, by default).

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = mg.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> rates = []
    >>> for _ in range(4):
    ...     rates.append(sched.get_last_lr()[0]); opt.step(); sched.step()
    >>> rates
    [0.5, 0.75, 1.0, 1.0]
    """

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5,
                 last_epoch: int = -1) -> None:  # fmt: skip
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return [group["lr"] for group in groups]
        rise = self.end_factor - self.start_factor
        # The ratio of this step's factor to the last one's (torch's chainable form).
        ratio = 1.0 + rise / (self.total_iters * self.start_factor + (self.last_epoch - 1) * rise)
        return [group["lr"] * ratio for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        rise = self.end_factor - self.start_factor
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        return [b * (self.start_factor + rise * done) for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` at every step.

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = mg.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        groups = self.optimizer.param_groups
        if self._is_initial:
            return [group["lr"] for group in groups]
        return [group["lr"] * self.gamma for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [b * self.gamma**self.last_epoch for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the rate as ``base_lr * (1 - t / total_iters) ** power``: 0 at ``total_iters``.

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = mg.optim.lr_scheduler.PolynomialLR(opt, total_iters=4)
    >>> rates = []
    >>> for _ in range(6):
    ...     rates.append(sched.get_last_lr()[0]); opt.step(); sched.step()
    >>> rates
    [1.0, 0.75, 0.5, 0.25, 0.0, 0.0]
    """

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:  # fmt: skip
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        groups = self.optimizer.param_groups
        if self._is_initial or self.last_epoch > self.total_iters:
            return [group["lr"] for group in groups]
        t, n = self.last_epoch, self.total_iters
        decay = ((1.0 - t / n) / (1.0 - (t - 1) / n)) ** self.power
        return [group["lr"] * decay for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [b * left**self.power for b in self.base_lrs]


def _check_members(owner: str, optimizer: Optimizer, schedulers: Sequence[Any]) -> None:
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at index "
                f"{i} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {type(scheduler).__name__} at index {i} has "
                f"{scheduler.optimizer}, which is different from {type(optimizer).__name__}."
            )


class _Composite:
    """``state_dict`` of a scheduler made of schedulers: theirs, nested."""

    _schedulers: Sequence[LRScheduler]

    def state_dict(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        saved = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, s in zip(self._schedulers, saved):
            scheduler.load_state_dict(s)


class SequentialLR(_Composite, LRScheduler):
    """Run ``schedulers`` one after another, switching at each of the ``milestones``.

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    >>> warm = mg.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> decay = mg.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> sched = mg.optim.lr_scheduler.SequentialLR(opt, [warm, decay], milestones=[2])
    >>> rates = []
    >>> for _ in range(4):
    ...     rates.append(sched.get_last_lr()[0]); opt.step(); sched.step()
    >>> rates
    [0.5, 0.75, 1.0, 0.5]
    """

    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler], milestones: list[int],
                 last_epoch: int = -1) -> None:  # fmt: skip
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
        _check_members(name, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Each scheduler already took its first step when made: undo that, start the first.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched: Any = None) -> None:
        """Take one step back in every scheduler inside (nested ones too)."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)  # a fresh start: the closed form at step 0
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite, LRScheduler):
    """Step every scheduler in ``schedulers`` at each step: their factors multiply.

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    >>> a = mg.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    >>> b = mg.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> sched = mg.optim.lr_scheduler.ChainedScheduler([a, b])
    >>> rates = []
    >>> for _ in range(3):
    ...     rates.append(sched.get_last_lr()[0]); opt.step(); sched.step()
    >>> rates
    [0.5, 0.25, 0.25]
    """

    def __init__(self, schedulers: Sequence[LRScheduler],
                 optimizer: Optimizer | None = None) -> None:  # fmt: skip
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(
                f"{name} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_members(name, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = [group["lr"] for group in schedulers[-1].optimizer.param_groups]

    def step(self) -> None:  # type: ignore[override]
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from ``base_lr`` to ``eta_min`` over ``T_0`` steps, then restart
    (each period ``T_mult`` times the last; SGDR, Loshchilov and Hutter, 2017).

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = mg.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
    >>> rates = []
    >>> for _ in range(4):
    ...     rates.append(round(sched.get_last_lr()[0], 4)); opt.step(); sched.step()
    >>> rates
    [1.0, 0.5, 1.0, 0.5]
    """

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:  # fmt: skip
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        cosine = 1 + math.cos(math.pi * self.T_cur / self.T_i)
        return [self.eta_min + (b - self.eta_min) * cosine / 2 for b in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """One step on; or, given ``epoch`` (may be fractional), jump to that point."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        for group, lr in zip(self.optimizer.param_groups, self.get_lr(), strict=True):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]


def _set_momentum(group: dict[str, Any], use_beta1: bool, momentum: float) -> None:
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


def _momentum_ranges(
    scheduler: Any, optimizer: Optimizer, base_momentum: Any, max_momentum: Any, last_epoch: int
) -> tuple[list[Any], list[Any]]:
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError(
            "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
        )
    scheduler.use_beta1 = "betas" in optimizer.defaults
    max_momentums = _format_param("max_momentum", optimizer, max_momentum)
    base_momentums = _format_param("base_momentum", optimizer, base_momentum)
    if last_epoch == -1:
        for top, bottom, group in zip(max_momentums, base_momentums, optimizer.param_groups):
            _set_momentum(group, scheduler.use_beta1, top)
            group["max_momentum"] = top
            group["base_momentum"] = bottom
    return base_momentums, max_momentums


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith and Topin, 2018): the rate rises from ``max_lr / div_factor``
    to ``max_lr`` over ``pct_start`` of ``total_steps``, then anneals far below the start;
    the momentum moves the opposite way. Step it after every batch.

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    >>> sched = mg.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    >>> rates = []
    >>> for _ in range(10):
    ...     rates.append(sched.get_last_lr()[0]); opt.step(); sched.step()
    >>> max(rates), rates[0]
    (1.0, 0.04)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(
                    f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
                )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        up = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                {"end_step": up, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * self.total_steps) - 2,
                 "start_lr": "max_lr", "end_lr": "initial_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"},
            ]  # fmt: skip
        else:
            self._schedule_phases = [
                {"end_step": up, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
            ]  # fmt: skip
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for top, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _momentum_ranges(self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _anneal(kind: str, start: float, end: float, pct: float) -> float:
        if kind == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(
                f"Tried to step {step_num} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        kind = self._anneal_func_type
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal(kind, group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = self._anneal(kind, group[phase["start_momentum"]],
                                                group[phase["end_momentum"]], pct)  # fmt: skip
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                _set_momentum(group, self.use_beta1, momentum)
        return lrs


class CyclicLR(LRScheduler):
    """Cyclical learning rates (Smith, 2017): the rate goes up from ``base_lr`` to ``max_lr``
    in ``step_size_up`` steps and back down, cycle after cycle (``triangular``; halving
    each cycle's height: ``triangular2``; shrinking by ``gamma**step``: ``exp_range``).

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    >>> sched = mg.optim.lr_scheduler.CyclicLR(opt, base_lr=0.0, max_lr=1.0, step_size_up=2)
    >>> rates = []
    >>> for _ in range(6):
    ...     rates.append(sched.get_last_lr()[0]); opt.step(); sched.step()
    >>> rates
    [0.0, 0.5, 1.0, 0.5, 0.0, 0.5]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float = 0.8,
        max_momentum: float = 0.9,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                group["lr"] = lr
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.base_momentums, self.max_momentums = _momentum_ranges(
                self, optimizer, base_momentum, max_momentum, last_epoch
            )
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is None and self.mode in ("triangular", "triangular2"):
            self.scale_mode = "cycle"
        elif self._scale_fn_custom is None and self.mode == "exp_range":
            self.scale_mode = "iterations"

    def scale_fn(self, x: float) -> float:
        """The height factor of cycle (or step) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x

    def get_lr(self) -> list[float]:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [b + (top - b) * scale_factor * scale for b, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, low, top in zip(self.optimizer.param_groups, self.base_momentums,
                                       self.max_momentums):  # fmt: skip
                _set_momentum(group, self.use_beta1, top - (top - low) * scale_factor * scale)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        fn = state.pop("_scale_fn_custom")
        super().load_state_dict(state)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class ReduceLROnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` when a metric (``step(metric)``) has not improved
    for ``patience`` steps.

    >>> import minigrad as mg
    >>> opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = mg.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
    >>> for loss in [3.0, 2.0, 2.0, 2.0]:
    ...     sched.step(loss)
    >>> sched.get_last_lr()   # two steps without improvement: one cut
    [0.5]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: list[float] | float = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(
                    f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}"
                )
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = [group["lr"] for group in optimizer.param_groups]
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics: Any, epoch: int | None = None) -> None:  # type: ignore[override]
        """Take this step's metric (a loss, say); cut the rates after ``patience`` bad steps."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs "
                    f"from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                    "usually due to a new param group being added to the optimizer. Please "
                    "modify the `min_lrs` field to match the length of the `optimizer` param "
                    "groups."
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self) -> bool:
        """Whether the scheduler is waiting out ``cooldown`` steps after a cut."""
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)
