"""What a tensor *is*: a backend array plus autodiff bookkeeping (lesson 04).

``TensorBase`` holds the state every tensor has and answers questions about it
(shape, dtype, device, values). What you can *do* with a tensor (``x + y``,
``x.sum()``) is the subclass ``minigrad.tensor.tensor.Tensor``, which sits at the
top of this layer because its methods call every operation module. Operations
below it only ever make new tensors of their inputs' class, ``type(x)``; the one
place that needs ``Tensor`` itself, turning plain Python data into a tensor, asks
``TensorBase.concrete``, which ``Tensor`` fills in when it is defined. So imports
in this layer run one way, bottom to top, with no cycle.

The fields:

- ``data``: the raw array, owned by the backend of ``device``;
- ``requires_grad`` and ``_node``: for results of recorded operations, the
  ``OpRecord`` that made it (``minigrad.tensor.record``); leaves have none;
- ``grad``: the accumulated gradient (a Tensor) after ``backward()``;
- ``_tangents``: forward-mode tangents, one per open ``jvp`` level (lesson 07).

    >>> import minigrad as mg
    >>> x = mg.tensor([[1.0, 2.0]])
    >>> x.shape, x.ndim, x.size, x.dtype, x.device
    ((1, 2), 2, 2, dtype('float32'), 'cpu')
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from minigrad import backends
from minigrad.tensor import dtypes

NOT_NUMBERS = (
    "cannot make a tensor from this data (ragged lists or non-numbers?); "
    "give numbers, nested lists of equal length, or a NumPy array"
)


def as_raw(data: Any, dtype: Any, device: str) -> Any:
    """Python data, a NumPy array or a tensor -> a fresh backend array on ``device``."""
    if isinstance(data, TensorBase):
        array = data.numpy()
    elif isinstance(data, (str, bytes)) or data is None:
        raise TypeError(f"cannot make a tensor from {type(data).__name__} {data!r}")
    else:
        try:
            array = data if isinstance(data, np.ndarray) else np.asarray(data)
        except ValueError as error:  # NumPy refuses ragged nested lists
            raise TypeError(NOT_NUMBERS) from error
        if array.dtype == object:
            raise TypeError(NOT_NUMBERS)
    if dtype is not None:
        target = dtypes.as_dtype(dtype)
    elif isinstance(data, (np.ndarray, np.generic, TensorBase)):  # NumPy data keeps its dtype
        target = dtypes.as_dtype(array.dtype) if array.dtype.kind != "u" else dtypes.int64
    else:
        target = dtypes.natural_dtype(array)
    array = np.array(array, dtype=target, copy=True)  # tensors own their memory
    return backends.for_device(device).from_numpy(array)


class TensorBase:
    """The state of a tensor; ``Tensor`` adds the operations."""

    __slots__ = (
        "__weakref__", "_label", "_node", "_retains_grad", "_tangents", "data", "device", "grad",
        "requires_grad",
    )  # fmt: skip
    #: The class operations return when no input tells them (``Tensor``).
    concrete: ClassVar[type]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        TensorBase.concrete = cls

    def __init__(
        self,
        data: Any,
        dtype: Any = None,
        requires_grad: bool = False,
        device: str = "cpu",
        label: str = "",
    ) -> None:
        self.data = as_raw(data, dtype, device)
        self.device = device
        self.grad = None
        self._node = None
        self._tangents = None
        self._retains_grad = False
        self._label = label
        self.requires_grad = False
        if requires_grad:
            self.requires_grad_(True)

    @classmethod
    def _wrap(cls, data: Any, device: str, requires_grad: bool = False) -> Any:
        """A tensor around a backend array, without copying or checking (internal)."""
        t = object.__new__(cls)
        t.data = data
        t.device = device
        t.requires_grad = requires_grad
        t.grad = None
        t._node = None
        t._tangents = None
        t._retains_grad = False
        t._label = ""
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
    def grad_fn(self) -> Any:
        """The ``OpRecord`` of the operation that made this tensor (``None`` for a leaf)."""
        return self._node

    # -- the node protocol of minigrad.graph: what draw and the graph walk read.
    # A non-leaf tensor stands for its record, whose parents are records too
    # (or leaves, or the specs of constants): see minigrad.tensor.record.
    @property
    def _parents(self) -> tuple:
        return self._node.parents if self._node is not None else ()

    @property
    def _op(self) -> str:
        return self._node.prim.name if self._node is not None else ""

    @property
    def segment(self) -> str | None:
        """The checkpointed segment that made this tensor, if any (drawn as a box)."""
        return self._node.segment if self._node is not None else None

    @property
    def label(self) -> str:
        return self._node.label if self._node is not None else self._label

    @label.setter
    def label(self, text: str) -> None:
        if self._node is not None:
            self._node.label = text
        self._label = text

    # -- values -----------------------------------------------------------------
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

    # Tensors overload ==, so they must hash by identity (graph walks need it).
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

    # -- autograd flags ----------------------------------------------------------
    def requires_grad_(self, requires_grad: bool = True) -> Any:
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

    def detach(self) -> Any:
        """The same values, cut off from the graph (and from forward-mode tangents)."""
        return type(self)._wrap(self.data, self.device)

    def zero_grad(self) -> None:
        self.grad = None
