"""``Optimizer``: what every training step does after ``backward()`` (lesson 06).

``loss.backward()`` leaves each parameter's gradient in ``p.grad``. An
optimizer turns gradients into a change of the parameters. The change itself
must not be recorded: it is not part of the function we differentiate, and a
graph that grew by one update per step would keep every old parameter alive.
So ``step()`` runs under ``no_grad`` and puts the new values into the same
leaf tensor (``p.data = new.data``), which keeps ``p`` a leaf that the next
forward pass records from afresh.

Subclasses say what one step does to one parameter, in ``update``.
"""

from __future__ import annotations

from collections.abc import Iterable

from minigrad.tensor.mode import no_grad
from minigrad.tensor.tensor import Tensor


class Optimizer:
    """Holds the parameters; ``step()`` updates each one that has a gradient.

    >>> import minigrad as mg
    >>> p = mg.tensor([1.0, 2.0], requires_grad=True)
    >>> opt = mg.optim.SGD([p], lr=0.5)
    >>> (p * p).sum().backward()
    >>> opt.step(); p
    tensor([0., 0.], requires_grad=True)
    >>> opt.zero_grad(); p.grad is None
    True
    """

    def __init__(self, params: Iterable[Tensor], lr: float) -> None:
        self.params = list(params)
        if not self.params:
            raise ValueError("optimizer got an empty parameter list")
        for i, p in enumerate(self.params):
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
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        self.lr = lr

    def zero_grad(self) -> None:
        """Forget the gradients (``p.grad = None``), before the next ``backward()``."""
        for p in self.params:
            p.grad = None

    def step(self) -> None:
        """Update every parameter that received a gradient; record nothing."""
        with no_grad():
            for i, p in enumerate(self.params):
                if p.grad is not None:
                    p.data = self.update(i, p, p.grad).data

    def update(self, i: int, p: Tensor, g: Tensor) -> Tensor:
        """The new value of parameter number ``i`` (``p``), given its gradient ``g``."""
        raise NotImplementedError(f"{type(self).__name__} must define update(i, p, g)")
