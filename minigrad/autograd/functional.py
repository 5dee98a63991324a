"""``mg.autograd.functional``: PyTorch's derivatives of a function at a point (lessons 07-08).

``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp`` and ``vhp`` take a
function and its inputs (a Tensor, or a tuple of Tensors) and return numbers,
not functions (``mg.func`` has the transforms that return functions). The
results follow the structure of what went in: a tuple where ``inputs`` (or
the outputs) was a tuple, a Tensor where it was one Tensor. With
``create_graph=False`` they are detached; with ``create_graph=True`` they stay
in the graph of ``inputs``, so they can be differentiated again.

Reverse products run ``mg.autograd.grad`` (lesson 05) on the function's
graph, ``jvp`` runs forward mode (lesson 07), and a Hessian is the Jacobian of
a Jacobian (lesson 08).

    >>> import minigrad as mg
    >>> from minigrad.autograd.functional import hessian, jacobian
    >>> jacobian(lambda x: x**2, mg.tensor([1.0, 3.0]))
    tensor([[2., 0.],
            [0., 6.]])
    >>> hessian(lambda x, y: (x * y).sum(), (mg.tensor([1.0]), mg.tensor([2.0])))[0][1]
    tensor([[1.]])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad.tensor import autograd, factories
from minigrad.tensor.mode import enable_grad
from minigrad.tensor.ops.movement import stack
from minigrad.tensor.tensor import Tensor
from minigrad.transforms.forward import jvp as forward_jvp

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _as_tuple(value: Any, what: str, where: str) -> tuple[bool, tuple]:
    """(was it a tuple, the tuple); refuses anything but Tensors (PyTorch's messages)."""
    if isinstance(value, tuple):
        for i, v in enumerate(value):
            if not isinstance(v, Tensor):
                raise TypeError(
                    f"The {what} given to {where} must be either a Tensor or a tuple of Tensors "
                    f"but the value at index {i} has type {type(v)}."
                )
        return True, value
    if not isinstance(value, Tensor):
        raise TypeError(
            f"The {what} given to {where} must be either a Tensor or a tuple of Tensors but "
            f"the given {what} has type {type(value)}."
        )
    return False, (value,)


def _outputs(out: Any, where: str) -> tuple[bool, tuple]:
    return _as_tuple(out, "outputs of the user-provided function", where)


def _structure(values: tuple, *was_tuple: bool) -> Any:
    """Undo ``_as_tuple``: one level per flag (outputs, then inputs)."""
    if len(was_tuple) == 1:
        return values if was_tuple[0] else values[0]
    outer, inner = was_tuple
    values = tuple(v if inner else v[0] for v in values)
    return values if outer else values[0]


def _prepare(inputs: tuple, create_graph: bool) -> tuple:
    """Fresh leaves to differentiate with respect to; with ``create_graph``, inputs that
    require grad stay connected to their graph (a view of each)."""
    if create_graph:
        return tuple(
            x.view_as(x) if x.requires_grad else x.detach().requires_grad_() for x in inputs
        )
    return tuple(x.detach().requires_grad_() for x in inputs)


def _finish(values: tuple, create_graph: bool) -> tuple:
    return values if create_graph else tuple(v.detach() for v in values)


def _check_v(v: Any, others: tuple, where: str, what: str) -> tuple:
    """``v`` as a tuple matching ``others`` (the outputs, or the inputs)."""
    if v is None:
        if len(others) != 1 or others[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the "
                + (
                    "user-provided function returns"
                    if what == "outputs"
                    else "input to the user-provided function is"
                )
                + " a single Tensor with a single element."
            )
        return (factories.ones_like(others[0]),)
    _, vs = _as_tuple(v, "v", where)
    if len(vs) != len(others):
        raise RuntimeError(
            f"v is a tuple of invalid length: should be {len(others)} but got {len(vs)}."
        )
    for a, b in zip(vs, others):
        if a.shape != b.shape:
            raise RuntimeError(
                f"v has invalid size: should be torch.Size({list(b.shape)}) but got "
                f"torch.Size({list(a.shape)})."
            )
    return vs


def _require_outputs(outs: tuple, strict: bool) -> None:
    """In strict mode, every output must come from the inputs through the graph."""
    for i, o in enumerate(outs):
        if strict and not o.requires_grad:
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."
            )


def _independent(j: int) -> RuntimeError:
    return RuntimeError(
        f"The output of the user-provided function is independent of input {j}. This is not "
        "allowed in strict mode."
    )


def _grads(
    outputs: tuple, inputs: tuple, grad_outputs: tuple, create_graph: bool, strict: bool
) -> tuple:
    """``grad_outputs``-weighted gradients of ``outputs`` for each input; zeros (or, in
    strict mode, an error) where an input does not reach them."""
    _require_outputs(outputs, strict)
    live = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    found: tuple = (None,) * len(inputs)
    if live:
        found = autograd.grad(
            [o for o, _ in live],
            inputs,
            [g for _, g in live],
            retain_graph=True,
            create_graph=create_graph,
            allow_unused=True,
        )
    answer = []
    for j, (g, x) in enumerate(zip(found, inputs)):
        if g is None:
            if strict:
                raise _independent(j)
            g = factories.zeros_like(x)
        answer.append(g)
    return tuple(answer)


def vjp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), v^T J)``: the vector-Jacobian product, shaped like ``inputs``.

    >>> import minigrad as mg
    >>> vjp(lambda x: x * 3, mg.ones(2), mg.tensor([1.0, 2.0]))
    (tensor([3., 3.]), tensor([3., 6.]))
    """
    with enable_grad():
        in_tuple, xs = _as_tuple(inputs, "inputs", "vjp")
        xs = _prepare(xs, create_graph)
        out_tuple, outs = _outputs(func(*xs), "vjp")
        vs = _check_v(v, outs, "vjp", "outputs")
        products = _grads(outs, xs, vs, create_graph, strict)
    return _structure(_finish(outs, create_graph), out_tuple), _structure(
        _finish(products, create_graph), in_tuple
    )


def jvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), J v)``: the Jacobian-vector product (forward mode), shaped like the
    outputs.

    >>> import minigrad as mg
    >>> jvp(lambda x: x.exp(), mg.zeros(2), mg.tensor([1.0, 2.0]))
    (tensor([1., 1.]), tensor([1., 2.]))
    """
    if strict:
        raise NotImplementedError(
            "jvp(strict=True): minigrad's forward mode cannot tell an output independent of an "
            "input from one whose derivative is zero; use strict=False"
        )
    with enable_grad():
        _, xs = _as_tuple(inputs, "inputs", "jvp")
        vs = _check_v(v, xs, "jvp", "inputs")
        xs = _prepare(xs, create_graph)
        seen: dict[str, bool] = {}

        def of_inputs(*args: Tensor) -> tuple:
            out_tuple, outs = _outputs(func(*args), "jvp")
            seen["tuple"] = out_tuple
            return outs

        outs, tangents = forward_jvp(of_inputs, xs, tuple(vs))
    out_tuple = seen["tuple"]
    return _structure(_finish(outs, create_graph), out_tuple), _structure(
        _finish(tangents, create_graph), out_tuple
    )


def jacobian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of ``func`` at ``inputs``: for output ``i`` and input ``j``, a tensor of
    shape ``outputs[i].shape + inputs[j].shape``.

    One Tensor in and out gives one Tensor; a tuple of inputs (or outputs) gives a
    tuple over them; both give a tuple of tuples ``[i][j]``. ``vectorize`` changes
    nothing here but the way PyTorch computes it; ``strategy="forward-mode"`` (which
    PyTorch allows with ``vectorize=True`` only) computes it by columns.
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                "only implemented for `vectorize=True`."
            )
        if strict:
            raise RuntimeError(
                'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
                "are not supported together (yet). Please either set `strict=False` or "
                '`strategy="reverse-mode"`.'
            )
    with enable_grad():
        in_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
        xs = _prepare(xs, create_graph)
        out_tuple, outs = _outputs(func(*xs), "jacobian")
        if strategy == "forward-mode":
            blocks = _columns(func, xs, outs, create_graph)
        else:
            blocks = _rows(outs, xs, create_graph, strict)
    blocks = tuple(_finish(b, create_graph) for b in blocks)
    found = _structure(blocks, out_tuple, in_tuple)
    if strategy == "forward-mode" and in_tuple:  # PyTorch's vectorized path gives lists there
        found = [list(b) for b in found] if out_tuple else list(found)
    return found


def _rows(outs: tuple, xs: tuple, create_graph: bool, strict: bool) -> tuple:
    """The Jacobian blocks by reverse mode: one gradient per output element."""
    _require_outputs(outs, strict)
    blocks = []
    for i, out in enumerate(outs):
        flat = out.reshape(-1)
        rows: list[list[Tensor]] = [[] for _ in xs]
        for k in range(flat.shape[0]):
            found: tuple = (None,) * len(xs)
            if out.requires_grad:
                found = autograd.grad(
                    flat[k], xs, retain_graph=True, create_graph=create_graph, allow_unused=True
                )
            for j, (g, x) in enumerate(zip(found, xs)):
                if g is None:
                    if strict:
                        raise RuntimeError(
                            f"Output {i} of the user-provided function is independent of input "
                            f"{j}. This is not allowed in strict mode."
                        )
                    g = factories.zeros_like(x)
                rows[j].append(g)
        blocks.append(
            tuple(
                (stack(r) if r else factories.zeros(0, *x.shape, dtype=x.dtype)).reshape(
                    *out.shape, *x.shape
                )
                for r, x in zip(rows, xs)
            )
        )
    return tuple(blocks)


def _columns(func: Callable[..., Any], xs: tuple, outs: tuple, create_graph: bool) -> tuple:
    """The Jacobian blocks by forward mode: one jvp per input element."""
    columns: list[list[list[Tensor]]] = [[[] for _ in xs] for _ in outs]
    for j, x in enumerate(xs):
        for k in range(x.numel()):
            direction = factories.zeros(x.numel(), dtype=x.dtype)
            direction[k] = 1
            vs = tuple(
                direction.reshape(x.shape) if m == j else factories.zeros_like(y)
                for m, y in enumerate(xs)
            )
            _, tangents = forward_jvp(lambda *a: _outputs(func(*a), "jacobian")[1], xs, vs)
            for i, t in enumerate(tangents):
                columns[i][j].append(t)
    return tuple(
        tuple(
            (stack(c, -1) if c else factories.zeros(*o.shape, 0, dtype=o.dtype)).reshape(
                *o.shape, *x.shape
            )
            for c, x in zip(columns[i], xs)
        )
        for i, o in enumerate(outs)
    )


def _single(func: Callable[..., Any], where: str) -> Callable[..., Tensor]:
    """``func``, checked to return one Tensor with one element, as a 0-d tensor."""

    def checked(*args: Tensor) -> Tensor:
        out = func(*args)
        out_tuple, _ = _outputs(out, where)
        if out_tuple or not isinstance(out, Tensor):
            raise RuntimeError(f"The function given to {where} should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(
                f"The Tensor returned by the function given to {where} should contain a "
                "single element"
            )
        return out.reshape(())

    return checked


def hessian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a function with one output element: the Jacobian of its gradient.

    For inputs ``i`` and ``j``, a tensor of shape ``inputs[i].shape + inputs[j].shape``
    (a tuple of tuples when ``inputs`` is a tuple).
    """
    in_tuple, xs = _as_tuple(inputs, "inputs", "hessian")
    single = _single(func, "hessian")

    def gradient(*args: Tensor) -> tuple:
        return jacobian(single, args, create_graph=True, strict=strict)

    found = jacobian(
        gradient,
        xs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _structure(found, in_tuple, in_tuple)


def _second(
    func: Callable[..., Any], inputs: Any, v: Any, create_graph: bool, strict: bool, where: str
) -> tuple[Any, Any]:
    with enable_grad():
        in_tuple, xs = _as_tuple(inputs, "inputs", where)
        xs = _prepare(xs, create_graph)
        vs = _check_v(v, xs, where, "inputs")
        out = _single(func, where)(*xs)
        first = _grads((out,), xs, (factories.ones_like(out),), True, strict)
        if where == "vhp":  # v^T H: the gradients' backward pass, weighted by v
            second = _grads(first, xs, vs, create_graph, strict)
        else:  # H v: the gradient of <gradient, v>
            inner = sum(
                ((g * w).sum() for g, w in zip(first, vs)), factories.zeros((), dtype=out.dtype)
            )
            second = _grads((inner,), xs, (factories.ones_like(inner),), create_graph, strict)
    return _finish((out,), create_graph)[0], _structure(_finish(second, create_graph), in_tuple)


def vhp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), v^T H)`` for a function with one output element.

    >>> import minigrad as mg
    >>> vhp(lambda x: (x**3).sum(), mg.tensor([1.0, 2.0]), mg.ones(2))
    (tensor(9.), tensor([ 6., 12.]))
    """
    return _second(func, inputs, v, create_graph, strict, "vhp")


def hvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), H v)`` for a function with one output element.

    >>> import minigrad as mg
    >>> hvp(lambda x: x[0] * x[1] ** 2, mg.tensor([1.0, 2.0]), mg.tensor([1.0, 0.0]))
    (tensor(4.), tensor([0., 4.]))
    """
    return _second(func, inputs, v, create_graph, strict, "hvp")
