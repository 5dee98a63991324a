"""``Tensor``: an n-dimensional array in a computation graph (lessons 04-06).

A Tensor is a raw array (owned by a backend) plus what autodiff needs:

- ``requires_grad`` and, for results of recorded operations, a ``Node``: the
  primitive that made it, its inputs and its parameters. Leaves have no node.
- ``grad``: the accumulated gradient (a Tensor) after ``backward()``.
- ``_tangents``: forward-mode tangents, one per open ``jvp`` level (lesson 07).

``apply`` is the single door every operation goes through: run the kernel,
record a node if anyone needs gradients, push tangents through the primitive's
jvp rules if forward mode is on. The graph follows the node protocol of
``minigrad.graph`` (``_parents``, ``_op``, ``label``), so the same walk and the
same ``draw`` serve scalars and tensors.

Graph memory: a node holds its inputs, never its output, so a graph is a DAG
that reference counting frees. Rules that need the output (``exp``: the
derivative is the output) are handed it by the reverse pass, which walks
from that very tensor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from minigrad import backends
from minigrad.tensor import dtypes
from minigrad.tensor.mode import state
from minigrad.tensor.primitive import Primitive

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved "
    "tensors after they have already been freed). Saved intermediate values of the graph "
    "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
    "you need to backward through the graph a second time or if you need to access saved "
    "tensors after calling backward."
)


class Node:
    """How a non-leaf tensor was made: ``prim(*inputs, **params)``."""

    __slots__ = ("freed", "inputs", "params", "prim", "serial")
    # How many nodes have been recorded: a clock. A node with ``serial >= t`` was
    # recorded after time ``t``, which is how checkpoint (lesson 09) tells the
    # nodes a function just made from the older tensors it closed over.
    created = 0

    def __init__(self, prim: Primitive, inputs: tuple, params: dict) -> None:
        self.prim = prim
        self.inputs = inputs
        self.params = params
        self.freed = False
        self.serial = Node.created
        Node.created += 1

    def free(self) -> None:
        """Drop the saved tensors: what ``retain_graph=False`` does after backward."""
        self.inputs = ()
        self.params = {}
        self.freed = True


def _device_of(inputs: Sequence[Tensor]) -> str:
    device = inputs[0].device if inputs else "cpu"
    for t in inputs:
        if t.device != device:
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two "
                f"devices, {device} and {t.device}! Move one with .to({device!r}) or "
                f".to({t.device!r})."
            )
    return device


def apply(prim: Primitive, inputs: tuple, **params: Any) -> Tensor:
    """Run primitive ``prim`` on tensors ``inputs``: the one door of every operation."""
    device = _device_of(inputs)
    data = prim.forward(backends.for_device(device), *[t.data for t in inputs], **params)
    out = Tensor._wrap(data, params.get("device", device))
    # (A list, not a generator, inside any(): half the cost for two inputs, on every op.)
    if state.grad_enabled and prim.differentiable and any([t.requires_grad for t in inputs]):
        out.requires_grad = True
        out._node = Node(prim, inputs, params)
    if state.levels and any(t._tangents for t in inputs):
        _push_tangents(prim, inputs, params, out)
    return out


def _push_tangents(prim: Primitive, inputs: tuple, params: dict, out: Tensor) -> None:
    """Forward mode: give ``out`` a tangent for every live level its inputs carry."""
    levels = sorted(
        {
            level
            for t in inputs
            if t._tangents
            for level in t._tangents
            if level < state.ceiling and level in state.levels
        }
    )
    for level in levels:
        tangents = [t._tangents.get(level) if t._tangents else None for t in inputs]
        saved = state.ceiling
        state.ceiling = level  # the rule must not see its own level (see mode.py)
        try:
            tangent = prim.jvp(tangents, out, inputs, params)
        finally:
            state.ceiling = saved
        if tangent is not None:
            if out._tangents is None:
                out._tangents = {}
            out._tangents[level] = tangent


class Tensor:
    """An n-dimensional array that remembers how it was computed.

    >>> import minigrad as mg
    >>> x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> y = (x * x).sum()
    >>> y.backward()
    >>> x.grad
    tensor([[2., 4.],
            [6., 8.]])
    """

    __slots__ = (
        "__weakref__",
        "_node",
        "_retains_grad",
        "_tangents",
        "data",
        "device",
        "grad",
        "label",
        "requires_grad",
    )
    # NumPy defers to our reflected operators: ndarray * Tensor -> Tensor.
    __array_priority__ = 1000

    def __init__(
        self,
        data: Any,
        dtype: Any = None,
        requires_grad: bool = False,
        device: str = "cpu",
        label: str = "",
    ) -> None:
        from minigrad.tensor.factories import as_raw

        self.data = as_raw(data, dtype, device)
        self.device = device
        self.grad = None
        self._node = None
        self._tangents = None
        self._retains_grad = False
        self.label = label
        self.requires_grad = False
        if requires_grad:
            self.requires_grad_(True)

    @classmethod
    def _wrap(cls, data: Any, device: str, requires_grad: bool = False) -> Tensor:
        """A tensor around a backend array, without copying or checking (internal)."""
        t = object.__new__(cls)
        t.data = data
        t.device = device
        t.requires_grad = requires_grad
        t.grad = None
        t._node = None
        t._tangents = None
        t._retains_grad = False
        t.label = ""
        return t

    # -- what a tensor is ---------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def ndim(self) -> int:
        return len(self.data.shape)

    @property
    def size(self) -> int:
        return math.prod(self.data.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def is_leaf(self) -> bool:
        return self._node is None

    @property
    def grad_fn(self) -> Node | None:
        return self._node

    # The node protocol of minigrad.graph: what draw and the graph walk read.
    @property
    def _parents(self) -> tuple:
        return self._node.inputs if self._node is not None else ()

    @property
    def _op(self) -> str:
        return self._node.prim.name if self._node is not None else ""

    def numpy(self) -> np.ndarray:
        """The values as a NumPy array (copied to the host for CUDA tensors)."""
        return backends.for_device(self.device).to_numpy(self.data)

    def item(self) -> float | int | bool:
        if self.size != 1:
            raise RuntimeError(f"a Tensor with {self.size} elements cannot be converted to Scalar")
        return self.numpy().reshape(()).item()

    def tolist(self) -> Any:
        return self.numpy().tolist()

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __bool__(self) -> bool:
        if self.size != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous\n"
                f"(shape {self.shape}); use .any() or .all()"
            )
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        body = np.array2string(
            self.numpy(), separator=", ", prefix="tensor(", precision=4, suppress_small=True
        )
        extras = []
        if self.dtype not in (dtypes.float32, dtypes.int64, dtypes.bool_):
            extras.append(f"dtype={self.dtype.name}")
        if self.device != "cpu":
            extras.append(f"device='{self.device}'")
        if self._node is not None:
            extras.append(f"grad_fn=<{self._op}>")
        elif self.requires_grad:
            extras.append("requires_grad=True")
        return f"tensor({body}{''.join(', ' + e for e in extras)})"

    # -- autograd bookkeeping ------------------------------------------------
    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Start (or stop) recording operations on this leaf; returns ``self``."""
        if requires_grad and not dtypes.is_floating(self.dtype):
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients\n"
                f"(this one is {self.dtype.name}; convert with .to(mg.float32))"
            )
        if not requires_grad and self._node is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables; "
                "use .detach() to get a tensor that does not require grad"
            )
        self.requires_grad = requires_grad
        return self

    def detach(self) -> Tensor:
        """The same values, cut off from the graph (and from forward-mode tangents)."""
        return Tensor._wrap(self.data, self.device)

    def retain_grad(self) -> Tensor:
        """Keep ``.grad`` on this non-leaf tensor after ``backward()``."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        self._retains_grad = True
        return self

    def backward(
        self,
        grad: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
    ) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (reverse mode).

        ``retain_graph`` defaults to ``create_graph``, as in PyTorch: a gradient
        that is itself a graph still needs the forward graph it refers to.
        """
        from minigrad.tensor.autograd import backward

        backward(self, grad, retain_graph=retain_graph, create_graph=create_graph)

    def zero_grad(self) -> None:
        self.grad = None

    # -- devices and dtypes ---------------------------------------------------
    def to(self, target: Any) -> Tensor:
        """``x.to("cuda")``, ``x.to("cpu")`` or ``x.to(mg.float64)`` (differentiable)."""
        from minigrad.tensor import shape as shape_ops

        if isinstance(target, str) and target in ("cpu", "cuda"):
            return shape_ops.to_device(self, target)
        return shape_ops.astype(self, dtypes.as_dtype(target))

    def cpu(self) -> Tensor:
        return self.to("cpu")

    def cuda(self) -> Tensor:
        return self.to("cuda")

    def float(self) -> Tensor:
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        return self.to(dtypes.float64)


# The operations themselves live with their primitives; attach them as methods.
from minigrad.tensor import methods as _methods  # noqa: E402

_methods.attach(Tensor)
