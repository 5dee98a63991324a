"""The elementwise rows of the primitive table (lessons 04-05, 07).

Read each row as calculus: ``exp``'s cotangent is ``g * out`` because
d/dx e^x = e^x; its tangent is ``t * out`` for the same reason. Reverse and
forward mode are two readings of one derivative.

Inputs are first given one dtype (``dtypes.result_dtype``) and one shape
(``broadcast_to``), so the rules below never deal with broadcasting: its
gradient is handled once, by ``sum_to``, inside ``broadcast_to``'s own rule.
Inputs that need no derivative (constants) skip the explicit broadcast and
let the kernel broadcast them, which saves a node per Python number.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from minigrad import backends
from minigrad.backends.contract import StandIn, TracerError
from minigrad.backends.numpy_backend import ZIPS
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.mode import current
from minigrad.tensor.ops.broadcasting import broadcast_shape, common_shape, stretch_to
from minigrad.tensor.primitive import Primitive, aligned
from minigrad.tensor.record import apply, zeros_like


def _map(name: str, derivative: Any, saves: tuple = ()) -> Primitive:
    """An elementwise row of one input: ``backend.map(name, x)``."""
    return Primitive(name, lambda backend, x: backend.map(name, x),
                     derivatives=(derivative,), saves=saves, scalar=name)  # fmt: skip


def _zip(name: str, derivatives: tuple, saves: tuple = ()) -> Primitive:
    """An elementwise row of two inputs: ``backend.zip(name, x, y)``."""
    return Primitive(name, lambda backend, x, y: backend.zip(name, x, y),
                     derivatives=derivatives, saves=saves, scalar=name)  # fmt: skip


# Each derivative is ``v * d out / d x`` for a tangent or cotangent ``v``: the
# Jacobian of an elementwise op is diagonal, so forward and reverse mode read
# the same function. ``saves`` lists what the functions read.
# fmt: off
EXP = _map("exp", lambda v, out, x: v * out, saves=("out",))
LOG = _map("log", lambda v, out, x: v / x, saves=(0,))
SQRT = _map("sqrt", lambda v, out, x: v / (2 * out), saves=("out",))
# The derivatives of tanh, sigmoid and relu are v (1 - out^2), v out (1 - out)
# and v (x > 0); each is one fused primitive below (one kernel pass, not three).
TANH = _map("tanh", lambda v, out, x: apply(TANH_GRAD, (v, out)), saves=("out",))
SIGMOID = _map("sigmoid", lambda v, out, x: apply(SIGMOID_GRAD, (v, out)), saves=("out",))
RELU = _map("relu", lambda v, out, x: apply(RELU_GRAD, (v, x)), saves=(0,))
ABS = _map("abs", lambda v, out, x: v * sign(x), saves=(0,))
SIGN = _map("sign", lambda v, out, x: zeros_like(v))  # piecewise constant: slope 0 (PyTorch)
LOGICAL_NOT = _map("logical_not", None)

def _in_dtype_of(g: Tensor, x: Any) -> Tensor:
    """A cotangent in its input's dtype, as PyTorch's engine gives it: a 0-d float16 ``x``
    times a Python number computes in float32 (``x * 70000.0``), and so does its slope."""
    return g if g.dtype == x.dtype or not dtypes.is_floating(x.dtype) else g.to(x.dtype)


MUL = _zip("mul", (lambda v, out, x, y: _in_dtype_of(v * y, x), lambda v, out, x, y: x * v),
           saves=(0, 1))  # fmt: skip
DIV = _zip("div", (lambda v, out, x, y: _in_dtype_of(v / y, x),
                   lambda v, out, x, y: -v * (out / y)), saves=(1, "out"))  # fmt: skip
# d(x^y)/dy = x^y log x; PyTorch takes it as 0 where x == 0 and y >= 0.
POW = Primitive("pow", lambda backend, x, y: _power(backend, x, y),
                derivatives=(lambda v, out, x, y: v * _power_slope(x, y),
                             lambda v, out, x, y: v * _power_log_slope(x, y, out)),
                saves=(0, 1, "out"), scalar="pow")
# Where x == y the derivative does not exist; like PyTorch, split it evenly.
MAXIMUM = _zip("maximum", (lambda v, out, x, y: _given(v, x, y),
                           lambda v, out, x, y: _given(v, y, x)), saves=(0, 1))
MINIMUM = _zip("minimum", (lambda v, out, x, y: _given(v, y, x),
                           lambda v, out, x, y: _given(v, x, y)), saves=(0, 1))
# Fused derivatives (lesson 10): tanh_grad(g, y) = g (1 - y^2), sigmoid_grad(g, y)
# = g y (1 - y), relu_grad(g, x) = g where x > 0. Linear in g, so the derivative
# in g is the primitive itself; the one in y is the product rule. relu_grad is
# piecewise constant in x.
TANH_GRAD = _zip("tanh_grad", (lambda v, out, g, y: apply(TANH_GRAD, (v, y)),
                               lambda v, out, g, y: -2 * v * g * y), saves=(0, 1))
SIGMOID_GRAD = _zip("sigmoid_grad", (lambda v, out, g, y: apply(SIGMOID_GRAD, (v, y)),
                                     lambda v, out, g, y: v * g * (1 - 2 * y)), saves=(0, 1))
RELU_GRAD = _zip("relu_grad", (lambda v, out, g, x: apply(RELU_GRAD, (v, x)), None), saves=(1,))

# Linear rows: forward mode applies the op to the tangents; reverse mode its transpose.
NEG = Primitive("neg", lambda backend, x: backend.map("neg", x),
                linear=(lambda g, x: -g,), scalar="neg")
ADD = Primitive("add", lambda backend, x, y: backend.zip("add", x, y),
                linear=(lambda g, x, y: g, lambda g, x, y: g), scalar="add")
SUB = Primitive("sub", lambda backend, x, y: backend.zip("sub", x, y),
                linear=(lambda g, x, y: g, lambda g, x, y: -g), scalar="sub")
# fmt: on

POW_SCALAR = Primitive(
    "pow_scalar",
    lambda backend, x, exponent: backend.zip("pow", x, backend.full((), exponent, x.dtype)),
    derivatives=(lambda v, out, x, exponent: v * _power_slope(x, exponent),),
    saves=(0,),
    scalar="pow",
)
COMPARISONS = {
    name: _zip(name, (None, None))
    for name in ("lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or")
}
WHERE = Primitive(
    "where",
    lambda backend, cond, x, y: backend.where(cond, x, y),
    derivatives=(
        None,
        lambda v, out, c, x, y: where(c, v, 0.0),
        lambda v, out, c, x, y: where(c, 0.0, v),
    ),
    saves=(0,),
    scalar="where",
)


def _power(backend: Any, x: Any, y: Any) -> Any:
    """``x ** y``: the kernel for floats; integers on the host, PyTorch's way
    (an integer to a negative power is 0, or 1 or -1 for a base of 1 or -1)."""
    if dtypes.is_floating(x.dtype):
        return backend.zip("pow", x, y)
    try:
        base, exponent = backend.to_numpy(x), backend.to_numpy(y)
    except TracerError:  # tracing (lesson 13): only the shape and dtype of the result
        stand_in = x if isinstance(x, StandIn) else y
        return stand_in.like(np.broadcast_shapes(x.shape, y.shape), x.dtype)
    return backend.from_numpy(np.asarray(ZIPS["pow"](base, exponent), dtype=x.dtype))


def _share(x: Tensor, y: Tensor) -> Tensor:
    """0 where x loses, 1/2 on a tie, else 1 (a constant).

    "Else" includes NaN on either side: PyTorch gives the whole gradient to
    both operands there, as neither loses a comparison with NaN.
    """
    loses = (x < y).to(x.dtype if dtypes.is_floating(x.dtype) else dtypes.DEFAULT_FLOAT)
    share = 1.0 - loses - 0.5 * (x == y)  # (a number minus a mask is refused, as PyTorch)
    return share if share.dtype == x.dtype or not dtypes.is_floating(x.dtype) else share.to(x.dtype)


def _given(v: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """The part of ``v`` that reaches the winner ``x`` of ``maximum(x, y)``: ``v * _share``,
    and 0 where ``x`` loses even for an infinite ``v`` (PyTorch fills it in: not inf * 0)."""
    return where(x < y, 0.0, v * _share(x, y))


def _power_slope(x: Tensor, exponent: Tensor | float) -> Tensor:
    """d(x^p)/dx = p x^(p-1), and 0 where p == 0 (as PyTorch: not 0 * inf at x == 0).

    Where p == 0 the formula is evaluated at p = 1 and then dropped. The dropped
    branch must stay finite: differentiating this slope again (a second
    derivative) sends a zero cotangent through it, and 0 * inf would be nan.
    """
    if isinstance(exponent, Tensor):
        zero = exponent == 0
        safe = where(zero, 1.0, exponent)
        return where(zero, 0.0, safe * x ** (safe - 1))
    if exponent == 0:
        return zeros_like(x)  # not 0 * x, which is nan at x = inf
    return exponent * power(x, exponent - 1)


def _power_log_slope(x: Tensor, y: Tensor, out: Tensor) -> Tensor:
    """d(x^y)/dy = x^y log x, taken as 0 where x == 0 and y >= 0 (as PyTorch).

    log is read at 1 where the slope is dropped, for the reason given in ``_power_slope``.
    """
    dropped = (x == 0) & (y >= 0)
    return where(dropped, 0.0, out * log(where(dropped, 1.0, x)))


# -- preparing operands --------------------------------------------------------
def _constant(value: Any, dtype: Any, device: str) -> Tensor:
    data = backends.for_device(device).from_numpy(np.asarray(value, dtype=dtype))
    return Tensor.concrete._wrap(data, device)


# Operations that refuse a Python integer beyond their integer dtype instead of wrapping it.
_NO_WRAP = {"power", "where", "clamp"}


def _fitted(op: str, value: Any, dtype: np.dtype) -> Any:
    """A Python integer made to fit an integer ``dtype`` as PyTorch's scalars are: read as a
    64-bit two's-complement number (2**63 to 2**64 - 1 wrap around) and cut to ``dtype``'s
    bits (``int32_tensor | 0xFFFFFFFF`` is ``| -1``); beyond 64 bits an OverflowError;
    ``pow``, ``where`` and ``clamp`` refuse a value beyond ``dtype`` (RuntimeError)."""
    if type(value) is not int or dtype.kind not in "iu":
        return value
    info = np.iinfo(dtype)
    if info.min <= value <= info.max:
        return value
    if not -(2**63) <= value < 2**64:
        raise OverflowError(
            ("int too big to convert" if value > 0 else "can't convert negative int to unsigned")
            + f"\n{op}: {value} needs more than 64 bits"
        )
    if op in _NO_WRAP:
        name = {"int32": "int", "int64": "int64_t"}.get(dtype.name, dtype.name)
        raise RuntimeError(
            f"value cannot be converted to type {name} without overflow\n"
            f"{op}: {value} does not fit {dtype.name}"
        )
    return np.int64((value + 2**63) % 2**64 - 2**63).astype(dtype)


# Python's own error text names the operator symbol, as PyTorch's does.
_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "** or pow()"}


def _needs_derivative(t: Tensor) -> bool:
    return (t.requires_grad and current().grad_enabled) or bool(t._tangents)


def operands(
    op: str, *args: Any, floating: bool = False, scalar_second: bool = False
) -> list[Tensor]:
    """Turn ``args`` (tensors and Python numbers) into tensors of one dtype and shape.

    With ``scalar_second`` (PyTorch's multiply and divide, lesson 15), a Python number or
    a 0-d float constant in second place, after a float16/bfloat16 tensor (a Python number
    after a 0-d one too), joins in float32 rather than rounded to 16 bits first:
    ``half_tensor * 65536.0`` is 32768 where 0.5 * 65536 is (65536 itself is beyond
    float16's range). PyTorch's other kernels, and
    these with the constant first, round it to the result's dtype first; so do these.
    """
    tensors = [a for a in args if isinstance(a, Tensor)]
    for a in args:
        if not isinstance(a, (Tensor, int, float, bool)) and not hasattr(a, "__array__"):
            names = " and ".join(repr(type(b).__name__) for b in args)
            raise TypeError(
                f"unsupported operand type(s) for {_SYMBOLS.get(op, op)}: {names}\n"
                f"{op}: use Tensors, NumPy arrays or Python numbers, not {type(a).__name__}"
            )
    device = tensors[0].device if tensors else "cpu"
    args = [
        a if isinstance(a, (Tensor, int, float, bool)) else Tensor.concrete(a, device=device)
        for a in args
    ]
    tensors = [a for a in args if isinstance(a, Tensor)]
    scalars = [a for a in args if not isinstance(a, Tensor)]
    # A 0-d tensor joins in as a number would, unless it is of a higher kind (PyTorch).
    dtype = dtypes.result_dtype([t.dtype for t in tensors if t.ndim], scalars,
                                [t.dtype for t in tensors if not t.ndim])  # fmt: skip
    if floating and not dtypes.is_floating(dtype):
        dtype = dtypes.DEFAULT_FLOAT
    second = dtypes.compute_dtype(dtype) if scalar_second else dtype  # see the docstring
    result = []
    for k, a in enumerate(args):
        target = second if k == 1 else dtype
        if not isinstance(a, Tensor):
            a = _constant(_fitted(op, a, np.dtype(target)), target, device)
        elif a.dtype != dtype:
            # a 0-d float constant wider than 16 bits; one that needs a gradient is cast,
            # so that its gradient arrives in its own dtype
            constant = not a.ndim and dtypes.is_floating(a.dtype) and a.dtype.itemsize > 2
            a = a.to(target if constant and not _needs_derivative(a) else dtype)
        result.append(a)
    shapes = [t.shape for t in result]
    if any(s != shapes[0] for s in shapes):
        shape = common_shape(shapes, op)
        result = [stretch_to(t, shape) if _needs_derivative(t) else t for t in result]
    return result


def _binary(prim: Primitive, x: Any, y: Any, floating: bool = False) -> Tensor:
    # Fast paths for the common cases, which need no promotion and no broadcast
    # node: a float tensor with a Python number (the number takes the tensor's
    # dtype), and two tensors of one dtype whose shapes are equal or where one is
    # a 0-d constant (the kernel broadcasts it; no derivative flows to it).
    # (Written for speed: every operation of a training step passes here.)
    T = Tensor.concrete
    tx, ty = type(x), type(y)
    # (A number meeting float16 takes the general path: it joins in float32.)
    if (
        tx is T
        and (ty is float or ty is int)
        and x.data.dtype.kind == "f"
        and x.data.dtype.itemsize > 2
    ):
        y, ty = _constant(y, x.data.dtype, x.device), T
    elif (
        ty is T
        and (tx is float or tx is int)
        and y.data.dtype.kind == "f"
        and y.data.dtype.itemsize > 2
    ):
        x, tx = _constant(x, y.data.dtype, y.device), T
    if tx is T and ty is T:
        a, b = x.data, y.data
        if (
            a.dtype == b.dtype
            and (not floating or a.dtype.kind == "f")
            and (
                a.shape == b.shape
                or (not b.shape and not _needs_derivative(y))
                or (not a.shape and not _needs_derivative(x))
            )
        ):
            return apply(prim, (x, y))
    # A 0-d x takes a Python number so too (PyTorch's rule for every 16-bit tensor); not a
    # 0-d tensor, which a 0-d x promotes with (its slope comes back in x's dtype: MUL, DIV).
    wide = (prim.name in ("mul", "div") and isinstance(x, Tensor)
            and (x.ndim > 0 or not isinstance(y, Tensor)))  # fmt: skip
    return apply(prim, tuple(operands(prim.name, x, y, floating=floating, scalar_second=wide)))


def _unary(prim: Primitive, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        x = Tensor.concrete(x)
    if not dtypes.is_floating(x.dtype) and prim not in (NEG, ABS, SIGN, LOGICAL_NOT):
        x = x.to(dtypes.DEFAULT_FLOAT)
    return apply(prim, (x,))


# -- the public functions --------------------------------------------------------
def add(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input + alpha * other`` with broadcasting (PyTorch's ``torch.add``).

    >>> import minigrad as mg
    >>> mg.add(mg.tensor([1.0, 2.0]), 1), mg.add(mg.tensor([1.0, 2.0]), 1, alpha=10)
    (tensor([2., 3.]), tensor([11., 12.]))
    """
    if type(alpha) is not int or alpha != 1:
        return _binary(ADD, *_scaled("add", input, other, alpha))
    return _binary(ADD, input, other)


def sub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input - alpha * other`` with broadcasting (not for bool tensors, as in PyTorch)."""
    _refuse_bool_sub(input, other)
    if type(alpha) is not int or alpha != 1:
        return _binary(SUB, *_scaled("sub", input, other, alpha))
    return _binary(SUB, input, other)


subtract = sub  # PyTorch's alias


def _scaled(op: str, input: Any, other: Any, alpha: Any) -> tuple[Tensor, Tensor]:
    """``input`` and ``alpha * other`` in their common dtype, with PyTorch's checks of
    ``alpha`` (a float alpha needs a float result, a bool alpha a bool one). The product is
    rounded before the sum (PyTorch fuses the two: the last bit may differ)."""
    if isinstance(alpha, Tensor) and alpha.ndim == 0:  # a 0-d tensor is a number (PyTorch)
        alpha = alpha.item()
    if isinstance(alpha, Tensor) or not isinstance(alpha, (int, float)):
        raise TypeError(
            f"{op}(): argument 'alpha' must be Number, not {type(alpha).__name__}\n"
            f"{op}: give alpha as a Python number, e.g. alpha=2"
        )
    x, y = operands(op, input, other)
    if isinstance(alpha, bool) and x.dtype != dtypes.bool_:
        raise RuntimeError(
            "Boolean alpha only supported for Boolean results.\n"
            f"{op}: the result is {x.dtype.name}; give alpha as a number, e.g. alpha=1"
        )
    if isinstance(alpha, float) and not dtypes.is_floating(x.dtype):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number.\n"
            f"{op}: the result is {x.dtype.name}; convert first, e.g. x.to(mg.float32)"
        )
    if x.dtype == dtypes.bool_:  # alpha is read as a bool, as PyTorch casts it
        return x, mul(y, bool(alpha))
    return x, mul(y, alpha)


def mul(input: Any, other: Any) -> Tensor:
    """``input * other`` with broadcasting; its gradient in ``input`` is ``g * other`` (the
    row saves both)."""
    return _binary(MUL, input, other)


multiply = mul  # PyTorch's alias


def true_divide(input: Any, other: Any) -> Tensor:
    """True division; integer inputs give float32, as in PyTorch (``mg.div`` with no
    ``rounding_mode``; ``mg.div`` also rounds, see ``minigrad.tensor.ops.arithmetic.div``)."""
    return _binary(DIV, input, other, floating=True)


div = true_divide  # the operators' spelling here; ``mg.div`` (arithmetic) also rounds


def power(x: Any, y: Any) -> Tensor:
    """``x ** y`` (also ``mg.pow``, ``x.pow(y)``); a Python-number exponent is a parameter,
    not an input."""
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):  # mg.pow(2, 3), as PyTorch
        raise parser_error(
            "pow",
            (x, y),
            "(Tensor input, Tensor exponent, *, Tensor out = None)",
            "(Number self, Tensor exponent, *, Tensor out = None)",
            "(Tensor input, Number exponent, *, Tensor out = None)",
        )
    if isinstance(x, Tensor) and isinstance(y, (int, float)) and not isinstance(y, bool):
        if not dtypes.is_floating(x.dtype) and not isinstance(y, int):
            x = x.to(dtypes.DEFAULT_FLOAT)  # 4 ** 0.5 is 2.0, not 4 ** 0 (PyTorch promotes)
        elif x.dtype == dtypes.bool_:
            x = x.to(dtypes.int64)  # True ** 2 is the integer 1, as PyTorch
        if not dtypes.is_floating(x.dtype) and y < 0:
            raise RuntimeError(
                "Integers to negative integer powers are not allowed.\n"
                f"power: a {x.dtype.name} tensor to the power {y}; use a float, "
                f"e.g. x.to(mg.float32) ** {y}"
            )
        if not dtypes.is_floating(x.dtype):
            _fitted("power", y, x.dtype)  # an exponent beyond the dtype: torch's error
        return apply(POW_SCALAR, (x,), exponent=y)
    if all(dtypes.is_integer(t) or isinstance(t, bool) or (isinstance(t, Tensor) and
           t.dtype.kind in "biu") for t in (x, y)):  # fmt: skip
        # Integers to integer powers stay integers, as PyTorch (bools count as int64).
        if (
            isinstance(y, Tensor)
            and y.dtype == dtypes.bool_
            and (isinstance(x, bool) or (isinstance(x, Tensor) and x.dtype == dtypes.bool_))
        ):  # a bool tensor as the power of a bool (``mask ** True`` is fine, as in PyTorch)
            raise NotImplementedError(
                "\"pow\" not implemented for 'Bool'\npower: convert one side first, "
                "e.g. x.to(mg.int64)"
            )
        x, y = operands("power", x, y)
        if x.dtype == dtypes.bool_:  # a bool tensor to a bool power: 1 ** 1, 0 ** 1, ... ** 0
            return apply(POW, (x.to(dtypes.int64), y.to(dtypes.int64))).to(dtypes.bool_)
        return apply(POW, (x, y))
    return _binary(POW, x, y, floating=True)


pow = power  # PyTorch's name (``torch.pow``); ``power`` is NumPy's


def tensor_arguments(op: str, *values: Any, method: bool = False,
                     names: tuple[str, ...] = ("input", "other")) -> None:  # fmt: skip
    """PyTorch's TypeError for a function that takes tensors only (``torch.maximum(x, 2.0)``,
    ``atan2``, ``hypot``, ``logical_and``, ...): the first argument that is not a tensor,
    named and counted as PyTorch counts it (a method's ``other`` is position 1).

    >>> tensor_arguments("maximum", 2.0)
    Traceback (most recent call last):
    TypeError: maximum(): argument 'input' (position 1) must be Tensor, not float
    maximum takes tensors only, as PyTorch's: give the number as a tensor, e.g. mg.tensor(2.0)
    """
    names = names[1:] if method else names
    for position, (name, value) in enumerate(zip(names, values), start=1):
        if not isinstance(value, Tensor):
            example = (
                "an array as a tensor, e.g. mg.from_numpy(a)"
                if isinstance(value, np.ndarray)
                else "the number as a tensor, e.g. mg.tensor(2.0)"
            )
            raise TypeError(
                f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
                f"{dtypes.type_name(value)}\n{op} takes tensors only, as PyTorch's: give "
                f"{example}"
            )


def no_numbers(op: str, *values: Any, method: bool = False,
               names: tuple[str, ...] = ("input", "other")) -> None:  # fmt: skip
    """``tensor_arguments`` for the Python numbers among ``values`` only (for functions that
    take lists and NumPy arrays too).

    >>> no_numbers("topk", 2.0)
    Traceback (most recent call last):
    TypeError: topk(): argument 'input' (position 1) must be Tensor, not float
    topk takes tensors only, as PyTorch's: give the number as a tensor, e.g. mg.tensor(2.0)
    """
    if any(isinstance(v, numbers.Number) for v in values):
        tensor_arguments(op, *values, method=method, names=names)


def parser_error(op: str, values: Any, *signatures: str, extra: str = "") -> TypeError:
    """PyTorch's TypeError where its argument parser finds no overload: the types it got
    (``extra`` after them) and the signatures it expected.

    >>> print(parser_error("eq", (2, 3.0), "(Tensor input, Tensor other)"))
    eq() received an invalid combination of arguments - got (int, float), but expected one of:
     * (Tensor input, Tensor other)
    """
    got = ", ".join("Tensor" if isinstance(v, Tensor) else dtypes.type_name(v) for v in values)
    expected = "\n".join(f" * {signature}" for signature in signatures)
    return TypeError(
        f"{op}() received an invalid combination of arguments - got ({got}{extra}), but "
        f"expected one of:\n{expected}"
    )


def invalid_combination(op: str, *values: Any, signature: str) -> None:
    """``parser_error`` for a Python number as the first argument
    (``torch.tensor_split(2.0, 1)``)."""
    if isinstance(values[0], numbers.Number):
        raise parser_error(op, values, signature)


def tensor_first(op: str, input: Any, other: Any) -> None:
    """PyTorch's TypeError for a function whose ``other`` may be a number but whose ``input``
    must be a tensor (``torch.eq(2, x)``, ``copysign``, ``fmod``, ``clamp_min``)."""
    if not isinstance(input, Tensor):
        raise parser_error(
            op, (input, other), "(Tensor input, Tensor other)", "(Tensor input, Number other)"
        )


def maximum(input: Any, other: Any) -> Tensor:
    """Elementwise maximum of two tensors; on ties each side gets half the gradient.

    A Python number is refused, as in PyTorch (``clamp(x, min=0)`` is the spelling).

    >>> import minigrad as mg
    >>> mg.maximum(mg.tensor([1.0, 5.0]), mg.tensor([3.0, 2.0]))
    tensor([3., 5.])
    """
    tensor_arguments("maximum", input, other)
    return _binary(MAXIMUM, input, other)


def minimum(input: Any, other: Any) -> Tensor:
    """Elementwise minimum of two tensors; on ties each side gets half the gradient."""
    tensor_arguments("minimum", input, other)
    return _binary(MINIMUM, input, other)


def compare(name: str, x: Any, y: Any) -> Tensor:
    """``x < y`` and friends (``name`` in lt le gt ge eq ne): a bool tensor."""
    return _binary(COMPARISONS[name], x, y)


def where(cond: Any, x: Any, y: Any) -> Tensor:
    """``x`` where ``cond`` holds, else ``y`` (broadcast together).

    >>> import minigrad as mg
    >>> mg.where(mg.tensor([True, False]), 1.0, mg.tensor([5.0, 6.0]))
    tensor([1., 6.])
    """
    cond = cond if isinstance(cond, Tensor) else Tensor.concrete(cond)
    if cond.dtype != dtypes.bool_:
        cond = cond != 0
    x, y = operands("where", x, y)
    if cond.device != x.device:
        cond = cond.to(x.device)
    shape = broadcast_shape(cond.shape, x.shape, y.shape, op="where")
    if x.shape != shape and _needs_derivative(x):
        x = stretch_to(x, shape)
    if y.shape != shape and _needs_derivative(y):
        y = stretch_to(y, shape)
    return apply(WHERE, (cond, x, y))


_BOOL_NEGATION = (
    "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."
)


def _refuse_bool_sub(x: Any, y: Any) -> None:
    """PyTorch's error for ``-`` with a bool tensor on either side (or a bool number beside
    a tensor): ``1.0 - mask`` is refused, as in PyTorch; ``~mask`` or ``1.0 - mask.float()``
    say what is meant."""
    tx, ty = isinstance(x, Tensor), isinstance(y, Tensor)
    if not (tx or ty):
        return
    bx = (tx and x.data.dtype.kind == "b") or isinstance(x, (bool, np.bool_))
    by = (ty and y.data.dtype.kind == "b") or isinstance(y, (bool, np.bool_))
    if bx and by:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead."
        )
    if bx or by:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def neg(x: Any) -> Tensor:
    """``-x``: a linear row, its own transpose up to sign (a bool tensor is an error)."""
    if isinstance(x, Tensor) and x.data.dtype.kind == "b":
        raise RuntimeError(_BOOL_NEGATION)
    return _unary(NEG, x)


def exp(x: Any) -> Tensor:
    """e to the ``x``; the derivative is the output itself, so the row saves only the output."""
    return _unary(EXP, x)


def log(x: Any) -> Tensor:
    """The natural logarithm (``-inf`` at 0, NaN below); integer inputs give float32."""
    return _unary(LOG, x)


def sqrt(x: Any) -> Tensor:
    """The square root; its derivative ``1 / (2 sqrt(x))`` reads the saved output."""
    return _unary(SQRT, x)


def tanh(x: Any) -> Tensor:
    """The hyperbolic tangent; its derivative ``1 - out**2`` reads the saved output."""
    return _unary(TANH, x)


def sigmoid(x: Any) -> Tensor:
    """1 / (1 + e^-x), computed without overflow for large ``|x|``."""
    return _unary(SIGMOID, x)


def relu(x: Any) -> Tensor:
    """max(x, 0); its derivative at 0 is taken as 0 (as PyTorch). Integers stay integers.

    >>> import minigrad as mg
    >>> mg.relu(mg.tensor([-2, 3]))
    tensor([0, 3])
    """
    if isinstance(x, Tensor) and x.data.dtype.kind in "biu":
        if x.data.dtype.kind == "b":
            raise RuntimeError(
                "Boolean inputs not supported for relu\nrelu: convert first, e.g. x.to(mg.int64)"
            )
        return apply(RELU, (x,))
    return _unary(RELU, x)


def abs(x: Any) -> Tensor:
    """``|x|``; the slope at 0 is taken as 0 (as PyTorch). Not for bool tensors (PyTorch's
    error)."""
    if isinstance(x, Tensor) and x.data.dtype.kind == "b":
        raise NotImplementedError(
            "\"abs_cpu\" not implemented for 'Bool'\nabs: a bool is its own absolute value"
        )
    return _unary(ABS, x)


def sign(x: Any) -> Tensor:
    """-1, 0 or 1 by the sign of ``x``; piecewise constant, so its gradient is 0.

    A bool tensor's sign is itself (a new bool tensor), as in PyTorch.
    """
    if isinstance(x, Tensor) and x.data.dtype.kind == "b":
        return compare("ne", x, False)
    return _unary(SIGN, x)


def logical_not(x: Any) -> Tensor:
    return _unary(LOGICAL_NOT, x)


# -- bitwise logic: & | ~ ------------------------------------------------------------
# On integers these act on the bits (6 & 3 == 2), on bools they are and/or/not.
# No derivative: the values are whole numbers. The backends have no bitwise
# kernel, so the rows run NumPy's on the host (a copy each way on the GPU).
def _on_host(function: Any) -> Any:
    # (A ufunc of 0-d arrays returns a NumPy scalar; from_numpy makes it an array.)
    return lambda backend, *xs: backend.from_numpy(function(*map(backend.to_numpy, xs)))


# Elementwise without a scalar body, so their batch rules are written out (lesson 14).
BITWISE_AND = Primitive(
    "bitwise_and",
    _on_host(np.bitwise_and),
    batch=lambda xs, batched: apply(BITWISE_AND, tuple(aligned(xs, batched))),
)
BITWISE_OR = Primitive(
    "bitwise_or",
    _on_host(np.bitwise_or),
    batch=lambda xs, batched: apply(BITWISE_OR, tuple(aligned(xs, batched))),
)
BITWISE_NOT = Primitive(
    "bitwise_not",
    _on_host(np.invert),
    batch=lambda xs, batched: apply(BITWISE_NOT, tuple(xs)),
)
BITWISE_XOR = Primitive(
    "bitwise_xor",
    _on_host(np.bitwise_xor),
    batch=lambda xs, batched: apply(BITWISE_XOR, tuple(aligned(xs, batched))),
)


def _shifted(left: bool) -> Any:
    """PyTorch's shifts: a count below 0 or of the width or more gives 0 (left) or the sign
    fill (right), where C and NumPy leave the result undefined."""

    def shift(x: np.ndarray, count: np.ndarray) -> np.ndarray:
        bits = x.dtype.itemsize * 8
        wide = np.asarray(count, np.int64)
        outside = (wide < 0) | (wide >= bits)
        safe = np.where(outside, 0, wide).astype(x.dtype)
        if left:
            return np.where(outside, 0, np.left_shift(x, safe)).astype(x.dtype)
        return np.where(outside, np.right_shift(x, bits - 1), np.right_shift(x, safe)).astype(
            x.dtype
        )

    return shift


BITWISE_LEFT_SHIFT = Primitive(
    "bitwise_left_shift",
    _on_host(_shifted(True)),
    batch=lambda xs, batched: apply(BITWISE_LEFT_SHIFT, tuple(aligned(xs, batched))),
)
BITWISE_RIGHT_SHIFT = Primitive(
    "bitwise_right_shift",
    _on_host(_shifted(False)),
    batch=lambda xs, batched: apply(BITWISE_RIGHT_SHIFT, tuple(aligned(xs, batched))),
)

# PyTorch's names of the dtypes, as its kernels' errors print them.
_TORCH_NAMES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes


def _check_bitwise(kernel: str, dtype: np.dtype, bools: bool = True) -> None:
    """PyTorch's NotImplementedError for a dtype its bitwise kernel lacks (floats; bools for
    the shifts)."""
    if dtype.kind not in ("biu" if bools else "iu"):
        name = _TORCH_NAMES.get(dtype.name, dtype.name)
        raise NotImplementedError(
            f"\"{kernel}_cpu\" not implemented for '{name}'\n{kernel}: works on the bits of "
            f"integers{' and on bools' if bools else ''}; got {dtype.name}. For a condition on "
            "floats, compare first: e.g. (x > 0) & (y < 1)"
        )


def _not_two_numbers(op: str, x: Any, y: Any) -> None:
    """PyTorch's TypeError for a binary function given two numbers (``bitwise_and(2, 3)``)."""
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        raise parser_error(
            op, (x, y), "(Tensor input, Tensor other, *, Tensor out = None)",
            "(Number self, Tensor other)", "(Tensor input, Number other, *, Tensor out = None)",
        )  # fmt: skip


def bitwise_and(x: Any, y: Any) -> Tensor:
    """``x & y``: the bits both have on integers, logical and on bools (as PyTorch).

    >>> import minigrad as mg
    >>> mg.tensor([6, 3]) & mg.tensor([3, 5]), mg.tensor([True, True]) & mg.tensor([True, False])
    (tensor([2, 1]), tensor([ True, False]))
    """
    _not_two_numbers("bitwise_and", x, y)
    x, y = operands("bitwise_and", x, y)
    _check_bitwise("bitwise_and", x.dtype)
    prim = COMPARISONS["logical_and"] if x.dtype == dtypes.bool_ else BITWISE_AND
    return apply(prim, (x, y))


def bitwise_or(x: Any, y: Any) -> Tensor:
    """``x | y``: the bits either has on integers, logical or on bools (as PyTorch).

    >>> import minigrad as mg
    >>> mg.tensor([6, 3]) | mg.tensor([3, 5]), mg.tensor([True, False]) | False
    (tensor([7, 7]), tensor([ True, False]))
    """
    _not_two_numbers("bitwise_or", x, y)
    x, y = operands("bitwise_or", x, y)
    _check_bitwise("bitwise_or", x.dtype)
    prim = COMPARISONS["logical_or"] if x.dtype == dtypes.bool_ else BITWISE_OR
    return apply(prim, (x, y))


def bitwise_xor(x: Any, y: Any) -> Tensor:
    """``x ^ y``: the bits exactly one has on integers, logical xor on bools (as PyTorch).

    >>> import minigrad as mg
    >>> mg.tensor([6, 3]) ^ mg.tensor([3, 5]), mg.tensor([True, True]) ^ mg.tensor([True, False])
    (tensor([5, 6]), tensor([False,  True]))
    """
    _not_two_numbers("bitwise_xor", x, y)
    x, y = operands("bitwise_xor", x, y)
    _check_bitwise("bitwise_xor", x.dtype)
    return apply(COMPARISONS["ne"] if x.dtype == dtypes.bool_ else BITWISE_XOR, (x, y))


def bitwise_left_shift(x: Any, y: Any) -> Tensor:
    """``x << y``: integers' bits moved left (``x * 2**y`` with wraparound); a count below 0
    or of the dtype's width or more gives 0, as in PyTorch.

    >>> import minigrad as mg
    >>> mg.tensor([1, -3, 5]) << mg.tensor([3, 1, 64])
    tensor([ 8, -6,  0])
    """
    _not_two_numbers("bitwise_left_shift", x, y)
    x, y = operands("bitwise_left_shift", x, y)
    _check_bitwise("lshift", x.dtype, bools=False)
    return apply(BITWISE_LEFT_SHIFT, (x, y))


def bitwise_right_shift(x: Any, y: Any) -> Tensor:
    """``x >> y``: integers' bits moved right with the sign copied in (``floor(x / 2**y)``);
    a count below 0 or of the dtype's width or more gives the sign (0 or -1), as in PyTorch.

    >>> import minigrad as mg
    >>> mg.tensor([16, -3, -5]) >> mg.tensor([2, 1, 70])
    tensor([ 4, -2, -1])
    """
    _not_two_numbers("bitwise_right_shift", x, y)
    x, y = operands("bitwise_right_shift", x, y)
    _check_bitwise("rshift", x.dtype, bools=False)
    return apply(BITWISE_RIGHT_SHIFT, (x, y))


def bitwise_not(x: Any) -> Tensor:
    """``~x``: every bit flipped on integers (``~n == -n - 1``), logical not on bools.

    >>> import minigrad as mg
    >>> ~mg.tensor([0, 5]), ~mg.tensor([True, False])
    (tensor([-1, -6]), tensor([False,  True]))
    """
    if not isinstance(x, Tensor):
        x = Tensor.concrete(x)
    _check_bitwise("bitwise_not", x.dtype)
    return apply(LOGICAL_NOT if x.dtype == dtypes.bool_ else BITWISE_NOT, (x,))


def invert(x: Tensor) -> Tensor:
    """``~x``, the operator: ``bitwise_not``, but a float tensor is PyTorch's TypeError.

    >>> import minigrad as mg
    >>> ~mg.tensor([0, 5])
    tensor([-1, -6])
    """
    if x.dtype.kind not in "biu":
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors\n"
            f"got {x.dtype.name}; for a condition on floats, compare first: e.g. ~(x > 0)"
        )
    return bitwise_not(x)
