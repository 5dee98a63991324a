"""How a transform takes its arguments and gives back its results (lessons 07-09).

Every transform answers the same few questions before it differentiates
anything, and they are answered here once:

- which arguments? ``argnums`` names positions, an int or a tuple of them
  (``normalize_argnums``), and ``argnums_partial`` turns ``f`` into a
  function of those arguments alone, the others held where the caller put them;
- which outputs? ``f`` returns a pytree of Tensors (``minigrad.tree``: a
  Tensor, or tuples, lists, dicts of them), taken apart by ``outputs_of``,
  possibly with auxiliary data beside them (``split_aux``); ``grad`` needs
  one floating-point scalar (``scalar_output``), and ``vjp_fn`` one
  cotangent per output, of its shape (``cotangents_of``);
- what shape of answer? one result for an int ``argnums``, a tuple for a
  tuple (``like_argnums``), as in JAX and ``torch.func``.

    >>> g, chosen = argnums_partial(lambda x, y, z: x + 10 * y + 100 * z, (1, 2, 3), (0, 2))
    >>> chosen, g(4, 5)
    ((1, 3), 524)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from minigrad import tree
from minigrad.tensor import dtypes, factories
from minigrad.tensor.tensor import Tensor


def normalize_argnums(argnums: int | Sequence[int], nargs: int, where: str) -> tuple[int, ...]:
    """``argnums`` as a tuple of non-negative positions, checked against ``nargs``.

    >>> normalize_argnums(-1, 3, "grad"), normalize_argnums((0, 2), 3, "grad")
    ((2,), (0, 2))
    """
    positions = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not positions:
        raise ValueError(f"{where}: argnums must name at least one argument, got {argnums!r}")
    result = []
    for a in positions:
        if not isinstance(a, int) or not -nargs <= a < nargs:
            raise ValueError(
                f"{where}: argnums {argnums!r} is out of range for a function called with "
                f"{nargs} positional argument(s)"
            )
        result.append(a % nargs)
    return tuple(result)


def argnums_partial(
    f: Callable[..., Any], args: Sequence[Any], argnums: Sequence[int]
) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """``f`` as a function of ``args[i]`` for ``i`` in ``argnums`` only, and those arguments.

    The other arguments stay fixed at their values in ``args``. (JAX's
    internal helper of the same name does the same.)

    >>> g, chosen = argnums_partial(pow, (2, 10), (1,))
    >>> chosen, g(3)
    ((10,), 8)
    """
    fixed = list(args)

    def of_chosen(*chosen: Any) -> Any:
        call = list(fixed)
        for i, x in zip(argnums, chosen):
            call[i] = x
        return f(*call)

    of_chosen.__name__ = getattr(f, "__name__", "f")
    return of_chosen, tuple(fixed[i] for i in argnums)


def like_argnums(argnums: int | Sequence[int], results: Sequence[Any]) -> Any:
    """One result for an int ``argnums``, the tuple of them for a sequence.

    >>> like_argnums(0, ["dx"]), like_argnums((0,), ["dx"])
    ('dx', ('dx',))
    """
    return results[0] if isinstance(argnums, int) else tuple(results)


def as_tensor(x: Any, where: str) -> Tensor:
    """``x`` as a Tensor (Python numbers and NumPy arrays are converted).

    >>> as_tensor(2.0, "jvp")
    tensor(2.)
    """
    if isinstance(x, Tensor):
        return x
    try:
        return factories.tensor(x)
    except TypeError as error:
        raise TypeError(f"{where}: expected a Tensor, got {type(x).__name__}") from error


def split_aux(result: Any, has_aux: bool, where: str) -> tuple[Any, Any]:
    """``(output, aux)`` from what ``f`` returned; ``aux`` is None without ``has_aux``.

    >>> split_aux((1, "aux"), True, "grad"), split_aux(1, False, "grad")
    ((1, 'aux'), (1, None))
    """
    if not has_aux:
        return result, None
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise TypeError(
            f"{where}(f)(*args): output of function f should be a tuple: (output, aux) if "
            f"has_aux is True, got {type(result).__name__}"
        )
    return result[0], result[1]


def outputs_of(result: Any, where: str) -> tuple[tuple[Tensor, ...], tree.TreeDef]:
    """``f``'s result (a pytree of tensors) as a tuple of tensors, and its structure.

    >>> outs, structure = outputs_of({"a": as_tensor(1.0, "vjp")}, "vjp")
    >>> outs, structure
    ((tensor(1.),), TreeDef({'a': *}))
    """
    outs, structure = tree.flatten(result)
    if not all(isinstance(o, Tensor) for o in outs):
        raise TypeError(
            f"{where}: Expected f(*primals) to return only tensors (a Tensor, or tuples, lists "
            f"and dicts of Tensors), got {type(result).__name__}"
        )
    return tuple(outs), structure


def scalar_output(out: Any, where: str) -> Tensor:
    """``out`` if it is a floating-point scalar tensor, as ``grad`` needs; else a clear error."""
    if not isinstance(out, Tensor):
        raise TypeError(
            f"{where}: Gradient only defined for scalar-output functions; f returned "
            f"{type(out).__name__}, not a Tensor"
        )
    if out.shape != ():
        raise TypeError(
            f"Gradient only defined for scalar-output functions. Output had shape: {out.shape}."
        )
    if not dtypes.is_floating(out.dtype):
        raise TypeError(f"{where}: f must return a floating point scalar, got {out.dtype.name}")
    return out


def cotangents_of(cotangent: Any, outs: Sequence[Tensor], structure: tree.TreeDef) -> tuple:
    """``vjp_fn``'s argument as one tensor per output, checked against the outputs."""
    if isinstance(cotangent, list) and structure.kind is tuple:
        cotangent = tuple(cotangent)  # a list for a tuple of outputs: as before
    try:
        us = structure.flatten_up_to(cotangent, "cotangent")
    except ValueError as error:
        kind = getattr(structure.kind, "__name__", "tensor")
        raise ValueError(
            f"vjp_fn: expected a {kind} of {len(outs)} cotangent(s), one per output of f, "
            f"with the structure of f's result {structure} ({error})"
        ) from None
    us = tuple(as_tensor(u, "vjp_fn") for u in us)
    for k, (o, u) in enumerate(zip(outs, us)):
        if u.shape != o.shape:
            raise ValueError(
                f"vjp_fn: Mismatch in shape: cotangent {k} has a shape of {u.shape} and "
                f"output {k} has a shape of {o.shape}"
            )
    return us


def primals_and_tangents(
    primals: Any, tangents: Any, where: str
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Check that ``primals`` and ``tangents`` are tuples of one length, as ``jvp`` takes them.

    >>> primals_and_tangents([1.0], (0.5,), "jvp")
    ((1.0,), (0.5,))
    """
    for name, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, (tuple, list)):
            raise TypeError(
                f"{where}(f, primals, tangents): Expected {name} to be a tuple, got "
                f"{type(value).__name__}. E.g. {where}(f, (x,), (v,))"
            )
    if len(primals) != len(tangents):
        raise ValueError(
            f"{where}(f, primals, tangents): Expected primals and tangents to have the same "
            f"length, got {len(primals)} primals and {len(tangents)} tangents"
        )
    return tuple(primals), tuple(tangents)


def flat_primals_and_tangents(
    primals: Any, tangents: Any, where: str
) -> tuple[list[Tensor], list[Tensor], tree.TreeDef]:
    """``jvp``'s arguments checked and flattened: the primals' leaves as tensors, a tangent
    for each (same shape and dtype), and the primals' structure (``minigrad.tree``).

    >>> import minigrad as mg
    >>> xs, vs, _ = flat_primals_and_tangents(({"w": mg.ones(2)},), ({"w": [1.0, 0.0]},), "jvp")
    >>> xs, vs
    ([tensor([1., 1.])], [tensor([1., 0.])])
    """
    primals, tangents = primals_and_tangents(primals, tangents, where)
    flat, structure = tree.flatten(primals)
    try:
        flat_tangents = structure.flatten_up_to(tangents, "tangents")
    except ValueError as error:
        raise ValueError(
            f"{where}(f, primals, tangents): Expected the tangents to have the structure of "
            f"the primals, {structure} ({error})"
        ) from None
    xs = [as_tensor(x, where) for x in flat]
    vs = [_tangent_for(i, x, t, where) for i, (x, t) in enumerate(zip(xs, flat_tangents))]
    return xs, vs, structure


def _tangent_for(i: int, x: Tensor, t: Any, where: str) -> Tensor:
    if not dtypes.is_floating(x.dtype):
        raise TypeError(
            f"{where}: primal {i} has dtype {x.dtype.name}; forward mode needs floating point "
            "inputs (convert with .to(mg.float32))"
        )
    t = t if isinstance(t, Tensor) else factories.tensor(t, dtype=x.dtype, device=x.device)
    if t.shape != x.shape:
        raise ValueError(
            f"{where}(f, primals, tangents): Expected primals and tangents to have the same "
            f"shape, but primal {i} has shape {x.shape} and its tangent has shape {t.shape}"
        )
    return t if t.dtype == x.dtype else t.to(x.dtype)
