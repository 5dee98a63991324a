"""The tensor layer: ``Tensor``, the primitive registry, reverse mode (lessons 04-06).

Modules, bottom to top (each imports only those above it in this list):
``dtypes``, ``mode``, ``primitive`` (the registry), ``base`` (what a tensor is),
``record`` (``apply`` and the ``OpRecord``), the rows (``broadcasting``,
``elementwise``, ``reductions``, ``shape``, ``linalg``, ``softmax``),
``autograd`` (the reverse pass), ``tensor`` (the ``Tensor`` class and its
operators), ``factories`` and ``function``.
"""

from minigrad.tensor import autograd
from minigrad.tensor.broadcasting import ShapeError, broadcast_shape, broadcast_to, sum_to
from minigrad.tensor.dtypes import bool_, float32, float64, int32, int64
from minigrad.tensor.elementwise import (
    abs,
    add,
    div,
    exp,
    log,
    maximum,
    minimum,
    mul,
    neg,
    power,
    relu,
    sigmoid,
    sign,
    sqrt,
    sub,
    tanh,
    where,
)
from minigrad.tensor.factories import (
    arange,
    eye,
    full,
    manual_seed,
    ones,
    ones_like,
    rand,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from minigrad.tensor.function import Function, FunctionCtx
from minigrad.tensor.linalg import matmul
from minigrad.tensor.mode import enable_grad, is_grad_enabled, no_grad
from minigrad.tensor.primitive import REGISTRY, Primitive, TensorSpec
from minigrad.tensor.record import OpRecord, apply
from minigrad.tensor.reductions import logsumexp, max, mean, min, sum, var
from minigrad.tensor.shape import concatenate, reshape, squeeze, stack, transpose, unsqueeze
from minigrad.tensor.tensor import Tensor

__all__ = [
    "REGISTRY",
    "Function",
    "FunctionCtx",
    "OpRecord",
    "Primitive",
    "ShapeError",
    "Tensor",
    "TensorSpec",
    "abs",
    "add",
    "apply",
    "arange",
    "autograd",
    "bool_",
    "broadcast_shape",
    "broadcast_to",
    "concatenate",
    "div",
    "enable_grad",
    "exp",
    "eye",
    "float32",
    "float64",
    "full",
    "int32",
    "int64",
    "is_grad_enabled",
    "log",
    "logsumexp",
    "manual_seed",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mul",
    "neg",
    "no_grad",
    "ones",
    "ones_like",
    "power",
    "rand",
    "randn",
    "relu",
    "reshape",
    "sigmoid",
    "sign",
    "sqrt",
    "squeeze",
    "stack",
    "sub",
    "sum",
    "sum_to",
    "tanh",
    "tensor",
    "transpose",
    "unsqueeze",
    "var",
    "where",
    "zeros",
    "zeros_like",
]  # fmt: skip
