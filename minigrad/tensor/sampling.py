"""PyTorch's random samplers: ``bernoulli``, ``normal``, ``multinomial``, ``uniform_`` (lesson 06).

Every sampler starts from uniform numbers on [0, 1) (or standard normal
ones) drawn from minigrad's generator (seeded by ``mg.manual_seed``), or from
the ``generator=`` given (an ``mg.Generator``), and shapes them into its
distribution: ``-log(1 - u) / lambd`` is exponential, ``tan(pi (u - 1/2))``
is Cauchy, and so on. The numbers are not PyTorch's (another generator), the
distributions are. As in PyTorch, a sample is not differentiable: its
gradient with respect to the tensors it came from is zero (the result still
requires grad when they do, so a graph through it runs).

    >>> import minigrad as mg
    >>> mg.manual_seed(0)
    >>> x = mg.empty(4).uniform_(2, 3)
    >>> bool(((x >= 2) & (x < 3)).all()), mg.bernoulli(mg.ones(3)).tolist()
    (True, [1.0, 1.0, 1.0])
    >>> mg.multinomial(mg.tensor([0.0, 1.0, 0.0]), 2, replacement=True).tolist()
    [1, 1]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.tensor import dtypes, factories, sampling_methods
from minigrad.tensor.base import every_value
from minigrad.tensor.generator import Generator
from minigrad.tensor.mode import current
from minigrad.tensor.ops import elementwise as ew
from minigrad.tensor.ops.broadcasting import broadcast_shape
from minigrad.tensor.ops.inplace import CPP_NAMES, assign
from minigrad.tensor.ops.movement import sizes
from minigrad.tensor.tensor import Tensor

__all__ = ["bernoulli", "multinomial", "normal"]


def _number(value: Any) -> str:
    """A number as PyTorch's C++ messages print it (``2`` for 2.0, ``0.5``)."""
    return f"{float(value):g}"


def _source(generator: Any, where: str) -> np.random.Generator | None:
    if generator is None:
        return None
    if not isinstance(generator, Generator):
        raise TypeError(
            f"{where}(): argument 'generator' must be torch.Generator, not "
            f"{dtypes.type_name(generator)}\n{where}: give an mg.Generator, e.g. "
            "mg.Generator().manual_seed(0)"
        )
    return generator.numpy()


def _uniform(shape: tuple, generator: Any, device: str, where: str) -> Tensor:
    """Float64 numbers uniform on [0, 1), from ``generator`` or else minigrad's generator
    (then written into a traced program as a draw, and one per example inside vmap)."""
    rng = _source(generator, where)
    if rng is None:
        return factories._draw("uniform", tuple(shape), dtypes.float64, False, device)
    return factories.tensor(rng.random(tuple(shape)), dtypes.float64, device=device)


def _standard_normal(shape: tuple, generator: Any, device: str, where: str) -> Tensor:
    rng = _source(generator, where)
    if rng is None:
        return factories._draw("normal", tuple(shape), dtypes.float64, False, device)
    return factories.tensor(rng.standard_normal(tuple(shape)), dtypes.float64, device=device)


def _zero_gradient(sample: Tensor, *sources: Any) -> Tensor:
    """``sample``, in the graph of each source that requires grad with a zero gradient
    (PyTorch's derivative of a sampler), so that the result requires grad as PyTorch's."""
    for source in sources:
        if isinstance(source, Tensor) and source.requires_grad:
            sample = ew.where(True, sample, source.to(sample.dtype))
    return sample


def _floating(x: Tensor, kernel: str) -> None:
    if x.dtype.kind != "f":
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtypes.scalar_type_name(x.dtype)}'\n"
            "the samples of this distribution are real numbers: use a floating-point tensor, "
            "e.g. x.float()"
        )


def _continuous(x: Tensor, name: str, names: dict | None = None) -> None:
    """PyTorch's refusal of a whole-number x; its cauchy_ names the dtype as C++ does."""
    if x.dtype.kind != "f":
        dtype = names[x.dtype.name] if names else dtypes.scalar_type_name(x.dtype)
        raise RuntimeError(
            f"{name} distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {dtype}\n"
            "use a floating-point tensor, e.g. x.float()"
        )


_P_MESSAGE = (
    "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
    "improved?  If so, please report an enhancement request to PyTorch.)\n"
    "bernoulli: every probability must lie in [0, 1] (none NaN)"
)


def _values(x: Tensor) -> np.ndarray:
    """Every value of ``x`` for a check (inside vmap, every example's); while a function is
    traced the values are not known yet: no value fails then."""
    if current().tracing is not None:
        return np.zeros(0)
    return every_value(x)


def _check_probability(p: Any, where: str) -> None:
    if isinstance(p, Tensor):
        values = _values(p)
        if not bool(np.all((values >= 0) & (values <= 1))):
            raise RuntimeError(_P_MESSAGE)
    elif not 0 <= float(p) <= 1:
        raise RuntimeError(f"{where} expects p to be in [0, 1], but got p={_number(p)}")


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    """Ones with probability ``input`` (or ``p``, a number, if given), zeros otherwise, in
    ``input``'s shape and dtype, as ``torch.bernoulli``.

    >>> import minigrad as mg
    >>> mg.bernoulli(mg.tensor([0.0, 1.0]))
    tensor([0., 1.])
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"bernoulli(): argument 'input' (position 1) must be Tensor, not "
            f"{dtypes.type_name(input)}"
        )
    if isinstance(p, Tensor):
        raise TypeError(
            "bernoulli() received an invalid combination of arguments - got (Tensor, Tensor), but "
            "expected one of:\n * (Tensor input, *, Generator generator)\n"
            " * (Tensor input, float p, *, Generator generator)\n"
            "bernoulli: p is a number; for a tensor of probabilities use mg.bernoulli(p) or "
            "x.bernoulli_(p)"
        )
    if p is None:
        _floating(input, "bernoulli_tensor_cpu_p_")
        _check_probability(input, "bernoulli_")
        chance = input.detach()
    else:
        _check_probability(p, "bernoulli_")
        chance = p
    u = _uniform(input.shape, generator, input.device, "bernoulli")
    return _zero_gradient((u < chance).to(input.dtype), input)


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None,
           dtype: Any = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:  # fmt: skip
    """Normal numbers with mean ``mean`` and standard deviation ``std``, as ``torch.normal``:
    each a tensor (broadcast together; the result has their shape and dtype) or a number
    (both numbers: give ``size``; float32 unless ``dtype``).

    >>> import minigrad as mg
    >>> mg.normal(mg.zeros(2, 3), 1.0).shape, mg.normal(0.0, 1.0, (4,)).dtype
    ((2, 3), dtype('float32'))
    """
    tensors = [v for v in (mean, std) if isinstance(v, Tensor)]
    for value in tensors:
        _floating(value, "normal_kernel_cpu")
    if isinstance(std, Tensor):
        if not bool(np.all(_values(std) >= 0)):
            raise RuntimeError(
                "normal expects all elements of std >= 0.0\nnormal: a standard deviation "
                "cannot be negative"
            )
    elif not float(std) >= 0:  # NaN too
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_number(std)}")
    if tensors:
        if size is not None:
            raise TypeError(
                "normal() received an invalid combination of arguments\nnormal: size= is "
                "for numbers mean and std; with a tensor the result takes its shape"
            )
        shape = broadcast_shape(*(t.shape for t in tensors))
        dtype = tensors[0].dtype  # mean's dtype, or std's when mean is a number
        device = tensors[0].device
    else:
        if size is None:
            raise TypeError(
                "normal() received an invalid combination of arguments\nnormal: with numbers "
                "for mean and std give size=, e.g. mg.normal(0.0, 1.0, (3,))"
            )
        shape = sizes((size,), "normal")
        dtype = dtypes.as_dtype(dtype) if dtype is not None else dtypes.DEFAULT_FLOAT
        device = device or "cpu"
    z = _standard_normal(shape, generator, device, "normal")
    m = mean.detach().to(dtypes.float64) if isinstance(mean, Tensor) else float(mean)
    s = std.detach().to(dtypes.float64) if isinstance(std, Tensor) else float(std)
    sample = (z * s + m).to(dtype)
    sample = _zero_gradient(sample, mean, std)
    return sample.requires_grad_(True) if requires_grad and not sample.requires_grad else sample


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Any = None) -> Tensor:  # fmt: skip
    """Indices drawn from the rows of ``input`` (weights, not necessarily summing to 1), as
    ``torch.multinomial``: ``num_samples`` per row (int64), each index at most once unless
    ``replacement``.

    >>> import minigrad as mg
    >>> sorted(mg.multinomial(mg.tensor([1.0, 0.0, 2.0]), 2).tolist())
    [0, 2]
    """
    if isinstance(num_samples, bool) or not dtypes.is_integer(num_samples):
        raise TypeError(
            "multinomial(): argument 'num_samples' (position 2) must be int, not "
            f"{dtypes.type_name(num_samples)}"
        )
    if input.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim\nmultinomial: got shape {input.shape}")
    if input.dtype.kind != "f":
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{dtypes.scalar_type_name(input.dtype)}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = input.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement\n"
            f"multinomial: {num_samples} samples asked from {categories} categories"
        )
    if categories == 0:  # only with replacement (without, the count check above refused it)
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
            "identity.\nmultinomial: a row of no categories has nothing to draw"
        )
    if categories > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    weights = input.detach().numpy().astype(np.float64).reshape(-1, categories)
    _check_weights(weights, replacement and num_samples > 1)
    rows = weights.shape[0]
    if replacement:  # each draw: the first category whose running total passes u * total
        u = _uniform((rows, num_samples), generator, input.device, "multinomial").numpy()
        totals = np.cumsum(weights, axis=1)
        picked = np.zeros((rows, num_samples), np.int64)
        for row, (total, ui) in enumerate(zip(totals, u)):
            picked[row] = np.searchsorted(total, ui * total[-1], side="right")
        picked = np.minimum(picked, categories - 1)
    else:  # a race of exponential clocks, rate = weight: the first to ring are the draws
        u = _uniform((rows, categories), generator, input.device, "multinomial").numpy()
        with np.errstate(divide="ignore"):
            clocks = -np.log1p(-u) / weights
        picked = np.argsort(clocks, axis=1, kind="stable")[:, :num_samples]
    shape = (*input.shape[:-1], num_samples)
    return factories.tensor(picked.astype(np.int64).reshape(shape), dtypes.int64,
                            device=input.device)  # fmt: skip


def _check_weights(weights: np.ndarray, drawn_one_by_one: bool) -> None:
    """PyTorch's checks of the weights, in its order and words: its kernel that draws several
    samples with replacement reads each row entry by entry (NaN fails ``>= 0``)."""
    if not drawn_one_by_one:
        if not bool(np.all(np.isfinite(weights) & (weights >= 0))):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    for row in weights:
        if drawn_one_by_one:
            for value in row[~(np.isfinite(row) & (row >= 0))][:1]:
                what = "< 0" if not value >= 0 else "= infinity or NaN"
                raise RuntimeError(
                    f"invalid multinomial distribution (encountering probability entry {what})"
                )
        if not row.sum() > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


# -- the in-place samplers: Tensor.uniform_, normal_, ... ------------------------------------
def _fill(x: Tensor, op: str, make: Any) -> Tensor:
    """``x`` overwritten with ``make(x)`` (a sample in x's dtype); a zero gradient for x."""
    return assign(x, lambda old: _zero_gradient(make(old), old), (), op, cast_check=False)


def uniform_(x: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
    """``x.uniform_(a, b)``: x overwritten with numbers uniform on [a, b); returns x."""
    _floating(x, "check_uniform_bounds")
    largest = float(np.finfo(x.dtype).max)
    for name, bound in (("from", a), ("to", b)):
        if not -largest <= float(bound) <= largest:  # NaN and inf too
            raise RuntimeError(
                f"{name} is out of bounds for {CPP_NAMES[x.dtype.name]}\nuniform_: the bounds "
                f"must be finite numbers that {x.dtype} holds; got {name}={bound}"
            )
    if a > b:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_number(a)} > "
            f"to={_number(b)}"
        )
    u = _uniform(x.shape, generator, x.device, "uniform_")
    return _fill(x, "uniform_", lambda old: (u * (float(b) - float(a)) + float(a)).to(x.dtype))


def normal_(x: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """``x.normal_(mean, std)``: x overwritten with normal numbers; returns x."""
    _floating(x, "normal_kernel_cpu")
    if not std >= 0:  # NaN too
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_number(std)}")
    z = _standard_normal(x.shape, generator, x.device, "normal_")
    return _fill(x, "normal_", lambda old: (z * float(std) + float(mean)).to(x.dtype))


def bernoulli_(x: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """``x.bernoulli_(p)``: x overwritten with ones (probability p, a number or a tensor)
    and zeros, in x's dtype (any dtype); returns x."""
    _check_probability(p, "bernoulli_")
    chance = p.detach().expand(x.shape) if isinstance(p, Tensor) else float(p)
    u = _uniform(x.shape, generator, x.device, "bernoulli_")
    return _fill(x, "bernoulli_", lambda old: (u < chance).to(x.dtype))


def exponential_(x: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    """``x.exponential_(lambd)``: x overwritten with exponential numbers of rate lambd
    (mean 1 / lambd); returns x."""
    _continuous(x, "Exponential")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_number(lambd)}")
    u = _uniform(x.shape, generator, x.device, "exponential_")
    return _fill(x, "exponential_", lambda old: ((-u).log1p() * (-1.0 / lambd)).to(x.dtype))


def geometric_(x: Tensor, p: float, *, generator: Any = None) -> Tensor:
    """``x.geometric_(p)``: x overwritten with the trial (1, 2, ...) of a first success of
    probability p (mean 1 / p), in x's dtype (any dtype); returns x."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_number(p)}")
    u = _uniform(x.shape, generator, x.device, "geometric_")
    # the number of the first success among trials that succeed with probability p (1, 2, ...)
    trials = ((-u).log1p() / math.log1p(-p)).floor() + 1.0
    return _fill(x, "geometric_", lambda old: trials.to(x.dtype))


def cauchy_(x: Tensor, median: float = 0.0, sigma: float = 1.0, *,
            generator: Any = None) -> Tensor:  # fmt: skip
    """``x.cauchy_(median, sigma)``: x overwritten with Cauchy numbers; returns x."""
    _continuous(x, "Cauchy", CPP_NAMES)
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_number(sigma)}")
    u = _uniform(x.shape, generator, x.device, "cauchy_")
    sample = ((u - 0.5) * math.pi).tan() * float(sigma) + float(median)
    return _fill(x, "cauchy_", lambda old: sample.to(x.dtype))


def log_normal_(x: Tensor, mean: float = 1.0, std: float = 2.0, *,
                generator: Any = None) -> Tensor:  # fmt: skip
    """``x.log_normal_(mean, std)``: x overwritten with ``exp(N(mean, std))``; returns x."""
    _floating(x, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_number(std)}")
    z = _standard_normal(x.shape, generator, x.device, "log_normal_")
    return _fill(x, "log_normal_", lambda old: (z * float(std) + float(mean)).exp().to(x.dtype))


_FLOAT_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def random_(x: Tensor, *args: Any, generator: Any = None) -> Tensor:
    """``random_()``, ``random_(to)``, ``random_(from, to)``: whole numbers uniform on
    [from, to); with no bounds, [0, the largest whole number x's dtype holds exactly]."""
    if len(args) > 2:
        raise TypeError(f"random_() takes at most 2 positional arguments ({len(args)} given)")
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        low, high = 0, args[0]
    elif x.dtype == np.dtype(bool):
        low, high = 0, 2
    elif x.dtype.kind == "f":
        low, high = 0, 2 ** _FLOAT_DIGITS[x.dtype.name] + 1
    else:
        low, high = 0, int(np.iinfo(x.dtype).max)  # torch's [0, max] for int64 is [0, max)
    if high is None:
        high = (2 ** _FLOAT_DIGITS[x.dtype.name] + 1) if x.dtype.kind == "f" else 2**63 - 1
    for name, bound in (("from", low), ("to", high)):
        if isinstance(bound, bool) or not dtypes.is_integer(bound):
            raise TypeError(
                f"random_(): argument '{name}' must be int, not {dtypes.type_name(bound)}"
            )
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    u = _uniform(x.shape, generator, x.device, "random_")
    span = float(high - low)
    picked = (u * span).floor().clamp(0, span - 1) + float(low)
    return _fill(x, "random_", lambda old: picked.to(x.dtype))


# The Tensor methods (minigrad.tensor.sampling_methods) call these: tensor.py cannot import
# this module, which makes tensors.
sampling_methods.IMPLEMENTATIONS.update(
    uniform_=uniform_,
    normal_=normal_,
    bernoulli_=bernoulli_,
    exponential_=exponential_,
    geometric_=geometric_,
    cauchy_=cauchy_,
    log_normal_=log_normal_,
    random_=random_,
    bernoulli=bernoulli,
    multinomial=multinomial,
)
