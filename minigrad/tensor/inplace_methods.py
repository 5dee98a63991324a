"""PyTorch's in-place methods ``x.exp_()``, ``x.lt_(y)``, ``x.scatter_(...)`` (lesson 06).

Each is the method without the underscore, computed out of place and then
written into ``x`` by ``ops.inplace.assign`` (see that module): ``x`` keeps
its identity, its memory (views see the change), its shape and its dtype. So
the result is cast into ``x``'s dtype (``x.lt_(y)`` on floats writes 0.0 and
1.0), except across kinds: ``int_tensor.sqrt_()`` is PyTorch's error
"result type Float can't be cast to the desired output type Long", since an
integer tensor cannot hold the square roots. An operand that would broadcast
``x`` to a bigger shape is an error too. Recorded (differentiable) on a
non-leaf; a leaf that requires grad is changed only inside ``no_grad``.

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 4.0, 9.0])
    >>> x.sqrt_() is x, x
    (True, tensor([1., 2., 3.]))
    >>> x.lt_(2.5), x.dtype
    (tensor([1., 1., 0.]), dtype('float32'))
"""

from __future__ import annotations

from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase, set_version, version_of
from minigrad.tensor.mode import current
from minigrad.tensor.ops import elementwise as ew
from minigrad.tensor.ops import placing
from minigrad.tensor.ops.elementwise import tensor_arguments
from minigrad.tensor.ops.inplace import CPP_NAMES, LEAF_MESSAGE, TORCH_NAMES, assign


def _tensors_in(value: Any) -> list[Any]:
    """The tensors among the (nested) arguments: what decides whether the change is recorded."""
    if isinstance(value, TensorBase):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors_in(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors_in(v)]
    return []


def changed(x: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """``x`` changed in place to ``x.name(*args, **kwargs)``; returns ``x``.

    >>> import minigrad as mg
    >>> x = mg.tensor([0.5, 2.0])
    >>> changed(x, "clamp_max", 1.0) is x, x
    (True, tensor([0.5, 1. ]))
    """
    operands = tuple(_tensors_in((args, kwargs)))
    return assign(x, lambda old: _in_graph(getattr(old, name)(*args, **kwargs), old), operands,
                  f"{name}_")  # fmt: skip


def _in_graph(new: Any, old: Any) -> Any:
    """``new``, kept in the graph of ``old`` when it left it (``x.lt_(y)``, ``x.sign_()``:
    a comparison does not require grad), as PyTorch's in-place result does: with a zero
    gradient for ``old``, so ``x`` stays a tensor that requires grad."""
    if old.requires_grad and not new.requires_grad:
        return ew.where(True, new, old)
    return new


def _reviewed(x: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """``x.t_()``, ``x.unsqueeze_(0)``, ...: ``x`` itself becomes the view ``x.name(...)`` of
    its memory (a new shape and strides; no element changes), recorded as that view and
    counted as a change (the version goes up), as PyTorch's in-place view methods."""
    if current().grad_enabled and x._node is None and x.requires_grad:
        raise RuntimeError(LEAF_MESSAGE)
    try:
        new = getattr(x, name)(*args, **kwargs)
    except Exception as error:  # the error names the in-place method: "t_() expects ..."
        text = str(error)
        if text.startswith(f"{name}()"):
            raise type(error)(f"{name}_(){text[len(name) + 2 :]}") from None
        raise
    version = version_of(x.data) + 1
    x.data, x._node, x._tangents = new.data, new._node, new._tangents
    x.requires_grad = new.requires_grad
    set_version(x.data, version)
    return x


def _clamped(x: Any, name: str, bound: Any) -> Any:
    """``x.clamp_min_(bound)``/``x.clamp_max_(bound)``; a number bound that cannot be cast
    into x's dtype is PyTorch's error, which names x's dtype as C++ does ("long int")."""
    names = TORCH_NAMES if isinstance(bound, TensorBase) else CPP_NAMES
    return assign(x, lambda old: getattr(old, name)(bound), (bound,), f"{name}_", names=names)


def _scan(x: Any, name: str, dim: Any, dtype: Any) -> Any:
    """``x.cumsum_(dim)``/``x.cumprod_(dim)``: PyTorch has no bool kernel, and the sums stay in
    x's dtype (another ``dtype`` is its error)."""
    if x.dtype.name == "bool":
        raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
    if dtype is not None and dtypes.as_dtype(dtype) != x.dtype:
        raise RuntimeError(
            f"Bad in-place call: input tensor dtype {CPP_NAMES[x.dtype.name]} and output tensor "
            f"dtype {CPP_NAMES[dtypes.as_dtype(dtype).name]} should match\n"
            f"{name}_: write x = x.{name}({dim}, dtype=...) for the sums in another dtype"
        )
    return changed(x, name, dim)


def _product_shape(x: Any, shape: tuple | None) -> None:
    """PyTorch's error when ``x.addmm_(...)``/``x.baddbmm_(...)`` would give a product of
    ``shape`` (None: the factors do not multiply; their own error comes first) that is not
    x's shape: an in-place product cannot broadcast ``x``."""
    if shape is not None and tuple(x.shape) != shape:
        raise RuntimeError(
            f"Bad in-place call: input tensor size {list(x.shape)} and output tensor size "
            f"{list(shape)} should match\n(write x = x.addmm(...) to get the broadcast result)"
        )


def _matrices(a: Any, b: Any, ndim: int) -> tuple | None:
    """The shape of the (batched) matrix product of ``a`` and ``b``, or None if they have not
    ``ndim`` axes or do not fit."""
    if not (isinstance(a, TensorBase) and isinstance(b, TensorBase)):
        return None
    if a.ndim != ndim or b.ndim != ndim or a.shape[-1] != b.shape[-2]:
        return None
    if ndim == 3 and a.shape[0] != b.shape[0]:
        return None
    return (*a.shape[:-1], b.shape[-1])


class InPlaceMethods:
    """The in-place methods of ``Tensor`` named ``op_`` for an out-of-place ``op``."""

    __slots__ = ()

    # -- one operand -------------------------------------------------------------------
    def abs_(self) -> Any:
        return changed(self, "abs")

    def absolute_(self) -> Any:
        return changed(self, "abs")

    def neg_(self) -> Any:
        return changed(self, "neg")

    def negative_(self) -> Any:
        return changed(self, "neg")

    def sign_(self) -> Any:
        return changed(self, "sign")

    def reciprocal_(self) -> Any:
        return changed(self, "reciprocal")

    def square_(self) -> Any:
        return changed(self, "square")

    def sqrt_(self) -> Any:
        return changed(self, "sqrt")

    def rsqrt_(self) -> Any:
        return changed(self, "rsqrt")

    def exp_(self) -> Any:
        return changed(self, "exp")

    def exp2_(self) -> Any:
        return changed(self, "exp2")

    def expm1_(self) -> Any:
        return changed(self, "expm1")

    def log_(self) -> Any:
        return changed(self, "log")

    def log2_(self) -> Any:
        return changed(self, "log2")

    def log10_(self) -> Any:
        return changed(self, "log10")

    def log1p_(self) -> Any:
        return changed(self, "log1p")

    def sin_(self) -> Any:
        return changed(self, "sin")

    def cos_(self) -> Any:
        return changed(self, "cos")

    def tan_(self) -> Any:
        return changed(self, "tan")

    def asin_(self) -> Any:
        return changed(self, "asin")

    def acos_(self) -> Any:
        return changed(self, "acos")

    def atan_(self) -> Any:
        return changed(self, "atan")

    def sinh_(self) -> Any:
        return changed(self, "sinh")

    def cosh_(self) -> Any:
        return changed(self, "cosh")

    def tanh_(self) -> Any:
        return changed(self, "tanh")

    def asinh_(self) -> Any:
        return changed(self, "asinh")

    def acosh_(self) -> Any:
        return changed(self, "acosh")

    def atanh_(self) -> Any:
        return changed(self, "atanh")

    def sigmoid_(self) -> Any:
        return changed(self, "sigmoid")

    def relu_(self) -> Any:
        return changed(self, "relu")

    def erf_(self) -> Any:
        return changed(self, "erf")

    def erfc_(self) -> Any:
        return changed(self, "erfc")

    def erfinv_(self) -> Any:
        return changed(self, "erfinv")

    def lgamma_(self) -> Any:
        return changed(self, "lgamma")

    def digamma_(self) -> Any:
        return changed(self, "digamma")

    def polygamma_(self, n: Any) -> Any:
        return changed(self, "polygamma", n)

    def logit_(self, eps: Any = None) -> Any:
        return changed(self, "logit", eps)

    def xlogy_(self, other: Any) -> Any:
        return changed(self, "xlogy", other)

    def sgn_(self) -> Any:
        return changed(self, "sgn")

    def heaviside_(self, values: Any) -> Any:
        tensor_arguments("heaviside_", values, method=True, names=("input", "values"))
        return changed(self, "heaviside", values)

    def float_power_(self, exponent: Any) -> Any:
        if self.dtype.name != "float64":
            raise RuntimeError(
                f"the base given to float_power_ has dtype {TORCH_NAMES[self.dtype.name]} but the "
                "operation's result requires dtype Double\nfloat_power_: write "
                "x = x.float_power(exponent), or make x float64 first"
            )
        return changed(self, "float_power", exponent)

    def ldexp_(self, other: Any) -> Any:
        tensor_arguments("ldexp_", other, method=True)
        if not dtypes.is_floating(self.dtype):
            raise RuntimeError(
                f"ldexp can't be cast to the desired output type {TORCH_NAMES[self.dtype.name]}\n"
                "ldexp_: x * 2 ** other is a float; write x = x.ldexp(other)"
            )
        return changed(self, "ldexp", other)

    def i0_(self) -> Any:
        return changed(self, "i0")

    def igamma_(self, other: Any) -> Any:
        tensor_arguments("igamma_", other, method=True)
        return changed(self, "igamma", other)

    def igammac_(self, other: Any) -> Any:
        tensor_arguments("igammac_", other, method=True)
        return changed(self, "igammac", other)

    def mvlgamma_(self, p: Any) -> Any:
        if self.dtype.kind in "iu":  # (bool: mvlgamma's own refusal first)
            raise RuntimeError(
                f"mvlgamma: result type {TORCH_NAMES[self.dtype.name]} can't be cast to the "
                "desired output type Float\nmvlgamma_: its result is a float; write "
                "x = x.mvlgamma(p)"
            )
        return changed(self, "mvlgamma", p)

    def sinc_(self) -> Any:
        return changed(self, "sinc")

    def deg2rad_(self) -> Any:
        return changed(self, "deg2rad")

    def rad2deg_(self) -> Any:
        return changed(self, "rad2deg")

    def floor_(self) -> Any:
        return changed(self, "floor")

    def ceil_(self) -> Any:
        return changed(self, "ceil")

    def trunc_(self) -> Any:
        return changed(self, "trunc")

    def frac_(self) -> Any:
        return changed(self, "frac")

    def round_(self, decimals: int | None = None) -> Any:
        if decimals is None:
            return changed(self, "round")
        return changed(self, "round", decimals=decimals)

    def nan_to_num_(self, nan: float = 0.0, posinf: float | None = None,
                    neginf: float | None = None) -> Any:  # fmt: skip
        return changed(self, "nan_to_num", nan, posinf, neginf)

    def bitwise_not_(self) -> Any:
        return changed(self, "bitwise_not")

    def logical_not_(self) -> Any:
        return changed(self, "logical_not")

    # PyTorch's other names of the same in-place methods.
    arcsin_, arccos_, arctan_, arcsinh_, arccosh_, arctanh_ = (
        asin_, acos_, atan_, asinh_, acosh_, atanh_
    )  # fmt: skip
    fix_ = trunc_

    def clip_(self, min: Any = None, max: Any = None) -> Any:
        return self.clamp_(min, max)

    # -- two operands ------------------------------------------------------------------
    def atan2_(self, other: Any) -> Any:
        tensor_arguments("atan2_", other, method=True)
        return changed(self, "atan2", other)

    def arctan2_(self, other: Any) -> Any:
        tensor_arguments("arctan2_", other, method=True)
        return changed(self, "atan2", other)

    def hypot_(self, other: Any) -> Any:
        tensor_arguments("hypot_", other, method=True)
        return changed(self, "hypot", other)

    def copysign_(self, other: Any) -> Any:
        return changed(self, "copysign", other)

    def fmod_(self, other: Any) -> Any:
        return changed(self, "fmod", other)

    def remainder_(self, other: Any) -> Any:
        return changed(self, "remainder", other)

    def floor_divide_(self, other: Any) -> Any:
        return changed(self, "floor_divide", other)

    def clamp_min_(self, min: Any) -> Any:
        return _clamped(self, "clamp_min", min)

    def clamp_max_(self, max: Any) -> Any:
        return _clamped(self, "clamp_max", max)

    def eq_(self, other: Any) -> Any:
        return changed(self, "eq", other)

    def ne_(self, other: Any) -> Any:
        return changed(self, "ne", other)

    def lt_(self, other: Any) -> Any:
        return changed(self, "lt", other)

    def le_(self, other: Any) -> Any:
        return changed(self, "le", other)

    def gt_(self, other: Any) -> Any:
        return changed(self, "gt", other)

    def ge_(self, other: Any) -> Any:
        return changed(self, "ge", other)

    greater_, greater_equal_, less_, less_equal_, not_equal_ = gt_, ge_, lt_, le_, ne_

    def logical_and_(self, other: Any) -> Any:
        tensor_arguments("logical_and_", other, method=True)
        return changed(self, "logical_and", other)

    def logical_or_(self, other: Any) -> Any:
        tensor_arguments("logical_or_", other, method=True)
        return changed(self, "logical_or", other)

    def logical_xor_(self, other: Any) -> Any:
        tensor_arguments("logical_xor_", other, method=True)
        return changed(self, "logical_xor", other)

    def bitwise_and_(self, other: Any) -> Any:
        return changed(self, "bitwise_and", other)

    def bitwise_or_(self, other: Any) -> Any:
        return changed(self, "bitwise_or", other)

    def bitwise_xor_(self, other: Any) -> Any:
        return changed(self, "bitwise_xor", other)

    def bitwise_left_shift_(self, other: Any) -> Any:
        return changed(self, "bitwise_left_shift", other)

    def bitwise_right_shift_(self, other: Any) -> Any:
        return changed(self, "bitwise_right_shift", other)

    # -- three operands ----------------------------------------------------------------
    def lerp_(self, end: Any, weight: Any) -> Any:
        return changed(self, "lerp", end, weight)

    def addcmul_(self, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:
        return changed(self, "addcmul", tensor1, tensor2, value=value)

    def addcdiv_(self, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:
        return changed(self, "addcdiv", tensor1, tensor2, value=value)

    def index_fill_(self, dim: int, index: Any, value: Any) -> Any:
        return changed(self, "index_fill", dim, index, value)

    def addmm_(self, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        _product_shape(self, _matrices(mat1, mat2, 2))
        return changed(self, "addmm", mat1, mat2, beta=beta, alpha=alpha)

    def baddbmm_(self, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        _product_shape(self, _matrices(batch1, batch2, 3))
        return changed(self, "baddbmm", batch1, batch2, beta=beta, alpha=alpha)

    # -- a new shape for the same memory ---------------------------------------------------
    def t_(self) -> Any:
        return _reviewed(self, "t")

    def transpose_(self, dim0: int, dim1: int) -> Any:
        return _reviewed(self, "transpose", dim0, dim1)

    def swapaxes_(self, axis0: int, axis1: int) -> Any:
        return _reviewed(self, "swapaxes", axis0, axis1)

    def swapdims_(self, dim0: int, dim1: int) -> Any:
        return _reviewed(self, "swapdims", dim0, dim1)

    def squeeze_(self, dim: Any = None) -> Any:
        return _reviewed(self, "squeeze", dim)

    def unsqueeze_(self, dim: int) -> Any:
        return _reviewed(self, "unsqueeze", dim)

    # -- along an axis, and indexed writes -----------------------------------------------
    def cumsum_(self, dim: Any, *, dtype: Any = None) -> Any:
        return _scan(self, "cumsum", dim, dtype)

    def cumprod_(self, dim: Any, *, dtype: Any = None) -> Any:
        return _scan(self, "cumprod", dim, dtype)

    def tril_(self, diagonal: int = 0) -> Any:
        return changed(self, "tril", diagonal)

    def triu_(self, diagonal: int = 0) -> Any:
        return changed(self, "triu", diagonal)

    def masked_fill_(self, mask: Any, value: Any) -> Any:
        return changed(self, "masked_fill", mask, value)

    def index_add_(self, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Any:
        return changed(self, "index_add", dim, index, source, alpha=alpha)

    def index_put_(self, indices: Any, values: Any, accumulate: bool = False) -> Any:
        return changed(self, "index_put", indices, values, accumulate)

    def scatter_(self, dim: int, index: Any, src: Any = None, *, value: Any = None,
                 reduce: str | None = None) -> Any:  # fmt: skip
        return changed(self, "scatter", dim, index, src, value=value, reduce=reduce)

    def scatter_add_(self, dim: int, index: Any, src: Any) -> Any:
        return changed(self, "scatter_add", dim, index, src)

    def scatter_reduce_(self, dim: int, index: Any, src: Any, reduce: str, *,
                        include_self: bool = True) -> Any:  # fmt: skip
        return changed(self, "scatter_reduce", dim, index, src, reduce, include_self=include_self)

    def index_copy_(self, dim: int, index: Any, source: Any) -> Any:
        return changed(self, "index_copy", dim, index, source)

    def index_reduce_(self, dim: int, index: Any, source: Any, reduce: str, *,
                      include_self: bool = True) -> Any:  # fmt: skip
        return changed(self, "index_reduce", dim, index, source, reduce, include_self=include_self)

    def put_(self, index: Any, source: Any, accumulate: bool = False) -> Any:
        return changed(self, "put", index, source, accumulate)

    def masked_scatter_(self, mask: Any, source: Any) -> Any:
        placing.mask_fits(self, mask)
        return changed(self, "masked_scatter", mask, source)

    def addmv_(self, mat: Any, vec: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        fits = isinstance(mat, TensorBase) and isinstance(vec, TensorBase)
        if fits and self.ndim <= 1 and mat.ndim == 2 and vec.ndim == 1:
            _product_shape(self, (mat.shape[0],) if mat.shape[1] == vec.shape[0] else None)
        return changed(self, "addmv", mat, vec, beta=beta, alpha=alpha)

    def addr_(self, vec1: Any, vec2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        vectors = [v for v in (vec1, vec2) if isinstance(v, TensorBase) and v.ndim == 1]
        if len(vectors) == 2 and self.ndim != 2:
            raise RuntimeError(
                f"2D tensor expected, got {self.ndim}D tensor for input\naddr_: in place, "
                f"input is the {vec1.shape[0]} x {vec2.shape[0]} matrix the outer product fills"
            )
        if len(vectors) == 2 and self.shape != (vec1.shape[0], vec2.shape[0]):
            raise RuntimeError(
                f"size mismatch, input: {list(self.shape)}, v1: {list(vec1.shape)}, v2: "
                f"{list(vec2.shape)}\naddr_: in place, input cannot broadcast"
            )
        return changed(self, "addr", vec1, vec2, beta=beta, alpha=alpha)

    def gcd_(self, other: Any) -> Any:
        tensor_arguments("gcd_", other, method=True)
        return changed(self, "gcd", other)

    def lcm_(self, other: Any) -> Any:
        tensor_arguments("lcm_", other, method=True)
        return changed(self, "lcm", other)

    def nextafter_(self, other: Any) -> Any:
        tensor_arguments("nextafter_", other, method=True)
        return changed(self, "nextafter", other)

    def renorm_(self, p: Any, dim: int, maxnorm: Any) -> Any:
        return changed(self, "renorm", p, dim, maxnorm)
