"""``functional_call``: a module as a pure function of its parameters (lesson 14).

``model(x)`` reads the numbers stored in the model. The transforms of
lessons 07-14 want a *function of the numbers*: ``grad`` differentiates
with respect to arguments, ``vmap`` maps over them. ``functional_call(model,
params, x)`` is that function: it puts the given tensors in place of the
model's own (by name, as ``state_dict()`` names them), runs the model, and
puts the originals back, whatever happens. So per-example gradients of a
model are ``vmap(grad(loss))`` with the parameters as an argument:

    >>> import minigrad as mg
    >>> model = mg.nn.Linear(3, 1)
    >>> params = {name: p.detach() for name, p in model.named_parameters()}
    >>> def loss(params, x):
    ...     return mg.func.functional_call(model, params, (x,)).sum()
    >>> grads = mg.vmap(mg.grad(loss), in_axes=(None, 0))(params, mg.ones(5, 3))
    >>> {name: g.shape for name, g in grads.items()}
    {'weight': (5, 1, 3), 'bias': (5, 1)}

The same function as ``torch.func.functional_call``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from minigrad.nn.module import Module
from minigrad.tensor.tensor import Tensor


def _slots(module: Module) -> dict[str, tuple[Any, str, int | None]]:
    """Every tensor attribute below ``module``: dotted name -> (owner, attribute, list index)."""
    found = {}
    for prefix, owner in module.named_modules(remove_duplicate=False):
        for attr, value in vars(owner).items():
            items = enumerate(value) if isinstance(value, (list, tuple)) else [(None, value)]
            for i, item in items:
                if isinstance(item, Tensor):
                    name = attr if i is None else f"{attr}.{i}"
                    found[f"{prefix}.{name}" if prefix else name] = (owner, attr, i)
    return found


def _get(slot: tuple[Any, str, int | None]) -> Any:
    owner, attr, i = slot
    value = vars(owner)[attr]
    return value if i is None else value[i]


def _set(slot: tuple[Any, str, int | None], new: Any) -> None:
    owner, attr, i = slot
    if i is None:
        vars(owner)[attr] = new
    elif isinstance(vars(owner)[attr], list):
        vars(owner)[attr][i] = new
    else:  # a tuple: a new tuple with one entry replaced
        old = vars(owner)[attr]
        vars(owner)[attr] = (*old[:i], new, *old[i + 1 :])


def functional_call(
    module: Module,
    parameter_and_buffer_dicts: Mapping[str, Tensor] | tuple[Mapping[str, Tensor], ...],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` with the named tensors in place of its own.

    Names are ``state_dict()``'s (``"0.weight"``); names not given keep the
    module's own tensors. ``args`` that is not a tuple is the one argument.
    With ``tie_weights=True`` a tensor the module holds under two names is
    replaced under both. With ``strict=True`` every parameter and buffer must
    be given. The module is left exactly as it was, also after an error.

    >>> import minigrad as mg
    >>> layer = mg.nn.Linear(2, 1)
    >>> zero = {"weight": mg.zeros(1, 2), "bias": mg.tensor([7.0])}
    >>> mg.func.functional_call(layer, zero, mg.ones(1, 2))
    tensor([[7.]])
    """
    dicts = (
        parameter_and_buffer_dicts
        if isinstance(parameter_and_buffer_dicts, tuple)
        else (parameter_and_buffer_dicts,)
    )
    given: dict[str, Any] = {}
    for d in dicts:
        if not isinstance(d, Mapping):
            raise ValueError(
                f"Expected all elements of parameter_and_buffer_dicts to be dictionaries, "
                f"got {type(d).__name__}"
            )
        for name, value in d.items():
            if name in given:
                raise ValueError(
                    f"{name} appeared in multiple dictionaries; behavior of functional call "
                    "is ambiguous"
                )
            given[name] = value
    slots = _slots(module)
    unknown = [name for name in given if name not in slots]
    if unknown:
        raise AttributeError(
            f"functional_call: {type(module).__name__} has no parameter or buffer named "
            f"{', '.join(repr(n) for n in unknown)}\n(names as in module.state_dict(): "
            f"{', '.join(list(module.state_dict())[:8])})"
        )
    if strict:
        missing = [name for name in module.state_dict() if name not in given]
        if missing:
            raise RuntimeError(
                f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                f"Missing key(s): {', '.join(repr(n) for n in missing)}."
            )
    # What each replaced tensor becomes; with tied weights, wherever else it is held.
    by_id = {id(_get(slots[name])): value for name, value in given.items()}
    plan = {}
    for name, slot in slots.items():
        if name in given:
            plan[name] = given[name]
        elif tie_weights and id(_get(slot)) in by_id:
            plan[name] = by_id[id(_get(slot))]
    saved = {name: _get(slots[name]) for name in plan}
    args = args if isinstance(args, tuple) else (() if args is None else (args,))
    try:
        for name, value in plan.items():
            _set(slots[name], value)
        return module(*args, **(kwargs or {}))
    finally:
        for name in reversed(list(saved)):
            _set(slots[name], saved[name])
