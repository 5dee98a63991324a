"""``autocast``: run each operation in the precision PyTorch's lists give it (lesson 15).

Mixed precision keeps the parameters in float32 (the *master copy*, which
the optimizer updates with float32 arithmetic) and runs the expensive,
well-conditioned operations in a 16-bit format. Which operations? PyTorch
answers with per-device lists, and so do we (the same names):

- *lower precision* (matrix products, convolutions, attention): the floating
  inputs are cast to the low dtype (bfloat16 on the CPU, float16 on CUDA by
  default) and the op runs there. These are the ops that pay for the bits
  and that tolerate rounding: every output is a long sum of products.
- *float32* (the losses; on CUDA also softmax, exp, log, sums and norms):
  inputs are cast *up*, because these ops amplify rounding or overflow
  float16's range.
- every other op runs in its inputs' dtype, by the usual promotion.

A cast is an ordinary differentiable operation (``x.to(dtype)``), so its
backward casts the gradient back: a float32 parameter used in bfloat16
receives a float32 gradient. float64 inputs and integer ones are never cast.

``autocast`` is one more interpreter on the stack of transforms
(``minigrad.tensor.mode``): it sees each primitive first, casts its inputs,
and binds the primitive again for the levels below it. Under ``jit`` the
casts are therefore in the traced program, where fusion can fuse them like
any elementwise op. Named composite functions (``linear``,
``cross_entropy``, see ``minigrad.tensor.composite``) are cast whole, at
their entry, and run with autocast paused inside, as PyTorch runs a listed
op with its autocast key excluded.

    >>> import minigrad as mg
    >>> x, w = mg.ones((2, 3)), mg.ones((3, 4), requires_grad=True)
    >>> with mg.autocast("cpu"):
    ...     y = x @ w
    ...     loss = mg.nn.functional.mse_loss(y, mg.zeros((2, 4)))
    >>> y.dtype, loss.dtype
    (dtype(bfloat16), dtype('float32'))
    >>> loss.backward(); w.grad.dtype
    dtype('float32')
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from minigrad import backends
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.composite import dispatch
from minigrad.tensor.dtypes import as_dtype, float32, float64, is_floating
from minigrad.tensor.mode import Level, current
from minigrad.tensor.record import apply

LOWER, FLOAT32 = "lower", "float32"

# torch.autocast's op lists, under PyTorch's names (minigrad's primitive for
# torch's mm/bmm/matmul is ``matmul``, and ``pow_scalar`` is ``x ** 2``).
_LOWER = (
    "matmul mm bmm addmm baddbmm addbmm linear conv1d conv2d conv3d conv_transpose1d "
    "conv_transpose2d conv_transpose3d prelu scaled_dot_product_attention"
).split()
_CPU_FLOAT32 = (
    "prod trace cdist binary_cross_entropy binary_cross_entropy_with_logits cross_entropy "
    "nll_loss mse_loss l1_loss smooth_l1_loss huber_loss kl_div cosine_embedding_loss "
    "margin_ranking_loss triplet_margin_loss hinge_embedding_loss poisson_nll_loss "
    "soft_margin_loss multi_margin_loss multilabel_margin_loss"
).split()
_CUDA_FLOAT32 = (
    "pow pow_scalar acos asin cosh sinh tan exp expm1 log log10 log1p log2 reciprocal rsqrt "
    "erfinv cumsum cumprod prod sum softmax log_softmax softmin softplus layer_norm group_norm "
    "norm normalize renorm cosine_similarity cdist dist pdist binary_cross_entropy_with_logits "
    "cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss kl_div cosine_embedding_loss "
    "margin_ranking_loss triplet_margin_loss hinge_embedding_loss poisson_nll_loss "
    "soft_margin_loss multi_margin_loss multilabel_margin_loss"
).split()

#: For each device type: op name -> "lower" or "float32". Ops not named keep their inputs' dtype;
#: a named composite not listed (``mv``, ``dot`` on the CPU) runs paused, as PyTorch runs it.
POLICY: dict[str, dict[str, str]] = {
    "cpu": {**dict.fromkeys(_LOWER, LOWER), **dict.fromkeys(_CPU_FLOAT32, FLOAT32)},
    "cuda": {**dict.fromkeys([*_LOWER, "mv"], LOWER), **dict.fromkeys(_CUDA_FLOAT32, FLOAT32)},
}
DEFAULT_DTYPE = {"cpu": "bfloat16", "cuda": "float16"}


class autocast:
    """``torch.autocast``: a ``with`` block (or a decorator) that runs ops in mixed precision.

    ``device_type`` is ``"cpu"`` or ``"cuda"`` (only tensors on that device are
    cast); ``dtype`` the low precision, by default bfloat16 on the CPU and
    float16 on CUDA; ``enabled=False`` turns autocast off inside the block,
    also an outer one's. ``cache_enabled``: a float32 parameter used twice in
    one block is cast once (the cast is kept until the block ends).

    >>> import minigrad as mg
    >>> @mg.autocast("cpu", dtype=mg.float16)
    ... def f(a, b):
    ...     return a @ b
    >>> f(mg.ones((2, 2)), mg.ones((2, 2))).dtype
    dtype('float16')
    """

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:  # fmt: skip
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type not in POLICY:
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'"
            )
        self.device = device_type
        self.fast_dtype = as_dtype(DEFAULT_DTYPE[device_type] if dtype is None else dtype)
        self._cache_enabled = True if cache_enabled is None else bool(cache_enabled)
        if enabled and device_type == "cuda" and not _cuda_available():
            warnings.warn("CUDA is not available. Disabling autocast.", stacklevel=2)
            enabled = False
        elif enabled and self.fast_dtype.name not in ("bfloat16", "float16"):
            name = device_type.upper()
            warnings.warn(
                f"In {name} autocast, but the target dtype is not supported. Disabling "
                f"autocast.\n{name} Autocast only supports dtypes of minigrad.bfloat16, "
                "minigrad.float16 currently.",
                stacklevel=2,
            )
            enabled = False
        self._enabled = enabled
        self._levels: list[AutocastLevel] = []

    def __enter__(self) -> autocast:
        level = AutocastLevel(self.device, self.fast_dtype, self._enabled, self._cache_enabled)
        self._levels.append(level)
        level.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._levels.pop().__exit__(*exc)

    def __call__(self, func: Callable) -> Callable:
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. Did you "
                "mean to use autocast as a context manager? For example:\n"
                "    with mg.autocast(device_type=...):\n"
                "        output = model(input)"
            )

        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return run


class AutocastLevel(Level):
    """The interpreter: casts each listed operation's floating inputs, then binds it below."""

    kind = "autocast"

    def __init__(self, device: str, dtype: Any, enabled: bool, cache_enabled: bool) -> None:
        super().__init__()
        self.device, self.dtype, self.enabled = device, dtype, enabled
        self.policy = POLICY[device]
        self.paused = 0  # inside a named op that was cast at its entry
        self.cache: dict[int, tuple[Tensor, int, Tensor]] | None = {} if cache_enabled else None

    def active(self) -> bool:
        """Enabled, not paused, and the innermost autocast of its device (an inner one of the
        same device decides alone; one of another device leaves this one alone, as in PyTorch).
        """
        if not self.enabled or self.paused:
            return False
        for level in reversed(current().stack):
            if level.kind == "autocast" and level.device == self.device:
                return level is self
        return False

    def claims(self, inputs: Any, params: dict) -> bool:
        return self.active()

    def process(self, prim: Any, inputs: tuple, params: dict) -> Any:
        with self.lowered():
            policy = self.policy.get(prim.name)
            if policy is not None:
                inputs = tuple(self.cast(x, policy) for x in inputs)
            return apply(prim, inputs, **params)

    def composite(self, name: str, fn: Callable, args: tuple, kwargs: dict) -> Any:
        """A named op (``tensor/composite.py``): cast its tensor arguments, run it paused.

        One in neither list runs paused in its inputs' dtype: PyTorch's ``mv`` on
        the CPU does not cast, though minigrad's is a ``matmul`` inside.
        """
        if not self.active() or not any(self.on_device(a) for a in (*args, *kwargs.values())):
            return dispatch(name, fn, args, kwargs, below=self.id)  # to the levels below
        policy = self.policy.get(name)
        if policy is not None:
            with self.lowered():
                args = tuple(self.cast_any(a, policy) for a in args)
                kwargs = {k: self.cast_any(v, policy) for k, v in kwargs.items()}
        self.paused += 1
        try:
            return fn(*args, **kwargs)
        finally:
            self.paused -= 1

    def on_device(self, value: Any) -> bool:
        """Whether ``value`` is (or a list or tuple holds) a tensor on this level's device."""
        if isinstance(value, (list, tuple)):
            return any(self.on_device(v) for v in value)
        return isinstance(value, Tensor) and str(value.device).split(":")[0] == self.device

    def cast_any(self, value: Any, policy: str) -> Any:
        if isinstance(value, Tensor):
            return self.cast(value, policy)
        if isinstance(value, (list, tuple)):
            return type(value)(self.cast_any(v, policy) for v in value)
        return value

    def cast(self, x: Any, policy: str) -> Any:
        """``x`` in the policy's dtype, if it is eligible: floating, not float64, on our device."""
        if not isinstance(x, Tensor) or not is_floating(x.dtype) or x.dtype == float64:
            return x
        if not self.on_device(x):
            return x
        to = self.dtype if policy == LOWER else float32
        if x.dtype == to:
            return x
        cache = self.cache
        # PyTorch caches only float32 leaves that require grad (the parameters).
        if cache is None or to != self.dtype or not (x.is_leaf and x.requires_grad):
            return x.to(to)
        hit = cache.get(id(x))
        if hit is not None and hit[0] is x and hit[1] == x._version:
            return hit[2]
        out = x.to(to)
        cache[id(x)] = (x, x._version, out)
        return out

    def __exit__(self, *exc: object) -> None:
        self.cache = None
        super().__exit__(*exc)


def _cuda_available() -> bool:
    available = backends.available()
    return bool(available.get("cuda") or available.get("cuda_simulator"))
