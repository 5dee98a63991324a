"""``torch.exp_(x)``, ``torch.clamp_(x, 0, 1)``: the in-place methods as functions (lesson 06).

PyTorch has most in-place methods at its top level too, ``torch.name_(input, ...)``
being ``input.name_(...)``. Each one here is exactly that call, made by one
small factory from the table below, so there is nothing to test twice: the
method's values, gradient, version counter and errors (a leaf that requires
grad, a result that does not fit the input's dtype) are the function's. Only
the first argument is checked, with PyTorch's TypeError.

    >>> import minigrad as mg
    >>> x = mg.tensor([0.0, 1.0])
    >>> mg.exp_(x) is x, x
    (True, tensor([1.    , 2.7183]))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.tensor import Tensor


def _in_place(name: str) -> Callable[..., Tensor]:
    """``name(input, *args, **kwargs)``: ``input.name(*args, **kwargs)``, ``input`` returned."""

    def function(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' (position 1) must be Tensor, not "
                f"{dtypes.type_name(input)}"
            )
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``input.{name}(...)``: changes ``input`` and returns it."
    return function


# The table: every ``torch.<name>_`` whose Tensor method minigrad has (one line each, so a
# search for the name finds its definition).
abs_ = _in_place("abs_")
acos_ = _in_place("acos_")
acosh_ = _in_place("acosh_")
addmv_ = _in_place("addmv_")
arccos_ = _in_place("arccos_")
arccosh_ = _in_place("arccosh_")
arcsin_ = _in_place("arcsin_")
arcsinh_ = _in_place("arcsinh_")
arctan_ = _in_place("arctan_")
arctanh_ = _in_place("arctanh_")
asin_ = _in_place("asin_")
asinh_ = _in_place("asinh_")
atan_ = _in_place("atan_")
atanh_ = _in_place("atanh_")
ceil_ = _in_place("ceil_")
clamp_ = _in_place("clamp_")
clamp_max_ = _in_place("clamp_max_")
clamp_min_ = _in_place("clamp_min_")
clip_ = _in_place("clip_")
cos_ = _in_place("cos_")
cosh_ = _in_place("cosh_")
deg2rad_ = _in_place("deg2rad_")
detach_ = _in_place("detach_")
erf_ = _in_place("erf_")
erfc_ = _in_place("erfc_")
exp2_ = _in_place("exp2_")
exp_ = _in_place("exp_")
expm1_ = _in_place("expm1_")
fill_ = _in_place("fill_")
fix_ = _in_place("fix_")
floor_ = _in_place("floor_")
frac_ = _in_place("frac_")
gcd_ = _in_place("gcd_")
i0_ = _in_place("i0_")
index_put_ = _in_place("index_put_")
lcm_ = _in_place("lcm_")
ldexp_ = _in_place("ldexp_")
log10_ = _in_place("log10_")
log1p_ = _in_place("log1p_")
log2_ = _in_place("log2_")
log_ = _in_place("log_")
logit_ = _in_place("logit_")
nan_to_num_ = _in_place("nan_to_num_")
neg_ = _in_place("neg_")
negative_ = _in_place("negative_")
rad2deg_ = _in_place("rad2deg_")
reciprocal_ = _in_place("reciprocal_")
relu_ = _in_place("relu_")
round_ = _in_place("round_")
rsqrt_ = _in_place("rsqrt_")
sigmoid_ = _in_place("sigmoid_")
sin_ = _in_place("sin_")
sinc_ = _in_place("sinc_")
sinh_ = _in_place("sinh_")
sqrt_ = _in_place("sqrt_")
square_ = _in_place("square_")
tan_ = _in_place("tan_")
tanh_ = _in_place("tanh_")
trunc_ = _in_place("trunc_")
xlogy_ = _in_place("xlogy_")
zero_ = _in_place("zero_")

__all__ = sorted(name for name in globals() if name.endswith("_") and not name.startswith("_"))
