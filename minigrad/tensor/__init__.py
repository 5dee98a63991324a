"""The tensor layer: ``Tensor``, the primitive registry, reverse mode (lessons 04-06).

The core, bottom to top (each imports only those above it in this list, and
the op catalog only where ``Tensor`` spells an operation):
``dtypes``, ``mode`` (gradient mode and the stack of transforms, ``Level``),
``primitive`` (the registry), ``base`` (what a tensor is), ``record`` (``apply``
and the ``OpRecord``), ``autograd`` (the reverse pass), ``tensor`` (the
``Tensor`` class and its operators, with ``more_methods``),
``lean`` (the values a reverse pass without ``create_graph`` runs its rules on),
``function`` (custom operations), ``factories`` and ``generator``.

The operations themselves are the op catalog, ``minigrad.tensor.ops``: one
module per family (elementwise, math, activations, movement, indexing,
reductions, scans, softmax, linalg, contractions, norms, sorting, padding,
pooling, convolution, in-place, collectives and named axes), each importing
the core below ``tensor``.
"""

from minigrad.tensor import autograd, lean
from minigrad.tensor.dtypes import bool_, float16, float32, float64, int32, int64
from minigrad.tensor.factories import (
    arange,
    empty,
    empty_like,
    eye,
    from_dlpack,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    tensor,
    zeros,
    zeros_like,
)
from minigrad.tensor.function import Function, FunctionCtx
from minigrad.tensor.mode import enable_grad, is_grad_enabled, no_grad
from minigrad.tensor.ops.arithmetic import (
    addcdiv,
    addcmul,
    clamp_max,
    clamp_min,
    copysign,
    div,
    divide,
    floor_divide,
    fmax,
    fmin,
    fmod,
    frac,
    hypot,
    lerp,
    logaddexp,
    nan_to_num,
)
from minigrad.tensor.ops.broadcasting import ShapeError, broadcast_shape, broadcast_to, sum_to
from minigrad.tensor.ops.contractions import (
    diag,
    diagonal,
    einsum,
    outer,
    tensordot,
    trace,
    tril,
    triu,
)
from minigrad.tensor.ops.copies import (
    alias_copy,
    as_strided_copy,
    diagonal_copy,
    expand_copy,
    narrow_copy,
    permute_copy,
    squeeze_copy,
    t_copy,
    transpose_copy,
    unbind_copy,
    unfold_copy,
    unsqueeze_copy,
    view_copy,
)
from minigrad.tensor.ops.counterparts import (
    addmv,
    addr,
    aminmax,
    diagflat,
    index_fill,
    msort,
    take,
    vdot,
)
from minigrad.tensor.ops.counting import count_nonzero, nanmean, nansum
from minigrad.tensor.ops.elementwise import (
    abs,
    add,
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    exp,
    log,
    maximum,
    minimum,
    mul,
    multiply,
    neg,
    pow,
    power,
    relu,
    sigmoid,
    sign,
    sqrt,
    sub,
    subtract,
    tanh,
    true_divide,
    where,
)
from minigrad.tensor.ops.indexing import (
    gather,
    index_select,
    masked_fill,
    scatter_add,
    take_along_dim,
)
from minigrad.tensor.ops.inverses import det, inverse, logdet, matrix_power, slogdet
from minigrad.tensor.ops.layout import (
    broadcast_tensors,
    diag_embed,
    diff,
    dstack,
    meshgrid,
    repeat_interleave,
    select,
    t,
    tensor_split,
    unflatten,
)
from minigrad.tensor.ops.linalg import matmul
from minigrad.tensor.ops.logic import (
    allclose,
    eq,
    equal,
    ge,
    gt,
    isclose,
    isfinite,
    isinf,
    isnan,
    le,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    ne,
)
from minigrad.tensor.ops.math import (
    acos,
    acosh,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    ceil,
    clamp,
    clip,
    cos,
    cosh,
    erf,
    exp2,
    expm1,
    fix,
    floor,
    log1p,
    log2,
    log10,
    reciprocal,
    remainder,
    round,
    rsqrt,
    sin,
    sinh,
    square,
    tan,
    trunc,
)

# Issue 22: PyTorch's daily vocabulary, one module per family.
from minigrad.tensor.ops.matrix_products import (
    addmm,
    baddbmm,
    bmm,
    cdist,
    cross,
    dot,
    kron,
    mm,
    mv,
)
from minigrad.tensor.ops.movement import concatenate, reshape, squeeze, stack, transpose, unsqueeze
from minigrad.tensor.ops.named_axes import (
    all_gather,
    all_to_all,
    pbroadcast,
    pmean,
    psum,
    psum_scatter,
)
from minigrad.tensor.ops.padding import pad
from minigrad.tensor.ops.placing import (
    as_strided_scatter,
    diagonal_scatter,
    index_copy,
    index_reduce,
    masked_scatter,
    put,
    select_scatter,
    slice_scatter,
)
from minigrad.tensor.ops.rearrange import (
    cat,
    chunk,
    clone,
    concat,
    flatten,
    flip,
    hstack,
    moveaxis,
    movedim,
    narrow,
    roll,
    split,
    tile,
    unbind,
    vstack,
)
from minigrad.tensor.ops.reductions import (
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    logsumexp,
    max,
    mean,
    min,
    std,
    sum,
    var,
)
from minigrad.tensor.ops.scans import cumprod, cumsum, prod
from minigrad.tensor.ops.scattering import (
    index_add,
    index_put,
    masked_select,
    scatter,
    scatter_reduce,
)
from minigrad.tensor.ops.search import (
    bincount,
    nonzero,
    searchsorted,
    unique,
)
from minigrad.tensor.ops.sorting import argsort, sort, topk
from minigrad.tensor.ops.special import (
    digamma,
    erfc,
    erfinv,
    float_power,
    heaviside,
    isneginf,
    isposinf,
    ldexp,
    lgamma,
    logit,
    polygamma,
    sgn,
    signbit,
    xlogy,
)
from minigrad.tensor.ops.special_functions import i0, igamma, igammac, mvlgamma
from minigrad.tensor.ops.spellings import (
    absolute,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    column_stack,
    deg2rad,
    dsplit,
    fliplr,
    flipud,
    gradient,
    hsplit,
    inner,
    logaddexp2,
    negative,
    positive,
    rad2deg,
    ravel,
    rot90,
    row_stack,
    sinc,
    swapaxes,
    swapdims,
    vsplit,
)
from minigrad.tensor.ops.statistics import (
    cummax,
    cummin,
    kthvalue,
    logcumsumexp,
    median,
    std_mean,
    var_mean,
)
from minigrad.tensor.primitive import REGISTRY, Primitive, TensorSpec
from minigrad.tensor.record import OpRecord, apply
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
    "acos",
    "acosh",
    "add",
    "all",
    "all_gather",
    "all_to_all",
    "amax",
    "amin",
    "any",
    "apply",
    "arange",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "argmax",
    "argmin",
    "argsort",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "autograd",
    "bfloat16",
    "bool_",
    "broadcast_shape",
    "broadcast_to",
    "cat",
    "ceil",
    "chunk",
    "clamp",
    "clip",
    "clone",
    "concat",
    "concatenate",
    "cos",
    "cosh",
    "cumprod",
    "cumsum",
    "diag",
    "diagonal",
    "div",
    "einsum",
    "enable_grad",
    "erf",
    "exp",
    "exp2",
    "expm1",
    "eye",
    "fix",
    "flatten",
    "flip",
    "float16",
    "float32",
    "float64",
    "floor",
    "from_dlpack",
    "from_numpy",
    "full",
    "gather",
    "hstack",
    "index_select",
    "int32",
    "int64",
    "is_grad_enabled",
    "log",
    "log1p",
    "log2",
    "log10",
    "logsumexp",
    "manual_seed",
    "masked_fill",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "moveaxis",
    "movedim",
    "mul",
    "narrow",
    "neg",
    "no_grad",
    "ones",
    "ones_like",
    "outer",
    "pad",
    "pbroadcast",
    "pmean",
    "pow",
    "power",
    "prod",
    "psum",
    "psum_scatter",
    "rand",
    "randn",
    "reciprocal",
    "relu",
    "remainder",
    "reshape",
    "roll",
    "round",
    "rsqrt",
    "scatter_add",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "sort",
    "split",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "sub",
    "sum",
    "sum_to",
    "take_along_dim",
    "tan",
    "tanh",
    "tensor",
    "tensordot",
    "tile",
    "topk",
    "trace",
    "transpose",
    "tril",
    "triu",
    "trunc",
    "unbind",
    "unsqueeze",
    "var",
    "vstack",
    "where",
    "zeros",
    "zeros_like",
]  # fmt: skip
__all__ += [
    "addcdiv",
    "addcmul",
    "addmm",
    "allclose",
    "baddbmm",
    "bincount",
    "bmm",
    "broadcast_tensors",
    "cdist",
    "clamp_max",
    "clamp_min",
    "copysign",
    "count_nonzero",
    "cross",
    "cummax",
    "cummin",
    "diag_embed",
    "diff",
    "divide",
    "dot",
    "dstack",
    "eq",
    "equal",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "frac",
    "full_like",
    "ge",
    "gt",
    "hypot",
    "index_add",
    "index_put",
    "isclose",
    "isfinite",
    "isinf",
    "isnan",
    "kron",
    "kthvalue",
    "le",
    "lerp",
    "linspace",
    "logaddexp",
    "logcumsumexp",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logspace",
    "lt",
    "masked_select",
    "median",
    "meshgrid",
    "mm",
    "multiply",
    "mv",
    "nan_to_num",
    "nanmean",
    "nansum",
    "ne",
    "nonzero",
    "repeat_interleave",
    "scatter",
    "scatter_reduce",
    "searchsorted",
    "select",
    "std_mean",
    "subtract",
    "t",
    "tensor_split",
    "true_divide",
    "unflatten",
    "unique",
    "var_mean",
]


def __getattr__(name: str) -> object:
    """``bfloat16``: loaded from ml_dtypes on first use (lesson 15), a clear error without it."""
    if name == "bfloat16":
        from minigrad.tensor import dtypes

        return dtypes.bfloat16
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ += ["addmv", "addr", "aminmax", "diagflat", "index_fill", "msort", "take", "vdot"]
__all__ += [  # PyTorch's other spellings (ops/spellings.py)
    "absolute",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "column_stack",
    "deg2rad",
    "dsplit",
    "fliplr",
    "flipud",
    "gradient",
    "hsplit",
    "inner",
    "logaddexp2",
    "negative",
    "positive",
    "rad2deg",
    "ravel",
    "rot90",
    "row_stack",
    "sinc",
    "swapaxes",
    "swapdims",
    "vsplit",
]  # fmt: skip
__all__ += [  # bitwise (ops/elementwise.py)
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
]  # fmt: skip
__all__ += [  # factories
    "empty",
    "empty_like",
    "rand_like",
    "randint",
    "randint_like",
    "randn_like",
]  # fmt: skip


__all__ += [  # special functions and sign tests (ops/special.py)
    "digamma",
    "erfc",
    "erfinv",
    "float_power",
    "heaviside",
    "isneginf",
    "isposinf",
    "ldexp",
    "lgamma",
    "logit",
    "polygamma",
    "sgn",
    "signbit",
    "xlogy",
]  # fmt: skip
__all__ += [  # writing into a copy at chosen places (ops/placing.py)
    "as_strided_scatter",
    "diagonal_scatter",
    "index_copy",
    "index_reduce",
    "masked_scatter",
    "put",
    "select_scatter",
    "slice_scatter",
]  # fmt: skip

from minigrad.tensor.ops.linalg_spellings import addbmm, svd  # noqa: E402
from minigrad.tensor.ops.matrix_exponential import matrix_exp  # noqa: E402
from minigrad.tensor.ops.pseudoinverse import pinverse  # noqa: E402

# linear algebra (ops/linalg_spellings.py, ops/pseudoinverse.py, ops/matrix_exponential.py)
__all__ += ["addbmm", "matrix_exp", "pinverse", "svd"]
__all__ += [  # a view, then a copy (ops/copies.py)
    "alias_copy",
    "as_strided_copy",
    "diagonal_copy",
    "expand_copy",
    "narrow_copy",
    "permute_copy",
    "squeeze_copy",
    "t_copy",
    "transpose_copy",
    "unbind_copy",
    "unfold_copy",
    "unsqueeze_copy",
    "view_copy",
]  # fmt: skip


from minigrad.tensor.ops.integer_math import gcd, lcm  # noqa: E402
from minigrad.tensor.ops.summaries import (  # noqa: E402
    corrcoef,
    cov,
    nanmedian,
    nanquantile,
    quantile,
)

__all__ += ["corrcoef", "cov", "gcd", "lcm", "nanmedian", "nanquantile", "quantile"]  # st23
__all__ += ["i0", "igamma", "igammac", "mvlgamma"]  # ops/special_functions.py

from minigrad.tensor.ops.integer_math import frexp, nextafter  # noqa: E402
from minigrad.tensor.ops.integrals import (  # noqa: E402
    cumulative_trapezoid,
    dist,
    renorm,
    trapezoid,
    trapz,
)

# (mode stays out of this package's names: minigrad.tensor.mode is the module of modes)
from minigrad.tensor.ops.tallies import (  # noqa: E402
    bucketize,
    histc,
    histogram,
    isin,
    unique_consecutive,
)

__all__ += ["bucketize", "cumulative_trapezoid", "dist", "frexp", "isin", "nextafter"]
__all__ += ["renorm", "trapezoid", "trapz"]

from minigrad.tensor.ops.triangular import (  # noqa: E402  (lesson 06: triangular.py)
    cholesky_inverse,
    cholesky_solve,
    lu,
    lu_unpack,
    triangular_solve,
)
from minigrad.tensor.ops.triangular import cholesky_old as cholesky  # noqa: E402
from minigrad.tensor.ops.triangular import lu_solve_old as lu_solve  # noqa: E402

__all__ += [  # triangular systems, LU and Cholesky (ops/triangular.py)
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "lu",
    "lu_solve",
    "lu_unpack",
    "triangular_solve",
]  # fmt: skip

from minigrad.tensor.ops.index_sets import (  # noqa: E402
    argwhere,
    block_diag,
    broadcast_shapes,
    cartesian_prod,
    combinations,
    nonzero_static,
    tril_indices,
    triu_indices,
    unravel_index,
)
from minigrad.tensor.ops.padding import constant_pad_nd  # noqa: E402
from minigrad.tensor.ops.real_parts import (  # noqa: E402
    angle,
    conj,
    conj_physical,
    imag,
    isreal,
    real,
    resolve_conj,
    resolve_neg,
)
from minigrad.tensor.ops.spellings import (  # noqa: E402
    fill,
    rsub,
    scalar_tensor,
    split_with_sizes,
    unsafe_chunk,
    unsafe_split,
)

__all__ += [  # positions and combinations (ops/index_sets.py)
    "argwhere", "block_diag", "broadcast_shapes", "cartesian_prod", "combinations",
    "nonzero_static", "tril_indices", "triu_indices", "unravel_index",
]  # fmt: skip
__all__ += [  # complex-number functions on real tensors (ops/real_parts.py)
    "angle", "conj", "conj_physical", "imag", "isreal", "real", "resolve_conj", "resolve_neg",
]  # fmt: skip
__all__ += [  # more of PyTorch's spellings (ops/spellings.py)
    "constant_pad_nd", "fill", "rsub", "scalar_tensor", "split_with_sizes", "unsafe_chunk",
    "unsafe_split",
]  # fmt: skip

__all__ += ["histc", "histogram", "renorm", "trapezoid", "trapz", "unique_consecutive"]
from minigrad.tensor.sampling import bernoulli, multinomial, normal  # noqa: E402

__all__ += ["bernoulli", "multinomial", "normal"]  # random samplers (sampling.py)
from minigrad.tensor.ops.histograms import histogramdd  # noqa: E402
from minigrad.tensor.ops.time_convolution import conv_tbc  # noqa: E402

__all__ += ["conv_tbc", "histogramdd"]  # ops/histograms.py, ops/time_convolution.py

from minigrad.tensor.lowrank import pca_lowrank, svd_lowrank  # noqa: E402
from minigrad.tensor.ops.legacy_linalg import (  # noqa: E402
    adjoint,
    chain_matmul,
    frobenius_norm,
    geqrf,
    ger,
    norm,
    nuclear_norm,
    orgqr,
    ormqr,
    qr,
)

# PyTorch's older linear-algebra names, compact QR (ops/legacy_linalg.py), randomized SVD
__all__ += [  # (lowrank.py)
    "adjoint", "chain_matmul", "frobenius_norm", "geqrf", "ger", "norm", "nuclear_norm",
    "orgqr", "ormqr", "pca_lowrank", "qr", "svd_lowrank",
]  # fmt: skip
