"""More elementwise arithmetic: fmod, copysign, logaddexp, floor_divide, lerp (lesson 05).

Most of these are short formulas in rows that already have a derivative and
a scalar body (``where``, ``maximum``, ``trunc``, ...), so the chain rule
gives their gradient, and jit fuses them into one kernel like any
elementwise program. What takes care is the edges, where the textbook
formula and IEEE arithmetic disagree:

- ``fmod`` keeps the dividend's sign (C's ``fmod``), ``remainder`` the
  divisor's; both are computed exactly. ``fmod``, ``copysign`` and
  ``logaddexp`` are rows of their own (in ``math.py``): their slopes are
  PyTorch's formulas, which no composition gives at the edges (a NaN slope
  for ``logaddexp`` at ``x == y == inf``, where the value is inf);
- ``fmax``/``fmin`` ignore a NaN where ``maximum`` propagates it.

    >>> import minigrad as mg
    >>> mg.fmod(mg.tensor([-5.0, 5.0]), 3), mg.remainder(mg.tensor([-5.0, 5.0]), 3)
    (tensor([-2.,  2.]), tensor([1., 2.]))
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.broadcasting import broadcast_shape, stretch_to, sum_to
from minigrad.tensor.ops.elementwise import (
    abs,
    add,
    compare,
    operands,
    parser_error,
    sqrt,
    tensor_arguments,
    tensor_first,
    true_divide,
    where,
)
from minigrad.tensor.ops.logic import isinf, isnan, logical_and, logical_or
from minigrad.tensor.ops.math import COPYSIGN, FMOD, LOGADDEXP, clamp, floor, remainder, trunc
from minigrad.tensor.ops.rearrange import clone
from minigrad.tensor.primitive import Primitive, aligned
from minigrad.tensor.record import apply, full_like

__all__ = [
    "addcdiv", "addcmul", "clamp_max", "clamp_min", "copysign", "div", "divide", "floor_divide",
    "fmax", "fmin", "fmod", "frac", "hypot", "lerp", "logaddexp", "nan_to_num",
]  # fmt: skip

LOG2 = math.log(2)


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _not_for(op: str, x: Tensor, kinds: str, kernel: str | None = None) -> None:
    """PyTorch's NotImplementedError for a dtype an operation has no kernel for."""
    if x.dtype.kind in kinds:
        name = {"b": "Bool", "i": "Long" if x.dtype == dtypes.int64 else "Int"}[x.dtype.kind]
        raise NotImplementedError(
            f"\"{kernel or op}\" not implemented for '{name}'\n"
            f"{op}: convert to a float dtype first, e.g. x.to(mg.float32)"
        )


def clamp_min(input: Any, min: Any) -> Tensor:
    """``max(input, min)`` elementwise; the gradient passes where ``input >= min``.

    >>> import minigrad as mg
    >>> mg.clamp_min(mg.tensor([-1.0, 2.0]), 0)
    tensor([0., 2.])
    """
    tensor_first("clamp_min", input, min)
    return clamp(input, min=min)


def clamp_max(input: Any, max: Any) -> Tensor:
    """``min(input, max)`` elementwise; the gradient passes where ``input <= max``.

    >>> import minigrad as mg
    >>> mg.tensor([-1.0, 2.0]).clamp_max(1)
    tensor([-1.,  1.])
    """
    tensor_first("clamp_max", input, max)
    return clamp(input, max=max)


def _pointwise_forward(op: str) -> Any:
    """PyTorch's ``x + value * t1 op t2`` in the dtype of the three (16-bit: in float32,
    rounded once), ``value * t1`` first: addcmul's and addcdiv's kernels."""

    def forward(backend: Any, x: Any, t1: Any, t2: Any, value: float, dtype: Any) -> Any:
        work = dtypes.compute_dtype(dtype)
        x, t1, t2 = (a if a.dtype == work else backend.astype(a, work) for a in (x, t1, t2))
        scaled = backend.zip("mul", backend.full((), value, work), t1)
        out = backend.zip("add", x, backend.zip(op, scaled, t2))
        return out if work == dtype else backend.astype(out, dtype)

    return forward


def _addcmul_vjp(g: Tensor, out: Any, inputs: Any, needs: Any, value: float, dtype: Any) -> list:
    """PyTorch's formulas: ``t2 * value`` in t2's dtype, ``t1 * value`` in t1's."""
    _, t1, t2 = inputs
    slopes = (lambda: g, lambda: g * (t2 * value), lambda: g * (t1 * value))
    return [_to_input(slope(), a) if need else None
            for slope, a, need in zip(slopes, inputs, needs)]  # fmt: skip


def _addcmul_jvp(tangents: Any, out: Any, inputs: Any, value: float, dtype: Any) -> Tensor:
    _, t1, t2 = inputs
    xt, t1t, t2t = tangents
    terms = [xt] if xt is not None else []
    if t1t is not None:
        terms.append((t1t * t2) * value)
    if t2t is not None:
        terms.append((t2t * t1) * value)
    return _tangent(terms, inputs, dtype)


def _addcdiv_vjp(g: Tensor, out: Any, inputs: Any, needs: Any, value: float, dtype: Any) -> list:
    """PyTorch's formulas, each product in the dtypes it has there: ``value * t1`` in t1's
    dtype and ``t2 * t2`` in t2's (a bfloat16 ``t1`` rounds the first), then summed down
    to each input's shape in the cotangent's dtype, and cast to the input's."""
    _, t1, t2 = inputs
    slopes = (
        lambda: g,
        lambda: g * (full_like(t2, value) / t2),  # C++'s value / t2: t2's dtype, one rounding
        lambda: -g * ((t1 * value) / (t2 * t2)),
    )
    return [_to_input(slope(), a) if need else None
            for slope, a, need in zip(slopes, inputs, needs)]  # fmt: skip


def _addcdiv_jvp(tangents: Any, out: Any, inputs: Any, value: float, dtype: Any) -> Tensor:
    _, t1, t2 = inputs
    xt, t1t, t2t = tangents
    terms = [xt] if xt is not None else []
    if t1t is not None:
        terms.append((t1t / t2) * value)
    if t2t is not None:
        terms.append(-((t2t * (t1 / t2) / t2) * value))
    return _tangent(terms, inputs, dtype)


def _tangent(terms: list, inputs: Any, dtype: Any) -> Tensor:
    """The sum of ``terms`` as the output's tangent: its dtype and shape."""
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    total = total if total.dtype == dtype else total.to(dtype)
    shape = broadcast_shape(*[a.shape for a in inputs], op="addcdiv")
    return total if total.shape == shape else stretch_to(total, shape)


def _to_input(g: Tensor, x: Any) -> Tensor:
    g = sum_to(g, x.shape)
    return g if g.dtype == x.dtype else g.to(x.dtype)


# input + value * tensor1 / tensor2, its three inputs in their own dtypes: the derivatives
# compute as PyTorch's do (see _addcdiv_vjp), which a composition after a cast cannot.
ADDCDIV = Primitive(
    "addcdiv", _pointwise_forward("div"), vjp=_addcdiv_vjp, jvp=_addcdiv_jvp, saves=(1, 2),
    batch=lambda xs, batched, **params: apply(ADDCDIV, tuple(aligned(xs, batched)), **params),
)  # fmt: skip
# input + value * tensor1 * tensor2 (floats), the same way.
ADDCMUL = Primitive(
    "addcmul", _pointwise_forward("mul"), vjp=_addcmul_vjp, jvp=_addcmul_jvp, saves=(1, 2),
    batch=lambda xs, batched, **params: apply(ADDCMUL, tuple(aligned(xs, batched)), **params),
)  # fmt: skip


def addcmul(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 * tensor2`` (shapes broadcast); Adam's update is one.

    >>> import minigrad as mg
    >>> mg.addcmul(mg.tensor([1.0]), mg.tensor([2.0]), mg.tensor([3.0]), value=0.5)
    tensor([4.])
    """
    x, t1, t2 = _tensor(input), _tensor(tensor1), _tensor(tensor2)
    common = dtypes.result_dtype([x.dtype, t1.dtype, t2.dtype], [])
    if dtypes.is_floating(common):
        return apply(ADDCMUL, (x, t1, t2), value=float(value), dtype=common)
    t1, t2 = _in_common_dtype(input, t1, t2)
    product = t1 * t2
    if isinstance(input, Tensor) and input.dtype.kind == "b":
        _not_for("addcmul", product, "b", "addcmul_cpu_out")  # PyTorch: no kernel for 3 bools
    if not dtypes.is_floating(product.dtype):
        value = int(value)  # truncated for integers first (as in PyTorch)
    return input + (product if value == 1 else value * product)


def addcdiv(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 / tensor2`` (shapes broadcast); floats only, as in PyTorch.

    >>> import minigrad as mg
    >>> mg.addcdiv(mg.tensor([1.0]), mg.tensor([3.0]), mg.tensor([2.0]), value=2)
    tensor([4.])
    """
    t1, t2 = _tensor(tensor1), _tensor(tensor2)
    if not dtypes.is_floating(t1.dtype) and not dtypes.is_floating(t2.dtype):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.\n"
            "addcdiv: convert tensor1 or tensor2 to a float dtype first"
        )
    x = _tensor(input)
    common = dtypes.result_dtype([x.dtype, t1.dtype, t2.dtype], [])
    return apply(ADDCDIV, (x, t1, t2), value=float(value), dtype=common)


def _in_common_dtype(input: Any, t1: Tensor, t2: Any) -> tuple[Tensor, Any]:
    """``tensor1`` and ``tensor2`` in the dtype of all three tensors, as PyTorch computes
    addcmul/addcdiv (a float32 quotient added to float64 is taken in float64)."""
    tensors = [t for t in (input, t1, t2) if isinstance(t, Tensor)]
    common = dtypes.result_dtype([t.dtype for t in tensors], [])
    return t1.to(common) if t1.dtype != common else t1, (
        t2.to(common) if isinstance(t2, Tensor) and t2.dtype != common else t2
    )


def lerp(input: Any, end: Any, weight: Any) -> Tensor:
    """``input + weight * (end - input)``: the point a fraction ``weight`` of the way to ``end``.

    Written PyTorch's way for accuracy: from ``end`` backwards when
    ``|weight| >= 1/2``, so that ``weight == 1`` gives ``end`` exactly.

    >>> import minigrad as mg
    >>> mg.lerp(mg.tensor([0.0, 10.0]), mg.tensor([1.0, 20.0]), 0.25)
    tensor([ 0.25, 12.5 ])
    """
    start, stop = _tensor(input), _tensor(end)
    for t in (start, stop):
        _not_for("lerp", t, "bi", "lerp_kernel_scalar")
    if stop.dtype != start.dtype:
        raise RuntimeError(
            f"expected dtype {start.dtype.name.replace('32', '').replace('64', '')} for `end` "
            f"but got dtype {'double' if stop.dtype == dtypes.float64 else stop.dtype.name}\n"
            "lerp: input and end need one dtype"
        )
    diff = stop - start
    if isinstance(weight, Tensor):
        near_start = compare("lt", abs(weight), 0.5)
        return where(near_start, start + weight * diff, stop - diff * (1 - weight))
    if math.fabs(weight) < 0.5:
        return start + weight * diff
    return stop - diff * (1 - weight)


def frac(input: Any) -> Tensor:
    """The fractional part, ``x - trunc(x)``, with ``x``'s sign; NaN at +-inf. Slope 1.

    >>> import minigrad as mg
    >>> mg.frac(mg.tensor([2.5, -2.5, 3.0]))
    tensor([ 0.5, -0.5,  0. ])
    """
    x = _tensor(input)
    _not_for("frac", x, "bi", "frac_cpu")
    return x - trunc(x)


def _check_integer_divisor(x: Tensor, y: Tensor) -> None:
    if not dtypes.is_floating(x.dtype) and bool((y._numpy() == 0).any()):
        raise RuntimeError(
            "ZeroDivisionError\nan integer divisor is 0; use float tensors to get inf or NaN there"
        )


def fmod(input: Any, other: Any) -> Tensor:
    """C's remainder ``x - trunc(x / y) * y``: the sign of the dividend ``x``.

    ``remainder`` (Python's ``%``) takes the divisor's sign; where the two
    signs differ (and the remainder is not 0) the answers differ by exactly
    ``y``. The gradient is 1 in ``x`` and ``-trunc(x / y)`` in ``y``.

    >>> import minigrad as mg
    >>> mg.fmod(mg.tensor([-7, 7]), 3), mg.fmod(mg.tensor([5.5]), mg.tensor([-2.0]))
    (tensor([-1,  1]), tensor([1.5]))
    """
    tensor_first("fmod", input, other)
    x, y = operands("fmod", input, other)
    if x.dtype == dtypes.bool_:
        raise NotImplementedError(
            "\"fmod_cpu\" not implemented for 'Bool'\nfmod: convert first, e.g. x.to(mg.int64)"
        )
    _check_integer_divisor(x, y)
    return apply(FMOD, (x, y))


def floor_divide(input: Any, other: Any) -> Tensor:
    """``x // y``: the quotient rounded down (Python's rule: ``-7 // 2 == -4``).

    For floats the quotient is Python's too: the exact ``(x - fmod(x, y)) / y``
    rounded to the nearest whole number, so ``1.0 // 0.1 == 9.0`` (0.1 is
    stored a little above a tenth), where ``floor(1.0 / 0.1)`` says 10. Its
    gradient is 0 (PyTorch has none).

    >>> import minigrad as mg
    >>> mg.floor_divide(mg.tensor([7, -7]), 2), mg.tensor([1.0, -1.0]) // 0.1
    (tensor([ 3, -4]), tensor([  9., -10.]))
    """
    if (isinstance(input, Tensor) and dtypes.is_low_precision(input.dtype)
            and isinstance(other, (int, float)) and not isinstance(other, bool)):  # fmt: skip
        # PyTorch's: a 16-bit tensor over a Python number divides in float32 by the
        # unrounded constant (x // 0.3 is not x // float16(0.3)), then rounds
        return floor_divide(input.to(dtypes.float32), other).to(input.dtype)
    x, y = operands("floor_divide", input, other)
    _not_for("floor_divide", x, "b", "div_floor_cpu")
    _check_integer_divisor(x, y)
    if not dtypes.is_floating(x.dtype):
        # Whole numbers: x - remainder(x, y) is an exact multiple of y; divide in
        # float64 (exact below 2**53) and come back.
        exact = (x - remainder(x, y)).to(dtypes.float64) / y.to(dtypes.float64)
        return trunc(exact).to(x.dtype)
    mod = fmod(x, y)
    div = (x - mod) / y
    # fmod kept x's sign; Python's quotient rounds down, one less where the signs differ.
    below = logical_and(compare("ne", mod, 0), compare("ne", compare("lt", y, 0),
                                                          compare("lt", mod, 0)))  # fmt: skip
    div = where(below, div - 1, div)
    whole = floor(div)
    whole = where(compare("gt", div - whole, 0.5), whole + 1, whole)
    whole = where(compare("eq", div, 0), copysign(div * 0, x / y), whole)  # a zero's sign
    return where(compare("eq", y, 0), x / y, whole).detach()


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """``input / other`` (PyTorch's ``torch.div``): true division by default (integers give
    float32); ``rounding_mode="trunc"`` rounds the quotient toward zero, ``"floor"`` down
    (``floor_divide``), both in the inputs' dtype. A rounded quotient's gradient is 0, as
    in PyTorch; an integer divisor of 0 is an error there.

    >>> import minigrad as mg
    >>> x = mg.tensor([7, -7])
    >>> mg.div(x, 2), mg.div(x, 2, rounding_mode="trunc"), x.div(2, rounding_mode="floor")
    (tensor([ 3.5000, -3.5000]), tensor([ 3, -3]), tensor([ 3, -4]))
    """
    if rounding_mode is None:
        return true_divide(input, other)
    if rounding_mode not in ("trunc", "floor"):
        if not isinstance(rounding_mode, str):
            raise parser_error(
                "div", (input, other), "(Tensor input, Tensor other, *, str rounding_mode)",
                extra=f", rounding_mode={dtypes.type_name(rounding_mode)}",
            )  # fmt: skip
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'\ndiv: rounding_mode='trunc' rounds toward zero, 'floor' down"
        )
    x, y = operands("div", input, other)
    if rounding_mode == "floor":
        q = floor_divide(input, other)  # (a 16-bit x over a number: floor_divide's rule)
    else:
        _not_for("div", x, "b", "div_trunc_cpu")
        _check_integer_divisor(x, y)
        if not dtypes.is_floating(x.dtype):
            # the exact multiple x - fmod(x, y) over y, in float64 (exact below 2**53)
            exact = (x - fmod(x, y)).to(dtypes.float64) / y.to(dtypes.float64)
            q = exact.to(x.dtype)
        else:
            # PyTorch's: the quotient rounded to x's dtype, then truncated; a 16-bit tensor
            # over a Python number truncates the float32 quotient (the constant unrounded)
            # and rounds that.
            if isinstance(other, Tensor) or not dtypes.is_low_precision(x.dtype):
                q = trunc(true_divide(x, y)).detach()
            else:
                q = trunc(true_divide(x.to(dtypes.float32), other)).to(x.dtype).detach()
    if dtypes.is_floating(x.dtype):
        # PyTorch's gradient: zeros for both inputs (where's rule passes none to x + y).
        # (Always: inside vmap or jit, whether a graph will need it is not known here.)
        q = where(True, q, add(x, y))
    return q


divide = div  # PyTorch's alias


def copysign(input: Any, other: Any) -> Tensor:
    """``|input|`` with the sign bit of ``other`` (-0.0, -NaN: negative). Integers give floats.

    The gradient in ``input`` is ``+-1`` (0 at ``input == 0``, as in PyTorch), in ``other`` 0.

    >>> import minigrad as mg
    >>> mg.copysign(mg.tensor([1.0, 2.0, -3.0]), mg.tensor([-1.0, -0.0, 5.0]))
    tensor([-1., -2.,  3.])
    """
    tensor_first("copysign", input, other)
    x, y = operands("copysign", input, other, floating=True)
    return apply(COPYSIGN, (x, y))


def hypot(input: Any, other: Any) -> Tensor:
    """``sqrt(x**2 + y**2)``, the length of (x, y); inf where either is infinite (even with NaN).

    >>> import minigrad as mg
    >>> mg.hypot(mg.tensor([3.0, float("inf")]), mg.tensor([4.0, float("nan")]))
    tensor([ 5., inf])
    """
    tensor_arguments("hypot", input, other)
    x, y = operands("hypot", input, other)
    _not_for("hypot", x, "bi", "hypot_cpu")
    # The larger side times sqrt(1 + ratio^2), ratio <= 1: no square overflows (above
    # ~1e154 in float64) or underflows. Each branch of ``first`` is the whole function,
    # so the slopes x / h and y / h hold at ties. At the origin the value is 0 and the
    # slopes are 0 / 0 = NaN, as PyTorch's. Each branch sees 1 where the other is taken,
    # so that no NaN of an unused branch reaches a slope.
    infinite = logical_or(isinf(x), isinf(y))
    ax, ay = abs(where(infinite, 1.0, x)), abs(where(infinite, 1.0, y))
    first = compare("ge", ax, ay)
    larger, smaller = where(first, ax, ay), where(first, ay, ax)
    ratio = smaller / larger
    length = larger * sqrt(1 + ratio * ratio)
    length = where(logical_and(compare("eq", ax, 0), compare("eq", ay, 0)), 0.0, length)
    # Where a side is infinite: inf (even with NaN), slopes x / inf, y / inf (0 or NaN).
    xi, yi = where(infinite, x, 1.0), where(infinite, y, 1.0)
    endless = sqrt(xi * xi + yi * yi)
    return where(infinite, where(isnan(endless), math.inf, endless), length)


def logaddexp(input: Any, other: Any) -> Tensor:
    """``log(exp(x) + exp(y))`` without overflow; floats only (as in PyTorch).

    >>> import minigrad as mg
    >>> mg.logaddexp(mg.tensor([1000.0, float("-inf")]), mg.tensor(1000.0))
    tensor([1000.6932, 1000.    ])
    """
    tensor_arguments("logaddexp", input, other)
    x, y = operands("logaddexp", input, other)
    _not_for("logaddexp", x, "bi", "logaddexp_cpu")
    return apply(LOGADDEXP, (x, y))


def fmax(input: Any, other: Any) -> Tensor:
    """Elementwise maximum that ignores NaN (NaN only where both are NaN).

    On a tie the gradient goes to ``input``, as in PyTorch.

    >>> import minigrad as mg
    >>> nan = float("nan")
    >>> mg.fmax(mg.tensor([1.0, nan, nan]), mg.tensor([nan, 2.0, nan]))
    tensor([ 1.,  2., nan])
    """
    tensor_arguments("fmax", input, other)
    x, y = operands("fmax", input, other)
    return where(logical_or(compare("ge", x, y), isnan(y)), x, y)


def fmin(input: Any, other: Any) -> Tensor:
    """Elementwise minimum that ignores NaN (NaN only where both are NaN).

    >>> import minigrad as mg
    >>> mg.fmin(mg.tensor([1.0, float("nan")]), mg.tensor([3.0, 2.0]))
    tensor([1., 2.])
    """
    tensor_arguments("fmin", input, other)
    x, y = operands("fmin", input, other)
    return where(logical_or(compare("le", x, y), isnan(y)), x, y)


def nan_to_num(input: Any, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:  # fmt: skip
    """``input`` with NaN, +inf and -inf replaced (by default: 0 and the dtype's largest and
    smallest finite values). The gradient passes at finite elements only.

    >>> import minigrad as mg
    >>> mg.nan_to_num(mg.tensor([float("nan"), float("inf"), 1.0]), posinf=9.0)
    tensor([0., 9., 1.])
    """
    x = _tensor(input)
    if not dtypes.is_floating(x.dtype):
        return clone(x)
    info = dtypes.finfo(x.dtype)
    high = float(info.max) if posinf is None else posinf
    low = float(info.min) if neginf is None else neginf
    out = where(compare("eq", x, math.inf), high, x)
    out = where(compare("eq", x, -math.inf), low, out)
    return where(isnan(x), nan, out)
