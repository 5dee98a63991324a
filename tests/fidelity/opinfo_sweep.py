"""PyTorch's own per-operator samples run through minigrad (lessons 04-05, issue 22).

``torch.testing._internal.common_methods_invocations.op_db`` holds one OpInfo per
PyTorch operator (and variant): which dtypes it supports, a generator of sample
inputs written by PyTorch's developers, error inputs with the exception each
must raise. Nobody on this project wrote them, so they measure minigrad's
promise (PyTorch's names, argument order, defaults, values, dtypes, errors)
from outside.

For every OpInfo whose name maps to a public minigrad function or Tensor
method, every sample on the CPU in float64, float32, int64 and bool (where
the OpInfo supports the dtype) is converted to minigrad (torch tensors become
``mg.tensor``, recursively; Python numbers stay) and called with both
libraries. Each sample gets one class:

- ``match``: same shapes, dtypes, values (``torch.testing.assert_close``
  default tolerances for the dtype, NaN equal to NaN) and, for float64 samples
  of differentiable ops, same gradients of ``sum(out * cotangent)``;
- ``value``, ``dtype``, ``shape``: the first difference found (shape first);
- ``grad``: the values match, a gradient differs (or is missing);
- ``missing_feature``: minigrad raised a clear TypeError/NotImplementedError
  (an unsupported keyword or feature) where torch returned;
- ``refused``: minigrad raised its own clear error (a ``raise`` of minigrad's) for an
  input that torch takes;
- ``unclear_crash``: minigrad raised anything else where torch returned (a message
  from inside NumPy or numba, Python's AttributeError, KeyError, ...);
- ``torch_raised``: torch raised and minigrad returned;
- ``both_raised_other_type``: both raised, different exception types;
- ``both_raised_other_message``: both raised the same type, with another first line;
- ``both_raised``: both raised the same exception type and first line (not a difference);
- ``unconvertible``: the sample needs something minigrad has no counterpart
  for (a dtype such as uint8 or complex, a memory format); not run;
- ``drawn``: the result is drawn at random (attention with ``dropout_p > 0``, the
  samplers and dropouts of ``DRAWN``) or undefined (``empty``): both returned, with the
  same shapes and dtypes; the values cannot be compared.

Error inputs (``OpInfo.error_inputs``) are run too: ``err_match`` (same type
and first line as torch's), ``err_message`` (same type, another first line),
``err_type`` (another type), ``err_none`` (minigrad returned),
``err_missing_feature`` (minigrad refused an argument it never takes, such as ``out=``).

Each OpInfo's method variant (``x.op(...)``, ``torch.Tensor.op``) and in-place
variant (``x.op_(...)``, or ``F.op(x, inplace=True)`` for ``nn.functional``)
run the same samples through minigrad's method of the same name, reported as
``"op (Tensor.op)"`` and ``"op (Tensor.op_)"``. An in-place call
changes a clone of the input: it must return that clone (``not_in_place``
otherwise), change its memory (a ``detach()`` made before sees the new values;
an in-place view method such as ``t_`` must leave the memory as it was), give
torch's values, dtype and error (a float result into an integer tensor, an
operand that would broadcast self bigger), and on float64 torch's gradients
through the change, with respect to the leaf cloned and the other operands.
The variants minigrad lacks are listed at the end of the report.

Everything is seeded per (operator, dtype), so two runs give the same samples
and the same report. Run as a script::

    python -m tests.fidelity.opinfo_sweep [--ops NAME ...] [--out DIR]
                                          [--variants function method inplace]

which writes ``opinfo_sweep.json`` (every sample's class, with a description
and detail for the differences) and ``opinfo_sweep.md`` (counts per operator
and class, examples) into ``DIR`` (default: the current folder).

``--reference`` runs the OpInfos' reference inputs instead, among them tensors of
about a million elements. The NumPy spelling of a scalar body that NumPy has no
loop for (``scalar_special``'s i0 ... igammac, the Bessel functions and polynomials)
calls Python once per element, past the 20 s limit per call there: run those
OpInfos with ``--backend numba``, whose kernels compile the same bodies (the
NumPy spelling still runs the tensors below ``crossover.COMPOSITE`` elements).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import inspect
import itertools
import json
import re
import signal
import sys
import warnings
import zlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

import minigrad as mg

DTYPES = {
    "float64": torch.float64,
    "float32": torch.float32,
    "int64": torch.int64,
    "bool": torch.bool,
}
MG_DTYPE = {
    torch.float64: mg.float64,
    torch.float32: mg.float32,
    torch.float16: mg.float16,
    torch.int64: mg.int64,
    torch.int32: mg.int32,
    torch.bool: mg.bool_,
}
with contextlib.suppress(Exception):
    MG_DTYPE[torch.bfloat16] = mg.bfloat16

# Operators whose results are random draws (no sample can match) or that
# concern storage only PyTorch has.
SKIP = {
    "randn", "randint",
    "to_sparse", "resize_",
    "resize_as_", "storage_offset", "item",
}  # fmt: skip
# Operators whose values are drawn at random (or undefined, ``empty``): run, and classed
# ``drawn`` when both libraries return the same shapes and dtypes (see ``_drawn``); their
# method and in-place variants are not run (nothing there to compare but values).
DRAWN = {
    "bernoulli", "normal", "uniform", "multinomial", "cauchy", "exponential", "geometric",
    "log_normal", "rand_like", "randn_like", "randint_like", "nn.functional.dropout",
    "nn.functional.dropout2d", "nn.functional.dropout3d", "nn.functional.alpha_dropout",
    "nn.functional.feature_alpha_dropout", "empty", "empty_like", "new_empty",
    "empty_strided", "new_empty_strided", "empty_permuted",
    "nn.functional.rrelu",
}  # fmt: skip
# (fractional max pooling draws its windows' places when no samples are given)
DRAWN |= {"nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d"}
# Those OpInfos' lambdas, as minigrad calls: ``wrapper_set_seed(torch.Tensor.cauchy_, x,
# ...)`` changes x in place (here a clone); ``normal.number_mean`` takes (std, mean, ...).
DRAWN_LAMBDAS = {
    "uniform": ("on_a_clone", "uniform_"), "cauchy": ("on_a_clone", "cauchy_"),
    "exponential": ("on_a_clone", "exponential_"), "geometric": ("on_a_clone", "geometric_"),
    "log_normal": ("on_a_clone", "log_normal_"), "normal.in_place": ("on_a_clone", "normal_"),
    "normal.number_mean": ("swap_first", "normal"), "new_empty": ("method", "new_empty"),
    "new_empty_strided": ("method", "new_empty_strided"),
}  # fmt: skip

# OpInfos whose ``op`` is a lambda around a Tensor method or attribute: how to
# call minigrad's counterpart with the same sample.
METHOD_LAMBDAS = {
    "contiguous", "sum_to_size", "expand", "expand_as", "reshape_as", "view",
    "view_as", "double", "float", "long", "int", "bool", "half", "bfloat16",
    "new_zeros", "new_ones", "new_full", "unfold", "repeat", "to",
}  # fmt: skip
ATTRIBUTE_LAMBDAS = {"T", "mT", "H", "mH"}
# OpInfos whose ``op`` is ``lambda *a: wrapper_set_seed(f, *a)``: minigrad's ``f`` is called.
SEEDED_CALLS = {
    "nn.functional.scaled_dot_product_attention", "nn.functional.multi_head_attention_forward",
}  # fmt: skip


class Unconvertible(Exception):
    """A sample holds something minigrad has no counterpart for."""


class Timeout(Exception):
    """A call ran past the sweep's limit."""


@dataclass
class Result:
    op: str
    dtype: str
    index: int
    cls: str
    sample: str = ""
    detail: str = ""


@dataclass
class OpReport:
    op: str
    target: str
    results: list[Result] = field(default_factory=list)


# -- finding minigrad's counterpart ---------------------------------------------------


def op_key(op: Any) -> str:
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def _lookup(name: str) -> tuple[str, Any] | None:
    """``(kind, callable)`` of minigrad's public counterpart of torch name ``name``."""
    parts = name.removeprefix("torch.").split(".")
    if parts[0] in ("nn", "linalg", "special", "fft", "masked", "signal"):
        obj: Any = mg
        for p in parts:
            obj = getattr(obj, p, None)
            if obj is None:
                return None
        return ("function", obj) if callable(obj) else None
    if len(parts) != 1:
        return None
    if name.startswith("__"):
        return ("method", name) if hasattr(mg.Tensor, name) else None
    fn = getattr(mg, name, None)
    if callable(fn) and not isinstance(fn, type) and not hasattr(fn, "__path__"):
        return "function", fn
    if hasattr(mg.Tensor, name):
        return "method", name
    return None


def resolve(op: Any) -> tuple[str, Any] | None:
    """How to call minigrad for OpInfo ``op``: ``(kind, target)`` or None."""
    if op.name in SKIP:
        return None
    is_lambda = getattr(op.op, "__name__", "") == "<lambda>"
    if is_lambda:
        if op.name in ATTRIBUTE_LAMBDAS:
            return ("attribute", op.name) if hasattr(mg.Tensor, op.name) else None
        if op.name in METHOD_LAMBDAS:
            return ("method", op.name) if hasattr(mg.Tensor, op.name) else None
        if op.name == "where":
            return "where", mg.where
        if op.name == "einsum":
            return "einsum", mg.einsum
        if op.name in ("polygamma", "special.polygamma"):  # lambda x, n: polygamma(n, x)
            found = _lookup(op.name)
            return ("order_first", found[1]) if found else None
        if op.name == "zero_":  # lambda x: torch.zero_(x.clone())
            return ("on_a_clone", "zero_") if hasattr(mg.Tensor, "zero_") else None
        if op.name in SEEDED_CALLS:  # seeded, then the call
            return _lookup(op.name)
        if op.name in ("nn.functional.embedding", "nn.functional.embedding_bag"):  # (weight, ids)
            found = _lookup(op.name)
            return ("embedding", found[1]) if found else None
        if op.name in LOW_RANK:  # lambda a, b, **kw: svd_lowrank(a @ b.mT, **kw), seeded
            found = _lookup(op.name)
            return ("low_rank_product", found[1]) if found else None
        if op.name in DRAWN:
            kind, name = DRAWN_LAMBDAS.get(op_key(op), ("function", op.name))
            if kind == "function" or kind == "swap_first":
                found = _lookup(name)
                return (kind, found[1]) if found else None
            return (kind, name) if hasattr(mg.Tensor, name) else None
        return None
    for name in [op.name, *(a.name for a in op.aliases)]:
        found = _lookup(name)
        if found:
            return found
    return None


def call_minigrad(kind: str, target: Any, x: Any, args: tuple, kwargs: dict) -> Any:
    if kind == "function":
        return target(x, *args, **kwargs)
    if kind == "method":
        return getattr(x, target)(*args, **kwargs)
    if kind == "attribute":
        return getattr(x, target)
    if kind == "where":
        condition, other = args
        return target(condition, x, other, **kwargs)
    if kind == "order_first":  # lambda x, n, **kwargs: polygamma(n, x, **kwargs)
        kwargs = dict(kwargs)
        (n,) = args or (kwargs.pop("n"),)  # the reference inputs name it: n=0
        return target(n, x, **kwargs)
    if kind == "swap_first":  # lambda std, mean, *rest: torch.normal(mean, std, *rest)
        return target(args[0], x, *args[1:], **kwargs)
    if kind == "on_a_clone":
        return getattr(x.clone(), target)(*args, **kwargs)
    if kind == "einsum":
        (equation,) = args
        return target(equation, *x)
    if kind == "embedding":
        (idx,) = args
        return target(idx, x, **kwargs)
    if kind == "low_rank_product":
        (b,) = args
        return target(x @ b.mT, **kwargs)
    raise ValueError(kind)


# -- converting samples and results ---------------------------------------------------


def to_minigrad(value: Any) -> Any:
    """``value`` with every torch tensor as a minigrad tensor (same values, dtype, flag)."""
    if isinstance(value, torch.Tensor):
        if value.dtype not in MG_DTYPE or value.layout != torch.strided:
            raise Unconvertible(f"tensor of {value.dtype}")
        if value.device.type != "cpu":  # PyTorch's meta tensors hold no values
            raise Unconvertible(f"tensor on {value.device}")
        try:
            v = value.detach().cpu()
            array = (v.float() if v.dtype == torch.bfloat16 else v).numpy().copy()
        except Exception as error:  # more dimensions than NumPy takes
            raise Unconvertible(f"{type(error).__name__}: {error}") from None
        return mg.tensor(array, dtype=MG_DTYPE[value.dtype], requires_grad=value.requires_grad)
    if isinstance(value, torch.Size):
        return tuple(value)
    if isinstance(value, tuple):
        return tuple(to_minigrad(v) for v in value)
    if isinstance(value, list):
        return [to_minigrad(v) for v in value]
    if isinstance(value, dict):
        return {k: to_minigrad(v) for k, v in value.items()}
    if isinstance(value, torch.dtype):
        if value not in MG_DTYPE:
            raise Unconvertible(str(value))
        return MG_DTYPE[value]
    if isinstance(value, torch.device):
        return str(value)
    if isinstance(value, (torch.memory_format, torch.layout, torch.Generator)):
        raise Unconvertible(type(value).__name__)
    if value is None or isinstance(value, (bool, int, float, str, slice, type(Ellipsis))):
        return value
    if isinstance(value, complex):
        raise Unconvertible("complex number")
    if isinstance(value, torch.nn.Module):
        return _layer(value)
    if callable(value):
        raise Unconvertible(f"callable {value!r}")
    raise Unconvertible(type(value).__name__)


def _layer(module: torch.nn.Module) -> Any:
    """A torch layer without weights (``nn.PairwiseDistance(p=1.0)``, a loss's distance) as
    minigrad's layer of the same name, with the same settings."""
    ours = getattr(mg.nn, type(module).__name__, None)
    if (
        ours is None
        or next(module.parameters(), None) is not None
        or next(module.buffers(), None) is not None
    ):
        raise Unconvertible(f"callable {module!r}")
    layer = ours()
    for name, setting in vars(module).items():
        if name in vars(layer) and isinstance(setting, (bool, int, float, str, type(None))):
            setattr(layer, name, setting)
    return layer


def converted(sample: Any) -> tuple:
    """A sample's input, positional and keyword arguments as minigrad's (``to_minigrad``)."""
    return (
        to_minigrad(sample.input),
        to_minigrad(tuple(sample.args)),
        to_minigrad(dict(sample.kwargs)),
    )


def describe(value: Any) -> str:
    """A short text of a sample part: tensors as ``dtype[shape]``."""
    if isinstance(value, torch.Tensor):
        name = str(value.dtype).removeprefix("torch.")
        if value.numel() <= 4 and value.device.type == "cpu":
            return f"{name}{list(value.shape)}={value.detach().tolist()}"
        return f"{name}{list(value.shape)}"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(describe(v) for v in value)
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={describe(v)}" for k, v in value.items()) + "}"
    return repr(value)


def describe_sample(sample: Any) -> str:
    text = describe(sample.input)
    if sample.args:
        text += ", " + ", ".join(describe(a) for a in sample.args)
    if sample.kwargs:
        text += ", " + ", ".join(f"{k}={describe(v)}" for k, v in sample.kwargs.items())
    return text


def flat(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [u for v in value for u in flat(v)]
    return [value]


def _as_array(value: Any) -> tuple[str, np.ndarray] | None:
    """``(dtype name, values)`` of a tensor-like result of either library, else None."""
    if isinstance(value, torch.Tensor):
        v = value.detach()
        if v.dtype == torch.bfloat16:
            v = v.float()
        # (force: a gradient may be torch's zero tensor, sgn's, which refuses a plain numpy())
        return str(value.dtype).removeprefix("torch."), v.cpu().numpy(force=True)
    if isinstance(value, mg.Tensor):
        array = np.asarray(value.detach().numpy())
        return str(value.dtype).removeprefix("minigrad.").removesuffix("_"), array
    if isinstance(value, np.ndarray):
        return str(value.dtype), value
    return None


def _dtype_name(name: str) -> str:
    name = name.removeprefix("torch.").removeprefix("minigrad.")
    return {"bool_": "bool"}.get(name, name)


def compare(theirs: Any, ours: Any) -> tuple[str, str]:
    """``(class, detail)`` of minigrad's result ``ours`` against torch's ``theirs``."""
    t_flat, o_flat = flat(theirs), flat(ours)
    if isinstance(theirs, (tuple, list)) != isinstance(ours, (tuple, list)) or len(t_flat) != len(
        o_flat
    ):
        return "shape", f"torch returned {_kind(theirs)}, minigrad {_kind(ours)}"
    worst = ("match", "")
    rank = {"match": 0, "value": 1, "dtype": 2, "shape": 3}
    for i, (t, o) in enumerate(zip(t_flat, o_flat)):
        cls, detail = _compare_one(t, o)
        if len(t_flat) > 1 and detail:
            detail = f"output {i}: {detail}"
        if rank[cls] > rank[worst[0]]:
            worst = (cls, detail)
    return worst


def _kind(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__} of {len(flat(value))}"
    a = _as_array(value)
    if a is not None:
        return f"tensor {a[0]}{list(a[1].shape)}"
    return type(value).__name__


def _compare_one(t: Any, o: Any) -> tuple[str, str]:
    ta, oa = _as_array(t), _as_array(o)
    if ta is None and oa is None:
        if isinstance(t, torch.Size) or isinstance(o, torch.Size):
            t, o = tuple(t), tuple(o)
        if type(t) is not type(o) and not (
            isinstance(t, (int, float)) and isinstance(o, (int, float)) and type(t) is not bool
        ):
            return "dtype", f"torch {type(t).__name__} {t!r}, minigrad {type(o).__name__} {o!r}"
        if isinstance(t, float) and isinstance(o, float):
            same = t == o or (t != t and o != o) or abs(t - o) <= 1e-7 + 1e-7 * abs(t)
        else:
            same = t == o
        return ("match", "") if same else ("value", f"torch {t!r}, minigrad {o!r}")
    if ta is None or oa is None:
        return "shape", f"torch {_kind(t)}, minigrad {_kind(o)}"
    (tdt, tv), (odt, ov) = ta, oa
    if tv.shape != ov.shape:
        return "shape", f"torch {list(tv.shape)}, minigrad {list(ov.shape)}"
    if _dtype_name(tdt) != _dtype_name(odt):
        return "dtype", f"torch {_dtype_name(tdt)}, minigrad {_dtype_name(odt)}"
    try:
        torch.testing.assert_close(
            torch.from_numpy(np.array(ov, dtype=tv.dtype)),
            torch.from_numpy(np.array(tv)),
            equal_nan=True,
            check_dtype=False,
        )
    except AssertionError as error:
        return "value", _value_detail(tv, ov, error)
    return "match", ""


TOLERANCES = {np.dtype(np.float64): (1e-7, 1e-7), np.dtype(np.float32): (1.3e-6, 1e-5),
              np.dtype(np.float16): (1e-3, 1e-5)}  # fmt: skip


def _value_detail(tv: np.ndarray, ov: np.ndarray, error: Exception) -> str:
    """Where the first element off assert_close's tolerance for the dtype lies, and how
    many are off."""
    try:
        rtol, atol = TOLERANCES.get(tv.dtype, (0.0, 0.0))
        with np.errstate(all="ignore"):
            bad = ~np.isclose(
                ov.astype(np.float64), tv.astype(np.float64), rtol, atol, equal_nan=True
            )
        i = tuple(int(k) for k in np.argwhere(bad)[0]) if bad.any() else ()
        where = f"at {list(i)}: " if i else ""
        return f"{where}torch {tv[i].item()!r}, minigrad {ov[i].item()!r} ({int(bad.sum())}/{tv.size} differ)"
    except Exception:
        return str(error).splitlines()[0]


# -- calling, with a time limit ------------------------------------------------------


@contextlib.contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def alarm(signum: int, frame: Any) -> None:
        raise Timeout(f"ran past {seconds} s")

    if not hasattr(signal, "SIGALRM"):
        yield
        return
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def outcome(call: Any, seconds: int = 20) -> tuple[bool, Any]:
    """``(True, result)`` or ``(False, exception)``."""
    try:
        with time_limit(seconds), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return True, call()
    except Timeout:
        raise
    except Exception as error:
        return False, error


def first_line(error: BaseException) -> str:
    """The message's first line; shapes that PyTorch writes ``torch.Size([2, 3])`` written as
    minigrad writes them, ``(2, 3)`` (the project's rule for messages). Python's own
    argument errors name a method with its class (``Tensor.sort() got an unexpected keyword
    argument``), PyTorch's C methods without: the class is left out."""
    text = str(error)
    line = text.splitlines()[0] if text else ""
    if isinstance(error, TypeError):
        line = re.sub(r"^\w+\.(\w+\(\) (got|takes|missing) )", r"\1", line)
    return re.sub(
        r"torch\.Size\(\[([\d, ]*)\]\)",
        lambda m: str(tuple(int(v) for v in m[1].split(",") if v.strip())),
        line,
    )


MISSING_WORDS = re.compile(
    r"unexpected keyword|not supported|unsupported|not implemented|does not support|"
    r"positional argument|missing \d+ required|no counterpart|not available|"
    r"takes no keyword|only supports|does not take|must be floating point|not minigrad's",
    re.IGNORECASE,
)
BACKEND_WORDS = re.compile(
    r"numpy|numba|ufunc|ndarray|zero-size|object of type|need at least one array|"
    r"could not broadcast|operands could not|only integers, slices|setting an array element|"
    r"is out of bounds for axis|slice indices|unsupported operand type|object is not|"
    r"has no attribute|not subscriptable|cannot unpack",
    re.IGNORECASE,
)


def _raised_by_minigrad(error: BaseException) -> bool:
    """Whether the innermost frame is minigrad's own code at a ``raise`` statement."""
    import linecache

    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    filename = tb.tb_frame.f_code.co_filename
    if "minigrad" not in Path(filename).parts:
        return False
    line = linecache.getline(filename, tb.tb_lineno).strip()
    return line.startswith("raise ")


def crash_class(error: BaseException) -> str:
    """Why minigrad raised where torch returned: ``missing_feature`` (a TypeError or
    NotImplementedError refusing an argument, dtype or feature), ``refused`` (minigrad's
    own clear error for an input that torch takes) or ``unclear_crash`` (a message from
    inside: NumPy, numba, Python's own errors)."""
    message = first_line(error)
    if isinstance(error, NotImplementedError) or (
        isinstance(error, TypeError) and MISSING_WORDS.search(message)
    ):
        if not BACKEND_WORDS.search(message):
            return "missing_feature"
    if type(error) in (AttributeError, KeyError, NameError, AssertionError, ZeroDivisionError):
        return "unclear_crash"
    if BACKEND_WORDS.search(message) or not _raised_by_minigrad(error):
        return "unclear_crash"
    return "refused"


def same_type(ours: BaseException, theirs: BaseException) -> bool:
    """Whether ``except type(theirs)`` catches ``ours`` (minigrad's ShapeError is a
    RuntimeError and a ValueError, as torch's errors for shapes are one or the other)."""
    return type(theirs).__name__ in {c.__name__ for c in type(ours).__mro__}


# -- one sample ----------------------------------------------------------------------


def _tensors(value: Any) -> list[Any]:
    if isinstance(value, (torch.Tensor, mg.Tensor)):
        return [value]
    if isinstance(value, (tuple, list)):
        return [u for v in value for u in _tensors(v)]
    if isinstance(value, dict):
        return [u for v in value.values() for u in _tensors(v)]
    return []


def compare_gradients(
    sample: Any, t_out: Any, m_parts: tuple, m_call: Any, seed: int
) -> tuple[str, str]:
    """Gradients of ``sum(out * cotangent)`` by torch (``t_out``, already computed from
    ``sample``) and minigrad (``m_call()`` computes its output again from ``m_parts``, the
    converted sample): ``(class, detail)``."""
    t_leaves = [t for t in _tensors((sample.input, sample.args, sample.kwargs)) if t.requires_grad]
    if not t_leaves:
        return "match", ""
    t_outs = [
        (i, o)
        for i, o in enumerate(flat(t_out))
        if isinstance(o, torch.Tensor) and o.requires_grad and o.dtype.is_floating_point
    ]
    if not t_outs:
        return "match", ""
    g = torch.Generator().manual_seed(seed)
    cots = [torch.randn(o.shape, generator=g, dtype=o.dtype) for _, o in t_outs]
    ok, t_grads = outcome(
        lambda: torch.autograd.grad(
            sum((o * c).sum() for (_, o), c in zip(t_outs, cots)), t_leaves, allow_unused=True
        )
    )
    if not ok:
        return "match", ""  # torch has no gradient here: nothing to compare
    m_leaves = [t for t in _tensors(m_parts) if t.requires_grad]

    def ours() -> Any:
        out = flat(m_call())
        total = None
        for (i, _), c in zip(t_outs, cots):
            o = out[i]
            if not isinstance(o, mg.Tensor) or not o.requires_grad:
                raise LookupError(f"output {i} does not require grad")
            term = (o * to_minigrad(c)).sum()
            total = term if total is None else total + term
        return mg.autograd.grad(total, m_leaves, allow_unused=True)

    ok, m_grads = outcome(ours)
    if not ok:
        return "grad", f"minigrad's gradient raised {type(m_grads).__name__}: {first_line(m_grads)}"
    for j, (tg, leaf, mg_grad) in enumerate(zip(t_grads, t_leaves, m_grads)):
        if tg is None:  # torch says the output does not use it (a view it made): no verdict
            continue
        mg_grad = mg.zeros(tuple(leaf.shape), dtype=mg.float64) if mg_grad is None else mg_grad
        cls, detail = _compare_one(tg, mg_grad)
        if cls != "match":
            return "grad", f"input {j}: {cls}: {detail}"
    return "match", ""


def run_sample(op: Any, kind: str, target: Any, sample: Any, grad_seed: int | None) -> Result:
    """One sample's class (``op``, ``dtype``, ``index`` left for the caller)."""
    text = describe_sample(sample)
    try:
        parts = converted(sample)
    except Unconvertible as why:
        return Result("", "", 0, "unconvertible", text, str(why))
    x, args, kwargs = parts
    if kind == "method" and not isinstance(x, mg.Tensor):
        # torch's unbound method called on a number (Tensor.__rmod__(2.0, t)): no Python call
        # of minigrad's spells that.
        return Result("", "", 0, "not_applicable", text)
    m_ok, m_out = outcome(lambda: call_minigrad(kind, target, x, args, kwargs))
    t_ok, t_out = outcome(lambda: op.op(sample.input, *sample.args, **sample.kwargs))
    if t_ok and not m_ok:
        detail = f"{type(m_out).__name__}: {first_line(m_out)}"
        return Result("", "", 0, crash_class(m_out), text, detail)
    if not t_ok and m_ok:
        return Result(
            "", "", 0, "torch_raised", text, f"{type(t_out).__name__}: {first_line(t_out)}"
        )
    if not t_ok:
        detail = f"torch {type(t_out).__name__}: {first_line(t_out)}; minigrad {type(m_out).__name__}: {first_line(m_out)}"
        if not same_type(m_out, t_out):
            return Result("", "", 0, "both_raised_other_type", text, detail)
        if first_line(m_out) != first_line(t_out):
            return Result("", "", 0, "both_raised_other_message", text, detail)
        return Result("", "", 0, "both_raised", text)
    m_call = lambda: call_minigrad(kind, target, x, args, kwargs)
    if op.name in SIGN_FREE:  # compared as the OpInfo compares them (its own processing)
        process = sample.output_process_fn_grad
        t_out, m_out = process(t_out), process(m_out)
        m_call = lambda: process(call_minigrad(kind, target, x, args, kwargs))
    cls, detail = compare(t_out, m_out)
    if cls in ("match", "value") and _drawn(op, sample):
        return Result("", "", 0, "drawn", text)
    if cls == "match" and grad_seed is not None:
        cls, detail = compare_gradients(sample, t_out, parts, m_call, grad_seed)
    return Result("", "", 0, cls, text, detail)


def _drawn(op: Any, sample: Any) -> bool:
    """Whether the sample's result is drawn at random (a dropout inside the call, a sampler)
    or undefined (``empty``): then only its shapes and dtypes are compared."""
    if op.name == "nn.functional.rrelu":  # random slopes only while training
        return bool(sample.kwargs.get("training", False))
    if op.name in DRAWN:
        return True
    if op.name == "nn.functional.multi_head_attention_forward":  # dropout_p: 10th argument
        return bool(sample.kwargs.get("training", True) and sample.args[9])
    if op.name in LOW_RANK:  # A - M, or A less its column means, has a rank above q
        return sample.kwargs.get("M") is not None or bool(sample.kwargs.get("center", False))
    return op.name == "nn.functional.scaled_dot_product_attention" and bool(
        sample.kwargs.get("dropout_p", 0)
    )


# Outputs unique only up to a sign, which LAPACK libraries choose differently: compared
# after the OpInfo's own processing (eigh: the eigenvectors' absolute values; MKL's
# small-matrix eigenvector signs are not reference LAPACK's, see factorizations.py).
SIGN_FREE = {"linalg.eigh"}
# The randomized SVDs: their samples are products a @ b^T of rank q, whose SVD the random
# basis finds exactly, compared through the OpInfo's (U V^T, S); a sample whose A - M (or
# centered A) has a rank above q depends on the draw: ``drawn``.
LOW_RANK = {"svd_lowrank", "pca_lowrank"}
SIGN_FREE |= LOW_RANK


def run_error_input(op: Any, kind: str, target: Any, error_input: Any) -> Result:
    sample = error_input.sample_input
    try:
        x, args, kwargs = converted(sample)
    except Unconvertible as why:
        return Result("", "", 0, "err_unconvertible", describe_sample(sample), str(why))
    if kind == "method" and not isinstance(x, mg.Tensor):
        # Torch's unbound method called on a non-tensor: Python has no such call here.
        return Result("", "", 0, "err_not_applicable", describe_sample(sample))
    return classify_error(
        describe_sample(sample),
        lambda: call_minigrad(kind, target, x, args, kwargs),
        lambda: op.op(sample.input, *sample.args, **sample.kwargs),
    )


def classify_error(text: str, ours: Any, theirs: Any) -> Result:
    """An error input's class: ``ours()`` (minigrad) and ``theirs()`` (torch) should raise alike."""
    m_ok, m_out = outcome(ours)
    t_ok, t_out = outcome(theirs)
    if t_ok:
        return Result("", "", 0, "err_torch_returned", text)
    theirs_text = f"{type(t_out).__name__}: {first_line(t_out)}"
    if m_ok:
        return Result("", "", 0, "err_none", text, f"torch {theirs_text}")
    ours_text = f"{type(m_out).__name__}: {first_line(m_out)}"
    detail = f"torch {theirs_text}; minigrad {ours_text}"
    if not same_type(m_out, t_out) and crash_class(m_out) == "missing_feature":
        # minigrad refuses an argument it never takes (out=, memory_format=, ...).
        return Result("", "", 0, "err_missing_feature", text, detail)
    if not same_type(m_out, t_out):
        return Result("", "", 0, "err_type", text, detail)
    if first_line(m_out) != first_line(t_out):
        return Result("", "", 0, "err_message", text, detail)
    return Result("", "", 0, "err_match", text)


# -- method and in-place variants ------------------------------------------------------
# An OpInfo names its method (``torch.Tensor.abs``) and in-place (``torch.Tensor.abs_``)
# variants. Each runs the same samples through minigrad's Tensor method of the same name:
# ``x.abs()``; and ``s = x.clone(); s.abs_()``, which must return ``s`` itself, change its
# memory (a ``detach()`` of ``s`` made before sees the change), give torch's values and
# dtype (or torch's error: a result that cannot be cast into ``s``, a broadcast that would
# change its shape) and, for float64 samples, torch's gradients through the change.
VARIANTS = ("function", "method", "inplace")
# In-place methods that give a tensor a new shape over the same memory.
VIEW_METHODS = {"t_", "transpose_", "squeeze_", "unsqueeze_", "swapaxes_", "swapdims_"}


def variant_of(op: Any, variant: str) -> tuple[Any, str] | None:
    """``(torch's callable, its name)`` of OpInfo ``op``'s method or in-place variant, or
    None (no such variant, a lambda, or a method the function sweep already calls)."""
    if op.name in SKIP or op.name in DRAWN:
        return None
    fn = op.method_variant if variant == "method" else op.inplace_variant
    if variant == "inplace" and fn is not None and op.name.startswith("nn.functional."):
        return fn, op.name  # F.elu(x, inplace=True): the function with inplace=True
    name = getattr(fn, "__name__", None)
    if fn is None or not name or name == "<lambda>" or not hasattr(torch.Tensor, name):
        return None
    if variant == "method":
        found = resolve(op)
        if found is not None and found[0] in ("method", "attribute") and found[1] == name:
            return None
    return fn, name


def variant_key(op: Any, name: str) -> str:
    """The report's name of a variant: ``"max.binary (Tensor.max)"``, ``"abs (Tensor.abs_)"``,
    ``"nn.functional.elu (inplace=True)"``."""
    if name.startswith("nn.functional."):
        return f"{op_key(op)} (inplace=True)"
    return f"{op_key(op)} (Tensor.{name})"


def has_variant(name: str) -> bool:
    """Whether minigrad has the variant ``name`` (a Tensor method, or an ``nn.functional``
    function taking ``inplace``)."""
    if name.startswith("nn.functional."):
        found = _lookup(name)
        return found is not None and "inplace" in inspect.signature(found[1]).parameters
    return hasattr(mg.Tensor, name)


def missing_variants(op: Any) -> list[str]:
    """The names of ``op``'s method and in-place variants that minigrad lacks."""
    found = [variant_of(op, v) for v in VARIANTS[1:]]
    return [
        f[1] + ("(inplace=True)" if f[1].startswith("nn.") else "")
        for f in found
        if f is not None and not has_variant(f[1])
    ]


def _variant_calls(variant: str, fn: Any, name: str, sample: Any, parts: tuple) -> tuple:
    """``(ours, theirs)``: calls giving ``(self, result)`` of minigrad and torch (self is the
    changed clone for an in-place variant, the input for a method)."""
    x, args, kwargs = parts
    inplace = variant == "inplace"

    def ours() -> tuple:
        s = x.clone() if inplace else x
        alias = s.detach() if inplace else None
        if name.startswith("nn.functional."):
            out = _lookup(name)[1](s, *args, inplace=True, **kwargs)
        else:
            out = getattr(s, name)(*args, **kwargs)
        return s, out, alias

    def theirs() -> tuple:
        s = sample.input.clone() if inplace else sample.input
        return s, fn(s, *sample.args, **sample.kwargs), None

    return ours, theirs


def run_variant_sample(variant: str, fn: Any, name: str, sample: Any,
                       grad_seed: int | None) -> Result:  # fmt: skip
    """One sample through a method or in-place variant (``op``, ``dtype``, ``index`` left)."""
    text = describe_sample(sample)
    if not isinstance(sample.input, torch.Tensor):
        return Result("", "", 0, "not_applicable", text)
    try:
        parts = converted(sample)
    except Unconvertible as why:
        return Result("", "", 0, "unconvertible", text, str(why))
    ours, theirs = _variant_calls(variant, fn, name, sample, parts)
    m_ok, m_out = outcome(ours)
    t_ok, t_out = outcome(theirs)
    if t_ok and not m_ok:
        detail = f"{type(m_out).__name__}: {first_line(m_out)}"
        return Result("", "", 0, crash_class(m_out), text, detail)
    if not t_ok and m_ok:
        return Result(
            "", "", 0, "torch_raised", text, f"{type(t_out).__name__}: {first_line(t_out)}"
        )
    if not t_ok:
        detail = f"torch {type(t_out).__name__}: {first_line(t_out)}; minigrad {type(m_out).__name__}: {first_line(m_out)}"
        if not same_type(m_out, t_out):
            return Result("", "", 0, "both_raised_other_type", text, detail)
        if first_line(m_out) != first_line(t_out):
            return Result("", "", 0, "both_raised_other_message", text, detail)
        return Result("", "", 0, "both_raised", text)
    (t_self, t_res, _), (m_self, m_res, alias) = t_out, m_out
    if variant == "inplace":
        if m_res is not m_self:
            return Result("", "", 0, "not_in_place", text, f"returned {_kind(m_res)}, not self")
        cls, detail = compare(t_self, m_self)
        if name in VIEW_METHODS:  # the same memory seen in a new shape: it must not change
            if cls == "match" and compare(parts[0], alias)[0] != "match":
                cls, detail = "not_in_place", "self's memory changed (a view method changed it)"
        elif cls == "match" and compare(m_self, alias)[0] != "match":
            cls, detail = "not_in_place", "self's memory was not changed (a detach() of it is not)"
        t_res, m_call = t_self, lambda: ours()[0]
    else:
        cls, detail = compare(t_res, m_res)
        m_call = lambda: ours()[1]
    if cls == "match" and grad_seed is not None:
        cls, detail = compare_gradients(sample, t_res, parts, m_call, grad_seed)
    return Result("", "", 0, cls, text, detail)


def run_variant_error_input(variant: str, fn: Any, name: str, error_input: Any) -> Result:
    sample = error_input.sample_input
    text = describe_sample(sample)
    if not isinstance(sample.input, torch.Tensor):
        return Result("", "", 0, "err_not_applicable", text)
    try:
        parts = converted(sample)
    except Unconvertible as why:
        return Result("", "", 0, "err_unconvertible", text, str(why))
    ours, theirs = _variant_calls(variant, fn, name, sample, parts)
    return classify_error(text, ours, theirs)


# -- one operator --------------------------------------------------------------------


def seed_of(*parts: str) -> int:
    return zlib.crc32("|".join(parts).encode())


REFERENCE = False  # True: the OpInfo's reference inputs (more, and at the edges) instead


def samples_of(op: Any, dtype_name: str, limit: int | None = None) -> list[Any]:
    """The OpInfo's samples for ``dtype_name`` on the CPU, seeded (requires_grad for float64
    when the op supports autograd)."""
    dtype = DTYPES[dtype_name]
    if dtype not in op.supported_dtypes("cpu"):
        return []
    requires_grad = dtype == torch.float64 and op.supports_autograd

    def made(requires_grad: bool) -> list[Any]:
        torch.manual_seed(seed_of(op_key(op), dtype_name))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return list(
                itertools.islice(
                    (op.reference_inputs if REFERENCE else op.sample_inputs)(
                        "cpu", dtype, requires_grad=requires_grad
                    ),
                    limit,
                )
            )

    try:
        return made(requires_grad)
    except ValueError as error:
        if not requires_grad or "`requires_grad=True` is not supported" not in str(error):
            raise
    # The generator asked an integer operand to require grad (addcmul's reference inputs mix
    # dtypes), which torch refuses: made without, then their floating leaves require grad.
    samples = made(False)
    for sample in samples:
        for t in _tensors((sample.input, sample.args, sample.kwargs)):
            if t.is_floating_point() and t.is_leaf:
                t.requires_grad_()
    return samples


def error_inputs_of(op: Any, limit: int | None = None) -> list[Any]:
    if op.error_inputs_func is None:
        return []
    torch.manual_seed(seed_of(op_key(op), "errors"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(itertools.islice(op.error_inputs("cpu"), limit))


def sweep_op(
    op: Any, dtypes: tuple[str, ...] = tuple(DTYPES), errors: bool = True, limit: int | None = None
) -> OpReport | None:
    """Every sample of OpInfo ``op`` (and its error inputs) through both libraries; None when
    minigrad has no counterpart. ``limit`` keeps the first ``limit`` samples per dtype."""
    reports = sweep_all(op, ("function",), dtypes, errors, limit)
    return reports[0] if reports else None


def sweep_all(
    op: Any,
    variants: tuple[str, ...] = VARIANTS,
    dtypes: tuple[str, ...] = tuple(DTYPES),
    errors: bool = True,
    limit: int | None = None,
) -> list[OpReport]:
    """``sweep_op`` for the function and each of ``variants`` ("method", "inplace") that both
    libraries have: one report each, from the same samples."""
    runners = []  # (report, run a sample, run an error input)
    found = resolve(op) if "function" in variants else None
    if found is not None:
        kind, target = found
        runners.append((
            OpReport(op_key(op), f"{kind} {getattr(target, '__qualname__', target)}"),
            lambda s, g, kind=kind, target=target: run_sample(op, kind, target, s, g),
            lambda e, kind=kind, target=target: run_error_input(op, kind, target, e),
        ))  # fmt: skip
    for variant in VARIANTS[1:]:
        found = variant_of(op, variant) if variant in variants else None
        if found is None or not has_variant(found[1]):
            continue
        fn, name = found
        runners.append((
            OpReport(variant_key(op, name), f"{variant} {variant_key(op, name)}"),
            lambda s, g, v=variant, fn=fn, name=name: run_variant_sample(v, fn, name, s, g),
            lambda e, v=variant, fn=fn, name=name: run_variant_error_input(v, fn, name, e),
        ))  # fmt: skip
    if not runners:
        return []
    key = op_key(op)
    mg.manual_seed(seed_of(key))
    for dtype_name in dtypes:
        try:
            samples = samples_of(op, dtype_name, limit)
        except Exception as error:
            for report, _, _ in runners:
                report.results.append(Result(report.op, dtype_name, -1, "no_samples", "",
                                             f"{type(error).__name__}: {error}"))  # fmt: skip
            continue
        for index, sample in enumerate(samples[:limit]):
            for report, run, _ in runners:
                grad_seed = (
                    seed_of(report.op, dtype_name, str(index))
                    if dtype_name == "float64" and op.supports_autograd
                    else None
                )
                try:
                    result = run(sample, grad_seed)
                except Timeout as error:
                    result = Result("", "", 0, "timeout", describe_sample(sample), str(error))
                except Exception as error:  # the harness itself: say so, go on
                    result = Result("", "", 0, "harness_error", "",
                                    f"{type(error).__name__}: {error}")  # fmt: skip
                result.op, result.dtype, result.index = report.op, dtype_name, index
                report.results.append(result)
    if errors:
        try:
            error_inputs = error_inputs_of(op, limit)
        except Exception:
            error_inputs = []
        for index, error_input in enumerate(error_inputs[:limit]):
            for report, _, run_error in runners:
                try:
                    result = run_error(error_input)
                except Timeout as error:
                    result = Result("", "", 0, "timeout", "", str(error))
                except Exception as error:
                    result = Result("", "", 0, "harness_error", "",
                                    f"{type(error).__name__}: {error}")  # fmt: skip
                result.op, result.dtype, result.index = report.op, "errors", index
                report.results.append(result)
    return [report for report, _, _ in runners]


def all_ops() -> list[Any]:
    with _hypothesis_profile_kept():
        from torch.testing._internal import common_utils
        from torch.testing._internal.common_methods_invocations import op_db
        from torch.testing._internal.opinfo import core

    # Torch's sample iterators look for the unittest method running them by crawling the
    # whole stack (inspect.stack) at every sample: 90% of this sweep's time under pytest.
    # There is no such method here; the iterators then seed torch with their fixed SEED
    # before each sample, as they would without the crawl.
    common_utils.extract_test_fn = core.extract_test_fn = lambda: None
    return list(op_db)


@contextlib.contextmanager
def _hypothesis_profile_kept():
    """Put back the hypothesis profile in force before torch's test utilities are imported.

    Importing them registers and loads torch's own profiles, one of them under the test
    suite's name ``dev`` (10 examples where ours draws 50), so every property test that
    ran after this sweep in the same session drew a fifth of its examples.
    """
    try:
        from hypothesis import settings
    except ImportError:  # the sweep run on its own, without the test tools
        yield
        return
    name = settings.get_current_profile_name()
    kept = settings.get_profile(name)
    try:
        yield
    finally:
        settings.register_profile(name, kept)
        settings.load_profile(name)


# -- the report ----------------------------------------------------------------------

DIFFERENCES = (
    "value", "dtype", "shape", "grad", "unclear_crash", "refused", "torch_raised",
    "both_raised_other_type", "missing_feature", "timeout", "both_raised_other_message",
    "not_in_place",
)  # fmt: skip
ERROR_CLASSES = ("err_match", "err_message", "err_type", "err_none")

FAMILIES = (
    "unary elementwise", "binary elementwise", "reductions", "shape/view/indexing",
    "nn.functional", "linalg", "other",
)  # fmt: skip


def family(op: Any) -> str:
    from torch.testing._internal.opinfo.core import BinaryUfuncInfo, ReductionOpInfo, UnaryUfuncInfo

    name = op.name
    if name.startswith("nn.functional."):
        return "nn.functional"
    if name.startswith("linalg.") or name in LINALG:
        return "linalg"
    if isinstance(op, UnaryUfuncInfo) or name in UNARY:
        return "unary elementwise"
    if isinstance(op, BinaryUfuncInfo) or name.startswith("__r") or name in BINARY:
        return "binary elementwise"
    if isinstance(op, ReductionOpInfo) or name in REDUCTIONS:
        return "reductions"
    if name in SHAPE:
        return "shape/view/indexing"
    return "other"


LINALG = {"matmul", "mm", "bmm", "mv", "dot", "vdot", "addmm", "addmv", "addbmm", "baddbmm",
          "addr", "inner", "outer", "kron", "einsum", "tensordot", "cross", "cdist", "trace",
          "chain_matmul", "det", "inverse", "cholesky", "triangular_solve", "lu", "pinverse"}  # fmt: skip
UNARY = {"clamp", "clamp_min", "clamp_max", "nan_to_num", "round", "logit", "softmax",
         "log_softmax", "frac", "sgn", "positive", "signbit", "i0", "mvlgamma", "polygamma",
         "double", "float", "long", "int", "bool", "half", "bfloat16", "to", "clone"}  # fmt: skip
BINARY = {"add", "sub", "mul", "div", "lerp", "addcmul", "addcdiv", "where", "isclose",
          "allclose", "equal", "masked_fill", "clamp"}  # fmt: skip
REDUCTIONS = {"max", "min", "median", "nanmedian", "mode", "kthvalue", "std", "var",
              "std_mean", "var_mean", "logsumexp", "cumsum", "cumprod", "cummax", "cummin",
              "logcumsumexp", "topk", "sort", "argsort", "msort", "aminmax", "nanmean",
              "count_nonzero", "unique", "unique_consecutive", "bincount", "histc", "diff"}  # fmt: skip
SHAPE = {"reshape", "view", "view_as", "reshape_as", "transpose", "permute", "squeeze",
         "unsqueeze", "flatten", "unflatten", "expand", "expand_as", "broadcast_to",
         "broadcast_tensors", "cat", "stack", "hstack", "vstack", "dstack", "column_stack",
         "split", "chunk", "tensor_split", "unbind", "narrow", "select", "index_select",
         "gather", "scatter", "scatter_add", "scatter_reduce", "index_add", "index_put",
         "index_copy", "index_fill", "masked_select", "masked_scatter", "take",
         "take_along_dim", "nonzero", "flip", "fliplr", "flipud", "roll", "rot90", "tile",
         "repeat", "repeat_interleave", "diag", "diagonal", "diag_embed", "tril", "triu",
         "movedim", "moveaxis", "swapaxes", "swapdims", "T", "mT", "H", "mH", "t",
         "contiguous", "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d", "split_with_sizes",
         "searchsorted", "__getitem__", "__setitem__", "sum_to_size", "unfold",
         "new_zeros", "new_ones", "new_full", "zeros_like", "ones_like", "full_like",
         "pad", "constant_pad_nd", "narrow_copy", "hsplit", "vsplit", "dsplit", "ravel",
         "squeeze_copy", "view_copy", "select_scatter", "slice_scatter", "diagonal_scatter",
         "as_strided", "block_diag", "combinations", "cartesian_prod", "tril_indices",
         "triu_indices", "linspace", "logspace", "arange", "eye", "full", "zeros", "ones"}  # fmt: skip


def write_report(reports: list[OpReport], families: dict[str, str], absent: list[str],
                 out: Path, absent_variants: list[str] = ()) -> None:  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    data = {
        "ops": {r.op: {"target": r.target, "family": families[r.op]} for r in reports},
        "absent": absent,
        "absent_variants": list(absent_variants),
        "results": [asdict(res) for r in reports for res in r.results],
    }
    (out / "opinfo_sweep.json").write_text(json.dumps(data, indent=0))
    (out / "opinfo_sweep.md").write_text(markdown(reports, families, absent, absent_variants))


def markdown(reports: list[OpReport], families: dict[str, str], absent: list[str],
             absent_variants: list[str] = ()) -> str:  # fmt: skip
    totals = collections.Counter(res.cls for r in reports for res in r.results)
    lines = ["# PyTorch's OpInfo samples through minigrad", ""]
    lines.append(f"{len(reports)} OpInfos with a minigrad counterpart; {len(absent)} without.")
    lines.append("")
    lines.append("| class | samples |")
    lines.append("|---|---|")
    for cls, n in totals.most_common():
        lines.append(f"| {cls} | {n} |")
    lines.append("")
    for fam in FAMILIES:
        rows = [r for r in reports if families[r.op] == fam]
        bad = []
        for r in rows:
            counts = collections.Counter(res.cls for res in r.results)
            ndiff = sum(counts[c] for c in DIFFERENCES)
            nerr = sum(counts[c] for c in ("err_message", "err_type", "err_none"))
            if ndiff or nerr:
                bad.append((ndiff, nerr, r, counts))
        lines.append(f"## {fam}: {len(bad)} of {len(rows)} operators differ")
        lines.append("")
        if not bad:
            continue
        lines.append("| op | samples | differences | error inputs off | example |")
        lines.append("|---|---|---|---|---|")
        for _, _, r, counts in sorted(bad, key=lambda b: (-b[0], -b[1], b[2].op)):
            n = sum(counts[c] for c in counts if not c.startswith("err_"))
            classes = ", ".join(f"{c} {counts[c]}" for c in DIFFERENCES if counts[c])
            errs = ", ".join(
                f"{c.removeprefix('err_')} {counts[c]}"
                for c in ("err_message", "err_type", "err_none")
                if counts[c]
            )
            example = next(
                (res for res in r.results if res.cls in DIFFERENCES),
                next((res for res in r.results if res.cls in ERROR_CLASSES[1:]), None),
            )
            ex = ""
            if example is not None:
                ex = f"{example.dtype} #{example.index} `{_cut(example.sample, 90)}`: {example.cls}: {_cut(example.detail, 160)}"
            lines.append(
                f"| {r.op} | {n} | {classes or '-'} | {errs or '-'} | {ex.replace('|', '/')} |"
            )
        lines.append("")
    lines.append("## OpInfos without a minigrad counterpart")
    lines.append("")
    lines.append(", ".join(absent))
    lines.append("")
    if absent_variants:
        lines.append("## Tensor methods and in-place methods of the OpInfos that minigrad lacks")
        lines.append("")
        lines.append(", ".join(absent_variants))
        lines.append("")
    return "\n".join(lines)


def _cut(text: str, n: int) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= n else text[: n - 3] + "..."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", nargs="*", help="OpInfo names (name or name.variant)")
    parser.add_argument("--out", default=".", help="folder for the report files")
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--no-errors", action="store_true")
    parser.add_argument(
        "--reference", action="store_true", help="the OpInfos' reference inputs (edge values)"
    )
    parser.add_argument(
        "--variants",
        nargs="+",
        choices=VARIANTS,
        default=list(VARIANTS),
        help="which calls to run: the function, Tensor.op (method), Tensor.op_ (inplace)",
    )
    args = parser.parse_args(argv)
    global REFERENCE
    REFERENCE = args.reference
    reports, families, absent, absent_variants = [], {}, [], set()
    variants = tuple(args.variants)
    with mg.backends.use(args.backend):
        for op in all_ops():
            key = op_key(op)
            if args.ops and op.name not in args.ops and key not in args.ops:
                continue
            if "function" in variants and resolve(op) is None:
                absent.append(key)
            if set(variants) & {"method", "inplace"}:
                absent_variants.update(
                    n
                    for n in missing_variants(op)
                    if ("inplace" if n.endswith(("_", ")")) else "method") in variants
                )
            for report in sweep_all(op, variants, errors=not args.no_errors):
                families[report.op] = family(op)
                reports.append(report)
                counts = collections.Counter(res.cls for res in report.results)
                print(report.op, dict(counts), file=sys.stderr, flush=True)
    write_report(reports, families, absent, Path(args.out), sorted(absent_variants))
    return 0


if __name__ == "__main__":
    sys.exit(main())
