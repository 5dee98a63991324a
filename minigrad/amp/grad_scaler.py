"""Loss scaling: ``GradScaler``, so that small float16 gradients survive (lesson 15).

float16 has 5 exponent bits: its smallest positive (subnormal) number is
2**-24, about 6e-8. A gradient smaller than that rounds to zero in the
backward pass, and the parameter it belongs to stops learning. Loss scaling
moves every gradient up into float16's range: multiply the loss by a large
``scale`` S before ``backward()``, so that every gradient comes out S times
larger (the chain rule is linear in the seed), then divide by S, in float32,
before the optimizer uses them.

How large may S be? Too large and some gradient overflows to ``inf``. Nobody
knows in advance, so the scale is *dynamic* (PyTorch's rule):

- after ``backward()``, look for an ``inf`` or ``nan`` among the gradients;
- if one is found, skip this step (the gradients are garbage) and halve the
  scale (``backoff_factor``);
- after ``growth_interval`` steps in a row without one, double the scale
  (``growth_factor``), in case it could be larger.

So the scale hovers just under the largest value that does not overflow.
The training loop reads as PyTorch's::

    scaler = mg.amp.GradScaler("cpu")
    for x, y in batches:
        opt.zero_grad()
        with mg.autocast("cpu", dtype=mg.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)      # unscales, and steps only if every gradient is finite
        scaler.update()       # backs off or grows the scale
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from minigrad import backends
from minigrad.tensor import Tensor, isfinite, no_grad, tensor
from minigrad.tensor.dtypes import float32, is_low_precision

READY, UNSCALED, STEPPED = "ready", "unscaled", "stepped"  # where one optimizer is in a step


class GradScaler:
    """``torch.amp.GradScaler``: the same arguments, methods, state and arithmetic.

    The scale is a float32 number, as PyTorch's (its growth and backoff are
    rounded to float32).

    >>> import minigrad as mg
    >>> w = mg.tensor([1.0], requires_grad=True)
    >>> opt = mg.optim.SGD([w], lr=0.1)
    >>> scaler = mg.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
    >>> for _ in range(3):
    ...     opt.zero_grad(); scaler.scale((w * w).sum()).backward()
    ...     scaler.step(opt); scaler.update()
    >>> scaler.get_scale()   # grew once, after two clean steps
    2048.0
    >>> w.grad   # unscaled: the true gradient 2 w
    tensor([1.28])
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not _cuda_available():
            warnings.warn(
                "GradScaler is enabled, but CUDA is not available.  Disabling. "
                "(For CPU training, make it with mg.amp.GradScaler('cpu').)",
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        # Made on the first scale(), on the loss's device, as in PyTorch.
        self._scale: Tensor | None = None
        self._growth_tracker: int | None = None  # clean steps in a row since the last change
        self._per_optimizer_states: dict[int, dict[str, Any]] = {}

    # -- one training step ------------------------------------------------------------
    def scale(self, outputs: Any) -> Any:
        """Multiply a tensor (or a list, tuple or iterable of them) by the scale.

        >>> import minigrad as mg
        >>> mg.amp.GradScaler("cpu").scale(mg.tensor(2.0))
        tensor(131072.)
        """
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            scale = self._scale_on(outputs)
            if not is_low_precision(outputs.dtype):
                return outputs * scale
            # A 16-bit loss: the product is computed in float32 and rounded once (the
            # scale itself, 2**16 by default, is past float16's largest number). Its
            # dtype is PyTorch's: a 0-d scale beside a tensor with axes counts as a
            # number (the tensor's dtype stays); beside a 0-d loss it widens to float32.
            wide = outputs.to(float32) * scale
            return wide.to(outputs.dtype) if outputs.ndim else wide
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if isinstance(outputs, Iterable):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer: Any) -> None:
        """Divide the optimizer's gradients by the scale, in place, noting any inf or nan.

        Optional: ``step`` does it when it was not done. Call it yourself to look at
        (or clip) the true gradients before ``step``; once per ``update()`` at most.
        """
        if not self._enabled:
            return
        self._check_started("unscale_")
        state = self._state(optimizer)
        if state["stage"] == UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] == STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # 1 / scale in float64, then rounded to float32 (PyTorch's inverse).
        inverse = np.float32(1.0 / np.float64(self._scale.item()))
        state["found_inf"] = self._unscale_grads(optimizer, inverse)
        state["stage"] = UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale (if not done yet), then ``optimizer.step()`` unless a gradient is inf/nan.

        Returns what ``optimizer.step`` returned, or None for a skipped step.
        """
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_started("step")
        state = self._state(optimizer)
        if state["stage"] == STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == READY:
            self.unscale_(optimizer)
        result = None
        if not state["found_inf"]:
            result = optimizer.step(*args, **kwargs)
        state["stage"] = STEPPED
        return result

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """End the step: back off after an inf/nan, grow after ``growth_interval`` clean steps.

        ``new_scale`` (a float, or a one-element tensor) sets the scale instead.
        """
        if not self._enabled:
            return
        self._check_started("update")
        if new_scale is not None:
            self._set_scale(new_scale)
        else:
            if not self._per_optimizer_states:
                raise AssertionError("No inf checks were recorded prior to update.")
            found_inf = any(s["found_inf"] for s in self._per_optimizer_states.values())
            self._update_scale(found_inf)
        self._per_optimizer_states = {}

    def _update_scale(self, found_inf: bool) -> None:
        """The rule: halve on overflow; double after ``growth_interval`` clean steps."""
        scale = np.float32(self._scale.item())
        if found_inf:
            scale = np.float32(scale * self._backoff_factor)
            self._growth_tracker = 0
        elif self._growth_tracker + 1 == self._growth_interval:
            with np.errstate(over="ignore"):  # past float32's largest: inf, refused below
                grown = np.float32(scale * self._growth_factor)
            if np.isfinite(grown):  # a scale never grows to inf
                scale = grown
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
        self._fill(scale)

    # -- reading and setting ------------------------------------------------------------
    def get_scale(self) -> float:
        """The scale now, a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return float(self._init_scale) if self._scale is None else self._scale.item()

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def is_enabled(self) -> bool:
        return self._enabled

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker

    def state_dict(self) -> dict[str, Any]:
        """``scale``, ``growth_factor``, ``backoff_factor``, ``growth_interval``,
        ``_growth_tracker`` (empty when disabled); save it after ``update()``.

        >>> import minigrad as mg
        >>> mg.amp.GradScaler("cpu").state_dict()["scale"]
        65536.0
        """
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict()`` returned (does nothing when disabled)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved "
                "from a disabled instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._fill(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker = state_dict["_growth_tracker"]

    # -- inside -------------------------------------------------------------------------
    def _scale_on(self, like: Tensor) -> Tensor:
        if self._scale is None:  # first use: on the device of what is scaled
            self._scale = tensor(self._init_scale, dtype=float32).to(like.device)
            self._growth_tracker = self._init_growth_tracker
        return self._scale if self._scale.device == like.device else self._scale.to(like.device)

    def _fill(self, value: float) -> None:
        with no_grad():
            self._scale.fill_(float(np.float32(value)))

    def _set_scale(self, new_scale: float | Tensor) -> None:
        if isinstance(new_scale, float):
            self._fill(new_scale)
            return
        reason = (
            "new_scale should be a float or a 1-element tensor with requires_grad=False "
            "on the scaler's device."
        )
        if not isinstance(new_scale, Tensor):
            raise AssertionError(reason)
        if new_scale.device != self._scale.device or new_scale.size != 1:
            raise AssertionError(reason)
        if new_scale.requires_grad:
            raise AssertionError(reason)
        self._fill(new_scale.reshape(()).item())

    def _check_started(self, name: str) -> None:
        if self._scale is None:
            raise AssertionError(
                f"Attempted {name} but _scale is None.  This may indicate your script did "
                "not use scaler.scale(loss or outputs) earlier in the iteration."
            )

    def _state(self, optimizer: Any) -> dict[str, Any]:
        return self._per_optimizer_states.setdefault(
            id(optimizer), {"stage": READY, "found_inf": False}
        )

    def _unscale_grads(self, optimizer: Any, inverse: np.float32) -> bool:
        """Multiply every gradient by ``inverse`` in place; whether any was inf or nan."""
        found_inf = False
        with no_grad():
            grads = [
                p.grad for group in optimizer.param_groups for p in group["params"]
                if p.grad is not None
            ]  # fmt: skip
            for g in grads:
                if g.dtype.name == "float16":
                    raise ValueError("Attempting to unscale FP16 gradients.")
            for g in grads:
                # Checked before the multiply: a scale below 1 could overflow a finite one.
                if not isfinite(g).all().item():
                    found_inf = True
                if inverse != 1.0:
                    g.mul_(tensor(inverse, dtype=float32).to(g.device))
        return found_inf


def _cuda_available() -> bool:
    available = backends.available()
    return bool(available.get("cuda") or available.get("cuda_simulator"))
