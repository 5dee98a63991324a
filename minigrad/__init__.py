"""minigrad: automatic differentiation, built lesson by lesson.

    >>> import minigrad as mg
    >>> a = mg.Value(3.0); b = a * a + 1
    >>> b.backward(); a.grad
    6.0

The package is laid out like the course (see ``docs/`` and ``lessons/``):

- ``graph``       the node protocol and the shared topological walk (lesson 02)
- ``scalar``      ``Value``, a micrograd-style scalar graph (lessons 02-03)
- ``backends``    kernels over raw arrays: numpy, numba CPU, numba.cuda (10-11)
- ``tensor``      the core, read in order: dtypes, gradient mode and the stack of
                  transforms (one ``Level`` each), the primitive registry, what a
                  tensor is, ``apply``, reverse mode, ``Tensor``, ``Function``,
                  factories (04-06)
- ``tensor.ops``  the op catalog, one module per family: elementwise, math,
                  activations, movement, indexing, reductions, scans, softmax,
                  linalg, contractions, norms, sorting, padding, pooling,
                  convolution, in-place (04-12), collectives (18)
- ``tree``        pytrees: nested tuples, lists and dicts taken apart and rebuilt (07)
- ``transforms``  grad, vjp, jvp (the forward interpreter), hessian, checkpoint
                  (07-09), vmap and its batching interpreter (14)
- ``compile``     make_graph and jit: tracing, passes, fusion, code generation (13);
                  control flow as graph operations: cond, while_loop, scan (16)
- ``amp``         mixed precision: ``autocast`` and ``GradScaler`` as ``torch.amp`` (15)
- ``onnx``        export to ONNX, and replay of an ONNX file with NumPy (16)
- ``random``      explicit keys: ``key``, ``split``, ``normal``, ... as ``jax.random`` (13)
- ``linalg``      ``torch.linalg``'s names for the tensor layer's norms and products (06)
- ``special``     ``torch.special``'s names: Bessel functions, orthogonal polynomials,
                  the normal distribution, zeta, incomplete gamma (04-05)
- ``masked``      ``torch.masked``: reductions and softmax that skip masked-out elements (06)
- ``signal``      ``torch.signal.windows``: hann, hamming, kaiser, ... (04-05)
- ``fft``         ``torch.fft``'s real rearrangements: fftshift, ifftshift (05)
- ``func``        the transforms under ``torch.func``'s names, ``functional_call`` (07-14)
- ``autograd``    ``torch.autograd``: grad, Function, gradcheck, functional, forward_ad (05-08)
- ``nn``/``optim`` modules, losses and optimizers (06)
- ``utils``       ``utils.data``: datasets and loaders (06)
- ``distributed`` ``torch.distributed`` on MPI: process groups, DDP, ZeRO (18)
- ``check``       finite-difference checks (01)
- ``draw``        graphviz pictures of every graph (02)
- ``grade``       the autograder for ``exercises/``

Importing is cheap: numba kernels compile on first use, never at import.
"""

import os as _os
import sys as _sys

# ``python -m minigrad.grade`` puts the working folder first on the module path;
# graded from inside a submission's folder, its ``secrets.py`` would shadow the
# standard module for the grader itself. Running as ``-m``, the folder goes.
# (The ``minigrad-grade`` command never has it; ``python -P -m`` neither.)
if _sys.argv[:1] == ["-m"] and _sys.path[:1] in ([""], [_os.getcwd()]):
    del _sys.path[0]

from minigrad.scalar import Dual, Value, zero_grad

__version__ = "0.1.0"

# Names are bound here in dependency order. Several public functions share a
# name with the module that defines them (``mg.tensor``, ``mg.draw``): binding
# the function after importing the module keeps ``mg.tensor(...)`` callable.
from minigrad import backends
from minigrad.tensor import (
    Function,
    add,
    div,
    mul,
    neg,
    pow,
    power,
    sign,
    sub,
    ShapeError,
    Tensor,
    abs,
    arange,
    bool_,
    broadcast_shape,
    broadcast_to,
    concatenate,
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
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    cumprod,
    cumsum,
    diag,
    diagonal,
    einsum,
    outer,
    prod,
    std,
    tensordot,
    trace,
    tril,
    triu,
    argsort,
    cat,
    concat,
    chunk,
    clone,
    flatten,
    flip,
    gather,
    hstack,
    index_select,
    masked_fill,
    moveaxis,
    movedim,
    narrow,
    roll,
    scatter_add,
    sort,
    split,
    take_along_dim,
    tile,
    topk,
    unbind,
    vstack,
    enable_grad,
    exp,
    eye,
    from_dlpack,
    from_numpy,
    float16,
    float32,
    float64,
    full,
    int32,
    int64,
    is_grad_enabled,
    log,
    logsumexp,
    manual_seed,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    no_grad,
    ones,
    ones_like,
    pad,
    rand,
    randn,
    relu,
    reshape,
    sigmoid,
    sqrt,
    squeeze,
    stack,
    sum,
    sum_to,
    tanh,
    transpose,
    unsqueeze,
    var,
    where,
    zeros,
    zeros_like,
)
from minigrad.tensor import (  # issue 22: PyTorch's daily vocabulary
    addcdiv,
    addcmul,
    addmm,
    allclose,
    baddbmm,
    bincount,
    bmm,
    broadcast_tensors,
    cdist,
    clamp_max,
    clamp_min,
    copysign,
    cross,
    cummax,
    cummin,
    diag_embed,
    diff,
    dot,
    dstack,
    equal,
    floor_divide,
    divide,
    multiply,
    subtract,
    true_divide,
    fmax,
    fmin,
    fmod,
    frac,
    hypot,
    index_add,
    index_put,
    isclose,
    isfinite,
    isinf,
    isnan,
    eq,
    ne,
    lt,
    le,
    gt,
    ge,
    kron,
    kthvalue,
    lerp,
    logaddexp,
    logcumsumexp,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    masked_select,
    median,
    meshgrid,
    mm,
    mv,
    nan_to_num,
    nonzero,
    repeat_interleave,
    scatter,
    scatter_reduce,
    searchsorted,
    select,
    std_mean,
    t,
    tensor_split,
    count_nonzero,
    nanmean,
    nansum,
    unflatten,
    unique,
    var_mean,
    full_like,
    linspace,
    logspace,
)
from minigrad.tensor import (  # special functions and sign tests
    digamma,
    lgamma,
    polygamma,
    erfc,
    erfinv,
    float_power,
    heaviside,
    isneginf,
    isposinf,
    ldexp,
    logit,
    sgn,
    signbit,
    xlogy,
)
from minigrad.tensor import i0, igamma, igammac, mvlgamma  # special functions, part two
from minigrad.tensor import addmv, addr, aminmax, diagflat, index_fill, msort, take, vdot
from minigrad.tensor import (  # a view, then a copy (ops/copies.py)
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
from minigrad.tensor import (  # writing into a copy at chosen places (ops/placing.py)
    as_strided_scatter,
    diagonal_scatter,
    index_copy,
    index_reduce,
    masked_scatter,
    put,
    select_scatter,
    slice_scatter,
)
from minigrad.tensor import corrcoef, cov, gcd, lcm, nanmedian, nanquantile, quantile
from minigrad.tensor import bucketize, cumulative_trapezoid, dist, frexp, isin
from minigrad.tensor.ops.tallies import mode  # the function (minigrad.tensor.mode is a module)
from minigrad.tensor import nextafter, renorm, trapezoid, trapz
from minigrad.tensor import bernoulli, multinomial, normal  # random samplers
from minigrad.tensor import (  # positions, combinations, real parts, spellings
    angle,
    argwhere,
    block_diag,
    broadcast_shapes,
    cartesian_prod,
    combinations,
    conj,
    conj_physical,
    constant_pad_nd,
    fill,
    imag,
    isreal,
    nonzero_static,
    real,
    resolve_conj,
    resolve_neg,
    rsub,
    scalar_tensor,
    split_with_sizes,
    tril_indices,
    triu_indices,
    unravel_index,
    unsafe_chunk,
    unsafe_split,
)

from minigrad.tensor import histc, histogram, unique_consecutive
from minigrad.tensor import conv_tbc, histogramdd
from minigrad.tensor import (  # PyTorch's other spellings
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
from minigrad.tensor import (  # bitwise
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
)
from minigrad.tensor import (  # factories
    empty,
    empty_like,
    rand_like,
    randint,
    randint_like,
    randn_like,
)
from minigrad.tensor import det, inverse, logdet, matrix_power, slogdet  # 06
from minigrad.tensor import addbmm, matrix_exp, pinverse, svd  # 06
from minigrad.tensor import cholesky, cholesky_inverse, cholesky_solve, lu, lu_solve  # 06
from minigrad.tensor import lu_unpack, triangular_solve  # 06
from minigrad.tensor import adjoint, chain_matmul, frobenius_norm, geqrf, ger, norm  # 06
from minigrad.tensor import nuclear_norm, orgqr, ormqr, pca_lowrank, qr, svd_lowrank  # 06
from minigrad.tensor import all_gather, all_to_all, pbroadcast, pmean, psum, psum_scatter  # 18
from minigrad import linalg, nn, optim, random, tree
from minigrad import special  # torch.special's names (04-05)
from minigrad.tensor.generator import Generator
from minigrad.nn.serialization import load, save
from minigrad.nn.pooling_indices import torch_max_pool1d_with_indices as max_pool1d_with_indices
from minigrad.tensor import tensor  # after the subpackage import: the function, not the module
from minigrad.transforms import (
    checkpoint,
    checkpoint_sequential,
    grad,
    hessian,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    value_and_grad,
    vjp,
    vmap,
)
from minigrad.check import GradcheckError, check_jvp, gradcheck, gradgradcheck
from minigrad.draw import draw  # after the module import: the function, not the module
from minigrad.compile import Graph, TracerError, cond, fori_loop, jit, make_graph, scan, while_loop
from minigrad import amp, autograd, func, onnx, utils  # autograd: torch.autograd's namespace
from minigrad import fft, masked, signal
from minigrad.amp import autocast
from minigrad.tensor.mode import inference_mode, is_inference_mode_enabled, set_grad_enabled
from minigrad.tensor.torch_names import (  # PyTorch's top-level names (tensor/torch_names.py)
    as_tensor,
    asarray,
    binomial,
    can_cast,
    detach,
    e,
    empty_permuted,
    empty_strided,
    finfo,
    get_default_dtype,
    get_rng_state,
    iinfo,
    inf,
    initial_seed,
    is_complex,
    is_conj,
    is_floating_point,
    is_neg,
    is_nonzero,
    is_same_size,
    is_signed,
    is_tensor,
    log_softmax,
    nan,
    newaxis,
    numel,
    permute,
    pi,
    poisson,
    promote_types,
    randperm,
    result_type,
    seed,
    set_rng_state,
    softmax,
)
from minigrad.signal.top_level_windows import (  # torch.hann_window and kin: periodic
    bartlett_window,
    blackman_window,
    hamming_window,
    hann_window,
    kaiser_window,
)
from minigrad.tensor.ops.copies import (  # the last of PyTorch's *_copy functions
    detach_copy,
    select_copy,
    slice_copy,
    split_copy,
    split_with_sizes_copy,
    unsafe_split_with_sizes,
)
from minigrad.tensor.inplace_functions import (  # torch.exp_(x) and kin: x.exp_()
    abs_,
    acos_,
    acosh_,
    addmv_,
    arccos_,
    arccosh_,
    arcsin_,
    arcsinh_,
    arctan_,
    arctanh_,
    asin_,
    asinh_,
    atan_,
    atanh_,
    ceil_,
    clamp_,
    clamp_max_,
    clamp_min_,
    clip_,
    cos_,
    cosh_,
    deg2rad_,
    detach_,
    erf_,
    erfc_,
    exp2_,
    exp_,
    expm1_,
    fill_,
    fix_,
    floor_,
    frac_,
    gcd_,
    i0_,
    index_put_,
    lcm_,
    ldexp_,
    log10_,
    log1p_,
    log2_,
    log_,
    logit_,
    nan_to_num_,
    neg_,
    negative_,
    rad2deg_,
    reciprocal_,
    relu_,
    round_,
    rsqrt_,
    sigmoid_,
    sin_,
    sinc_,
    sinh_,
    sqrt_,
    square_,
    tan_,
    tanh_,
    trunc_,
    xlogy_,
    zero_,
)
from minigrad.tensor import gt as greater, ge as greater_equal
from minigrad.tensor import lt as less, le as less_equal, ne as not_equal

from minigrad.nn.functional import (  # the nn functions torch also has at its top level
    adaptive_avg_pool1d,
    bilinear,
    channel_shuffle,
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    cosine_similarity,
    hardshrink,
    pairwise_distance,
    pdist,
    pixel_shuffle,
    pixel_unshuffle,
    prelu,
    rms_norm,
)
from minigrad.nn.functional import channel_shuffle as native_channel_shuffle
from minigrad.nn.torch_level import (  # the same, in the top level's own signatures
    adaptive_max_pool1d,
    affine_grid_generator,
    alpha_dropout,
    alpha_dropout_,
    avg_pool1d,
    batch_norm,
    binary_cross_entropy_with_logits,
    celu,
    celu_,
    cosine_embedding_loss,
    dropout,
    dropout_,
    embedding,
    feature_alpha_dropout,
    feature_alpha_dropout_,
    feature_dropout,
    feature_dropout_,
    grid_sampler,
    grid_sampler_2d,
    grid_sampler_3d,
    group_norm,
    hinge_embedding_loss,
    instance_norm,
    kl_div,
    layer_norm,
    margin_ranking_loss,
    max_pool1d,
    max_pool2d,
    max_pool3d,
    poisson_nll_loss,
    selu,
    selu_,
    threshold,
    threshold_,
    triplet_margin_loss,
)
from minigrad.nn.recurrent_cells import gru_cell, lstm_cell, rnn_relu_cell, rnn_tanh_cell

from minigrad.nn.ctc import ctc_loss_with_codes as ctc_loss  # torch.ctc_loss (06)
from minigrad.nn.random_activations import rrelu, rrelu_  # torch.rrelu (06)

# PyTorch's other names of the dtypes (``torch.float`` is float32, ``torch.long`` int64).
# Bound last: inside this file they would hide Python's own float, int and bool.
float, double, half = float32, float64, float16
int, long = int32, int64
bool = bool_


def __getattr__(name: str) -> object:
    """``mg.bfloat16``: ml_dtypes' bfloat16 (lesson 15), loaded on first use; without
    ml_dtypes installed, an error that says how to install it."""
    if name == "bfloat16":
        from minigrad.tensor import dtypes

        return dtypes.bfloat16
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
