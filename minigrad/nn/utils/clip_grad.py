"""Gradient clipping: ``clip_grad_norm_`` and ``clip_grad_value_`` (lesson 06).

``clip_grad_norm_`` is two steps, each its own function as in PyTorch:
``get_total_norm`` (the joint norm of some tensors) and
``clip_grads_with_norm_`` (scale the gradients given that norm).

A single batch with an outlier can give a gradient many times larger than
usual, and one step along it undoes many good steps. Clipping bounds the
step. ``clip_grad_norm_`` treats all the gradients as one long vector and,
if its norm is above ``max_norm``, scales them all down by the same factor,
so the direction is kept. ``clip_grad_value_`` clamps every element into
``[-clip_value, clip_value]``, which can change the direction.

Both change ``p.grad`` in place, between ``backward()`` and ``step()``:

    >>> import minigrad as mg
    >>> w = mg.tensor([3.0, 4.0], requires_grad=True)
    >>> (w * w).sum().backward()          # grad [6, 8], norm 10
    >>> mg.nn.utils.clip_grad_norm_([w], max_norm=5.0)
    tensor(10.)
    >>> w.grad
    tensor([3., 4.])
"""

from __future__ import annotations

import math
import types
import warnings
from collections.abc import Iterable

from minigrad.tensor import factories
from minigrad.tensor.mode import no_grad
from minigrad.tensor.ops.math import clamp
from minigrad.tensor.ops.movement import stack
from minigrad.tensor.ops.norms import vector_norm
from minigrad.tensor.tensor import Tensor


def _grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p.grad for p in params if p.grad is not None]


def get_total_norm(
    tensors: Tensor | Iterable[Tensor],
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The ``norm_type``-norm of ``tensors`` taken together, as if joined into one vector.

    Pass the gradients (``[p.grad for p in params]``) to get the norm that
    ``clip_grad_norm_`` clips by. No tensors give ``tensor(0.)``; a nan or inf
    norm raises with ``error_if_nonfinite=True``. (``foreach``: PyTorch's signature.)

    >>> import minigrad as mg
    >>> mg.nn.utils.get_total_norm([mg.tensor([3.0]), mg.tensor([4.0])])
    tensor(5.)
    """
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return factories.tensor(0.0)
    with no_grad():
        norms = [vector_norm(t, norm_type).to(tensors[0].device) for t in tensors]
        total = vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    total_norm: Tensor,
    foreach: bool | None = None,
) -> None:
    """Scale the gradients by ``max_norm / (total_norm + 1e-6)``, capped at 1, in place.

    ``total_norm`` is usually ``get_total_norm`` of the gradients, perhaps
    gathered from elsewhere first; this is ``clip_grad_norm_``'s second half.

    >>> import minigrad as mg
    >>> w = mg.zeros(2, requires_grad=True)
    >>> w.grad = mg.tensor([6.0, 8.0])
    >>> mg.nn.utils.clip_grads_with_norm_([w], 5.0, mg.tensor(10.0))
    >>> w.grad
    tensor([3., 4.])
    """
    grads = _grads(parameters)
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        scale = clamp(max_norm / (total_norm + 1e-6), max=1.0)
        for g in grads:
            g.mul_(scale.to(g.device).to(g.dtype))


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the gradients so that their joint ``norm_type``-norm is at most ``max_norm``.

    The norm is taken over all gradients together, as if concatenated into
    one vector; the scale is ``max_norm / (norm + 1e-6)``, capped at 1 (small
    gradients are left alone). Returns the norm *before* clipping, a 0-d
    tensor. A nan or inf norm raises with ``error_if_nonfinite=True``.
    (``foreach`` is accepted for PyTorch's signature; there is one way here.)

    >>> import minigrad as mg
    >>> a, b = mg.zeros(1, requires_grad=True), mg.zeros(1, requires_grad=True)
    >>> a.grad, b.grad = mg.tensor([1.0]), mg.tensor([-2.0])
    >>> mg.nn.utils.clip_grad_norm_([a, b], 1.0, norm_type="inf")
    tensor(2.)
    >>> a.grad, b.grad
    (tensor([0.5]), tensor([-1.]))
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        was_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if was_generator and not parameters:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.",
                stacklevel=2,
            )
    grads = _grads(parameters)
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every gradient element into ``[-clip_value, clip_value]``, in place.

    >>> import minigrad as mg
    >>> w = mg.zeros(3, requires_grad=True)
    >>> w.grad = mg.tensor([-5.0, 0.5, 5.0])
    >>> mg.nn.utils.clip_grad_value_(w, 1.0)
    >>> w.grad
    tensor([-1. ,  0.5,  1. ])
    """
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)
