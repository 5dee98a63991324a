"""The methods PyTorch users reach for daily, spelled as PyTorch spells them (lessons 04-06).

``Tensor`` inherits this class: ``x.mm(y)`` is ``matrix_products.mm(x, y)``,
``x.isnan()`` is ``logic.isnan(x)``, and so on, one line each, as in
``tensor.py``. The operations themselves live in the modules named below,
each a composition of the registry's rows.

    >>> import minigrad as mg
    >>> x = mg.tensor([[1.0, float("nan")], [3.0, 4.0]])
    >>> x.isnan().any().item(), x.nan_to_num().t().tolist(), x.nan_to_num().long().dtype
    (True, [[1.0, 3.0], [0.0, 4.0]], dtype('int64'))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import backends
from minigrad.tensor import dtypes as dt
from minigrad.tensor.base import TensorBase
from minigrad.tensor.ops import (
    arithmetic,
    contractions,
    copies,
    counterparts,
    counting,
    index_sets,
    integer_math,
    integrals,
    inverses,
    layout,
    legacy_linalg,
    linalg_spellings,
    logic,
    matrix_exponential,
    matrix_products,
    placing,
    pseudoinverse,
    real_parts,
    scattering,
    search,
    softmax,
    special,
    special_functions,
    spellings,
    statistics,
    summaries,
    tallies,
    triangular,
)
from minigrad.tensor.ops import elementwise as ew
from minigrad.tensor.ops.elementwise import tensor_arguments
from minigrad.tensor.ops.movement import astype, sizes, strided_sizes


class MoreMethods:
    """Methods of ``Tensor`` added for PyTorch's daily vocabulary (see the module docstring)."""

    __slots__ = ()

    # -- inverses and determinants (inverses.py) ------------------------------------
    def inverse(self) -> Any:
        return inverses.inverse(self)

    def det(self) -> Any:
        return inverses.det(self)

    def slogdet(self) -> Any:
        return inverses.slogdet(self)

    def logdet(self) -> Any:
        return inverses.logdet(self)

    def matrix_power(self, n: int) -> Any:
        return inverses.matrix_power(self, n)

    def matrix_exp(self) -> Any:
        return matrix_exponential.matrix_exp(self)

    def pinverse(self, rcond: float = 1e-15) -> Any:
        return pseudoinverse.pinverse(self, rcond)

    def svd(self, some: bool = True, compute_uv: bool = True) -> Any:
        return linalg_spellings.svd(self, some, compute_uv)

    def addbmm(self, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        return linalg_spellings.addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    # -- older linear-algebra names and compact QR (legacy_linalg.py) ---------------
    def qr(self, some: bool = True) -> Any:
        return legacy_linalg.qr(self, some)

    def geqrf(self) -> Any:
        return legacy_linalg.geqrf(self)

    def ormqr(self, input2: Any, input3: Any, left: bool = True, transpose: bool = False) -> Any:
        return legacy_linalg.ormqr(self, input2, input3, left, transpose)

    def orgqr(self, input2: Any) -> Any:
        return legacy_linalg.orgqr(self, input2)

    def ger(self, vec2: Any) -> Any:
        return legacy_linalg.ger(self, vec2)

    def adjoint(self) -> Any:
        return legacy_linalg.adjoint(self)

    # -- triangular systems, LU and Cholesky (triangular.py) ------------------------
    def cholesky(self, upper: bool = False) -> Any:
        return triangular.cholesky_old(self, upper)

    def cholesky_solve(self, input2: Any, upper: bool = False) -> Any:
        return triangular.cholesky_solve(self, input2, upper)

    def cholesky_inverse(self, upper: bool = False) -> Any:
        return triangular.cholesky_inverse(self, upper)

    def lu(self, pivot: bool = True, get_infos: bool = False) -> Any:
        return triangular.lu(self, pivot, get_infos)

    def lu_solve(self, LU_data: Any, LU_pivots: Any) -> Any:
        return triangular.lu_solve_old(self, LU_data, LU_pivots)

    def triangular_solve(
        self, A: Any, upper: bool = True, transpose: bool = False, unitriangular: bool = False
    ) -> Any:
        return triangular.triangular_solve(self, A, upper, transpose, unitriangular)

    # -- matrix products ------------------------------------------------------------
    def mm(self, mat2: Any) -> Any:
        tensor_arguments("mm", mat2, method=True, names=("input", "mat2"))
        return matrix_products.mm(self, mat2)

    def bmm(self, mat2: Any) -> Any:
        tensor_arguments("bmm", mat2, method=True, names=("input", "mat2"))
        return matrix_products.bmm(self, mat2)

    def mv(self, vec: Any) -> Any:
        tensor_arguments("mv", vec, method=True, names=("input", "vec"))
        return matrix_products.mv(self, vec)

    def dot(self, tensor: Any) -> Any:
        tensor_arguments("dot", tensor, method=True, names=("input", "tensor"))
        return matrix_products.dot(self, tensor)

    def vdot(self, other: Any) -> Any:
        tensor_arguments("vdot", other, method=True)
        return counterparts.vdot(self, other)

    def addmv(self, mat: Any, vec: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        tensor_arguments("addmv", mat, vec, method=True, names=("input", "mat", "vec"))
        return counterparts.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addr(self, vec1: Any, vec2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        tensor_arguments("addr", vec1, vec2, method=True, names=("input", "vec1", "vec2"))
        return counterparts.addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def aminmax(self, *, dim: int | None = None, keepdim: bool = False) -> Any:
        return counterparts.aminmax(self, dim=dim, keepdim=keepdim)

    def sum_to_size(self, *size: Any) -> Any:
        return counterparts.sum_to_size(self, *size)

    def index_fill(self, dim: int, index: Any, value: Any) -> Any:
        return counterparts.index_fill(self, dim, index, value)

    def msort(self) -> Any:
        return counterparts.msort(self)

    def diagflat(self, offset: int = 0) -> Any:
        return counterparts.diagflat(self, offset)

    def take(self, index: Any) -> Any:
        tensor_arguments("take", index, method=True, names=("input", "index"))
        return counterparts.take(self, index)

    def addmm(self, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        return matrix_products.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def baddbmm(self, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        return matrix_products.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def kron(self, other: Any) -> Any:
        tensor_arguments("kron", other, method=True, names=("input", "other"))
        return matrix_products.kron(self, other)

    def cross(self, other: Any, dim: int | None = None) -> Any:
        tensor_arguments("cross", other, method=True, names=("input", "other"))
        return matrix_products.cross(self, other, dim)

    # -- elementwise arithmetic -------------------------------------------------------
    def add(self, other: Any, *, alpha: Any = 1) -> Any:
        return ew.add(self, other, alpha=alpha)

    def sub(self, other: Any, *, alpha: Any = 1) -> Any:
        return ew.sub(self, other, alpha=alpha)

    subtract = sub

    def mul(self, other: Any) -> Any:
        return ew.mul(self, other)

    multiply = mul

    def div(self, other: Any, *, rounding_mode: str | None = None) -> Any:
        return arithmetic.div(self, other, rounding_mode=rounding_mode)

    divide = div

    def true_divide(self, other: Any) -> Any:
        return ew.true_divide(self, other)

    def addcmul(self, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:
        return arithmetic.addcmul(self, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:
        return arithmetic.addcdiv(self, tensor1, tensor2, value=value)

    def lerp(self, end: Any, weight: Any) -> Any:
        return arithmetic.lerp(self, end, weight)

    def clamp_min(self, min: Any) -> Any:
        return arithmetic.clamp_min(self, min)

    def clamp_max(self, max: Any) -> Any:
        return arithmetic.clamp_max(self, max)

    def frac(self) -> Any:
        return arithmetic.frac(self)

    def fmod(self, other: Any) -> Any:
        return arithmetic.fmod(self, other)

    def floor_divide(self, other: Any) -> Any:
        return arithmetic.floor_divide(self, other)

    def __floordiv__(self, other: Any) -> Any:
        return arithmetic.floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return arithmetic.floor_divide(other, self)

    def copysign(self, other: Any) -> Any:
        return arithmetic.copysign(self, other)

    def hypot(self, other: Any) -> Any:
        tensor_arguments("hypot", other, method=True)
        return arithmetic.hypot(self, other)

    def logaddexp(self, other: Any) -> Any:
        tensor_arguments("logaddexp", other, method=True)
        return arithmetic.logaddexp(self, other)

    def fmax(self, other: Any) -> Any:
        tensor_arguments("fmax", other, method=True)
        return arithmetic.fmax(self, other)

    def fmin(self, other: Any) -> Any:
        tensor_arguments("fmin", other, method=True)
        return arithmetic.fmin(self, other)

    def nan_to_num(self, nan: float = 0.0, posinf: float | None = None,
                   neginf: float | None = None) -> Any:  # fmt: skip
        return arithmetic.nan_to_num(self, nan, posinf, neginf)

    # -- truth tests --------------------------------------------------------------------
    def logical_and(self, other: Any) -> Any:
        tensor_arguments("logical_and", other, method=True)
        return logic.logical_and(self, other)

    def logical_or(self, other: Any) -> Any:
        tensor_arguments("logical_or", other, method=True)
        return logic.logical_or(self, other)

    def logical_xor(self, other: Any) -> Any:
        tensor_arguments("logical_xor", other, method=True)
        return logic.logical_xor(self, other)

    def logical_not(self) -> Any:
        return logic.logical_not(self)

    def eq(self, other: Any) -> Any:
        return logic.eq(self, other)

    def ne(self, other: Any) -> Any:
        return logic.ne(self, other)

    def lt(self, other: Any) -> Any:
        return logic.lt(self, other)

    def le(self, other: Any) -> Any:
        return logic.le(self, other)

    def gt(self, other: Any) -> Any:
        return logic.gt(self, other)

    def ge(self, other: Any) -> Any:
        return logic.ge(self, other)

    # PyTorch's longer names of the comparisons (the same methods).
    greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

    def isnan(self) -> Any:
        return logic.isnan(self)

    def isinf(self) -> Any:
        return logic.isinf(self)

    def isfinite(self) -> Any:
        return logic.isfinite(self)

    def isclose(self, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
                equal_nan: bool = False) -> Any:  # fmt: skip
        tensor_arguments("isclose", other, method=True)
        return logic.isclose(self, other, rtol, atol, equal_nan)

    def allclose(self, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
                 equal_nan: bool = False) -> bool:  # fmt: skip
        tensor_arguments("allclose", other, method=True)
        return logic.allclose(self, other, rtol, atol, equal_nan)

    def equal(self, other: Any) -> bool:
        tensor_arguments("equal", other, method=True)
        return logic.equal(self, other)

    # -- what a tensor is (PyTorch's questions; no new values) ----------------------------
    def dim(self) -> int:
        """The number of axes, ``ndim`` (PyTorch's ``x.dim()``)."""
        return self.ndim

    ndimension = dim

    def nelement(self) -> int:
        """The number of elements, ``numel()``."""
        return self.numel()

    def element_size(self) -> int:
        """Bytes per element (8 for float64 and int64, 1 for bool)."""
        return np.dtype(self.dtype).itemsize

    @property
    def itemsize(self) -> int:
        return self.element_size()

    @property
    def nbytes(self) -> int:
        return self.element_size() * self.numel()

    @property
    def is_cuda(self) -> bool:
        return self.device != "cpu"

    @property
    def is_cpu(self) -> bool:
        return self.device == "cpu"

    def is_floating_point(self) -> bool:
        return dt.is_floating(self.dtype)

    def is_complex(self) -> bool:
        return False  # (minigrad has no complex dtypes)

    def is_signed(self) -> bool:
        """Whether the dtype holds negative numbers: floats and signed integers, not bool."""
        return dt.kind(self.dtype) in "if"

    def is_same_size(self, other: Any) -> bool:
        return tuple(self.shape) == tuple(other.shape)

    def is_contiguous(self) -> bool:
        """Whether the elements lie in memory row after row, without gaps (a transpose, a
        strided slice or an ``expand`` of this memory does not)."""
        data = self.data
        flags = getattr(data, "flags", None)
        if flags is not None:
            return bool(flags.c_contiguous)
        return bool(getattr(data, "contiguous", True))

    def type_as(self, other: Any) -> Any:
        """This tensor in ``other``'s dtype and on its device."""
        out = self.to(other.dtype)
        return out if out.device == other.device else out.to(other.device)

    @property
    def mH(self) -> Any:
        """The conjugate transpose of the last two axes: ``mT`` (minigrad's dtypes are real);
        a 0-d tensor itself, as PyTorch's."""
        if self.ndim == 1:
            raise RuntimeError(
                "tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor."
            )
        return self.mT if self.ndim else self

    @property
    def H(self) -> Any:
        """The conjugate transpose of a matrix (or a 0-d tensor itself): ``x.T`` for 2-D."""
        if self.ndim not in (0, 2):
            raise RuntimeError(
                f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor."
            )
        return self.T if self.ndim == 2 else self

    # -- layout -------------------------------------------------------------------------
    def view_as(self, other: Any) -> Any:
        return layout.view_as(self, other)

    def reshape_as(self, other: Any) -> Any:
        return layout.reshape_as(self, other)

    def expand_as(self, other: Any) -> Any:
        return layout.expand_as(self, other)

    def contiguous(self) -> Any:
        return layout.contiguous(self)

    def t(self) -> Any:
        return layout.t(self)

    def unflatten(self, dim: int, sizes: Any) -> Any:
        return layout.unflatten(self, dim, sizes)

    def select(self, dim: int, index: int) -> Any:
        return layout.select(self, dim, index)

    def tensor_split(self, indices_or_sections: Any, dim: int = 0) -> Any:
        return layout.tensor_split(self, indices_or_sections, dim)

    def repeat_interleave(self, repeats: Any = None, dim: int | None = None, *,
                          output_size: int | None = None) -> Any:  # fmt: skip
        return layout.repeat_interleave(self, repeats, dim, output_size=output_size)

    def diff(self, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Any:
        return layout.diff(self, n, dim, prepend, append)

    def diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
        return layout.diag_embed(self, offset, dim1, dim2)

    # -- writing by index ----------------------------------------------------------------
    def scatter(self, dim: int, index: Any, src: Any = None, *, value: Any = None,
                reduce: str | None = None) -> Any:  # fmt: skip
        return scattering.scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_reduce(self, dim: int, index: Any, src: Any, reduce: str, *,
                       include_self: bool = True) -> Any:  # fmt: skip
        return scattering.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def index_add(self, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Any:
        return scattering.index_add(self, dim, index, source, alpha=alpha)

    def index_put(self, indices: Any, values: Any, accumulate: bool = False) -> Any:
        return scattering.index_put(self, indices, values, accumulate)

    def masked_select(self, mask: Any) -> Any:
        tensor_arguments("masked_select", mask, method=True, names=("input", "mask"))
        return scattering.masked_select(self, mask)

    # -- reductions that skip NaN or count ----------------------------------------------
    def count_nonzero(self, dim: Any = None) -> Any:
        return counting.count_nonzero(self, dim)

    def nansum(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
        return counting.nansum(self, dim, keepdim, dtype=dtype)

    def nanmean(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
        return counting.nanmean(self, dim, keepdim, dtype=dtype)

    # -- order statistics and running extremes -------------------------------------------
    def median(self, dim: Any = None, keepdim: bool = False) -> Any:
        return statistics.median(self, dim, keepdim)

    def kthvalue(self, k: int, dim: int = -1, keepdim: bool = False) -> Any:
        return statistics.kthvalue(self, k, dim, keepdim)

    def cummax(self, dim: int) -> Any:
        return statistics.cummax(self, dim)

    def cummin(self, dim: int) -> Any:
        return statistics.cummin(self, dim)

    def logcumsumexp(self, dim: int) -> Any:
        return statistics.logcumsumexp(self, dim)

    # -- reading values --------------------------------------------------------------------
    def nonzero(self, *, as_tuple: bool = False) -> Any:
        return search.nonzero(self, as_tuple=as_tuple)

    def unique(self, sorted: bool = True, return_inverse: bool = False,
               return_counts: bool = False, dim: int | None = None) -> Any:  # fmt: skip
        return search.unique(self, sorted, return_inverse, return_counts, dim)

    def bincount(self, weights: Any = None, minlength: int = 0) -> Any:
        return search.bincount(self, weights, minlength)

    # -- casts and new tensors like this one ---------------------------------------------------
    # (``int`` and ``bool`` name methods here; inside the bodies the builtins are meant.)
    def long(self) -> Any:
        """The same values as int64 (floats rounded toward zero)."""
        return astype(self, dt.int64)

    def int(self) -> Any:
        """The same values as int32 (floats rounded toward zero)."""
        return astype(self, dt.int32)

    def bool(self) -> Any:
        """True where nonzero (NaN included)."""
        return astype(self, dt.bool_)

    def new_full(self, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
                 requires_grad: Any = False) -> Any:  # fmt: skip
        """A tensor of ``size`` filled with ``fill_value``, with this one's dtype and device."""
        shape = sizes((size,), "new_full")
        dtype = dt.as_dtype(dtype) if dtype is not None else self.dtype
        device = self.device if device is None else device
        data = backends.for_device(device).full(shape, np.asarray(fill_value).item(), dtype)
        return TensorBase.concrete._wrap(data, device).requires_grad_(requires_grad)

    def new_zeros(self, *size: Any, dtype: Any = None, device: Any = None,
                  requires_grad: Any = False) -> Any:  # fmt: skip
        """Zeros of ``size``, with this tensor's dtype and device (PyTorch's ``new_zeros``)."""
        return self.new_full(sizes(size, "new_zeros"), 0, dtype=dtype, device=device,
                             requires_grad=requires_grad)  # fmt: skip

    def new_ones(self, *size: Any, dtype: Any = None, device: Any = None,
                 requires_grad: Any = False) -> Any:  # fmt: skip
        """Ones of ``size``, with this tensor's dtype and device (PyTorch's ``new_ones``)."""
        return self.new_full(sizes(size, "new_ones"), 1, dtype=dtype, device=device,
                             requires_grad=requires_grad)  # fmt: skip

    def new_empty(self, *size: Any, dtype: Any = None, device: Any = None,
                  requires_grad: Any = False) -> Any:  # fmt: skip
        """A tensor of ``size`` whose values are not to be read before they are written, with
        this tensor's dtype and device (PyTorch's ``new_empty``; here zeros, as ``mg.empty``)."""
        return self.new_full(sizes(size, "new_empty"), 0, dtype=dtype, device=device,
                             requires_grad=requires_grad)  # fmt: skip

    def new_empty_strided(self, size: Any, stride: Any, *, dtype: Any = None, device: Any = None,
                          requires_grad: Any = False) -> Any:  # fmt: skip
        """``new_empty(size)`` with ``stride`` checked (one per axis, none negative); minigrad
        lays the result out row after row whatever the strides (PyTorch's follows them)."""
        shape = strided_sizes(size, stride, "new_empty_strided")
        return self.new_empty(shape, dtype=dtype, device=device, requires_grad=requires_grad)

    # -- special functions and sign tests (ops/special.py) -------------------------------------
    def erfc(self) -> Any:
        return special.erfc(self)

    def erfinv(self) -> Any:
        return special.erfinv(self)

    def lgamma(self) -> Any:
        return special.lgamma(self)

    def digamma(self) -> Any:
        return special.digamma(self)

    def polygamma(self, n: Any) -> Any:
        return special.polygamma(n, self)

    def logit(self, eps: Any = None) -> Any:
        return special.logit(self, eps)

    def xlogy(self, other: Any) -> Any:
        return special.xlogy(self, other)

    def sgn(self) -> Any:
        return special.sgn(self)

    def signbit(self) -> Any:
        return special.signbit(self)

    def isposinf(self) -> Any:
        return special.isposinf(self)

    def isneginf(self) -> Any:
        return special.isneginf(self)

    def heaviside(self, values: Any) -> Any:
        tensor_arguments("heaviside", values, method=True, names=("input", "values"))
        return special.heaviside(self, values)

    def float_power(self, exponent: Any) -> Any:
        return special.float_power(self, exponent)

    def ldexp(self, other: Any) -> Any:
        tensor_arguments("ldexp", other, method=True)
        return special.ldexp(self, other)

    # -- special functions, part two (ops/special_functions.py) -----------------------------------
    def i0(self) -> Any:
        return special_functions.i0(self)

    def igamma(self, other: Any) -> Any:
        tensor_arguments("igamma", other, method=True)
        return special_functions.igamma(self, other)

    def igammac(self, other: Any) -> Any:
        tensor_arguments("igammac", other, method=True)
        return special_functions.igammac(self, other)

    def mvlgamma(self, p: Any) -> Any:
        return special_functions.mvlgamma(self, p)

    # -- other spellings (ops/spellings.py) ----------------------------------------------------
    def absolute(self) -> Any:
        return spellings.absolute(self)

    def negative(self) -> Any:
        return spellings.negative(self)

    def neg(self) -> Any:
        return ew.neg(self)

    def diag(self, diagonal: int = 0) -> Any:
        return contractions.diag(self, diagonal)

    def softmax(self, dim: int, dtype: Any = None) -> Any:
        """``mg.nn.functional.softmax(self, dim, dtype=dtype)``, PyTorch's ``Tensor.softmax``."""
        return softmax.softmax(self if dtype is None else self.to(dtype), dim)

    def log_softmax(self, dim: int, dtype: Any = None) -> Any:
        """``mg.nn.functional.log_softmax(self, dim, dtype=dtype)``."""
        return softmax.log_softmax(self if dtype is None else self.to(dtype), dim)

    def positive(self) -> Any:
        return spellings.positive(self)

    def rad2deg(self) -> Any:
        return spellings.rad2deg(self)

    def deg2rad(self) -> Any:
        return spellings.deg2rad(self)

    def sinc(self) -> Any:
        return spellings.sinc(self)

    def logaddexp2(self, other: Any) -> Any:
        return spellings.logaddexp2(self, other)

    def swapdims(self, dim0: int, dim1: int) -> Any:
        return spellings.swapdims(self, dim0, dim1)

    def ravel(self) -> Any:
        return spellings.ravel(self)

    def fliplr(self) -> Any:
        return spellings.fliplr(self)

    def flipud(self) -> Any:
        return spellings.flipud(self)

    def rot90(self, k: int = 1, dims: Any = (0, 1)) -> Any:
        return spellings.rot90(self, k, dims)

    def hsplit(self, indices_or_sections: Any) -> Any:
        return spellings.split_method(self, indices_or_sections, "hsplit")

    def vsplit(self, indices_or_sections: Any) -> Any:
        return spellings.split_method(self, indices_or_sections, "vsplit")

    def dsplit(self, indices_or_sections: Any) -> Any:
        return spellings.split_method(self, indices_or_sections, "dsplit")

    def inner(self, other: Any) -> Any:
        return spellings.inner(self, other)

    def unfold(self, dimension: int, size: int, step: int) -> Any:
        """The windows of ``size`` along ``dimension``, one every ``step`` (a new last axis)."""
        return spellings.unfold(self, dimension, size, step)

    # -- bitwise (ops/elementwise.py; the operators are in tensor.py) -----------------------------
    def bitwise_and(self, other: Any) -> Any:
        return ew.bitwise_and(self, other)

    def bitwise_or(self, other: Any) -> Any:
        return ew.bitwise_or(self, other)

    def bitwise_xor(self, other: Any) -> Any:
        return ew.bitwise_xor(self, other)

    def bitwise_not(self) -> Any:
        return ew.bitwise_not(self)

    def bitwise_left_shift(self, other: Any) -> Any:
        return ew.bitwise_left_shift(self, other)

    def bitwise_right_shift(self, other: Any) -> Any:
        return ew.bitwise_right_shift(self, other)

    # -- writing into a copy at chosen places (ops/placing.py) ---------------------------------
    def index_copy(self, dim: int, index: Any, source: Any) -> Any:
        return placing.index_copy(self, dim, index, source)

    def index_reduce(self, dim: int, index: Any, source: Any, reduce: str, *,
                     include_self: bool = True) -> Any:  # fmt: skip
        return placing.index_reduce(self, dim, index, source, reduce, include_self=include_self)

    def put(self, index: Any, source: Any, accumulate: bool = False) -> Any:
        return placing.put(self, index, source, accumulate)

    def masked_scatter(self, mask: Any, source: Any) -> Any:
        return placing.masked_scatter(self, mask, source)

    def diagonal_scatter(self, src: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
        return placing.diagonal_scatter(self, src, offset, dim1, dim2)

    def as_strided_scatter(self, src: Any, size: Any, stride: Any,
                           storage_offset: Any = None) -> Any:  # fmt: skip
        return placing.as_strided_scatter(self, src, size, stride, storage_offset)

    def select_scatter(self, src: Any, dim: int, index: int) -> Any:
        return placing.select_scatter(self, src, dim, index)

    def slice_scatter(self, src: Any, dim: int = 0, start: Any = None, end: Any = None,
                      step: int = 1) -> Any:  # fmt: skip
        return placing.slice_scatter(self, src, dim, start, end, step)

    def narrow_copy(self, dim: int, start: Any, length: int) -> Any:
        return copies.narrow_copy(self, dim, start, length)

    # -- summaries of samples (ops/summaries.py) and whole numbers (ops/integer_math.py) ----------
    def cov(self, *, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Any:
        return summaries.cov(self, correction=correction, fweights=fweights, aweights=aweights)

    def corrcoef(self) -> Any:
        return summaries.corrcoef(self)

    def quantile(self, q: Any, dim: Any = None, keepdim: bool = False, *,
                 interpolation: str = "linear") -> Any:  # fmt: skip
        return summaries.quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self, q: Any, dim: Any = None, keepdim: bool = False, *,
                    interpolation: str = "linear") -> Any:  # fmt: skip
        return summaries.nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanmedian(self, dim: Any = None, keepdim: bool = False) -> Any:
        return summaries.nanmedian(self, dim, keepdim)

    def gcd(self, other: Any) -> Any:
        tensor_arguments("gcd", other, method=True)
        return integer_math.gcd(self, other)

    def lcm(self, other: Any) -> Any:
        tensor_arguments("lcm", other, method=True)
        return integer_math.lcm(self, other)

    def nextafter(self, other: Any) -> Any:
        tensor_arguments("nextafter", other, method=True)
        return integer_math.nextafter(self, other)

    def frexp(self) -> Any:
        return integer_math.frexp(self)

    def mode(self, dim: int = -1, keepdim: bool = False) -> Any:
        return tallies.mode(self, dim, keepdim)

    def dist(self, other: Any, p: Any = 2) -> Any:
        tensor_arguments("dist", other, method=True)
        return integrals.dist(self, other, p)

    def renorm(self, p: Any, dim: int, maxnorm: Any) -> Any:
        return integrals.renorm(self, p, dim, maxnorm)

    # -- complex-number functions on real tensors (real_parts.py) ------------------------------
    def conj(self) -> Any:
        return real_parts.conj(self)

    def conj_physical(self) -> Any:
        return real_parts.conj_physical(self)

    def resolve_conj(self) -> Any:
        return real_parts.resolve_conj(self)

    def resolve_neg(self) -> Any:
        return real_parts.resolve_neg(self)

    @property
    def real(self) -> Any:
        """The real part: the tensor itself (minigrad's tensors are real)."""
        return real_parts.real(self)

    @property
    def imag(self) -> Any:
        """The imaginary part: PyTorch's error for a real tensor."""
        return real_parts.imag(self)

    def angle(self) -> Any:
        return real_parts.angle(self)

    def isreal(self) -> Any:
        return real_parts.isreal(self)

    # -- positions and other spellings (index_sets.py, spellings.py) ---------------------------
    def argwhere(self) -> Any:
        return index_sets.argwhere(self)

    def nonzero_static(self, *, size: int, fill_value: int = -1) -> Any:
        return index_sets.nonzero_static(self, size=size, fill_value=fill_value)

    def split_with_sizes(self, split_sizes: Any, dim: int = 0) -> Any:
        return spellings.split_with_sizes(self, split_sizes, dim)

    def unsafe_split(self, split_size: Any, dim: int = 0) -> Any:
        return spellings.unsafe_split(self, split_size, dim)

    def unsafe_chunk(self, chunks: int, dim: int = 0) -> Any:
        return spellings.unsafe_chunk(self, chunks, dim)

    def __rdiv__(self, other: Any) -> Any:
        """``other / self``: PyTorch's older name of ``__rtruediv__``."""
        return self.__rtruediv__(other)

    def histc(self, bins: int = 100, min: Any = 0, max: Any = 0) -> Any:
        return tallies.histc(self, bins, min, max)

    def histogram(self, bins: Any, *, range: Any = None, weight: Any = None,
                  density: bool = False) -> Any:  # fmt: skip
        return tallies.histogram(self, bins, range=range, weight=weight, density=density)

    def unique_consecutive(self, return_inverse: bool = False, return_counts: bool = False,
                           dim: int | None = None) -> Any:  # fmt: skip
        return tallies.unique_consecutive(self, return_inverse, return_counts, dim)
