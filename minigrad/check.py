"""Finite-difference gradient checking: trust, but verify (lesson 01, used in every lesson after).

A derivative rule is easy to get wrong and the mistake is silent: training
still runs, only worse. The cure is an independent oracle. For every input
element ``x_j`` the central difference

    (f(x + eps·e_j) - f(x - eps·e_j)) / (2·eps)

approximates column ``j`` of the Jacobian with an error of order ``eps²``,
using nothing but evaluations of ``f``. ``gradcheck`` computes it in float64
and compares it with what the engine's backward pass says (the *analytical*
Jacobian), element by element, with ``|analytical - numerical| <= atol +
rtol·|numerical|`` as in ``torch.autograd.gradcheck``.

The comparison and the report are shared by every kind of input. What
differs per kind (``Value`` now, ``Tensor`` later) lives in an *input kind*,
a class that says whether it ``accepts`` the inputs and how to make fresh
``copies`` of them, flat float64 ``views`` to nudge one element at a time,
the flat ``outputs`` of ``fn``, the ``analytical`` Jacobian blocks by
backward, and ``where`` an element is, for the error message. A new kind
joins by being listed in ``_KINDS``.

Tensor functions (lessons 04-08) are checked the same way, plus two checks
the scalar engine has no use for: ``check_jvp`` compares forward mode (each
Jacobian column by ``jvp``) with the same central differences, and
``gradgradcheck`` runs ``gradcheck`` on the backward pass itself, the
function ``(x, u) -> u^T J(x)``, to check second derivatives.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any

import numpy as np

from minigrad.graph import topological_order
from minigrad.scalar import Value
from minigrad.tensor import autograd, dtypes, factories
from minigrad.tensor.mode import no_grad
from minigrad.tensor.tensor import Tensor
from minigrad.transforms.forward import outputs_of, push_forward
from minigrad.transforms.reverse import vjp

# A Jacobian block for one input: rows are output elements, columns input elements.
Jacobian = list[list[float]]


class GradcheckError(RuntimeError):
    """Analytical and numerical derivatives disagree (raised by ``gradcheck``)."""


class _DataView:
    """A Value's number as a one-element, writable, flat sequence of float64."""

    def __init__(self, value: Value) -> None:
        self.value = value

    def __len__(self) -> int:
        return 1

    def __getitem__(self, j: int) -> float:
        return self.value.data

    def __setitem__(self, j: int, number: float) -> None:
        self.value.data = number


class _ValueInputs:
    """The input kind for scalar ``Value`` functions: each input is a Value or a number."""

    @staticmethod
    def accepts(inputs: Sequence[Any]) -> bool:
        return all(isinstance(x, (Value, Real)) for x in inputs)

    @staticmethod
    def copies(inputs: Sequence[Any]) -> list[Value]:
        """Fresh leaves with the same numbers, so the caller's grads stay untouched."""
        return [Value(x.data, label=x.label) if isinstance(x, Value) else Value(x) for x in inputs]

    @staticmethod
    def views(leaves: list[Value]) -> list[_DataView]:
        return [_DataView(leaf) for leaf in leaves]

    @staticmethod
    def outputs(fn: Callable[..., Value], leaves: list[Value]) -> tuple[Value, list[float]]:
        out = fn(*leaves)
        if not isinstance(out, Value):
            raise TypeError(
                f"gradcheck: fn must return a Value when its inputs are Values, "
                f"got {type(out).__name__}"
            )
        return out, [out.data]

    @staticmethod
    def analytical(out: Value, leaves: list[Value]) -> list[Jacobian]:
        # backward() accumulates into every node it reaches, including Values
        # that fn closes over; put their grads back afterwards.
        nodes = topological_order(out)
        saved = [node.grad for node in nodes]
        out.backward()
        jacobians = [[[leaf.grad]] for leaf in leaves]
        for node, grad in zip(nodes, saved):
            node.grad = grad
        return jacobians

    @staticmethod
    def where(leaves: list[Value], i: int, j: int) -> str:
        label = leaves[i].label
        return f"input {i} ({label!r})" if label else f"input {i}"

    @staticmethod
    def output_at(out: Value, k: int) -> tuple[int, str]:
        return 0, ""


def _flat(x: Tensor, g: Tensor | None) -> list[float]:
    """A derivative with respect to ``x`` as a flat list (zeros where there is none)."""
    return [0.0] * x.size if g is None else [float(v) for v in g.numpy().reshape(-1)]


def _checked(x: Any) -> bool:
    """Is ``x`` a tensor input whose derivatives get checked (a float64 leaf copy)?"""
    return isinstance(x, Tensor) and x.requires_grad


class _TensorInputs:
    """The input kind for Tensor functions: floating tensors are checked, the rest held fixed."""

    @staticmethod
    def accepts(inputs: Sequence[Any]) -> bool:
        tensors = any(isinstance(x, Tensor) for x in inputs)
        return tensors and all(isinstance(x, (Tensor, Real)) for x in inputs)

    @staticmethod
    def copies(inputs: Sequence[Any]) -> list[Any]:
        leaves = []
        for i, x in enumerate(inputs):
            if isinstance(x, Tensor) and dtypes.is_floating(x.dtype):
                if x.dtype != dtypes.float64:
                    warnings.warn(
                        f"gradcheck: input {i} is {x.dtype.name}, too coarse for finite "
                        "differences; checking a float64 copy (pass float64 inputs)",
                        stacklevel=3,
                    )
                x = factories.tensor(x.numpy(), dtype=dtypes.float64, requires_grad=True)
            leaves.append(x)
        return leaves

    @staticmethod
    def views(leaves: list[Any]) -> list[Any]:
        # The copies own contiguous NumPy arrays: a flat reshape is a writable view.
        return [leaf.data.reshape(-1) if _checked(leaf) else () for leaf in leaves]

    @staticmethod
    def outputs(fn: Callable[..., Any], leaves: list[Any]) -> tuple[tuple[Tensor, ...], list]:
        outs, _ = outputs_of(fn(*leaves), "gradcheck")
        return outs, [float(v) for o in outs for v in o.numpy().reshape(-1)]

    @staticmethod
    def analytical(outs: tuple[Tensor, ...], leaves: list[Any]) -> list[Jacobian]:
        """One backward pass per output element: the rows of every Jacobian block."""
        checked = [leaf for leaf in leaves if _checked(leaf)]
        rows = []  # rows[r][c]: the gradient of output element r with respect to checked input c
        for o in outs:
            for k in range(o.size):
                grads = (None,) * len(checked)
                if o.requires_grad:
                    u = np.zeros(o.size)
                    u[k] = 1.0
                    u = factories.tensor(u.reshape(o.shape), dtype=o.dtype)
                    grads = autograd.grad(o, checked, u, retain_graph=True, allow_unused=True)
                rows.append([_flat(x, g) for x, g in zip(checked, grads)])
        blocks = iter([[row[c] for row in rows] for c in range(len(checked))])
        return [next(blocks) if _checked(leaf) else [] for leaf in leaves]

    @staticmethod
    def where(leaves: list[Any], i: int, j: int) -> str:
        x = leaves[i]
        label = f" ({x.label!r})" if x.label else ""
        index = tuple(int(n) for n in np.unravel_index(j, x.shape)) if x.shape else ()
        return f"input {i}{label} (shape {x.shape}) at {index}"

    @staticmethod
    def output_at(outs: tuple[Tensor, ...], k: int) -> tuple[int, str]:
        for n, o in enumerate(outs):
            if k < o.size:
                index = tuple(int(i) for i in np.unravel_index(k, o.shape)) if o.shape else ()
                return n, f"output {n} at {index}, "
            k -= o.size
        raise IndexError(k)


_KINDS = (_ValueInputs, _TensorInputs)


def _kind_of(inputs: Sequence[Any]) -> type:
    for kind in _KINDS:
        if kind.accepts(inputs):
            return kind
    names = sorted({type(x).__name__ for x in inputs})
    raise TypeError(
        f"gradcheck: cannot check inputs of type {', '.join(names)}; pass Values or Tensors"
    )


def _numerical(fn: Callable, kind: type, leaves: list, eps: float) -> list[Jacobian]:
    """Central differences, one input element at a time: column j of each Jacobian block."""
    jacobians = []
    for view in kind.views(leaves):
        columns = []
        for j in range(len(view)):
            x = view[j]
            view[j] = x + eps
            _, plus = kind.outputs(fn, leaves)
            view[j] = x - eps
            _, minus = kind.outputs(fn, leaves)
            view[j] = x
            columns.append([(p - m) / (2.0 * eps) for p, m in zip(plus, minus)])
        jacobians.append([list(row) for row in zip(*columns)])
    return jacobians


def _worst_mismatch(
    numerical: list[Jacobian], analytical: list[Jacobian], atol: float, rtol: float
) -> tuple[float, int, int, int] | None:
    """(excess, input, output row, element) of the element furthest past tolerance, or None."""
    worst = None
    for i, (num_block, ana_block) in enumerate(zip(numerical, analytical)):
        for k, (num_row, ana_row) in enumerate(zip(num_block, ana_block)):
            for j, (n, a) in enumerate(zip(num_row, ana_row)):
                error = abs(a - n)
                allowed = atol + rtol * abs(n)
                if not error <= allowed:  # written so that nan fails
                    excess = error - allowed if error == error else float("inf")
                    if worst is None or excess > worst[0]:
                        worst = (excess, i, k, j)
    return worst


def _forward_jacobians(fn: Callable, leaves: list[Any]) -> list[Jacobian]:
    """Forward mode: one ``jvp`` per input element, the columns of every Jacobian block."""
    blocks = []
    for i, leaf in enumerate(leaves):
        columns = []
        for j in range(leaf.size if _checked(leaf) else 0):
            e = np.zeros(leaf.size)
            e[j] = 1.0
            direction = factories.tensor(e.reshape(leaf.shape), dtype=leaf.dtype)
            seeds = [direction if k == i else None for k in range(len(leaves))]
            with no_grad():  # tangents need no graph
                outs, tangents, _, _ = push_forward(fn, leaves, seeds, where="check_jvp")
            columns.append([v for o, t in zip(outs, tangents) for v in _flat(o, t)])
        blocks.append([list(row) for row in zip(*columns)])
    return blocks


def _compare(
    kind: type, leaves: list, out: Any, numerical: list[Jacobian], analytical: list[Jacobian],
    mode: str, eps: float, atol: float, rtol: float, raise_exception: bool,
) -> bool:  # fmt: skip
    """True if the Jacobians agree; else raise (or return False) naming the worst element."""
    worst = _worst_mismatch(numerical, analytical, atol, rtol)
    if worst is None:
        return True
    if not raise_exception:
        return False
    _, i, k, j = worst
    n, a = numerical[i][k][j], analytical[i][k][j]
    o, element = kind.output_at(out, k)
    computed, rule = {
        "reverse": ("Jacobian", "backward rule"),
        "forward": ("Jacobian computed with forward mode", "jvp rule"),
    }[mode]
    # The first line is PyTorch's, so that its documentation and forums apply.
    raise GradcheckError(
        f"{computed} mismatch for output {o} with respect to input {i},\n"
        f"{element}{kind.where(leaves, i, j)}: numerical {n!r} vs analytical {a!r} "
        f"(difference {abs(a - n):.3g} > atol + rtol·|numerical| = {atol + rtol * abs(n):.3g}, "
        f"eps={eps:g}).\n"
        f"The {rule} of some operation that fn uses disagrees with its forward."
    )


def _prepare(fn_name: str, inputs: Any, tensors_only: bool = False) -> tuple[type, list]:
    inputs = (inputs,) if isinstance(inputs, (Value, Real, Tensor)) else tuple(inputs)
    kind = _kind_of(inputs)
    if tensors_only and kind is not _TensorInputs:
        raise TypeError(f"{fn_name} checks Tensor functions; pass Tensors as inputs")
    return kind, kind.copies(inputs)


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

    ``inputs`` is a sequence of Values or numbers (one Value is fine too), or
    of Tensors (and numbers); ``fn(*inputs)`` must return a Value, or a
    Tensor or tuple of Tensors. Floating-point tensor inputs are checked
    (on float64 copies); the caller's inputs are not modified. Returns True
    when every derivative agrees; otherwise raises ``GradcheckError`` naming
    the input, the element, the numerical and the analytical value, or
    returns False when ``raise_exception=False``. ``check_forward_ad=True``
    checks forward mode (``jvp``) too, as ``check_jvp`` does.

    >>> gradcheck(lambda a, b: a * b + b.tanh(), [2.0, -0.5])
    True
    >>> gradcheck(lambda a: a.relu() * 3, [Value(1.5, label="x")])
    True
    >>> import minigrad as mg
    >>> x = mg.randn(2, 3, dtype=mg.float64)
    >>> gradcheck(lambda x: (x @ x.T).tanh(), [x], check_forward_ad=True)
    True
    """
    kind, leaves = _prepare("gradcheck", inputs)
    out, _ = kind.outputs(fn, leaves)
    analytical = kind.analytical(out, leaves)
    numerical = _numerical(fn, kind, leaves, eps)
    ok = _compare(kind, leaves, out, numerical, analytical, "reverse", eps, atol, rtol,
                  raise_exception)  # fmt: skip
    if ok and check_forward_ad:
        if kind is not _TensorInputs:
            raise TypeError("gradcheck: check_forward_ad=True checks Tensor functions only")
        forward = _forward_jacobians(fn, leaves)
        ok = _compare(kind, leaves, out, numerical, forward, "forward", eps, atol, rtol,
                      raise_exception)  # fmt: skip
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
    kind, leaves = _prepare("check_jvp", inputs, tensors_only=True)
    out, _ = kind.outputs(fn, leaves)
    forward = _forward_jacobians(fn, leaves)
    numerical = _numerical(fn, kind, leaves, eps)
    return _compare(kind, leaves, out, numerical, forward, "forward", eps, atol, rtol,
                    raise_exception)  # fmt: skip


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

    The backward pass runs with ``create_graph=True``, so its own derivatives
    come from the vjp rules applied to the vjp rules. ``grad_outputs`` (the
    ``u``, one per output of ``fn``) defaults to fixed random tensors.
    Tensor functions only; otherwise as ``gradcheck``.

    >>> import minigrad as mg
    >>> gradgradcheck(lambda x: (x * x).sigmoid(), [mg.randn(3, dtype=mg.float64)])
    True
    """
    kind, leaves = _prepare("gradgradcheck", inputs, tensors_only=True)
    outs, _ = kind.outputs(fn, leaves)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [rng.standard_normal(o.shape) for o in outs]
    elif isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs]
    us = [factories.tensor(u.numpy() if isinstance(u, Tensor) else u, dtype=dtypes.float64)
          for u in grad_outputs]  # fmt: skip
    if len(us) != len(outs):
        raise ValueError(f"gradgradcheck: {len(outs)} output(s) but {len(us)} grad_outputs")
    positions = [p for p, leaf in enumerate(leaves) if _checked(leaf)]

    def backward_pass(*args: Any) -> tuple[Tensor, ...]:
        xs, cotangents = list(args[: len(leaves)]), args[len(leaves) :]

        def of_checked(*chosen: Any) -> Any:
            for p, x in zip(positions, chosen):
                xs[p] = x
            return fn(*xs)

        _, vjp_fn = vjp(of_checked, *[xs[p] for p in positions])
        return vjp_fn(cotangents[0] if len(cotangents) == 1 else tuple(cotangents))

    return gradcheck(backward_pass, [*leaves, *us], eps, atol, rtol, raise_exception)
