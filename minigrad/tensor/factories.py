"""Making tensors: from data, from a shape, from a random generator (lesson 04).

**Random numbers in a traced program** (lesson 13). ``randn`` and ``rand``
draw from one generator whose state every draw changes. When ``jit`` traces a
function, a draw is written into the graph as a ``draw`` operation, not as
the numbers it happened to give then: the compiled program draws from the
same generator each time it runs, so ``jit(dropout)`` gets a new mask on
every call, the very numbers eager mode would have drawn. Checkpointing
replays draws (``random_state`` / ``replaying``), in both modes.

>>> import minigrad as mg
>>> mg.tensor([1, 2]).dtype, mg.tensor([1.0, 2.0]).dtype
(dtype('int64'), dtype('float32'))
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from minigrad import backends
from minigrad.tensor import dtypes
from minigrad.tensor.base import as_array
from minigrad.tensor.mode import current
from minigrad.tensor.ops.broadcasting import ShapeError
from minigrad.tensor.ops.movement import sizes
from minigrad.tensor.ops.spacing import evenly_spaced
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.tensor import Tensor

_generator = np.random.default_rng(0)
_seed = 0  # what the generator last started from (``mg.initial_seed``)


def manual_seed(seed: int) -> None:
    """Seed the generator behind ``randn`` and ``rand`` (and ``nn`` initialisation)."""
    global _generator, _seed
    _generator = np.random.default_rng(seed)
    _seed = int(seed)


def initial_seed() -> int:
    """The seed the generator behind ``randn`` and ``rand`` last started from."""
    return _seed


def generator() -> np.random.Generator:
    """The NumPy generator minigrad draws random numbers from."""
    return _generator


def tensor(
    data: Any, dtype: Any = None, requires_grad: bool = False, device: str = "cpu"
) -> Tensor:
    """A tensor holding ``data`` (numbers, nested lists, a NumPy array, a Tensor).

    >>> import minigrad as mg
    >>> mg.tensor([[1.0, 2.0]], requires_grad=True).shape
    (1, 2)
    """
    return Tensor(data, dtype=dtype, requires_grad=requires_grad, device=device)


def full(shape: Any, fill_value: float, dtype: Any = None, requires_grad: bool = False,
         device: str = "cpu") -> Tensor:  # fmt: skip
    """A tensor of ``shape`` with every element ``fill_value``.

    >>> import minigrad as mg
    >>> mg.full((2,), 7)
    tensor([7, 7])
    """
    shape = sizes((shape,), "full")
    # The fill value is checked as data is: 2**70 does not fit int64, so it is an error.
    if dtype is None and isinstance(fill_value, np.generic):
        fill_value = fill_value.item()  # a number's type, not NumPy's, picks the dtype
    value = as_array(fill_value, dtype).reshape(())
    data = backends.for_device(device).full(shape, value.item(), value.dtype)
    return Tensor._wrap(data, device).requires_grad_(requires_grad)


def zeros(*shape: Any, dtype: Any = dtypes.float32, requires_grad: bool = False,
          device: str = "cpu") -> Tensor:  # fmt: skip
    """A tensor of zeros: ``mg.zeros(2, 3)`` or ``mg.zeros((2, 3))``."""
    return full(sizes(shape, "zeros"), 0, dtype, requires_grad, device)


def ones(*shape: Any, dtype: Any = dtypes.float32, requires_grad: bool = False,
         device: str = "cpu") -> Tensor:  # fmt: skip
    """A tensor of ones: ``mg.ones(2, 3)`` or ``mg.ones((2, 3))``."""
    return full(sizes(shape, "ones"), 1, dtype, requires_grad, device)


def empty(*shape: Any, dtype: Any = dtypes.float32, requires_grad: bool = False,
          device: str = "cpu") -> Tensor:  # fmt: skip
    """A tensor whose values are not to be read before they are written (PyTorch's
    ``empty``: memory left as it was; here it is zeros, which any use may overwrite).

    >>> import minigrad as mg
    >>> mg.empty(2, 3).shape
    (2, 3)
    """
    return full(sizes(shape, "empty"), 0, dtype, requires_grad, device)


def empty_like(x: Tensor, dtype: Any = None, requires_grad: bool = False, *,
               device: Any = None) -> Tensor:  # fmt: skip
    """``empty`` of ``x``'s shape (and dtype and device, unless given)."""
    return full(x.shape, 0, dtype or x.dtype, requires_grad, device or x.device)


def zeros_like(x: Tensor, dtype: Any = None, requires_grad: bool = False, *,
               device: Any = None) -> Tensor:  # fmt: skip
    """Zeros of ``x``'s shape (and dtype and device, unless given), as PyTorch's."""
    return full(x.shape, 0, dtype or x.dtype, requires_grad, device or x.device)


def ones_like(x: Tensor, dtype: Any = None, requires_grad: bool = False, *,
              device: Any = None) -> Tensor:  # fmt: skip
    """Ones of ``x``'s shape (and dtype and device, unless given), as PyTorch's."""
    return full(x.shape, 1, dtype or x.dtype, requires_grad, device or x.device)


def eye(n: int, m: int | None = None, dtype: Any = dtypes.float32, requires_grad: bool = False,
        device: str = "cpu") -> Tensor:  # fmt: skip
    """The identity matrix (``n`` by ``m``, square by default)."""
    for position, name, size in ((1, "n", n), (2, "m", m)):
        if size is not None and not dtypes.is_integer(size):
            raise TypeError(
                f"eye(): argument '{name}' (position {position}) must be int, not "
                f"{dtypes.type_name(size)}\ngot {name}={size!r}; give the number of rows (n) and "
                "columns (m) as whole numbers, e.g. mg.eye(3) or mg.eye(2, 3)"
            )
        if size is not None and size < 0:
            raise ShapeError(
                f"{name} must be greater or equal to 0, got {size}\n"
                "eye: n and m count the rows and columns, so each is >= 0"
            )
    return tensor(np.eye(n, m), dtype, requires_grad, device)


_NO_START = object()


def arange(start: Any = _NO_START, stop: Any = None, step: Any = 1, dtype: Any = None,
           requires_grad: bool = False, device: str = "cpu", *,
           end: Any = None) -> Tensor:  # fmt: skip
    """Evenly spaced values in [start, stop), as ``range`` and NumPy's ``arange``.

    ``end=`` is PyTorch's name for ``stop``. With an integer ``dtype`` the bounds and the
    step are truncated to integers first, as PyTorch's (``arange(0.5, 3, dtype=int64)``
    is ``[0, 1, 2]``).

    >>> import minigrad as mg
    >>> mg.arange(3), mg.arange(0.0, 1.0, 0.5), mg.arange(0, end=2)
    (tensor([0, 1, 2]), tensor([0. , 0.5]), tensor([0, 1]))
    """
    if end is not None:
        if stop is not None:
            raise TypeError("arange() got multiple values for argument 'end'")
        stop = end
    if start is _NO_START:
        if stop is None:
            raise TypeError("arange() missing 1 required positional argument: 'end'")
        start = 0
    if stop is None:
        start, stop = 0, start
    for name, bound in (("start", start), ("end", stop), ("step", step)):
        if not isinstance(bound, (int, float, np.integer, np.floating)):
            raise TypeError(
                f"arange(): argument '{name}' must be Number, not {dtypes.type_name(bound)}\n"
                f"got {name}={bound!r}; give numbers, e.g. mg.arange(0, 1, 0.25)"
            )
        if not np.isfinite(bound):
            raise RuntimeError(
                f"unsupported range: {start} -> {stop}\narange: '{name}' is {bound}; the "
                "bounds and step must be finite numbers"
            )
    if step == 0:
        raise RuntimeError(
            "step must be nonzero\narange: a step of 0 never reaches the end; give e.g. "
            f"mg.arange({start}, {stop}, 1)"
        )
    if dtype is not None and dtypes.as_dtype(dtype).kind in "iu":
        start, stop, step = int(start), int(stop), int(step)  # PyTorch counts in the dtype
        if step == 0:
            raise ValueError(
                "step must be nonzero\narange: the step truncates to 0 in an integer dtype"
            )
    if (step > 0 and stop < start) or (step < 0 and stop > start):
        raise RuntimeError(
            "upper bound and lower bound inconsistent with step sign\n"
            f"arange: from {start} to {stop} a step of {step} moves away from the end"
        )
    _not_for_bool("arange", dtype)
    values = np.arange(start, stop, step)
    if values.dtype == np.bool_:
        values = values.astype(np.int64)
    return tensor(values, dtype or dtypes.natural_dtype(values), requires_grad, device)


def _not_for_bool(op: str, dtype: Any, steps: int = 2) -> None:
    """PyTorch has no counted range of bools: its kernels refuse the dtype (linspace and
    logspace reach the kernel only for two steps or more)."""
    if dtype is not None and steps > 1 and dtypes.as_dtype(dtype) == np.dtype(bool):
        raise NotImplementedError(
            f"\"{op}_cpu\" not implemented for 'Bool'\n{op}: ask for a number dtype and "
            "compare, e.g. mg.arange(4) > 1"
        )


# -- random numbers from the global generator ---------------------------------------------
_SAMPLERS = {
    "normal": lambda shape: _generator.standard_normal(shape),
    "uniform": lambda shape: _generator.random(shape),
}


def _draw_forward(backend: Any, *, kind: str, shape: tuple, dtype: Any) -> Any:
    """Draw from the global generator now: when a compiled program runs, at each run."""
    if backend.name == "abstract":  # shape and dtype only (a program that draws later)
        return backend.unknown(shape, dtype)
    return backend.from_numpy(np.asarray(_SAMPLERS[kind](shape), dtype=dtype))


# Not differentiable, no inputs; the compiler's passes keep every draw, in order.
DRAW = Primitive("draw", _draw_forward, register=False)


def _draw(kind: str, shape: tuple, dtype: Any, requires_grad: bool, device: str) -> Tensor:
    """``shape`` numbers of ``kind``; inside vmap, one draw per example where asked."""
    dtype = dtypes.as_dtype(dtype)

    def make(full_shape: tuple) -> Tensor:
        tracing = current().tracing
        if tracing is not None:  # write the draw into the program (see the module docstring)
            params = {"kind": kind, "shape": full_shape, "dtype": dtype}
            data = tracing.draw(DRAW, params, device)
            return Tensor._wrap(data, device).requires_grad_(requires_grad)
        return tensor(_SAMPLERS[kind](full_shape), dtype, requires_grad, device)

    levels = current().open_levels("batch")  # inside vmap (lesson 14): one draw per example
    return levels[-1].draw(make, shape) if levels else make(shape)


def randn(*shape: Any, dtype: Any = dtypes.float32, requires_grad: bool = False,
          device: str = "cpu") -> Tensor:  # fmt: skip
    """Samples from the standard normal distribution (seed with ``mg.manual_seed``)."""
    return _draw("normal", sizes(shape, "randn"), dtype, requires_grad, device)


def rand(*shape: Any, dtype: Any = dtypes.float32, requires_grad: bool = False,
         device: str = "cpu") -> Tensor:  # fmt: skip
    """Samples from the uniform distribution on [0, 1)."""
    return _draw("uniform", sizes(shape, "rand"), dtype, requires_grad, device)


def randn_like(x: Tensor, dtype: Any = None, requires_grad: bool = False, *,
              device: Any = None) -> Tensor:  # fmt: skip
    """``randn`` of ``x``'s shape (and dtype and device, unless ``dtype`` is given)."""
    return _draw("normal", x.shape, dtype or x.dtype, requires_grad, device or x.device)


def rand_like(x: Tensor, dtype: Any = None, requires_grad: bool = False, *,
              device: Any = None) -> Tensor:  # fmt: skip
    """``rand`` of ``x``'s shape (and dtype and device, unless ``dtype`` is given)."""
    return _draw("uniform", x.shape, dtype or x.dtype, requires_grad, device or x.device)


def randint(*args: Any, size: Any = None, dtype: Any = dtypes.int64, requires_grad: bool = False,
            device: str = "cpu") -> Tensor:  # fmt: skip
    """Whole numbers drawn uniformly from ``[low, high)``: ``randint(high, size)`` or
    ``randint(low, high, size)``, as PyTorch's (``size`` a tuple; int64 unless ``dtype``).

    >>> import minigrad as mg
    >>> x = mg.randint(3, 7, (4,))
    >>> x.dtype, bool(((x >= 3) & (x < 7)).all())
    (dtype('int64'), True)
    """
    if size is None and args:
        *args, size = args
    if not 1 <= len(args) <= 2 or size is None:
        raise TypeError(
            "randint() received an invalid combination of arguments\n"
            "randint: give (high, size) or (low, high, size), e.g. mg.randint(0, 10, (3,))"
        )
    low, high = (0, args[0]) if len(args) == 1 else args
    named = [("high", 1, high)] if len(args) == 1 else [("low", 1, low), ("high", 2, high)]
    for name, position, bound in named:
        if not dtypes.is_integer(bound):
            raise TypeError(
                f"randint(): argument '{name}' (position {position}) must be int, not "
                f"{dtypes.type_name(bound)}\n"
                f"randint: got {name}={bound!r}; the bounds are whole numbers"
            )
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}\n"
            "randint: draws from [low, high), which must hold a number"
        )
    shape = sizes((size,), "randint")
    # uniform in [0, 1) (float64: 53 bits), scaled to the count of numbers and floored
    u = _draw("uniform", shape, dtypes.float64, False, device)
    span = float(high - low)
    picked = (u * span).floor().clamp(0, span - 1) + float(low)
    return picked.to(dtype).requires_grad_(requires_grad)


def randint_like(x: Tensor, low: int = 0, high: Any = None, *, dtype: Any = None,
                 requires_grad: bool = False, device: Any = None) -> Tensor:  # fmt: skip
    """``randint`` of ``x``'s shape (``randint_like(x, high)`` or ``(x, low, high)``)."""
    low, high = (0, low) if high is None else (low, high)
    return randint(low, high, x.shape, dtype=dtype or x.dtype, requires_grad=requires_grad,
                   device=device or x.device)  # fmt: skip


def random_state() -> Any:
    """Where the random stream stands now, for ``replaying`` (checkpoint, lesson 09).

    Eagerly, the generator's state; while a function is traced, how many
    draws the program has made so far.
    """
    tracing = current().tracing
    if tracing is not None:
        return ("traced", len(tracing.draws))
    return ("eager", _generator.bit_generator.state)


@contextlib.contextmanager
def replaying(state: Any) -> Iterator[None]:
    """Draw, inside the block, the numbers drawn after ``random_state()`` gave ``state``."""
    kind, where = state
    tracing = current().tracing
    if kind == "traced" and tracing is not None:
        was = tracing.replay
        tracing.replay = where  # draws reuse the program's earlier draws, in order
        try:
            yield
        finally:
            tracing.replay = was
        return
    generator = _generator
    now = generator.bit_generator.state
    generator.bit_generator.state = where
    try:
        yield
    finally:
        generator.bit_generator.state = now


# -- sharing memory with NumPy and other libraries (PyTorch's from_numpy, from_dlpack) -------
def from_numpy(array: np.ndarray) -> Tensor:
    """A CPU tensor that *shares* ``array``'s memory: a change to one shows in the other.

    >>> import numpy as np, minigrad as mg
    >>> a = np.zeros(3, dtype=np.float32)
    >>> x = mg.from_numpy(a)
    >>> a[0] = 5.0
    >>> x
    tensor([5., 0., 0.])
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {dtypes.type_name(array)})")
    if array.dtype.name not in dtypes.NAMES:
        kind = array.dtype.type.__name__  # numpy.str_, numpy.object_, numpy.uint8, ...
        if array.dtype.kind in "biufc" and array.dtype.itemsize <= 16 and kind != "longdouble":
            # PyTorch has these (uint8, int16, float16, complex64, ...); minigrad does not.
            names = ", ".join(dtypes.NAMES)
            raise TypeError(
                f"can't convert np.ndarray of type numpy.{kind}: minigrad has no {kind} dtype "
                f"(PyTorch has; minigrad's types are {names}).\nconvert it first, e.g. "
                "mg.from_numpy(a.astype(np.float32)) (a copy: memory is shared only without one)"
            )
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{kind}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, "
            "uint32, uint16, uint8, and bool.\nconvert it first, e.g. "
            "mg.from_numpy(a.astype(np.float32))"
        )
    if array.dtype.byteorder not in "=|":  # a big-endian array: no kernel reads it as is
        raise ValueError(
            "given numpy array has byte order different from the native byte order. "
            "Conversion between byte orders is currently not supported.\n"
            "convert it first, e.g. a.astype(a.dtype.newbyteorder('='))"
        )
    return Tensor._wrap(array, "cpu")


def from_dlpack(source: Any) -> Tensor:
    """A CPU tensor sharing the memory of any DLPack exporter (a torch or NumPy array).

    >>> import numpy as np, minigrad as mg
    >>> mg.from_dlpack(np.arange(3))
    tensor([0, 1, 2])
    """
    if not hasattr(source, "__dlpack__"):
        raise TypeError(
            f"from_dlpack(): expected an object with __dlpack__, got {dtypes.type_name(source)}"
        )
    return from_numpy(np.from_dlpack(source))


def full_like(input: Tensor, fill_value: Any, *, dtype: Any = None, requires_grad: bool = False,
              device: str | None = None) -> Tensor:  # fmt: skip
    """A tensor of ``input``'s shape (and dtype and device, unless given) filled with one value.

    >>> import minigrad as mg
    >>> mg.full_like(mg.zeros((2,), dtype=mg.int64), 7)
    tensor([7, 7])
    """
    return full(input.shape, fill_value, dtype or input.dtype, requires_grad,
                device or input.device)  # fmt: skip


def _in_dtype_of(start: Any, end: Any, dtype: Any) -> tuple[float, float]:
    """The ends as floats; in an integer ``dtype`` truncated first, as PyTorch's kernels read
    them in the dtype (``linspace(4.3, -3, 50, dtype=int64)`` runs from 4)."""
    start, end = float(start), float(end)
    if dtype is not None and dtypes.as_dtype(dtype).kind in "iu":
        return float(math.trunc(start)), float(math.trunc(end))
    return start, end


def _steps(op: str, steps: Any, start: Any, end: Any) -> int:
    ndims = [v.ndim if isinstance(v, Tensor) else 0 for v in (start, end)]
    if any(ndims):
        raise RuntimeError(
            f"{op} only supports 0-dimensional start and end tensors, but got start with "
            f"{ndims[0]} dimension(s) and end with {ndims[1]} dimension(s)."
        )
    if not dtypes.is_integer(steps):
        got = ", ".join(
            "Tensor" if isinstance(v, Tensor) else dtypes.type_name(v) for v in (start, end, steps)
        )
        raise TypeError(
            f"{op}() received an invalid combination of arguments - got ({got}), but expected "
            f"one of:\n{op}: 'steps' must be an int, not {dtypes.type_name(steps)}"
        )
    if steps < 0:
        raise RuntimeError(f"number of steps must be non-negative\n{op}: got steps={steps}")
    return int(steps)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None,
             requires_grad: bool = False, device: str = "cpu") -> Tensor:  # fmt: skip
    """``steps`` evenly spaced values from ``start`` to ``end``, both included (float32 unless
    ``dtype`` says otherwise; whole-number dtypes round toward zero).

    >>> import minigrad as mg
    >>> mg.linspace(0, 1, 5)
    tensor([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    steps = _steps("linspace", steps, start, end)
    _not_for_bool("linspace", dtype, steps)
    start, end = _in_dtype_of(start, end, dtype)
    values = evenly_spaced(start, end, steps)
    return tensor(values, dtype or dtypes.DEFAULT_FLOAT, requires_grad, device)


def logspace(start: float, end: float, steps: int, base: float = 10.0, *, dtype: Any = None,
             requires_grad: bool = False, device: str = "cpu") -> Tensor:  # fmt: skip
    """``base`` to the powers ``linspace(start, end, steps)``.

    >>> import minigrad as mg
    >>> mg.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    steps = _steps("logspace", steps, start, end)
    _not_for_bool("logspace", dtype, steps)
    start, end = _in_dtype_of(start, end, dtype)
    exponents = evenly_spaced(start, end, steps)
    return tensor(np.power(float(base), exponents), dtype or dtypes.DEFAULT_FLOAT, requires_grad,
                  device)  # fmt: skip
