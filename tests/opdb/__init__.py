"""The correctness database: every public operation, with sample inputs, in one table.

``DATABASE`` maps a key to a hypothesis strategy that draws a ``Case``: a
minigrad function, the same computation in PyTorch, and float64 input arrays
(random shapes, size-0 and size-1 axes, broadcasting, transposed, strided and
stride-0 views). Every oracle reads this one table:

- ``opdb/test_opdb.py``: values and gradients against PyTorch in float64 and
  float32, gradients against central finite differences, second derivatives
  against PyTorch, and a completeness check: a public operation without a case
  fails the suite;
- ``transforms/test_forward_mode.py``: forward mode against reverse mode and
  ``torch.func.jvp``;
- ``backends/test_numba_backend.py``: the numba backend against the NumPy reference;
- the jit and vmap tests: ``jit(f)`` equals ``f``, ``vmap(f)`` equals a loop.

**Keys** are public names: ``"exp"`` covers ``mg.exp`` and ``Tensor.exp``;
``"nn.functional.gelu"``, ``"linalg.norm"``; ``"Tensor.scatter_add"`` for a
method with no function of the same name. A second sampling of one operation
adds ``":variant"`` (``"max:ties"``).

**Rows live by area**, one module each (``core``, ``elementwise``, ``reductions``,
``contractions``, ``shape``, ``convolution``, ``nn``), and each module says
which of its keys are

- ``NOT_SMOOTH``: ties, kinks or rounding, where finite differences and second
  derivatives have nothing to approximate (values and first derivatives are
  still compared with PyTorch);
- ``NO_GRAD``: results with no derivative (integers, bools): values only;
- ``FIRST_ORDER_ONLY``: no second derivative is checked.

Adding an operation = its registry row + one entry here.
"""

from __future__ import annotations

import inspect
from typing import Any

import minigrad as mg
from opdb import (
    attention,
    bessel,
    collectives,
    contractions,
    control,
    convolution,
    copies,
    core,
    daily,
    decompositions,
    elementwise,
    factorizations,
    fractional,
    index_sets,
    inplace,
    inplace_activations,
    inverses,
    legacy_linalg,
    masked,
    multi_head_attention,
    nn,
    nn_compositions,
    nn_ctc,
    nn_grids,
    nn_losses,
    placing,
    pseudoinverses,
    recurrent_cells,
    reductions,
    shape,
    special,
    special_functions,
    spectral,
    spellings,
    summaries,
    torch_level,
    triangular,
    volumes,
)
from opdb.strategies import SEEDS, Case

AREAS = (core, elementwise, reductions, contractions, shape, convolution, nn, inplace,
         nn_compositions, daily, nn_grids, collectives, control, attention, spellings,
         decompositions, volumes, special, inverses, factorizations, placing,
         nn_losses, pseudoinverses, copies, bessel, summaries, masked,
         special_functions, spectral, triangular, index_sets, inplace_activations,
         torch_level, multi_head_attention, fractional, legacy_linalg,
         recurrent_cells, nn_ctc)  # fmt: skip

DATABASE: dict[str, Any] = {}
NOT_SMOOTH: set[str] = set()
NO_GRAD: set[str] = set()
FIRST_ORDER_ONLY: set[str] = set()
for _area in AREAS:
    _repeated = set(DATABASE) & set(_area.CASES)
    if _repeated:
        raise ValueError(f"opdb.{_area.__name__}: keys defined twice: {sorted(_repeated)}")
    DATABASE.update(_area.CASES)
    NOT_SMOOTH |= _area.NOT_SMOOTH
    NO_GRAD |= _area.NO_GRAD
    FIRST_ORDER_ONLY |= getattr(_area, "FIRST_ORDER_ONLY", set())
_unknown = (NOT_SMOOTH | NO_GRAD | FIRST_ORDER_ONLY) - set(DATABASE)
if _unknown:
    raise ValueError(f"opdb: flags name keys that have no case: {sorted(_unknown)}")

#: Keys whose derivatives are checked (everything with a derivative).
DIFFERENTIABLE = sorted(set(DATABASE) - NO_GRAD)
#: Keys checked against finite differences and for second derivatives.
SMOOTH = sorted(set(DATABASE) - NOT_SMOOTH - NO_GRAD)
SECOND_ORDER = sorted(set(DATABASE) - NO_GRAD - FIRST_ORDER_ONLY)
#: Keys run in float16 and bfloat16 as well (lesson 15): the elementwise, reduction,
#: matrix product and convolution rows. Keys with a NumPy float64 constant promote by
#: NumPy's rule (float64), so they stay float32 and up.
LOW_PRECISION = sorted(
    k
    for area in (core, elementwise, reductions, contractions, convolution)
    for k in area.CASES
    if not k.endswith(":numpy")
)


def op_of(key: str) -> str:
    """The public name a key covers: ``"max:ties"`` -> ``"max"``."""
    return key.split(":", 1)[0]


# -- which public names are operations ---------------------------------------------------------
# Names in ``mg`` and methods of ``Tensor`` that make no new values from old ones:
# constructors, modes, conversions, autograd entry points.
NOT_OPERATIONS = {
    "apply", "arange", "backward", "broadcast_shape", "cpu", "cuda", "detach", "double", "eye",
    "half", "bfloat16",
    "float", "full", "is_grad_enabled", "item", "manual_seed", "numpy", "ones", "ones_like",
    "rand", "randn", "requires_grad_", "retain_grad", "tensor", "to", "tolist", "zero_grad",
    "zeros", "zeros_like", "enable_grad", "no_grad", "randint", "full_like", "empty", "linspace",
    "load", "save", "set_grad_enabled", "empty_like", "rand_like", "randn_like",
    "logspace", "new_zeros", "new_ones", "new_full", "numel",
    "register_post_accumulate_grad_hook", "dim", "ndimension", "nelement", "element_size",
    "is_floating_point", "is_complex", "is_signed", "is_same_size", "is_contiguous", "type_as",
    "register_hook", "new_tensor", "type",
    # no tensor input to differentiate, or only an error: tests/tensor/test_index_sets.py
    "tril_indices", "triu_indices", "broadcast_shapes", "scalar_tensor", "imag",
    # random samplers: values cannot be compared with torch's, and torch's gradient is zero;
    # distributions, errors and that zero gradient: tests/tensor/test_sampling.py
    "bernoulli", "normal", "multinomial", "uniform_", "normal_", "bernoulli_", "exponential_",
    "geometric_", "cauchy_", "log_normal_", "random_", "new_empty",
    # questions of a tensor or a dtype, data to tensors, the random stream, modes:
    # tests/tensor/test_torch_names.py
    "is_tensor", "is_nonzero", "result_type", "promote_types", "can_cast", "as_tensor",
    "asarray", "get_default_dtype", "randperm", "seed", "initial_seed", "get_rng_state",
    "set_rng_state", "inference_mode", "is_inference_mode_enabled", "empty_strided",
    "empty_permuted", "new_empty_strided", "binomial", "poisson", "finfo", "iinfo", "is_conj",
    "is_neg",
}  # fmt: skip
# Operators spelled with a symbol: the public name whose case covers them.
DUNDERS = {
    "__add__": "add", "__radd__": "add", "__sub__": "sub", "__rsub__": "sub",
    "__mul__": "mul", "__rmul__": "mul", "__truediv__": "div", "__rtruediv__": "div",
    "__pow__": "power", "__rpow__": "power", "__matmul__": "matmul", "__rmatmul__": "matmul",
    "__neg__": "neg", "__abs__": "abs", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
    "__ge__": "ge", "__eq__": "eq", "__ne__": "ne", "__and__": "bitwise_and",
    "__rand__": "bitwise_and", "__or__": "bitwise_or", "__ror__": "bitwise_or",
    "__invert__": "bitwise_not", "__xor__": "bitwise_xor", "__rxor__": "bitwise_xor",
    "__lshift__": "bitwise_left_shift", "__rlshift__": "bitwise_left_shift",
    "__rshift__": "bitwise_right_shift", "__rrshift__": "bitwise_right_shift", "__getitem__": "getitem", "__mod__": "remainder",
    "__rmod__": "remainder", "__setitem__": "Tensor.__setitem__",
}  # fmt: skip


def _is_operation(name: str, obj: Any) -> bool:
    return (
        not name.startswith("_")
        and name not in NOT_OPERATIONS
        and callable(obj)
        and not inspect.isclass(obj)
        and not inspect.ismodule(obj)
    )


def public_operations() -> dict[str, set[str]]:
    """Every public operation, as ``{where: names}``, with the aliases it answers to.

    Returns a map from the spelling a user writes (``"mg.clip"``,
    ``"Tensor.__add__"``, ``"nn.functional.gelu"``) to the set of keys any of
    which covers it: the name itself, and for an alias (the same function
    under two names) the other name too.
    """
    wanted: dict[str, set[str]] = {}
    functions = {n: getattr(mg, n) for n in dir(mg)}
    functional = getattr(mg.nn, "functional", None)
    nn_names = {n: getattr(functional, n) for n in dir(functional)} if functional else {}
    for name, obj in functions.items():
        module = getattr(obj, "__module__", "") or ""
        if _is_operation(name, obj) and module.startswith("minigrad.tensor"):
            if module in ("minigrad.tensor.factories", "minigrad.tensor.mode"):
                continue
            if module == "minigrad.tensor.inplace_functions":
                continue  # ``mg.exp_(x)`` is ``x.exp_()``: tests/tensor/test_torch_names.py
            same = {n for n, o in functions.items() if o is obj}
            # ``mg.conv2d`` is ``nn.functional.conv2d`` itself: that key covers it too.
            same |= {f"nn.functional.{n}" for n, o in nn_names.items() if o is obj}
            wanted[f"mg.{name}"] = same
    for prefix, namespace in (("nn.functional", getattr(mg.nn, "functional", None)),
                              ("linalg", getattr(mg, "linalg", None)),
                              ("special", getattr(mg, "special", None)),
                              ("masked", getattr(mg, "masked", None)),
                              ("fft", getattr(mg, "fft", None))):  # fmt: skip
        if namespace is None:
            continue
        members = {n: getattr(namespace, n) for n in dir(namespace)}
        for name, obj in members.items():
            module = getattr(obj, "__module__", "") or ""
            if _is_operation(name, obj) and module.startswith("minigrad"):
                same = {n for n, o in members.items() if o is obj}
                # A function that nn.functional re-exports from mg is covered by mg's key.
                keys = {f"{prefix}.{n}" for n in same} | {
                    n for n, o in functions.items() if o is obj
                }
                wanted[f"{prefix}.{name}"] = keys
    methods = {n: inspect.getattr_static(mg.Tensor, n) for n in dir(mg.Tensor)}
    for name, obj in methods.items():
        if isinstance(obj, property) or (name.endswith("_") and not name.startswith("__")):
            continue  # attributes, and in-place methods (tests/tensor/test_inplace.py)
        if name in DUNDERS:
            wanted[f"Tensor.{name}"] = {DUNDERS[name]}
        elif _is_operation(name, obj):
            same = {n for n, o in methods.items() if o is obj and not n.startswith("_")}
            wanted[f"Tensor.{name}"] = same | {f"Tensor.{n}" for n in same}
    return wanted


def uncovered() -> list[str]:
    """Public operations that no key of the database covers."""
    covered = {op_of(key) for key in DATABASE}
    return sorted(where for where, keys in public_operations().items() if not keys & covered)


__all__ = [
    "DATABASE", "DIFFERENTIABLE", "FIRST_ORDER_ONLY", "NOT_SMOOTH", "NO_GRAD", "SECOND_ORDER",
    "SEEDS", "SMOOTH", "Case", "op_of", "public_operations", "uncovered",
]  # fmt: skip
