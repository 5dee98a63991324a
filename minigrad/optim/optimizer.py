"""``Optimizer``: what every training step does after ``backward()`` (lesson 06).

``loss.backward()`` leaves each parameter's gradient in ``p.grad``. An
optimizer turns gradients into a change of the parameters. The change itself
must not be recorded: it is not part of the function we differentiate, and a
graph that grew by one update per step would keep every old parameter alive.
So ``step()`` runs under ``no_grad`` and changes each parameter *in place*
(``p.add_(...)``, see ``minigrad.tensor.ops.inplace``): the model holds these very
tensor objects, so they must change, not be replaced. ``p`` stays a leaf that
the next forward pass records from afresh, and its ``_version`` counts the steps.

As in ``torch.optim``, parameters come in *groups* (``param_groups``), each a
dict of its own hyperparameters: ``{"params": [...], "lr": 0.1, ...}``. A
learning-rate scheduler (``lr_scheduler``) changes ``group["lr"]``. What an
optimizer remembers between steps (momentum, running averages) lives in
``state[p]``, one dict per parameter; ``state_dict()`` saves both.

Subclasses say what one step does to one parameter, in ``update``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from minigrad.tensor.mode import current, enable_grad, no_grad
from minigrad.tensor.tensor import Tensor


class Optimizer:
    """Holds parameter groups; ``step()`` updates, in place, every parameter that has a gradient.

    >>> import minigrad as mg
    >>> p = mg.tensor([1.0, 2.0], requires_grad=True)
    >>> opt = mg.optim.SGD([p], lr=0.5)
    >>> (p * p).sum().backward()
    >>> opt.step(); p
    tensor([0., 0.], requires_grad=True)
    >>> opt.zero_grad(); p.grad is None
    True
    """

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got Tensor\n(pass [p], or model.parameters())"
            )
        self.defaults = dict(defaults)
        self.param_groups: list[dict[str, Any]] = []
        self.state: dict[Tensor, dict[str, Any]] = {}
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, group: dict[str, Any]) -> None:
        """Add a group of parameters with its own hyperparameters (the rest from the defaults)."""
        params = group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                raise TypeError(
                    f"optimizer can only optimize Tensors, but one of the params is "
                    f"{type(p).__name__} (parameter {i})"
                )
            if not p.is_leaf:
                raise ValueError(
                    f"can't optimize a non-leaf Tensor (parameter {i} has grad_fn=<{p._op}>); "
                    "optimize the leaves it was computed from, or pass x.detach().requires_grad_()"
                )
            if id(p) in seen:
                raise ValueError("some parameters appear in more than one parameter group")
        full = {**self.defaults, **group, "params": params}
        self._check(full)
        self.param_groups.append(full)

    def _check(self, group: dict[str, Any]) -> None:
        """Refuse hyperparameters out of range, with torch.optim's messages."""
        for name, label in (("lr", "learning rate"), ("eps", "epsilon value"),
                            ("momentum", "momentum value"),
                            ("weight_decay", "weight_decay value")):  # fmt: skip
            if name in group and group[name] < 0:
                raise ValueError(f"Invalid {label}: {group[name]}")

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients before the next ``backward()``: ``p.grad = None`` (or zeros)."""
        self._note_changes()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    with no_grad():
                        p.grad.zero_()

    def step(self, closure: Any = None) -> Any:
        """Update every parameter that received a gradient, in place; record nothing.

        ``closure``, if given, recomputes the loss (with gradients) and returns it.
        """
        self._note_changes()
        self._opt_called = True  # a scheduler warns if it steps before the optimizer ever did
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self.update(p, p.grad, self.state.setdefault(p, {}), group)
        return loss

    def _note_changes(self) -> None:
        """While a function is traced (lesson 13), note what a step changes, to put it back."""
        tracing = current().tracing
        if tracing is not None:
            tracing.remember(self.state)
            for group in self.param_groups:
                for p in group["params"]:
                    tracing.remember(p, "grad")

    def update(self, p: Tensor, g: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        """Change parameter ``p`` in place, given its gradient ``g``, ``state`` and ``group``."""
        raise NotImplementedError(f"{type(self).__name__} must define update(p, g, state, group)")

    # -- saving and restoring ----------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The hyperparameters and per-parameter state; parameters are named by position.

        >>> import minigrad as mg
        >>> opt = mg.optim.SGD([mg.zeros(2, requires_grad=True)], lr=0.1)
        >>> opt.state_dict()["param_groups"][0]["params"], opt.state_dict()["param_groups"][0]["lr"]
        ([0], 0.1)
        """
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            groups.append({**group, "params": [index[id(p)] for p in group["params"]]})
        state = {
            index[id(p)]: {k: v.clone() if isinstance(v, Tensor) else v for k, v in s.items()}
            for p, s in self.state.items()
        }
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict()`` returned (for an optimizer over the same parameters)."""
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups) or any(
            len(g["params"]) != len(mine["params"]) for g, mine in zip(groups, self.param_groups)
        ):
            raise ValueError(
                "loaded state dict has a different number of parameter groups or parameters "
                "than this optimizer"
            )
        params = {}
        for saved, mine in zip(groups, self.param_groups):
            params.update(zip(saved["params"], mine["params"]))
            mine.update({k: v for k, v in saved.items() if k != "params"})
        self.state = {
            params[i]: {k: v.clone() if isinstance(v, Tensor) else v for k, v in s.items()}
            for i, s in state_dict["state"].items()
        }

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in sorted(group.items()) if k != "params"]
        return "\n".join([*lines, ")"])
