"""``mg.func``: the function transforms under ``torch.func``'s names (lessons 07-14).

``grad``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian`` and ``vmap``
are the transforms of ``minigrad.transforms``; ``functional_call`` turns a
module into a function of its parameters so that they apply to models
(``minigrad/nn/utils/stateless.py``). ``grad_and_value`` is ``grad`` that
also returns the value; ``linearize`` fixes the point of a ``jvp``;
``stack_module_state`` stacks the parameters of several copies of one
model, to run them all at once under ``vmap``.

    >>> import minigrad as mg
    >>> layer = mg.nn.Linear(2, 1)
    >>> def total(bias, x):
    ...     return mg.func.functional_call(layer, {"bias": bias}, x).sum()
    >>> mg.func.grad(total)(layer.bias.detach(), mg.ones(4, 2))
    tensor([4.])
"""

from collections.abc import Callable, Sequence
from typing import Any

from minigrad import tree
from minigrad.nn.module import Module
from minigrad.nn.utils.stateless import functional_call
from minigrad.tensor.ops.movement import stack
from minigrad.tensor.tensor import Tensor
from minigrad.transforms import grad, hessian, jacfwd, jacrev, jvp, value_and_grad, vjp, vmap

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "stack_module_state",
    "vjp",
    "vmap",
]


def grad_and_value(
    func: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """``grad(func)`` that also returns ``func``'s value: ``(gradient, value)``, as ``torch.func``.

    With ``has_aux=True``, ``func`` returns ``(output, aux)`` and the result is
    ``(gradient, (output, aux))``; ``argnums`` as in ``grad``.

    >>> import minigrad as mg
    >>> mg.func.grad_and_value(lambda x: (x * x).sum())(mg.tensor([1.0, 2.0]))
    (tensor([2., 4.]), tensor(5.))
    """
    where = "grad_and_value(f)(*args)"

    def checked(*args: Any) -> Any:  # torch.func's checks of what ``func`` returns
        result = func(*args)
        if has_aux and not (isinstance(result, tuple) and len(result) == 2):
            raise RuntimeError(
                f"{where}: output of function f should be a tuple: (output, aux) if has_aux is True"
            )
        out = result[0] if has_aux else result
        if not isinstance(out, Tensor):
            raise RuntimeError(f"{where}: Expected f(*args) to return a Tensor, got {type(out)}")
        if out.ndim != 0:
            raise RuntimeError(
                f"{where}: Expected f(*args) to return a scalar Tensor, got tensor with "
                f"{out.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
            )
        return result

    value_and_grad_f = value_and_grad(checked, argnums, has_aux)

    def grad_and_value_f(*args: Any, **kwargs: Any) -> Any:
        if kwargs:  # torch.func passes keyword arguments through, undifferentiated
            return grad_and_value(lambda *a: func(*a, **kwargs), argnums, has_aux)(*args)
        for argnum in (argnums,) if isinstance(argnums, int) else tuple(argnums):
            if isinstance(argnum, int) and not -len(args) <= argnum < len(args):
                raise RuntimeError(f"Got argnum={argnum}, but only {len(args)} positional inputs")
        value, gradient = value_and_grad_f(*args)
        return gradient, value

    grad_and_value_f.__name__ = f"grad_and_value({getattr(func, '__name__', 'f')})"
    return grad_and_value_f


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the tangent of the output, ``J v``.

    The point is fixed once; each ``jvp_fn`` call pushes other tangents
    through (``jvp(func, primals, tangents)[1]``). The tangents must match
    the primals in structure, shape and dtype (``torch.func.linearize``'s checks).

    >>> import minigrad as mg
    >>> out, jvp_fn = mg.func.linearize(lambda x: x * x, mg.tensor([1.0, 3.0]))
    >>> jvp_fn(mg.tensor([1.0, 0.5]))
    tensor([2., 3.])
    """
    output = func(*primals)
    primal_leaves, primal_structure = tree.flatten(primals)

    def jvp_fn(*tangents: Any) -> Any:
        leaves, structure = tree.flatten(tangents)
        if structure != primal_structure:
            raise RuntimeError(
                f"Expected the tangents {structure} to have the same argspec as the primals "
                f"{primal_structure}"
            )
        for i, (tangent, primal) in enumerate(zip(leaves, primal_leaves, strict=True)):
            for what in ("shape", "dtype"):
                if getattr(tangent, what) != getattr(primal, what):
                    raise RuntimeError(
                        f"tangent:{i} with {what} {getattr(tangent, what)} in flattened pytree "
                        f"doesn't match the {what} {getattr(primal, what)} of the corresponding "
                        "primal."
                    )
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


def _stacked_leaf(tensors: list[Tensor], name: str) -> Tensor:
    wanted = {t.requires_grad for t in tensors}
    if len(wanted) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack([t.detach() for t in tensors])
    return result.requires_grad_() if wanted == {True} else result


def stack_module_state(models: Sequence[Module]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """``(params, buffers)``: each name's tensors of ``models`` stacked along a new first axis.

    The models must be of one class and in one mode (training or eval). The
    stacked parameters are new leaves (optimizable, unconnected to the
    models'); run the ensemble with ``vmap`` over ``functional_call``.

    >>> import minigrad as mg
    >>> models = [mg.nn.Linear(3, 2) for _ in range(4)]
    >>> params, buffers = mg.func.stack_module_state(models)
    >>> params["weight"].shape, params["weight"].requires_grad, buffers
    ((4, 2, 3), True, {})
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({bool(m.training) for m in models}) > 1:
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    every_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in every_params], k) for k in every_params[0]}
    every_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf([b[k] for b in every_buffers], k) for k in every_buffers[0]}
    return params, buffers
