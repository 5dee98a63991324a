"""Finite-difference checks for Tensor functions (lessons 04-08), and ``gradcheck`` for all.

The same oracle as lesson 01 (``differences.py``), now against the whole
Jacobian of a tensor function, and read three ways:

- ``gradcheck``: the Jacobian by reverse mode, ``jacrev`` (one vjp per
  output element: its rows), against central differences;
- ``check_jvp``: the Jacobian by forward mode, ``jacfwd`` (one jvp per input
  element: its columns), against the same differences (lesson 07);
- ``gradgradcheck``: ``gradcheck`` of the backward pass itself, the function
  ``(x, u) -> u^T J(x)`` made with ``vjp``, which checks second derivatives
  (lesson 08).

Everything goes through the public transforms and ``mg.tensor``: floating
inputs are checked on float64 copies, each nudged input is a new tensor, and
nothing the caller holds is changed. Other inputs (integer tensors, plain
numbers) are held fixed. ``fn`` returns a Tensor or a tuple (or list) of
Tensors, and all three checks accept exactly the same shapes of ``fn``.

    >>> import minigrad as mg
    >>> x = mg.randn(2, 3, dtype=mg.float64)
    >>> gradcheck(lambda x: (x @ x.T).tanh(), [x], check_forward_ad=True)
    True
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any

import numpy as np

from minigrad.check import scalar
from minigrad.check.differences import as_inputs, central_differences, compare
from minigrad.tensor import dtypes, factories
from minigrad.tensor.tensor import Tensor
from minigrad.transforms import argnums_partial, jacfwd, jacrev, outputs_of, vjp


def accepts(inputs: Sequence[Any]) -> bool:
    """Are these the inputs of a Tensor function (Tensors, and numbers held fixed)?"""
    tensors = any(isinstance(x, Tensor) for x in inputs)
    return tensors and all(isinstance(x, (Tensor, Real)) for x in inputs)


class _Problem:
    """``fn`` and its inputs, made ready to check: float64 copies, outputs as a tuple."""

    def __init__(self, fn: Callable[..., Any], inputs: Any, where: str) -> None:
        inputs = as_inputs(inputs)
        if not accepts(inputs):
            raise TypeError(f"{where} checks Tensor functions; pass Tensors as inputs")
        self.where = where
        self.inputs = [self._copy(i, x) for i, x in enumerate(inputs)]
        self.labels = [getattr(x, "label", "") for x in inputs]
        self.positions = tuple(
            i for i, x in enumerate(inputs) if isinstance(x, Tensor) and dtypes.is_floating(x.dtype)
        )

        def tupled(*args: Any) -> tuple[Tensor, ...]:
            return outputs_of(fn(*args), where)[0]

        # fn as a function of the checked inputs alone, always returning a tuple
        self.of_checked, self.checked = argnums_partial(tupled, self.inputs, self.positions)
        self.outs = self.of_checked(*self.checked)

    def _copy(self, i: int, x: Any) -> Any:
        if not (isinstance(x, Tensor) and dtypes.is_floating(x.dtype)):
            return x
        if x.dtype != dtypes.float64:
            warnings.warn(
                f"{self.where}: input {i} is {x.dtype.name}, too coarse for finite "
                "differences; checking a float64 copy (pass float64 inputs)",
                stacklevel=4,
            )
        return factories.tensor(x.detach().numpy(), dtype=dtypes.float64)

    def numerical(self, eps: float) -> list[np.ndarray]:
        """The Jacobian by central differences, a block per checked input."""
        shapes = [x.shape for x in self.checked]

        def outputs(points: list) -> np.ndarray:
            moved = [
                factories.tensor(p.reshape(s), dtype=dtypes.float64) for p, s in zip(points, shapes)
            ]
            return _flat(self.of_checked(*moved))

        points = [x.detach().numpy().reshape(-1) for x in self.checked]
        n_out = sum(o.size for o in self.outs)
        return central_differences(outputs, points, eps, n_out)

    def analytical(self, jacobian: Callable) -> list[np.ndarray]:
        """The Jacobian by ``jacrev`` or ``jacfwd``, a block per checked input."""
        argnums = tuple(range(len(self.checked)))
        per_output = jacobian(self.of_checked, argnums)(*self.checked) if argnums else ()
        return [
            np.concatenate(
                [_float64(j[c]).reshape(o.size, x.size) for j, o in zip(per_output, self.outs)]
                or [np.zeros((0, x.size))]
            )
            for c, x in enumerate(self.checked)
        ]

    def describe(self, c: int, k: int, j: int) -> tuple[int, int, str]:
        """Output row ``k`` and element ``j`` of checked input ``c``, in words."""
        n = 0
        while k >= self.outs[n].size:  # rows run through output 0, then output 1, ...
            k -= self.outs[n].size
            n += 1
        o = self.outs[n]
        i, x = self.positions[c], self.checked[c]
        label = f" ({self.labels[i]!r})" if self.labels[i] else ""
        return (
            n,
            i,
            (
                f"output {n} at {_index(k, o.shape)}, "
                f"input {i}{label} (shape {x.shape}) at {_index(j, x.shape)}"
            ),
        )

    def compare(self, numerical: list, analytical: list, mode: str, *tolerances: Any) -> bool:
        return compare(numerical, analytical, self.describe, mode, *tolerances)


def _float64(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach().numpy(), dtype=np.float64)


def _flat(outs: Sequence[Tensor]) -> np.ndarray:
    return np.concatenate([_float64(o).reshape(-1) for o in outs] or [np.zeros(0)])


def _index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def gradcheck(
    fn: Callable[..., Any],
    inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    check_forward_ad: bool = False,
) -> bool:
    """Check ``fn``'s backward pass against central finite differences in float64.

    ``inputs`` is a sequence of Tensors (and numbers), or of Values or numbers
    (one input alone is fine too); ``fn(*inputs)`` must return a Tensor or a
    tuple of Tensors, or a Value. Value functions go to the check of lesson 01
    (``scalar.py``). Floating-point tensor inputs are checked (on float64
    copies); the caller's inputs are not modified. Returns True when every
    derivative agrees; otherwise raises ``GradcheckError`` naming the input,
    the element, the numerical and the analytical value, or returns False when
    ``raise_exception=False``. ``check_forward_ad=True`` checks forward mode
    (``jvp``) too, as ``check_jvp`` does.

    >>> gradcheck(lambda a, b: a * b + b.tanh(), [2.0, -0.5])
    True
    >>> import minigrad as mg
    >>> gradcheck(lambda x: (x.exp().sum(), x * 2), [mg.randn(3, dtype=mg.float64)])
    True
    """
    inputs = as_inputs(inputs)
    if scalar.accepts(inputs):
        if check_forward_ad:
            raise TypeError("gradcheck: check_forward_ad=True checks Tensor functions only")
        return scalar.gradcheck_values(fn, inputs, eps, atol, rtol, raise_exception)
    if not accepts(inputs):
        names = sorted({type(x).__name__ for x in inputs})
        raise TypeError(
            f"gradcheck: cannot check inputs of type {', '.join(names)}; pass Values or Tensors"
        )
    problem = _Problem(fn, inputs, "gradcheck")
    numerical = problem.numerical(eps)
    tolerances = (eps, atol, rtol, raise_exception)
    ok = problem.compare(numerical, problem.analytical(jacrev), "reverse", *tolerances)
    if ok and check_forward_ad:
        ok = problem.compare(numerical, problem.analytical(jacfwd), "forward", *tolerances)
    return ok


def check_jvp(
    fn: Callable[..., Any],
    inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Check ``fn``'s forward mode against central finite differences in float64.

    Every column of the Jacobian is computed by ``jvp`` (forward mode, no
    backward pass) and compared with ``(f(x + eps e_j) - f(x - eps e_j)) /
    (2 eps)``. Arguments and result as ``gradcheck``; Tensor functions only.

    >>> import minigrad as mg
    >>> check_jvp(lambda x, y: (x * y).exp().sum(0), [mg.randn(2, 2, dtype=mg.float64), 0.5])
    True
    """
    problem = _Problem(fn, inputs, "check_jvp")
    forward = problem.analytical(jacfwd)
    return problem.compare(
        problem.numerical(eps), forward, "forward", eps, atol, rtol, raise_exception
    )


def gradgradcheck(
    fn: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Check second derivatives: ``gradcheck`` of the backward pass ``(x, u) -> u^T J(x)``.

    The backward pass is ``vjp``'s, which records its own graph when something
    differentiates it, so its derivatives come from the vjp rules applied to
    the vjp rules. ``grad_outputs`` (the ``u``, one per output of ``fn``)
    defaults to fixed random tensors. Tensor functions only; ``fn`` may
    return what ``gradcheck`` accepts.

    >>> import minigrad as mg
    >>> gradgradcheck(lambda x: (x * x).sigmoid(), [mg.randn(3, dtype=mg.float64)])
    True
    """
    problem = _Problem(fn, inputs, "gradgradcheck")
    outs = problem.outs
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [rng.standard_normal(o.shape) for o in outs]
    us = [
        factories.tensor(u.detach().numpy() if isinstance(u, Tensor) else u, dtype=dtypes.float64)
        for u in as_inputs(grad_outputs)
    ]
    if len(us) != len(outs):
        raise ValueError(f"gradgradcheck: {len(outs)} output(s) but {len(us)} grad_outputs")

    def backward_pass(*xs_and_us: Any) -> tuple[Tensor, ...]:
        xs, cotangents = xs_and_us[: len(problem.checked)], xs_and_us[len(problem.checked) :]
        _, vjp_fn = vjp(problem.of_checked, *xs)
        return vjp_fn(tuple(cotangents))

    return gradcheck(backward_pass, [*problem.checked, *us], eps, atol, rtol, raise_exception)
