"""Convolutions: sliding windows and one matrix product (lesson 12).

A 2-D convolution (PyTorch's, which is a cross-correlation) of an input of
shape ``(N, C, H, W)`` with a weight of shape ``(O, C, KH, KW)`` is

    out[n, o, i, j] = sum over c, p, q of  w[o, c, p, q] * x[n, c, i*s + p*d, j*s + q*d]

for stride ``s`` and dilation ``d``. Read the sum as two steps:

1. **windows**: for every output position ``(i, j)`` the ``KH x KW`` patch it
   sees. ``backend.windows`` gives all of them as a view of shape
   ``(N, C, OH, OW, KH, KW)``: new strides over the same memory, no copy
   (``backends/strides.py``: one output step is ``s`` elements, one kernel
   step is ``d``).
2. **contraction**: sum over ``(c, p, q)`` against the weight. Laid out as
   rows ("im2col") that is one batched matrix product; the copy into rows is
   the only copy a convolution makes.

The convolution is bilinear, so its row of the table says ``multilinear``:
it gives the transpose in each input and forward mode follows (lesson 07).
Both transposes are convolutions again (the lesson derives them):

- in ``x``: spread the cotangent ``g`` out to stride 1 (zeros between its
  elements), pad it, and convolve with the weight flipped in space and with
  its in/out channels swapped: a "transposed convolution";
- in ``w``: convolve the input with ``g`` used as the kernel (batch and
  channel axes swapped), stride and dilation trading places.

Both are written with ``apply(CONV2D, ...)`` on tensors, so second
derivatives and forward-over-reverse come from the same row. ``groups``
splits the channels into independent convolutions (``groups == C`` is a
depthwise convolution); padding is ``pad``, a separate operation. The
arguments are checked as PyTorch checks them (``convolution_arguments.py``).

    >>> import minigrad as mg
    >>> x = mg.arange(16.0).reshape(1, 1, 4, 4)
    >>> mg.nn.functional.conv2d(x, mg.ones((1, 1, 2, 2)), stride=2)
    tensor([[[[10., 18.],
              [42., 50.]]]])
"""

from __future__ import annotations

import itertools
from typing import Any

from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.composite import composite
from minigrad.tensor.ops.convolution_arguments import check_convolution
from minigrad.tensor.ops.movement import GETITEM, SCATTER_ADD
from minigrad.tensor.ops.padding import pad
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply


def _conv2d_forward(backend: Any, x: Any, w: Any, stride: tuple, dilation: tuple, groups: int):
    """``out[n, o, i, j]`` on raw arrays: a windows view, one copy into rows, one matmul."""
    n, _, _, _ = x.shape
    o, cg, kh, kw = w.shape
    view = backend.windows(x, (kh, kw), stride, dilation)  # (N, C, OH, OW, KH, KW), no copy
    oh, ow = view.shape[2:4]
    # C = (G, C/G): split the channel axis, still a view (a new axis when G = 1).
    if groups == 1:
        view = backend.getitem(view, (slice(None), None))
    else:
        view = backend.reshape(view, (n, groups, cg, oh, ow, kh, kw))
    w = backend.reshape(w, (groups, o // groups, cg * kh * kw))
    # One matrix product per group, over every image at once: BLAS is fastest on
    # a few big products. The copy into rows reads the windows in the order of
    # the longer of the output and kernel axes, so it reads memory in long runs.
    if kw > ow:
        # Rows: one per output position (in a weight gradient the "kernel" is
        # the whole image and the output a few positions).
        rows = backend.reshape(
            backend.transpose(view, (1, 0, 3, 4, 2, 5, 6)), (groups, n * oh * ow, cg * kh * kw)
        )
        out = backend.matmul(rows, backend.transpose(w, (0, 2, 1)))  # (G, N*OH*OW, O/G)
        out = backend.transpose(backend.reshape(out, (groups, n, oh * ow, o // groups)),
                                (1, 0, 3, 2))  # fmt: skip
    else:
        # Columns: im2col, one column per output position.
        cols = backend.reshape(
            backend.transpose(view, (1, 2, 5, 6, 0, 3, 4)), (groups, cg * kh * kw, n * oh * ow)
        )
        out = backend.matmul(w, cols)  # (G, O/G, N*OH*OW)
        out = backend.transpose(backend.reshape(out, (groups, o // groups, n, oh * ow)),
                                (2, 0, 1, 3))  # fmt: skip
    return backend.reshape(out, (n, o, oh, ow))


def _input_transpose(g: Tensor, x: Tensor, w: Tensor, stride, dilation, groups) -> Tensor:
    """The cotangent of ``x``: a stride-1 convolution of the spread-out ``g`` with flipped ``w``."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = g.shape[2:]
    (sh, sw), (dh, dw) = stride, dilation
    # g's elements go s apart (the zeros in between are the positions no window
    # started at), with a border of d*(k-1) so every x position gets a full window.
    top, left = dh * (kh - 1), dw * (kw - 1)
    spread = (slice(None), slice(None), slice(top, top + sh * (oh - 1) + 1, sh),
              slice(left, left + sw * (ow - 1) + 1, sw))  # fmt: skip
    g = apply(SCATTER_ADD, (g,), index=spread, shape=(n, o, h + top, wd + left))
    # Swap in and out channels within each group, and flip the kernel in space.
    w = w.reshape(groups, o // groups, cg, kh, kw).swapaxes(1, 2).reshape(c, o // groups, kh, kw)
    w = apply(GETITEM, (w,), index=(slice(None), slice(None), slice(None, None, -1),
                                     slice(None, None, -1)))  # fmt: skip
    return apply(CONV2D, (g, w), stride=(1, 1), dilation=dilation, groups=groups)


def _weight_transpose(g: Tensor, x: Tensor, w: Tensor, stride, dilation, groups) -> Tensor:
    """The cotangent of ``w``: the input convolved with ``g`` as the kernel.

    ``dw[o, c, p, q] = sum over n, i, j of g[n, o, i, j] x[n, c, i*s + p*d, j*s + q*d]``
    is a convolution in which the batch axis is summed (it plays the channels)
    and the input channels are the batch; ``i`` steps by ``s`` and ``p`` by ``d``,
    so stride and dilation trade places.
    """
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = g.shape[2:]
    x = x.reshape(n, groups, cg, h, wd).permute(2, 1, 0, 3, 4).reshape(cg, groups * n, h, wd)
    g = g.reshape(n, groups, o // groups, oh, ow).permute(1, 2, 0, 3, 4).reshape(o, n, oh, ow)
    dw = apply(CONV2D, (x, g), stride=dilation, dilation=stride, groups=groups)
    # Windows that run past the last one the forward pass used are dropped.
    dw = apply(GETITEM, (dw,), index=(slice(None), slice(None), slice(0, kh), slice(0, kw)))
    return dw.swapaxes(0, 1)


# The input must already be padded; ``conv2d`` below pads it first.
def _conv2d_batched(xs: list, batched: list, stride, dilation, groups) -> Tensor:
    """A batch of convolutions as one (lesson 14): a batch of inputs joins the images
    axis; a batch of kernels (an ensemble) becomes ``B`` times as many groups."""
    x, w = xs
    size = len(x) if batched[0] else len(w)
    if not batched[1]:  # (B, N, C, H, W) -> (B * N, C, H, W): more images, one kernel
        out = apply(CONV2D, (x.reshape(size * x.shape[1], *x.shape[2:]), w), stride=stride,
                    dilation=dilation, groups=groups)  # fmt: skip
        # (the sizes spelled out: -1 is ambiguous when the images axis is empty)
        return out.reshape(size, x.shape[1], *out.shape[1:])
    x = x if batched[0] else x.broadcast_to((size, *x.shape))
    n, c, h, wd = x.shape[1:]
    x = x.transpose(1, 0, 2, 3, 4).reshape(n, size * c, h, wd)
    out = apply(CONV2D, (x, w.reshape(-1, *w.shape[2:])), stride=stride, dilation=dilation,
                groups=size * groups)  # fmt: skip
    return out.reshape(n, size, w.shape[1], *out.shape[2:]).transpose(1, 0, 2, 3, 4)


CONV2D = Primitive(
    "conv2d",
    _conv2d_forward,
    multilinear=(_input_transpose, _weight_transpose),
    saves=(0, 1),
    batch=_conv2d_batched,
)


def _windows_transpose(g: Tensor, x: Tensor, kernel, stride, dilation) -> Tensor:
    """Add every window's cotangent back where its elements were read (col2im).

    One kernel position at a time: the elements at kernel offset ``(p, q)``
    of all windows form a strided slice of ``x``, so they scatter back in one
    ``scatter_add``; overlapping windows add up.
    """
    out = g.shape[-2 * len(kernel) : -len(kernel)]
    total = None
    for offset in itertools.product(*(range(k) for k in kernel)):
        index = (..., *(slice(p * d, p * d + s * (n - 1) + 1, s)
                        for p, s, d, n in zip(offset, stride, dilation, out)))  # fmt: skip
        part = apply(SCATTER_ADD, (g[(..., *offset)],), index=index, shape=x.shape)
        total = part if total is None else total + part
    return total


# The windows of the last axes, as a differentiable view (max pooling reads them).
WINDOWS = Primitive(
    "windows",
    lambda backend, x, kernel, stride, dilation: backend.windows(x, kernel, stride, dilation),
    linear=(_windows_transpose,),
    # Windows run over the last axes: a batch axis in front is one more leading axis.
    batch=lambda xs, batched, **params: apply(WINDOWS, (xs[0],), **params),
)


def windows(x: Tensor, kernel: tuple[int, ...], stride: tuple[int, ...],
            dilation: tuple[int, ...] | None = None) -> Tensor:  # fmt: skip
    """The sliding windows of the last ``len(kernel)`` axes: ``(..., H, W) -> (..., OH, OW,
    KH, KW)`` for two.

    A view of ``x``'s memory (no copy); its gradient adds each window's
    cotangent back where the window was read.

    >>> import minigrad as mg
    >>> windows(mg.arange(5.0).reshape(1, 5), (1, 3), (1, 2)).reshape(2, 3)
    tensor([[0., 1., 2.],
            [2., 3., 4.]])
    """
    dilation = (1,) * len(kernel) if dilation is None else tuple(dilation)
    return apply(WINDOWS, (x,), kernel=tuple(kernel), stride=tuple(stride), dilation=dilation)


# -- the public functions -----------------------------------------------------------
def _depth_as_channels(x: Tensor, depth: int, stride: int, dilation: int) -> tuple[Tensor, int]:
    """``(N, C, D, H, W) -> (N * OD, C * KD, H, W)``: for each output depth, the ``KD``
    input depth slices its windows read, as channels (the windows of the depth axis alone);
    and ``OD``."""
    n, c, _, h, w = x.shape
    slabs = windows(
        x, (depth, 1, 1), (stride, 1, 1), (dilation, 1, 1)
    )  # (N, C, OD, H, W, KD, 1, 1)
    od = slabs.shape[2]
    slabs = slabs.reshape(n, c, od, h, w, depth).permute(0, 2, 1, 5, 3, 4)
    return slabs.reshape(n * od, c * depth, h, w), od


def convolve(x: Tensor, weight: Tensor, stride: tuple, dilation: tuple, groups: int) -> Tensor:
    """The convolution of an unpadded ``(N, C, *spatial)`` over one to three spatial axes.

    Every one is a ``CONV2D`` row. A 1-D convolution is a 2-D one over images
    of height 1. A 3-D one is a 2-D one over ``N * OD`` images whose channels
    are the ``(channel, kernel depth)`` pairs: output depth ``z`` sums
    ``w[o, c, p] * x[n, c, z * s + p * d]`` over ``c`` and ``p``, a channel sum
    once the depth slices a window reads stand side by side as channels.
    """
    if len(stride) == 1:
        x, weight = x.unsqueeze(2), weight.unsqueeze(2)
        out = apply(CONV2D, (x, weight), stride=(1, *stride), dilation=(1, *dilation),
                    groups=groups)  # fmt: skip
        return out.squeeze(2)
    if len(stride) == 2:
        return apply(CONV2D, (x, weight), stride=stride, dilation=dilation, groups=groups)
    o, cg, kd, kh, kw = weight.shape
    slabs, od = _depth_as_channels(x, kd, stride[0], dilation[0])
    # (O, C/G, KD, KH, KW) -> (O, C/G * KD, KH, KW): the channels of each group stay together.
    out = apply(CONV2D, (slabs, weight.reshape(o, cg * kd, kh, kw)), stride=stride[1:],
                dilation=dilation[1:], groups=groups)  # fmt: skip
    return out.reshape(x.shape[0], od, *out.shape[1:]).permute(0, 2, 1, 3, 4)


def convolution(x: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
                dilation: Any, groups: int, dims: int) -> Tensor:  # fmt: skip
    """``conv1d``, ``conv2d`` and ``conv3d`` (``dims`` spatial axes): checks, padding,
    then ``convolve``."""
    args = check_convolution(x, weight, bias, stride, padding, dilation, groups, dims,
                             f"conv{dims}d")  # fmt: skip
    x = args.input
    if any(p != (0, 0) for p in args.padding):
        x = pad(x, tuple(n for pair in reversed(args.padding) for n in pair))
    out = convolve(x, weight, args.stride, args.dilation, groups)
    if bias is not None:
        out = out + bias.reshape(-1, *(1,) * dims)
    return out if args.batched else out.squeeze(0)


@composite("conv1d")
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """1-D convolution (cross-correlation) of ``(N, C, L)`` with ``(O, C / groups, K)``.

    Arguments as ``torch.nn.functional.conv1d``: ``padding`` an int, a
    1-tuple, ``"valid"`` or ``"same"``; an unbatched ``(C, L)`` input works too.

    >>> import minigrad as mg
    >>> mg.nn.functional.conv1d(mg.tensor([[[1.0, 2.0, 3.0]]]), mg.tensor([[[1.0, -1.0]]]))
    tensor([[[-1., -1.]]])
    """
    return convolution(input, weight, bias, stride, padding, dilation, groups, dims=1)


@composite("conv2d")
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """2-D convolution (cross-correlation) of ``(N, C, H, W)`` with ``(O, C / groups, KH, KW)``.

    Arguments as ``torch.nn.functional.conv2d``: ``stride``, ``padding`` and
    ``dilation`` an int or a pair, ``padding`` also ``"valid"`` or ``"same"``;
    an unbatched ``(C, H, W)`` input works too. The result is ``(N, O, OH, OW)``
    with ``OH = (H + 2 * padding - dilation * (KH - 1) - 1) // stride + 1``.

    >>> import minigrad as mg
    >>> mg.nn.functional.conv2d(mg.ones((2, 3, 5, 5)), mg.ones((4, 3, 3, 3)), padding=1).shape
    (2, 4, 5, 5)
    """
    return convolution(input, weight, bias, stride, padding, dilation, groups, dims=2)


@composite("conv3d")
def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """3-D convolution of ``(N, C, D, H, W)`` with ``(O, C / groups, KD, KH, KW)``.

    Arguments as ``torch.nn.functional.conv3d``: ``stride``, ``padding`` and
    ``dilation`` an int or a triple, ``padding`` also ``"valid"`` or
    ``"same"``; an unbatched ``(C, D, H, W)`` input works too.

    >>> import minigrad as mg
    >>> mg.nn.functional.conv3d(mg.ones((1, 2, 3, 4, 4)), mg.ones((5, 2, 2, 2, 2))).shape
    (1, 5, 2, 3, 3)
    """
    return convolution(input, weight, bias, stride, padding, dilation, groups, dims=3)
