"""``mg.nn.functional``: the layers and losses as plain functions (lessons 06, 12, 17).

Softmax lives here; the rest is gathered from the files that teach it:
the losses (``nn/losses.py``), normalization (``nn/normalization.py``),
dropout and embedding (``nn/dropout.py``, ``nn/embedding.py``), convolution,
pooling and padding (``tensor/convolution.py``, ``tensor/pooling.py``,
``tensor/padding.py``, ``nn/adaptive_pooling.py``, ``nn/unpooling.py``).

The losses have no backward rule of their own. Each is a few tensor
operations, so reverse mode, forward mode and higher order derivatives come
from the rules of those operations, by the chain rule. ``softmax`` and
``log_softmax`` could be written the same way (max, subtract, exp, sum,
log); they are primitives instead (``minigrad/tensor/ops/softmax.py``), which
records one graph node where the composition records six (lesson 10).

Numerical stability is the one subtle point. ``exp(1000)`` overflows, yet the
softmax of ``[1000, 1000]`` is just ``[0.5, 0.5]``. Softmax does not change
when a constant is subtracted from every score, so we subtract the largest
one first (``exp`` then only ever sees numbers <= 0). In log space the same
idea gives ``log_softmax(x) = x - logsumexp(x)``, computed from the shifted
scores too; the loss never takes the log of a probability that underflowed
to 0.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.softmax(mg.tensor([1000.0, 1000.0]))
    tensor([0.5, 0.5])
"""

from __future__ import annotations

from typing import Any

from minigrad.nn.activation_functions import (
    celu,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    logsigmoid,
    mish,
    relu,
    relu6,
    selu,
    softmin,
    softshrink,
    softsign,
    tanhshrink,
    threshold,
)
from minigrad.nn.adaptive_pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    adaptive_max_pool3d,
)
from minigrad.nn.affine import bilinear, linear
from minigrad.nn.attention import scaled_dot_product_attention
from minigrad.nn.channel_layers import channel_shuffle, local_response_norm, prelu
from minigrad.nn.conv_transpose import conv_transpose1d, conv_transpose2d, conv_transpose3d
from minigrad.nn.ctc import ctc_loss
from minigrad.nn.distances import (
    cosine_embedding_loss,
    cosine_similarity,
    margin_ranking_loss,
    normalize,
    pairwise_distance,
    pdist,
    triplet_margin_loss,
)
from minigrad.nn.dropout import dropout
from minigrad.nn.embedding import embedding, one_hot
from minigrad.nn.embedding_bags import embedding_bag
from minigrad.nn.feature_dropout import (
    alpha_dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    feature_alpha_dropout,
)
from minigrad.nn.fractional_pooling import (
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from minigrad.nn.grid_sampling import affine_grid, grid_sample
from minigrad.nn.group_norms import group_norm, instance_norm, rms_norm
from minigrad.nn.inplace_activations import (
    celu_,
    elu_,
    hardtanh_,
    leaky_relu_,
    relu_,
    selu_,
    threshold_,
)
from minigrad.nn.interpolation import interpolate, upsample, upsample_bilinear, upsample_nearest
from minigrad.nn.likelihood_losses import gaussian_nll_loss, poisson_nll_loss
from minigrad.nn.losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)
from minigrad.nn.margin_losses import (
    hinge_embedding_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    soft_margin_loss,
    triplet_margin_with_distance_loss,
)
from minigrad.nn.multi_head_attention import multi_head_attention_forward
from minigrad.nn.normalization import batch_norm, layer_norm
from minigrad.nn.pooling import avg_pool1d, lp_pool1d, lp_pool2d, lp_pool3d, max_pool1d
from minigrad.nn.pooling_indices import (
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d_with_indices,
    max_pool1d_with_indices,
    max_pool2d_with_indices,
    max_pool3d_with_indices,
)
from minigrad.nn.random_activations import gumbel_softmax, rrelu, rrelu_
from minigrad.nn.resampling import fold, pixel_shuffle, pixel_unshuffle, unfold
from minigrad.nn.unpooling import max_unpool1d, max_unpool2d, max_unpool3d
from minigrad.tensor.ops import softmax as primitives
from minigrad.tensor.ops.activations import elu, gelu, hardtanh, leaky_relu, silu, softplus
from minigrad.tensor.ops.convolution import conv1d, conv2d, conv3d
from minigrad.tensor.ops.elementwise import sigmoid, tanh
from minigrad.tensor.ops.padding import pad
from minigrad.tensor.ops.pooling import avg_pool2d, avg_pool3d, max_pool2d, max_pool3d
from minigrad.tensor.ops.time_convolution import conv_tbc
from minigrad.tensor.tensor import Tensor

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "adaptive_max_pool3d", "affine_grid", "avg_pool1d", "avg_pool2d",
    "avg_pool3d", "batch_norm", "bilinear", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "celu", "channel_shuffle", "conv1d", "conv2d", "conv3d",
    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "cosine_embedding_loss",
    "cosine_similarity", "cross_entropy", "dropout", "elu", "embedding", "embedding_bag", "fold",
    "gaussian_nll_loss", "gelu", "glu", "grid_sample", "group_norm", "hardshrink", "hardsigmoid",
    "hardswish", "hardtanh", "hinge_embedding_loss", "huber_loss", "instance_norm", "interpolate",
    "kl_div", "l1_loss", "layer_norm", "leaky_relu", "linear", "local_response_norm", "log_softmax",
    "logsigmoid", "lp_pool1d", "lp_pool2d", "lp_pool3d", "margin_ranking_loss", "max_pool1d",
    "max_pool2d", "max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "mish", "mse_loss",
    "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss", "nll_loss",
    "normalize", "one_hot", "pad", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle",
    "poisson_nll_loss", "prelu", "relu", "relu6", "rms_norm", "scaled_dot_product_attention",
    "selu", "sigmoid", "silu", "smooth_l1_loss", "soft_margin_loss", "softmax", "softmin",
    "softplus", "softshrink", "softsign", "tanh", "tanhshrink", "threshold", "triplet_margin_loss",
    "triplet_margin_with_distance_loss", "unfold", "upsample", "upsample_bilinear",
    "upsample_nearest",
]  # fmt: skip
__all__ += ["alpha_dropout", "dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout"]
__all__ += ["celu_", "elu_", "hardtanh_", "leaky_relu_", "relu_", "selu_", "threshold_"]
__all__ += ["multi_head_attention_forward"]
__all__ += ["fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
            "fractional_max_pool3d_with_indices"]  # fmt: skip
__all__ += ["adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
            "adaptive_max_pool3d_with_indices", "max_pool1d_with_indices",
            "max_pool2d_with_indices", "max_pool3d_with_indices"]  # fmt: skip
__all__ += ["conv_tbc"]
__all__ += ["ctc_loss", "gumbel_softmax", "rrelu", "rrelu_"]


def softmax(x: Tensor, axis: int = -1, *, dim: int | None = None, dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``axis``: scores -> probabilities that sum to 1.

    ``dtype`` casts ``x`` first (integers need it, as in PyTorch).

    >>> import minigrad as mg
    >>> mg.nn.functional.softmax(mg.tensor([[0.0, 0.0], [0.0, 1000.0]]), dim=1)
    tensor([[0.5, 0.5],
            [0. , 1. ]])
    """
    axis = dim if dim is not None else axis
    return primitives.softmax(x if dtype is None else x.to(dtype), axis)


def log_softmax(x: Tensor, axis: int = -1, *, dim: int | None = None,
                dtype: Any = None) -> Tensor:  # fmt: skip
    """``log(softmax(x))``, that is ``x - logsumexp(x)``: finite even for huge scores.

    Computed as ``(x - m) - log(sum(exp(x - m)))`` with ``m`` the max: the
    subtraction ``x - m`` happens first, where it is exact, before any
    rounding of a large number like ``m + log(...)`` could lose digits.

    >>> import minigrad as mg
    >>> mg.nn.functional.log_softmax(mg.tensor([0.0, -1000.0]))
    tensor([    0., -1000.])
    """
    axis = dim if dim is not None else axis
    return primitives.log_softmax(x if dtype is None else x.to(dtype), axis)
