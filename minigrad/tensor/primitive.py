"""The primitive registry: every tensor operation is one row, read several ways (lessons 04-08).

A row (a ``Primitive``) says, once:

- ``forward(backend, *arrays, **params)``: the kernel call on raw arrays. This is
  the only place array math happens.
- its derivative, in one of four forms. Forward mode (``jvp``) and reverse mode
  (``vjp``) are two *readings* of that one statement:

  - **elementwise**: ``derivatives[i](v, out, *xs)`` is ``v * d out / d x_i``,
    elementwise. Forward mode sums ``d_i(t_i)``; reverse mode takes
    ``vjp_i = d_i(g)``. A diagonal Jacobian is its own transpose.
  - **linear**: ``linear[i](g, *xs)`` is the transpose (adjoint) of the map in
    ``x_i``. Forward mode applies the primitive itself to the tangents. A row
    with a variable number of inputs (``concatenate``) gives one function
    ``linear(g, *xs)`` that returns every input's cotangent.
  - **multilinear**: ``multilinear[i](g, *xs)`` is the transpose in ``x_i``
    with the other inputs fixed (matmul). Forward mode sums the primitive
    applied to one tangent at a time: the product rule.
  - **custom**: ``jvp(ts, out, xs)`` and ``vjp(g, out, xs, needs)``, read as written.

- ``saves``: what the rules read, so that a recorded operation keeps no more
  memory than that: ``"out"`` and/or input positions. Everything else reaches
  the rules as a ``TensorSpec`` (shape, dtype and device only).
- ``scalar``: for elementwise rows, the name of the scalar function (in
  ``minigrad.backends``) that computes one element; a code generator can
  compose these into one fused kernel.
- ``batch``: how the row acts on a batched axis (vmap); ``None`` until written.

Rules are written in differentiable Tensor operations, never raw arrays, so a
backward pass run with ``create_graph=True`` is itself a graph: gradients of
gradients come from composition. A derivative of ``None`` means "not
differentiable in this input" (an index, a comparison).

    >>> EXP = Primitive("exp", lambda backend, x: backend.map("exp", x),
    ...                 derivatives=(lambda v, out, x: v * out,), saves=("out",),
    ...                 register=False)
    >>> EXP, EXP.form, EXP.saves_output
    (Primitive('exp'), 'elementwise', True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minigrad.tensor.mode import current

Rule = Callable[..., Any]

#: Every built-in primitive by name, in the order they were defined: the table
#: that tests, the API reference and ``draw`` enumerate.
REGISTRY: dict[str, Primitive] = {}


class Primitive:
    """One row of the registry (see the module docstring for the four forms)."""

    __slots__ = (
        "batch", "derivatives", "differentiable", "form", "forward", "jvp_rule", "name",
        "saved_inputs", "saves", "saves_output", "scalar", "transpose", "transposes", "vjp_rule",
    )  # fmt: skip
    #: One result (a tensor). Control flow's rows (lesson 16) give several (a list).
    multiple_results = False

    def __init__(
        self,
        name: str,
        forward: Callable[..., Any],
        *,
        derivatives: Sequence[Rule | None] | None = None,
        linear: Rule | Sequence[Rule | None] | None = None,
        multilinear: Sequence[Rule | None] | None = None,
        jvp: Rule | None = None,
        vjp: Rule | None = None,
        saves: Sequence[int | str] | str = (),
        scalar: str | None = None,
        batch: Rule | None = None,
        register: bool = True,
    ) -> None:
        forms = {
            "elementwise": derivatives is not None,
            "linear": linear is not None,
            "multilinear": multilinear is not None,
            "custom": vjp is not None,
        }
        chosen = [form for form, given in forms.items() if given]
        if len(chosen) > 1:
            raise TypeError(f"primitive {name!r}: give one form of derivative, not {chosen}")
        self.name = name
        self.forward = forward
        self.form = chosen[0] if chosen else "none"
        self.derivatives = tuple(derivatives) if derivatives is not None else ()
        # The transposes: one per input, or (variadic rows) one function for all.
        self.transpose = linear if callable(linear) else None
        transposes = multilinear if multilinear is not None else linear
        self.transposes = (
            tuple(transposes) if transposes is not None and not callable(transposes) else ()
        )
        self.jvp_rule = jvp
        self.vjp_rule = vjp
        self.saves = ("inputs",) if saves == "inputs" else tuple(saves)
        self.saves_output = "out" in self.saves
        # None: every input ("inputs"); else the positions named.
        self.saved_inputs = (
            None if "inputs" in self.saves else tuple(s for s in self.saves if s != "out")
        )
        self.scalar = scalar
        self.batch = batch
        # Asked on every recorded operation, so worked out once here.
        self.differentiable = self.form in ("linear", "custom") or any(
            rule is not None for rule in self.derivatives + self.transposes
        )
        if register:
            if name in REGISTRY:
                raise ValueError(f"a primitive called {name!r} is already registered")
            REGISTRY[name] = self

    # -- reverse mode ---------------------------------------------------------
    def vjp(self, g: Any, out: Any, inputs: Sequence[Any], params: dict, needs: Sequence[bool]):
        """Cotangents for ``inputs`` (``None`` where not needed or not differentiable)."""
        form = self.form
        if form == "elementwise":
            return [
                rule(g, out, *inputs, **params) if need and rule is not None else None
                for rule, need in zip(self.derivatives, needs)
            ]
        if self.transpose is not None:
            return self.transpose(g, *inputs, **params)
        if form in ("linear", "multilinear"):
            return [
                rule(g, *inputs, **params) if need and rule is not None else None
                for rule, need in zip(self.transposes, needs)
            ]
        return self.vjp_rule(g, out, inputs, needs, **params)

    # -- forward mode ---------------------------------------------------------
    def jvp(self, tangents: Sequence[Any], out: Any, inputs: Sequence[Any], params: dict,
            apply: Callable[..., Any], zeros_like: Callable[[Any], Any]) -> Any:  # fmt: skip
        """The output's tangent, given one tangent (or ``None``) per input.

        ``apply`` runs a primitive on tensors and ``zeros_like`` makes a zero
        tangent: the caller (the tensor layer) passes them in, so that this
        table knows nothing of Tensor.
        """
        form = self.form
        if form == "elementwise":
            total = None
            for rule, t in zip(self.derivatives, tangents):
                if t is not None and rule is not None:
                    term = rule(t, out, *inputs, **params)
                    total = term if total is None else total + term
            return total
        if form == "linear":
            filled = [t if t is not None else zeros_like(x) for t, x in zip(tangents, inputs)]
            return apply(self, tuple(filled), **params)
        if form == "multilinear":
            total = None
            for i, t in enumerate(tangents):
                if t is not None and self.transposes[i] is not None:
                    args = (*inputs[:i], t, *inputs[i + 1 :])
                    term = apply(self, args, **params)
                    total = term if total is None else total + term
            return total
        if self.jvp_rule is None:
            raise NotImplementedError(f"primitive {self.name!r} has no forward-mode rule")
        return self.jvp_rule(tangents, out, inputs, **params)

    def __repr__(self) -> str:
        return f"Primitive({self.name!r})"


def registry_table() -> str:
    """The registry as a Markdown table: one row per primitive (for the API reference).

    >>> print(registry_table().splitlines()[0])
    | primitive | derivative | saves for backward | scalar body |
    """
    lines = [
        "| primitive | derivative | saves for backward | scalar body |",
        "|---|---|---|---|",
    ]
    for name, prim in REGISTRY.items():
        form = prim.form if prim.differentiable else "none (not differentiable)"
        saves = ", ".join("output" if s == "out" else f"input {s}" for s in prim.saves)
        lines.append(f"| `{name}` | {form} | {saves or 'shapes only'} | {prim.scalar or ''} |")
    return "\n".join(lines)


class TensorSpec:
    """What a rule may know of a value it did not save: shape, dtype, device.

    >>> import numpy as np
    >>> TensorSpec((2, 3), np.dtype("float32"), "cpu")
    TensorSpec(shape=(2, 3), dtype=float32, device='cpu')
    """

    __slots__ = ("device", "dtype", "label", "shape")
    requires_grad = False
    is_leaf = True
    _parents: tuple = ()
    _op = ""

    def __init__(self, shape: tuple[int, ...], dtype: Any, device: str) -> None:
        self.shape = shape
        self.dtype = dtype
        self.device = device
        self.label = ""

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype}, device={self.device!r})"


# -- helpers of the rows' batch readings (read in lesson 14) -----------------------------
# A row's ``batch`` rule sees physical tensors, the batch on axis 0; these line
# the operands up for it. They are plain shape arithmetic on tensors.
def shifted(axes: Sequence[int]) -> tuple[int, ...]:
    """Logical axes as physical ones: one further right, past the batch axis.

    >>> shifted((0, 2))
    (1, 3)
    """
    return tuple(a + 1 for a in axes)


def moved_to_front(x: Any, batched: bool, size: int) -> Any:
    """``x`` with a batch axis in front: batched ones as they are, others broadcast (a view)."""
    return x if batched else x.broadcast_to((size, *x.shape))


def _needs_derivative(x: Any) -> bool:
    return (x.requires_grad and current().grad_enabled) or bool(x._tangents)


def aligned(xs: Sequence[Any], batched: Sequence[bool]) -> list[Any]:
    """Elementwise operands, lined up: batch axes in front, then broadcast where it matters.

    A batched operand of lower (logical) rank gets size-1 axes after the
    batch axis, so NumPy's right-aligned broadcasting pairs axes correctly.
    An operand whose derivative is wanted is broadcast to the full batched
    shape (as ``operands`` does outside vmap), because the row's derivative
    rules assume equal shapes; the others are left to the kernel.

    >>> import minigrad as mg
    >>> [t.shape for t in aligned([mg.zeros((4, 3)), mg.zeros((2, 3))], [True, False])]
    [(4, 1, 3), (2, 3)]
    >>> [t.shape for t in aligned([mg.zeros((4, 3)), mg.zeros((4, 2, 3))], [True, True])]
    [(4, 1, 3), (4, 2, 3)]
    """
    rank = max(x.ndim - b for x, b in zip(xs, batched))
    parts = [ranked(x, rank) if b else x for x, b in zip(xs, batched)]
    shape = np.broadcast_shapes(*[x.shape for x in parts])
    return [x.broadcast_to(shape) if x.shape != shape and _needs_derivative(x) else x
            for x in parts]  # fmt: skip


def ranked(x: Any, rank: int) -> Any:
    """Batched ``x`` with size-1 axes after the batch axis, up to ``rank`` logical axes.

    >>> import minigrad as mg
    >>> ranked(mg.zeros((4, 3)), 3).shape
    (4, 1, 1, 3)
    """
    missing = rank - (x.ndim - 1)
    return x.reshape((x.shape[0], *(1,) * missing, *x.shape[1:])) if missing > 0 else x
