"""PyTorch's top-level names for what minigrad already knows (lessons 04-06).

A PyTorch user writes ``torch.is_tensor(x)``, ``torch.promote_types(a, b)``,
``torch.as_tensor(array)``, ``torch.randperm(n)`` or
``torch.set_rng_state(state)`` without a second thought. Each one here is a
question asked of a tensor or a dtype (no new values, nothing to
differentiate), a way to make a tensor from data that shares memory where
PyTorch does, or a handle on the random stream of ``mg.manual_seed``:

- the predicates read a tensor's dtype and shape, and refuse anything that is
  not a tensor with PyTorch's ``TypeError``;
- ``promote_types``, ``result_type`` and ``can_cast`` are PyTorch's promotion
  table over minigrad's dtypes (``dtypes.result_dtype`` is the one rule);
- ``randperm`` sorts uniform draws (their order is a uniform random
  permutation), so under ``jit`` it is a draw in the program, as ``rand`` is;
- ``get_rng_state``/``set_rng_state`` save and restore the stream as an int64
  tensor (PyTorch's is a uint8 tensor; minigrad has no uint8).

    >>> import minigrad as mg
    >>> mg.promote_types(mg.int32, mg.float16), mg.can_cast(mg.float32, mg.int64)
    (dtype('float16'), False)
    >>> state = mg.get_rng_state(); a = mg.rand(2); mg.set_rng_state(state)
    >>> bool((mg.rand(2) == a).all())
    True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from minigrad.tensor import dtypes, factories, sampling
from minigrad.tensor.generator import Generator
from minigrad.tensor.ops import movement
from minigrad.tensor.ops import softmax as primitives
from minigrad.tensor.ops.broadcasting import broadcast_shape
from minigrad.tensor.tensor import Tensor

__all__ = [
    "as_tensor", "asarray", "binomial", "can_cast", "detach", "empty_permuted", "empty_strided",
    "finfo", "get_default_dtype", "get_rng_state", "iinfo", "initial_seed", "is_complex",
    "is_conj", "is_floating_point", "is_neg", "is_nonzero", "is_same_size", "is_signed",
    "is_tensor", "log_softmax", "numel", "permute", "poisson", "promote_types", "randperm",
    "result_type", "seed", "set_rng_state", "softmax",
]  # fmt: skip


def _only_tensor(where: str, input: Any, position: int = 1, name: str = "input") -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{where}(): argument '{name}' (position {position}) must be Tensor, not "
            f"{dtypes.type_name(input)}"
        )
    return input


# -- questions asked of a tensor ----------------------------------------------------------------
def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a minigrad tensor.

    >>> import minigrad as mg
    >>> mg.is_tensor(mg.tensor(1.0)), mg.is_tensor(1.0)
    (True, False)
    """
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    """Whether ``input``'s dtype is a float (float16, bfloat16, float32, float64).

    >>> import minigrad as mg
    >>> mg.is_floating_point(mg.tensor([1.0])), mg.is_floating_point(mg.tensor([1]))
    (True, False)
    """
    return _only_tensor("is_floating_point", input).is_floating_point()


def is_complex(input: Tensor) -> bool:
    """Whether ``input`` holds complex numbers: never (minigrad has no complex dtypes).

    >>> import minigrad as mg
    >>> mg.is_complex(mg.tensor([1.0]))
    False
    """
    return _only_tensor("is_complex", input).is_complex()


def is_signed(input: Tensor) -> bool:
    """Whether ``input``'s dtype holds negative numbers (floats and signed integers).

    >>> import minigrad as mg
    >>> mg.is_signed(mg.tensor([1])), mg.is_signed(mg.tensor([True]))
    (True, False)
    """
    return _only_tensor("is_signed", input).is_signed()


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether the two tensors have the same shape.

    >>> import minigrad as mg
    >>> mg.is_same_size(mg.zeros(2, 3), mg.ones(2, 3)), mg.is_same_size(mg.zeros(2), mg.zeros(3))
    (True, False)
    """
    _only_tensor("is_same_size", input)
    _only_tensor("is_same_size", other, 2, "other")
    return tuple(input.shape) == tuple(other.shape)


def numel(input: Tensor) -> int:
    """The number of elements of ``input``.

    >>> import minigrad as mg
    >>> mg.numel(mg.zeros(2, 3))
    6
    """
    return _only_tensor("numel", input).numel()


def is_nonzero(input: Tensor) -> bool:
    """Whether the one element of ``input`` is not zero (NaN is not zero).

    >>> import minigrad as mg
    >>> mg.is_nonzero(mg.tensor([0.0])), mg.is_nonzero(mg.tensor(float("nan")))
    (False, True)
    """
    return _only_tensor("is_nonzero", input).is_nonzero()


def permute(input: Tensor, dims: Any) -> Tensor:
    """``input.permute(*dims)``: the axes in the order ``dims`` (a view, differentiable).

    >>> import minigrad as mg
    >>> mg.permute(mg.zeros(2, 3, 4), (2, 0, 1)).shape
    (4, 2, 3)
    """
    x = _only_tensor("permute", input)
    if not isinstance(dims, (tuple, list)):
        raise TypeError(
            f"permute(): argument 'dims' (position 2) must be tuple of ints, not "
            f"{dtypes.type_name(dims)}"
        )
    return x.permute(*dims)


def detach(input: Tensor) -> Tensor:
    """``input.detach()``: the same values, cut off from the graph.

    >>> import minigrad as mg
    >>> mg.detach(mg.tensor([1.0], requires_grad=True)).requires_grad
    False
    """
    return _only_tensor("detach", input).detach()


def softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim`` (required), after a cast to ``dtype`` if given:
    ``torch.softmax`` and ``torch.special.softmax``.

    >>> import minigrad as mg
    >>> mg.softmax(mg.tensor([[1.0, 1.0]]), 1)
    tensor([[0.5, 0.5]])
    """
    x = _only_tensor("softmax", input)
    return primitives.softmax(x if dtype is None else x.to(dtype), dim)


def log_softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """``x - logsumexp(x)`` along ``dim`` (required), after a cast to ``dtype`` if given.

    >>> import minigrad as mg
    >>> mg.log_softmax(mg.tensor([0.0, 0.0], dtype=mg.float64), 0)
    tensor([-0.6931, -0.6931], dtype=float64)
    """
    x = _only_tensor("log_softmax", input)
    return primitives.log_softmax(x if dtype is None else x.to(dtype), dim)


# -- PyTorch's promotion table ----------------------------------------------------------------
def promote_types(type1: Any, type2: Any) -> np.dtype:
    """The smallest dtype both ``type1`` and ``type2`` convert to without losing their kind:
    a float beats every integer (``int64`` with ``float16`` is ``float16``), integers widen,
    bool is lowest; ``float16`` with ``bfloat16`` is ``float32``.

    >>> import minigrad as mg
    >>> mg.promote_types(mg.int64, mg.float16), mg.promote_types(mg.bool_, mg.int32)
    (dtype('float16'), dtype('int32'))
    """
    return dtypes.result_dtype([dtypes.as_dtype(type1), dtypes.as_dtype(type2)], [])


def _operand(value: Any, where: str, position: int) -> tuple[str, Any]:
    if isinstance(value, Tensor):
        return ("zero_dim" if value.ndim == 0 else "tensor"), value.dtype
    if isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
        return "scalar", value
    raise TypeError(
        f"{where}() received an invalid combination of arguments - got argument {position} of "
        f"type {dtypes.type_name(value)}; give tensors or Python numbers"
    )


def result_type(tensor: Any, other: Any) -> np.dtype:
    """The dtype an arithmetic operation between ``tensor`` and ``other`` (tensors or Python
    numbers) gives: tensors with axes decide first, then 0-d tensors, then numbers, each only
    when of a higher kind (bool < integer < float).

    >>> import minigrad as mg
    >>> mg.result_type(mg.tensor([1], dtype=mg.int32), 2.5)
    dtype('float32')
    >>> mg.result_type(mg.tensor([1.0], dtype=mg.float16), mg.tensor(1.0, dtype=mg.float64))
    dtype('float16')
    """
    groups: dict[str, list] = {"tensor": [], "zero_dim": [], "scalar": []}
    for position, value in enumerate((tensor, other), 1):
        group, item = _operand(value, "result_type", position)
        groups[group].append(item)
    return dtypes.result_dtype(groups["tensor"], groups["scalar"], groups["zero_dim"])


def can_cast(from_: Any, to: Any) -> bool:
    """Whether PyTorch's type promotion lets a value of ``from_`` be written into ``to``:
    not a float into an integer or bool, not a number into bool; widening or narrowing
    within a kind is allowed.

    >>> import minigrad as mg
    >>> mg.can_cast(mg.float64, mg.float16), mg.can_cast(mg.int64, mg.bool_)
    (True, False)
    """
    source, target = dtypes.as_dtype(from_), dtypes.as_dtype(to)
    if dtypes.is_floating(source) and not dtypes.is_floating(target):
        return False
    return not (source != dtypes.bool_ and target == dtypes.bool_)


@dataclass(frozen=True)
class FloatInfo:
    """``torch.finfo``'s fields, as Python numbers; ``dtype`` is the dtype's name."""

    bits: int
    eps: float
    max: float
    min: float
    tiny: float
    smallest_normal: float
    resolution: float
    dtype: str


@dataclass(frozen=True)
class IntInfo:
    """``torch.iinfo``'s fields, as Python numbers; ``dtype`` is the dtype's name."""

    bits: int
    max: int
    min: int
    dtype: str


def finfo(type: Any = None) -> FloatInfo:
    """The limits of a float dtype (default: the default dtype): ``eps``, ``max``, ``min``,
    ``tiny``/``smallest_normal``, ``resolution`` (``10 ** -precision``), ``bits``.

    >>> import minigrad as mg
    >>> mg.finfo(mg.float16).eps, mg.finfo().bits
    (0.0009765625, 32)
    """
    dtype = dtypes.DEFAULT_FLOAT if type is None else dtypes.as_dtype(type)
    if not dtypes.is_floating(dtype):
        raise TypeError(
            "torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
            f"'torch.finfo'\nfinfo: {dtype.name} is not a float; mg.iinfo gives its limits"
        )
    info = dtypes.finfo(dtype)
    return FloatInfo(int(info.bits), float(info.eps), float(info.max), float(info.min),
                     float(info.tiny), float(info.smallest_normal), 10.0 ** -int(info.precision),
                     dtype.name)  # fmt: skip


def iinfo(type: Any) -> IntInfo:
    """The limits of an integer dtype: ``min``, ``max``, ``bits`` (NumPy's ``iinfo``).

    >>> import minigrad as mg
    >>> mg.iinfo(mg.int32).max
    2147483647
    """
    dtype = dtypes.as_dtype(type)
    if dtype == dtypes.bool_:
        raise TypeError("torch.bool is not supported by torch.iinfo")
    if dtypes.is_floating(dtype):
        raise TypeError(
            "torch.iinfo() requires an integer input type. Use torch.finfo to handle "
            f"'torch.iinfo'\niinfo: {dtype.name} is a float; mg.finfo gives its limits"
        )
    info = np.iinfo(dtype)
    return IntInfo(int(info.bits), int(info.max), int(info.min), dtype.name)


def is_conj(input: Tensor) -> bool:
    """Whether ``input`` is a lazily conjugated view: never (minigrad has no complex numbers).

    >>> import minigrad as mg
    >>> mg.is_conj(mg.zeros(1))
    False
    """
    _only_tensor("is_conj", input)
    return False


def is_neg(input: Tensor) -> bool:
    """Whether ``input`` is a lazily negated view: never (minigrad negates at once).

    >>> import minigrad as mg
    >>> mg.is_neg(mg.zeros(1))
    False
    """
    _only_tensor("is_neg", input)
    return False


def get_default_dtype() -> np.dtype:
    """The dtype of tensors made from Python floats: float32 (minigrad has no
    ``set_default_dtype``: give ``dtype=`` where another is wanted).

    >>> import minigrad as mg
    >>> mg.get_default_dtype()
    dtype('float32')
    """
    return dtypes.DEFAULT_FLOAT


# -- tensors from data, sharing memory where they can ------------------------------------------
def _converted(x: Tensor, dtype: Any, device: Any) -> Tensor:
    if dtype is not None:
        x = x.to(dtypes.as_dtype(dtype))
    if device is not None and str(device) != x.device:
        x = x.to(str(device))
    return x


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a tensor, without a copy where none is needed: a tensor of the right dtype
    and device is returned itself (a conversion is differentiable), a NumPy array of a
    dtype minigrad has shares its memory; anything else is copied as ``mg.tensor`` does.

    >>> import numpy as np, minigrad as mg
    >>> a = np.zeros(2); x = mg.as_tensor(a); a[0] = 7.0
    >>> x
    tensor([7., 0.], dtype=float64)
    """
    if isinstance(data, Tensor):
        return _converted(data, dtype, device)
    if isinstance(data, np.ndarray) and data.dtype.name in dtypes.NAMES:
        shared = factories.from_numpy(data) if data.dtype.byteorder in "=|" else None
        if shared is not None:
            return _converted(shared, dtype, device)
    return factories.tensor(data, dtype=dtype, device=str(device or "cpu"))


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool | None = None) -> Tensor:  # fmt: skip
    """``obj`` as a tensor (``torch.asarray``): memory shared with a tensor or a NumPy array
    where dtype and device allow and ``copy`` is not True; ``copy=False`` refuses a copy.
    ``requires_grad`` defaults to the tensor's own flag (False for other data).

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0])
    >>> mg.asarray(x) is x, mg.asarray(x, dtype=mg.float64).dtype
    (True, dtype('float64'))
    """
    if isinstance(obj, Tensor):
        wanted = obj.dtype if dtype is None else dtypes.as_dtype(dtype)
        if copy is False and wanted != obj.dtype:
            raise ValueError(
                f"can't alias tensor with dtype '{dtypes.scalar_type_name(obj.dtype)}' into "
                f"dtype '{dtypes.scalar_type_name(wanted)}'."
            )
        if copy is False and device is not None and str(device) != obj.device:
            raise ValueError(f"can't alias tensor from device '{obj.device}' to '{device}'.")
        result = _converted(obj, dtype, device)
        if copy and result is obj:
            result = obj.clone()
        if requires_grad is False and result.requires_grad:
            result = result.detach()
        elif requires_grad and not result.requires_grad:
            result.requires_grad_(True)
        return result
    if isinstance(obj, np.ndarray) and not copy:
        result = as_tensor(obj, dtype, device)
        if copy is False and not np.shares_memory(result.numpy(), obj):
            raise ValueError(
                "can't alias NumPy array with a dtype or device minigrad converts: "
                f"{obj.dtype} -> {result.dtype}"
            )
    else:
        result = factories.tensor(obj, dtype=dtype, device=str(device or "cpu"))
    return result.requires_grad_(True) if requires_grad else result


# -- memory laid out otherwise in PyTorch ------------------------------------------------------
def empty_strided(size: Any, stride: Any, *, dtype: Any = None, layout: Any = None,
                  device: Any = None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:  # fmt: skip
    """``empty(size)`` with ``stride`` checked as PyTorch checks it (one per axis, none
    negative). minigrad lays every tensor out row after row, so the strides are not used:
    the values (zeros, as ``mg.empty``'s) and shape are what a program may rely on.

    >>> import minigrad as mg
    >>> mg.empty_strided((2, 3), (1, 2)).shape
    (2, 3)
    """
    shape = movement.strided_sizes(size, stride, "empty_strided")
    return factories.empty(shape, dtype=dtypes.DEFAULT_FLOAT if dtype is None else dtype,
                           requires_grad=requires_grad, device=str(device or "cpu"))  # fmt: skip


def empty_permuted(size: Any, physical_layout: Any, *, dtype: Any = None, layout: Any = None,
                   device: Any = None, requires_grad: bool = False,
                   pin_memory: bool = False) -> Tensor:  # fmt: skip
    """``empty(size)`` whose memory PyTorch orders by ``physical_layout`` (a permutation of
    the axes, checked); minigrad's is row after row.

    >>> import minigrad as mg
    >>> mg.empty_permuted((2, 3, 4), (2, 0, 1)).shape
    (2, 3, 4)
    """
    order = [int(d) for d in physical_layout]
    if len(order) != len(size):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}"
        )
    for index, d in enumerate(order):
        if not 0 <= d < len(order):
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {len(order) - 1}, but got "
                f"{d} at index {index}).  NB: negative dims not currently supported; file an "
                "issue if you want it."
            )
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    # PyTorch checks the sizes in memory order: a negative one is named in that order
    movement.sizes((tuple(size[d] for d in order),), "empty_permuted")
    return factories.empty(tuple(size), dtype=dtypes.DEFAULT_FLOAT if dtype is None else dtype,
                           requires_grad=requires_grad, device=str(device or "cpu"))  # fmt: skip


# -- the random stream --------------------------------------------------------------------------
#: PyTorch's bounds on ``randperm``'s n for the floats that hold no larger whole numbers
#: exactly (bfloat16 has none in PyTorch's CPU kernel).
_EXACT_UP_TO = {"float16": (2049, "2049", "Half"), "float32": (2**24 + 1, "2^24+1", "Float")}


def randperm(n: int, *, generator: Generator | None = None, dtype: Any = dtypes.int64,
             requires_grad: bool = False, device: str = "cpu") -> Tensor:  # fmt: skip
    """The numbers ``0 .. n-1`` in a random order, from minigrad's generator
    (``mg.manual_seed``) or ``generator``.

    >>> import minigrad as mg
    >>> sorted(mg.randperm(4, generator=mg.Generator().manual_seed(0)).tolist())
    [0, 1, 2, 3]
    """
    if not dtypes.is_integer(n):
        raise TypeError(
            f"randperm(): argument 'n' (position 1) must be int, not {dtypes.type_name(n)}"
        )
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dtype = dtypes.as_dtype(dtype)
    if dtype == dtypes.bool_:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    largest = _EXACT_UP_TO.get(dtype.name)
    if largest is not None and n > largest[0]:
        raise RuntimeError(f"n cannot be greater than {largest[1]} for {largest[2]} type.")
    if generator is None:
        keys = factories._draw("uniform", (n,), dtypes.float64, False, device)
    else:
        if not isinstance(generator, Generator):
            raise TypeError(
                f"randperm(): argument 'generator' must be torch.Generator, not "
                f"{dtypes.type_name(generator)}"
            )
        keys = factories.tensor(generator.numpy().random(n), dtypes.float64, device=device)
    # The order that sorts independent uniform draws is a uniform random permutation.
    return keys.argsort(stable=True).to(dtype).requires_grad_(requires_grad)


def _stream(generator: Any, where: str) -> np.random.Generator:
    if generator is None:
        return factories.generator()
    if not isinstance(generator, Generator):
        raise TypeError(
            f"{where}(): argument 'generator' must be torch.Generator, not "
            f"{dtypes.type_name(generator)}"
        )
    return generator.numpy()


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Whole numbers drawn from Poisson distributions of the rates in ``input`` (its dtype;
    floats only), from minigrad's generator or ``generator``. The gradient is zero, as
    PyTorch's. The draw is made on the host from the rates' values (not under ``jit``).

    >>> import minigrad as mg
    >>> mg.poisson(mg.tensor([0.0, 0.0]))
    tensor([0., 0.])
    """
    x = _only_tensor("poisson", input)
    if not dtypes.is_floating(x.dtype):
        raise NotImplementedError(
            f"\"poisson_cpu\" not implemented for '{dtypes.scalar_type_name(x.dtype)}'"
        )
    rng = _stream(generator, "poisson")
    rates = np.asarray(x.detach().numpy(), dtype=np.float64)
    if not bool(np.all(rates >= 0)):  # NaN too
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    if not bool(np.all(rates < 1e18)):  # NumPy's sampler stops there; PyTorch's overflows
        raise RuntimeError(
            "poisson: rates of 1e18 and more (inf too) are refused: the count would not fit "
            "in int64 (PyTorch returns -2^63 there)"
        )
    sample = factories.tensor(rng.poisson(rates).astype(x.dtype), dtype=x.dtype, device=x.device)
    return sampling._zero_gradient(sample, x)


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Successes among ``count`` trials of probability ``prob`` (tensors, broadcast; float32
    or float64, one dtype), from minigrad's generator or ``generator``. A count below 0 is
    0 trials and a probability outside [0, 1] is clamped into it, as PyTorch's sampler
    reads them; a NaN is refused (PyTorch's sampler never returns there). No gradient.

    >>> import minigrad as mg
    >>> mg.binomial(mg.tensor([3.0, 5.0]), mg.tensor([1.0, 0.0]))
    tensor([3., 0.])
    """
    n = _only_tensor("binomial", count, 1, "count")
    p = _only_tensor("binomial", prob, 2, "prob")
    if not dtypes.is_floating(n.dtype):
        raise ValueError(
            "binomial only supports floating-point dtypes for count, got: "
            f"{dtypes.scalar_type_name(n.dtype)}"
        )
    if p.dtype != n.dtype:
        raise RuntimeError(
            f"Found dtype {dtypes.scalar_type_name(p.dtype)} but expected "
            f"{dtypes.scalar_type_name(n.dtype)}"
        )
    if dtypes.is_low_precision(n.dtype):
        raise NotImplementedError(
            f"\"binomial_cpu\" not implemented for '{dtypes.scalar_type_name(n.dtype)}'"
        )
    shape = broadcast_shape(n.shape, p.shape)
    trials = np.broadcast_to(np.asarray(n.detach().numpy(), np.float64), shape)
    chance = np.broadcast_to(np.asarray(p.detach().numpy(), np.float64), shape)
    if np.isnan(trials).any() or np.isnan(chance).any():
        raise RuntimeError("binomial: a NaN count or probability has no distribution to draw from")
    rng = _stream(generator, "binomial")
    drawn = rng.binomial(np.floor(np.clip(trials, 0, 2**62)).astype(np.int64),
                         np.clip(chance, 0.0, 1.0))  # fmt: skip
    return factories.tensor(drawn.astype(n.dtype), dtype=n.dtype, device=n.device)


def seed() -> int:
    """Seed minigrad's generator from the operating system's entropy; returns that seed.

    >>> import minigrad as mg
    >>> s = mg.seed(); s == mg.initial_seed()
    True
    """
    fresh = int(np.random.SeedSequence().entropy) & (2**63 - 1)
    factories.manual_seed(fresh)
    return fresh


def initial_seed() -> int:
    """The seed minigrad's generator last started from (``mg.manual_seed``, ``mg.seed``).

    >>> import minigrad as mg
    >>> mg.manual_seed(7); mg.initial_seed()
    7
    """
    return factories.initial_seed()


def get_rng_state() -> Tensor:
    """Where minigrad's generator stands, as an int64 tensor for ``set_rng_state``.

    >>> import minigrad as mg
    >>> mg.get_rng_state().dtype
    dtype('int64')
    """
    return factories.tensor(Generator.encode_state(factories.generator()), dtypes.int64)


def set_rng_state(new_state: Tensor) -> None:
    """Put minigrad's generator back where ``get_rng_state`` found it.

    >>> import minigrad as mg
    >>> s = mg.get_rng_state(); a = mg.randn(3); mg.set_rng_state(s)
    >>> bool((mg.randn(3) == a).all())
    True
    """
    Generator.decode_state(factories.generator(), new_state, "set_rng_state")


pi, e, inf, nan = math.pi, math.e, math.inf, math.nan
newaxis = None
