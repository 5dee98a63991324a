"""The nn functions PyTorch also has at its top level, in its signatures (lesson 06).

``torch.dropout``, ``torch.layer_norm``, ``torch.batch_norm``, ``torch.kl_div``, ...

These are the C++ operators under ``torch.nn.functional``, and their
arguments are the operators' own: ``torch.dropout(input, p, train)`` has no
defaults, ``torch.batch_norm`` takes the weight before the running statistics, the
losses take ``reduction`` as a number (0 none, 1 mean, 2 sum; any other
number returns the unreduced losses, as PyTorch's kernels do) whose default
is 0, unreduced (PyTorch's operator schemas say 1, mean, but its Python
bindings read that default as 0: ``torch.kl_div(x, y)`` is not reduced),
``torch.embedding`` takes the weight first (``padding_idx=-1``: none), and
``torch.grid_sampler`` numbers its modes. Each function here reorders its
arguments and calls ``nn.functional``'s, so values, gradients and errors are
the functional's; nothing new is computed. Where the signatures agree
(``conv2d``, ``pdist``, ``pixel_shuffle``, ...) ``mg`` binds the functional
itself.

    >>> import minigrad as mg
    >>> mg.dropout(mg.ones(3), 0.5, False)
    tensor([1., 1., 1.])
"""

from __future__ import annotations

from typing import Any

from minigrad.nn import feature_dropout as features
from minigrad.nn import functional as F
from minigrad.tensor import dtypes
from minigrad.tensor.tensor import Tensor

__all__ = [
    "adaptive_max_pool1d", "affine_grid_generator", "alpha_dropout", "alpha_dropout_", "avg_pool1d",
    "batch_norm", "binary_cross_entropy_with_logits", "celu", "celu_", "cosine_embedding_loss",
    "dropout", "dropout_", "embedding", "feature_alpha_dropout", "feature_alpha_dropout_",
    "feature_dropout", "feature_dropout_", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
    "group_norm", "hinge_embedding_loss", "instance_norm", "kl_div", "layer_norm",
    "margin_ranking_loss", "max_pool1d", "max_pool2d", "max_pool3d", "poisson_nll_loss", "selu",
    "selu_", "threshold", "threshold_", "triplet_margin_loss",
]  # fmt: skip

#: PyTorch's numbering of ``reduction`` in its C++ operators (``at::Reduction``).
REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}
#: ``torch.grid_sampler``'s numbering of its modes.
INTERPOLATIONS = {0: "bilinear", 1: "nearest", 2: "bicubic"}
PADDINGS = {0: "zeros", 1: "border", 2: "reflection"}


def _reduction(where: str, reduction: Any, position: int) -> str:
    if not dtypes.is_integer(reduction):
        raise TypeError(
            f"{where}(): argument 'reduction' (position {position}) must be int, not "
            f"{dtypes.type_name(reduction)}\n{where}: the top-level loss numbers its "
            "reductions (0 none, 1 mean, 2 sum); nn.functional's takes the words"
        )
    return REDUCTIONS.get(int(reduction), "none")  # other numbers: unreduced, as PyTorch's


# -- dropouts: (input, p, train), no defaults ---------------------------------------------------
def _probability(p: float) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(input: Tensor, p: float, train: bool, channels: bool, alpha: bool,
             inplace: bool) -> Tensor:  # fmt: skip
    _probability(p)
    shape = (lambda: features._mask_shape(input, True)) if channels else None
    return features._dropped(input, p, train, shape, alpha, inplace)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``
    when ``train``; else ``input`` itself."""
    return _dropout(input, p, train, False, False, False)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``dropout`` written into ``input``."""
    return _dropout(input, p, train, False, False, True)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``dropout`` of whole channels of ``(N, C, ...)`` (one draw per example and channel)."""
    return _dropout(input, p, train, True, False, False)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``feature_dropout`` written into ``input``."""
    return _dropout(input, p, train, True, False, True)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``nn.functional.alpha_dropout(input, p, train)``."""
    return _dropout(input, p, train, False, True, False)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``alpha_dropout`` written into ``input``."""
    return _dropout(input, p, train, False, True, True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``nn.functional.feature_alpha_dropout(input, p, train)``."""
    return _dropout(input, p, train, True, True, False)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``feature_alpha_dropout`` written into ``input``."""
    return _dropout(input, p, train, True, True, True)


# -- activations without ``inplace=``, and their in-place forms -----------------------------------
def selu(input: Tensor) -> Tensor:
    """``nn.functional.selu(input)``."""
    return F.selu(input)


def selu_(input: Tensor) -> Tensor:
    """``selu`` written into ``input``."""
    return F.selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``nn.functional.celu(input, alpha)``."""
    return F.celu(input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``celu`` written into ``input``."""
    return F.celu(input, alpha, inplace=True)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """``nn.functional.threshold(input, threshold, value)``: ``value`` where
    ``input <= threshold``."""
    return F.threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """``threshold`` written into ``input``."""
    return F.threshold(input, threshold, value, inplace=True)


# -- weight first, or the statistics after the affine parameters --------------------------------
def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:  # fmt: skip
    """The rows of ``weight`` that ``indices`` name (weight first; a negative
    ``padding_idx`` means none, as in PyTorch's operator)."""
    padding = padding_idx if padding_idx >= 0 else None
    return F.embedding(indices, weight, padding, scale_grad_by_freq=scale_grad_by_freq,
                       sparse=sparse)  # fmt: skip


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enable: bool = True) -> Tensor:  # fmt: skip
    """``nn.functional.layer_norm`` (``cudnn_enable`` is PyTorch's switch, read and unused)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enabled: bool = True) -> Tensor:  # fmt: skip
    """``nn.functional.group_norm`` (``cudnn_enabled`` read and unused)."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:  # fmt: skip
    """``nn.functional.batch_norm`` with PyTorch's operator order: the affine weight and bias
    before the running statistics, every argument given."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                  running_mean: Tensor | None, running_var: Tensor | None,
                  use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:  # fmt: skip
    """``nn.functional.instance_norm`` in the operator's order (weight and bias first)."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)  # fmt: skip


# -- losses with a numbered reduction -----------------------------------------------------------
def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *,
           log_target: bool = False) -> Tensor:  # fmt: skip
    """``nn.functional.kl_div`` with ``reduction`` numbered (0: none, PyTorch's default here;
    1: the mean of every element; 2: the sum)."""
    how = _reduction("kl_div", reduction, 3)
    return F.kl_div(input, target, reduction=how, log_target=log_target)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:  # fmt: skip
    """``nn.functional.margin_ranking_loss`` with ``reduction`` numbered."""
    how = _reduction("margin_ranking_loss", reduction, 5)
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=how)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                        swap: bool = False, reduction: int = 0) -> Tensor:  # fmt: skip
    """``nn.functional.triplet_margin_loss`` with ``reduction`` numbered."""
    how = _reduction("triplet_margin_loss", reduction, 8)
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=how)  # fmt: skip


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:  # fmt: skip
    """``nn.functional.cosine_embedding_loss`` with ``reduction`` numbered."""
    how = _reduction("cosine_embedding_loss", reduction, 5)
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=how)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         reduction: int = 0) -> Tensor:  # fmt: skip
    """``nn.functional.hinge_embedding_loss`` with ``reduction`` numbered."""
    how = _reduction("hinge_embedding_loss", reduction, 4)
    return F.hinge_embedding_loss(input, target, margin, reduction=how)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:  # fmt: skip
    """``nn.functional.poisson_nll_loss``, every argument given, ``reduction`` numbered."""
    how = _reduction("poisson_nll_loss", reduction, 6)
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=how)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None,
                                     reduction: int = 0) -> Tensor:  # fmt: skip
    """``nn.functional.binary_cross_entropy_with_logits``: ``pos_weight`` positional, and
    ``reduction`` numbered."""
    how = _reduction("binary_cross_entropy_with_logits", reduction, 5)
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=how,
                                              pos_weight=pos_weight)  # fmt: skip


# -- pooling without return_indices; adaptive max pooling returns them -------------------------
def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:  # fmt: skip
    """``nn.functional.max_pool1d`` (an empty ``stride`` is the kernel size)."""
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:  # fmt: skip
    """``nn.functional.max_pool2d`` (an empty ``stride`` is the kernel size)."""
    return F.max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:  # fmt: skip
    """``nn.functional.max_pool3d`` (an empty ``stride`` is the kernel size)."""
    return F.max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:  # fmt: skip
    """``nn.functional.avg_pool1d`` (an empty ``stride`` is the kernel size)."""
    return F.avg_pool1d(input, kernel_size, stride or None, padding, ceil_mode, count_include_pad)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """``nn.functional.adaptive_max_pool1d(..., return_indices=True)``: values and indices."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


# -- grids with numbered modes ------------------------------------------------------------------
def affine_grid_generator(theta: Tensor, size: Any, align_corners: bool) -> Tensor:
    """``nn.functional.affine_grid(theta, size, align_corners)``."""
    return F.affine_grid(theta, list(size), align_corners)


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:  # fmt: skip
    """``nn.functional.grid_sample`` with the modes numbered: interpolation 0 bilinear,
    1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection."""
    if interpolation_mode not in INTERPOLATIONS or padding_mode not in PADDINGS:
        raise RuntimeError(
            f"grid_sampler(): interpolation_mode {interpolation_mode} and padding_mode "
            f"{padding_mode}: expected interpolation 0 (bilinear), 1 (nearest) or 2 (bicubic) "
            "and padding 0 (zeros), 1 (border) or 2 (reflection)"
        )
    return F.grid_sample(input, grid, INTERPOLATIONS[interpolation_mode],
                         PADDINGS[padding_mode], align_corners)  # fmt: skip


def _grid_sampler_nd(spatial: int, input: Tensor, grid: Tensor, interpolation_mode: int,
                     padding_mode: int, align_corners: bool) -> Tensor:  # fmt: skip
    rank = spatial + 2
    if input.ndim != rank or grid.ndim != rank:
        raise RuntimeError(
            f"grid_sampler(): expected {rank}D input and grid with same number of dimensions, "
            f"but got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:  # fmt: skip
    """``grid_sampler`` of a 4-D input by a 4-D grid."""
    return _grid_sampler_nd(2, input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:  # fmt: skip
    """``grid_sampler`` of a 5-D input by a 5-D grid."""
    return _grid_sampler_nd(3, input, grid, interpolation_mode, padding_mode, align_corners)
