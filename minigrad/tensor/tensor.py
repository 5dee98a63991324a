"""``Tensor``: what you can do with a tensor, one line per operation (lessons 04-06).

``x * y`` is ``elementwise.mul(x, y)``, ``x.sum(0)`` is ``reductions.sum(x, 0)``:
the class only spells the operations; the rows of the primitive registry
define them. This module sits at the top of the tensor layer: it imports the
operation modules, and none of them imports it (they make tensors of their
inputs' class, see ``base.py``).

    >>> import minigrad as mg
    >>> x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> y = (x * x).sum()
    >>> y.backward()
    >>> x.grad
    tensor([[2., 4.],
            [6., 8.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.tensor import (
    autograd,
    dtypes,
)
from minigrad.tensor.base import TensorBase
from minigrad.tensor.everyday_methods import EverydayMethods
from minigrad.tensor.inplace_methods import InPlaceMethods
from minigrad.tensor.more_methods import MoreMethods
from minigrad.tensor.ops import (
    broadcasting,
    contractions,
    indexing,
    inplace,
    legacy_linalg,
    linalg,
    movement,
    rearrange,
    reductions,
    scans,
    sorting,
)
from minigrad.tensor.ops import elementwise as ew
from minigrad.tensor.ops import math as em
from minigrad.tensor.sampling_methods import SamplingMethods


class Tensor(MoreMethods, InPlaceMethods, SamplingMethods, EverydayMethods, TensorBase):
    """An n-dimensional array that remembers how it was computed."""

    __slots__ = ()
    # NumPy defers to our reflected operators: ndarray * Tensor -> Tensor.
    __array_priority__ = 1000

    # -- arithmetic (NumPy broadcasting) -------------------------------------------
    def __add__(self, other: Any) -> Tensor:
        return ew.add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return ew.add(other, self)

    def __sub__(self, other: Any) -> Tensor:
        return ew.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return ew.sub(other, self)

    def __mul__(self, other: Any) -> Tensor:
        return ew.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return ew.mul(self, other)  # a number times a tensor is the tensor times it (PyTorch)

    def __truediv__(self, other: Any) -> Tensor:
        return ew.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        # ``2.0 / x`` is ``reciprocal(x) * 2.0`` in PyTorch, for every dtype: two roundings
        # (and its gradient is those two rows'), not one division.
        if isinstance(other, (int, float)):
            return ew.mul(em.reciprocal(self), other)
        return ew.div(other, self)

    def __pow__(self, other: Any) -> Tensor:
        return ew.power(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return ew.power(other, self)

    def pow(self, exponent: Any) -> Tensor:
        return ew.power(self, exponent)

    def __matmul__(self, other: Any) -> Tensor:
        if isinstance(other, Tensor):
            return linalg.matmul(self, other)
        if isinstance(other, np.ndarray):
            # PyTorch's Tensor declines; NumPy's reflected @ then multiplies the tensor's
            # values (np.asarray: refused if it requires grad) and PyTorch's __array_wrap__
            # makes the product a tensor again: NumPy's dtype, no graph.
            return Tensor.concrete(np.matmul(np.asarray(self), other))
        return NotImplemented  # Python's TypeError, as PyTorch's (numbers, lists, ...)

    def __rmatmul__(self, other: Any) -> Tensor:
        # Called directly (x.__rmatmul__(a) is a @ x, as PyTorch's), or for a left operand
        # that is not a tensor, which PyTorch refuses (Python's TypeError); an ndarray on
        # the left defers to this class (__array_priority__).
        if isinstance(other, Tensor):
            return linalg.matmul(other, self)
        return NotImplemented

    def matmul(self, other: Any) -> Tensor:
        ew.tensor_arguments("matmul", other, method=True)
        return linalg.matmul(self, other)

    def __neg__(self) -> Tensor:
        return ew.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return ew.abs(self)

    # -- comparisons and logic (no derivative) --------------------------------------
    def __lt__(self, other: Any) -> Tensor:
        return ew.compare("lt", self, other)

    def __le__(self, other: Any) -> Tensor:
        return ew.compare("le", self, other)

    def __gt__(self, other: Any) -> Tensor:
        return ew.compare("gt", self, other)

    def __ge__(self, other: Any) -> Tensor:
        return ew.compare("ge", self, other)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return ew.compare("eq", self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return ew.compare("ne", self, other)

    # & | ^ ~ are bitwise on integers and logical on bools, << >> shift integers, as PyTorch's.
    def __and__(self, other: Any) -> Tensor:
        return ew.bitwise_and(self, other)

    def __rand__(self, other: Any) -> Tensor:
        return ew.bitwise_and(other, self)

    def __or__(self, other: Any) -> Tensor:
        return ew.bitwise_or(self, other)

    def __ror__(self, other: Any) -> Tensor:
        return ew.bitwise_or(other, self)

    def __xor__(self, other: Any) -> Tensor:
        return ew.bitwise_xor(self, other)

    def __rxor__(self, other: Any) -> Tensor:
        return ew.bitwise_xor(other, self)

    def __lshift__(self, other: Any) -> Tensor:
        return ew.bitwise_left_shift(self, other)

    def __rlshift__(self, other: Any) -> Tensor:
        return ew.bitwise_left_shift(other, self)

    def __rshift__(self, other: Any) -> Tensor:
        return ew.bitwise_right_shift(self, other)

    def __rrshift__(self, other: Any) -> Tensor:
        return ew.bitwise_right_shift(other, self)

    def __invert__(self) -> Tensor:
        return ew.invert(self)

    __hash__ = TensorBase.__hash__  # defining __eq__ would otherwise drop it

    # -- elementwise functions -----------------------------------------------------
    def exp(self) -> Tensor:
        return ew.exp(self)

    def log(self) -> Tensor:
        return ew.log(self)

    def sqrt(self) -> Tensor:
        return ew.sqrt(self)

    def tanh(self) -> Tensor:
        return ew.tanh(self)

    def sigmoid(self) -> Tensor:
        return ew.sigmoid(self)

    def relu(self) -> Tensor:
        return ew.relu(self)

    def abs(self) -> Tensor:
        return ew.abs(self)

    def sign(self) -> Tensor:
        return ew.sign(self)

    def maximum(self, other: Any) -> Tensor:
        ew.tensor_arguments("maximum", other, method=True)
        return ew.maximum(self, other)

    def minimum(self, other: Any) -> Tensor:
        ew.tensor_arguments("minimum", other, method=True)
        return ew.minimum(self, other)

    def where(self, condition: Any, other: Any) -> Tensor:
        """``self`` where ``condition`` holds, else ``other`` (PyTorch's argument order)."""
        return ew.where(condition, self, other)

    # -- more elementwise functions (ops/math.py): x.sin() is mg.sin(x) ------
    sin, cos, tan, asin, acos, atan = em.sin, em.cos, em.tan, em.asin, em.acos, em.atan
    sinh, cosh, asinh, acosh, atanh = em.sinh, em.cosh, em.asinh, em.acosh, em.atanh
    arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
    exp2, expm1, log2, log10, log1p, erf = em.exp2, em.expm1, em.log2, em.log10, em.log1p, em.erf
    square, reciprocal, rsqrt = em.square, em.reciprocal, em.rsqrt
    floor, ceil, trunc, fix, round = em.floor, em.ceil, em.trunc, em.fix, em.round

    def atan2(self, other: Any) -> Tensor:
        ew.tensor_arguments("atan2", other, method=True)
        return em.atan2(self, other)

    def arctan2(self, other: Any) -> Tensor:
        ew.tensor_arguments("arctan2", other, method=True)
        return em.arctan2(self, other)

    clamp = clip = em.clamp
    remainder = __mod__ = em.remainder

    def __rmod__(self, other: Any) -> Tensor:
        return em.remainder(other, self)

    # -- reductions ------------------------------------------------------------------
    def sum(self, axis: Any = None, keepdims: bool = False, **aliases: Any) -> Tensor:
        return reductions.sum(self, axis, keepdims, **aliases)

    def mean(self, axis: Any = None, keepdims: bool = False, **aliases: Any) -> Tensor:
        return reductions.mean(self, axis, keepdims, **aliases)

    def max(self, axis: Any = None, keepdims: bool = False, **aliases: Any) -> Any:
        return reductions.max(self, axis, keepdims, **aliases)

    def min(self, axis: Any = None, keepdims: bool = False, **aliases: Any) -> Any:
        return reductions.min(self, axis, keepdims, **aliases)

    def var(self, axis: Any = None, unbiased: Any = None, keepdims: bool = False, **options):
        return reductions.var(self, axis, unbiased, keepdims, **options)

    def logsumexp(self, axis: Any = None, keepdims: bool = False, **aliases: Any) -> Tensor:
        return reductions.logsumexp(self, axis, keepdims, **aliases)

    def std(self, axis: Any = None, unbiased: Any = None, keepdims: bool = False, **options):
        return reductions.std(self, axis, unbiased, keepdims, **options)

    def amax(self, axis: Any = None, keepdims: bool = False, **aliases: Any) -> Tensor:
        return reductions.amax(self, axis, keepdims, **aliases)

    def amin(self, axis: Any = None, keepdims: bool = False, **aliases: Any) -> Tensor:
        return reductions.amin(self, axis, keepdims, **aliases)

    def argmax(self, axis: Any = None, keepdims: bool = False, **aliases: Any) -> Tensor:
        return reductions.argmax(self, axis, keepdims, **aliases)

    def argmin(self, axis: Any = None, keepdims: bool = False, **aliases: Any) -> Tensor:
        return reductions.argmin(self, axis, keepdims, **aliases)

    def any(self, axis: Any = None, keepdims: bool = False, **aliases: Any) -> Tensor:
        return reductions.any(self, axis, keepdims, **aliases)

    def all(self, axis: Any = None, keepdims: bool = False, **aliases: Any) -> Tensor:
        return reductions.all(self, axis, keepdims, **aliases)

    # -- products, running totals, contractions, norms (scans.py, contractions.py, norms.py)
    def prod(self, axis: Any = None, keepdims: bool = False, **aliases: Any) -> Tensor:
        return scans.prod(self, axis, keepdims, **aliases)

    def cumsum(self, axis: Any = None, **aliases: Any) -> Tensor:
        return scans.cumsum(self, axis, **aliases)

    def cumprod(self, axis: Any = None, **aliases: Any) -> Tensor:
        return scans.cumprod(self, axis, **aliases)

    def outer(self, other: Any) -> Tensor:
        ew.tensor_arguments("outer", other, method=True, names=("input", "vec2"))
        return contractions.outer(self, other)

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1, **aliases: Any) -> Tensor:
        return contractions.diagonal(self, offset, dim1, dim2, **aliases)

    def trace(self) -> Tensor:
        return contractions.trace(self)

    def tril(self, diagonal: int = 0, **aliases: Any) -> Tensor:
        return contractions.tril(self, diagonal, **aliases)

    def triu(self, diagonal: int = 0, **aliases: Any) -> Tensor:
        return contractions.triu(self, diagonal, **aliases)

    def norm(self, p: Any = "fro", dim: Any = None, keepdim: bool = False,
             dtype: Any = None) -> Tensor:  # fmt: skip
        return legacy_linalg.norm(self, p, dim, keepdim, dtype)

    # -- shape -----------------------------------------------------------------------
    def reshape(self, *shape: Any) -> Tensor:
        return movement.reshape(self, *shape)

    view = reshape

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        return rearrange.flatten(self, start_dim, end_dim)

    def transpose(self, *axes: Any) -> Tensor:
        return movement.transpose(self, *axes)

    def permute(self, *axes: Any) -> Tensor:
        return movement.permute(self, *axes)

    def swapaxes(self, a: int, b: int) -> Tensor:
        return movement.swapaxes(self, a, b)

    @property
    def T(self) -> Tensor:
        return movement.transpose(self)

    @property
    def mT(self) -> Tensor:
        return movement.swapaxes(self, -1, -2)

    def squeeze(self, axis: Any = None, **aliases: Any) -> Tensor:
        return movement.squeeze(self, axis, **aliases)

    def unsqueeze(self, axis: int) -> Tensor:
        return movement.unsqueeze(self, axis)

    def broadcast_to(self, shape: tuple[int, ...]) -> Tensor:
        return broadcasting.broadcast_to(self, shape)

    def expand(self, *sizes: Any) -> Tensor:
        return rearrange.expand(self, *sizes)

    def sum_to(self, shape: tuple[int, ...]) -> Tensor:
        return broadcasting.sum_to(self, shape)

    def __getitem__(self, index: Any) -> Tensor:
        return movement.getitem(self, index)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    # -- rearranging and indexing along an axis (rearrange.py, indexing.py) -----------
    def flip(self, dims: Any = None, *more: Any, **aliases: Any) -> Tensor:
        return rearrange.flip(self, dims, *more, **aliases)

    def roll(self, shifts: Any, dims: Any = None, **aliases: Any) -> Tensor:
        return rearrange.roll(self, shifts, dims, **aliases)

    def repeat(self, *repeats: Any) -> Tensor:
        return rearrange.repeat(self, *repeats)

    def tile(self, dims: Any) -> Tensor:
        return rearrange.tile(self, dims)

    def split(self, split_size: Any, dim: int = 0, **aliases: Any) -> tuple[Tensor, ...]:
        return rearrange.split(self, split_size, dim, **aliases)

    def chunk(self, chunks: int, dim: int = 0, **aliases: Any) -> tuple[Tensor, ...]:
        return rearrange.chunk(self, chunks, dim, **aliases)

    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        return rearrange.narrow(self, dim, start, length)

    def unbind(self, dim: int = 0, **aliases: Any) -> tuple[Tensor, ...]:
        return rearrange.unbind(self, dim, **aliases)

    def movedim(self, source: Any, destination: Any) -> Tensor:
        return rearrange.movedim(self, source, destination)

    moveaxis = movedim

    def clone(self) -> Tensor:
        return rearrange.clone(self)

    def gather(self, dim: int, index: Any, **aliases: Any) -> Tensor:
        return indexing.gather(self, dim, index, **aliases)

    def scatter_add(self, dim: int, index: Any, src: Tensor, **aliases: Any) -> Tensor:
        return indexing.scatter_add(self, dim, index, src, **aliases)

    def index_select(self, dim: int, index: Any, **aliases: Any) -> Tensor:
        return indexing.index_select(self, dim, index, **aliases)

    def take_along_dim(self, indices: Any, dim: int | None = None, **aliases: Any) -> Tensor:
        ew.no_numbers("take_along_dim", indices, method=True, names=("input", "indices"))
        return indexing.take_along_dim(self, indices, dim, **aliases)

    def masked_fill(self, mask: Any, value: Any) -> Tensor:
        return indexing.masked_fill(self, mask, value)

    def sort(self, *args: Any, **options: Any):
        sorting.stable_is_a_keyword("sort", args, options, method=True)
        return sorting.sort(self, *args, **options)

    def argsort(self, *args: Any, **options: Any) -> Tensor:
        sorting.stable_is_a_keyword("argsort", args, options, method=True)
        return sorting.argsort(self, *args, **options)

    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, **aliases):
        return sorting.topk(self, k, dim, largest, sorted, **aliases)

    # -- in-place operations (PyTorch semantics: minigrad.tensor.ops.inplace) ------------
    # Each changes this tensor object and returns it; ``x += y`` rebinds ``x``
    # to what ``__iadd__`` returns, which is ``x`` itself.
    def __iadd__(self, other: Any) -> Tensor:
        return inplace.add_(self, other)

    def __isub__(self, other: Any) -> Tensor:
        return inplace.sub_(self, other)

    def __imul__(self, other: Any) -> Tensor:
        return inplace.mul_(self, other)

    def __itruediv__(self, other: Any) -> Tensor:
        return inplace.div_(self, other)

    def __ipow__(self, other: Any) -> Tensor:
        return inplace.pow_(self, other)

    def __setitem__(self, index: Any, value: Any) -> None:
        inplace.setitem(self, index, value)

    def add_(self, other: Any, *, alpha: Any = 1) -> Tensor:
        return inplace.add_(self, other, alpha=alpha)

    def sub_(self, other: Any, *, alpha: Any = 1) -> Tensor:
        return inplace.sub_(self, other, alpha=alpha)

    subtract_ = sub_

    def mul_(self, other: Any) -> Tensor:
        return inplace.mul_(self, other)

    multiply_ = mul_

    def div_(self, other: Any, *, rounding_mode: str | None = None) -> Tensor:
        return inplace.div_(self, other, rounding_mode=rounding_mode)

    divide_ = div_

    def true_divide_(self, other: Any) -> Tensor:
        return inplace.div_(self, other)

    def pow_(self, exponent: Any) -> Tensor:
        return inplace.pow_(self, exponent)

    def zero_(self) -> Tensor:
        return inplace.zero_(self)

    def fill_(self, value: Any) -> Tensor:
        return inplace.fill_(self, value)

    def copy_(self, src: Any) -> Tensor:
        return inplace.copy_(self, src)

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:
        return inplace.clamp_(self, min, max)

    # -- devices and dtypes ------------------------------------------------------------
    def astype(self, dtype: Any) -> Tensor:
        return movement.astype(self, dtype)

    def to(self, target: Any) -> Tensor:
        """``x.to("cuda")``, ``x.to("cpu")`` or ``x.to(mg.float64)`` (differentiable)."""
        if isinstance(target, str) and target in ("cpu", "cuda"):
            return movement.to_device(self, target)
        return movement.astype(self, dtypes.as_dtype(target))

    def cpu(self) -> Tensor:
        return self.to("cpu")

    def cuda(self) -> Tensor:
        return self.to("cuda")

    def float(self) -> Tensor:
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        return self.to(dtypes.float64)

    def half(self) -> Tensor:
        """The same numbers as float16 (lesson 15), rounded to nearest even (differentiable)."""
        return self.to(dtypes.float16)

    def bfloat16(self) -> Tensor:
        """The same numbers as bfloat16 (lesson 15; needs ml_dtypes), rounded to nearest even."""
        return self.to("bfloat16")

    # -- reverse mode ------------------------------------------------------------------
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
        autograd.backward(self, grad, retain_graph=retain_graph, create_graph=create_graph)

    def register_post_accumulate_grad_hook(self, hook: Any) -> Any:
        """Call ``hook(self)`` each time backward has written this leaf's ``.grad``.

        Returns a handle whose ``remove()`` takes the hook off, as PyTorch's.
        """
        if not self.is_leaf:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        return autograd.add_post_accumulate_grad_hook(self, hook)

    def register_hook(self, hook: Any) -> Any:
        """Call ``hook(grad)`` with this tensor's gradient each time backward computes it.

        A hook that returns a tensor replaces the gradient (same shape, dtype and
        device), for this tensor's ``.grad`` and for everything backward sends on;
        hooks run in the order they were registered, before ``retain_grad``'s
        ``.grad`` is written. Returns a handle whose ``remove()`` takes the hook off.

        >>> import minigrad as mg
        >>> x = mg.tensor([1.0, 2.0], requires_grad=True)
        >>> handle = x.register_hook(lambda grad: grad * 10)
        >>> (x * x).sum().backward(); x.grad
        tensor([20., 40.])
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        return autograd.add_tensor_hook(self, hook)

    @property
    def retains_grad(self) -> bool:
        """Whether backward writes ``.grad`` on this non-leaf (``retain_grad()`` was called)."""
        node = self._node
        retained = None if node is None else getattr(node, "retained", None)
        return retained is not None and retained() is self

    def retain_grad(self) -> Tensor:
        """Keep ``.grad`` on this non-leaf tensor after ``backward()``."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._node is not None:
            self._node.retain(self)
        return self
