"""PyTorch's ``nn.Transformer`` and its encoder and decoder stacks (lesson 17).

The original transformer ("Attention Is All You Need") reads a source
sequence with an *encoder* and writes a target sequence with a *decoder*:

- an encoder layer is self-attention then a feed-forward network
  (``linear2(dropout(activation(linear1(x))))``), each a residual branch with
  a LayerNorm: after the sum (``norm_first=False``, the paper's "post-norm")
  or before the branch (``norm_first=True``, "pre-norm");
- a decoder layer has a third branch between the two: *cross-attention*,
  whose queries come from the target and whose keys and values are the
  encoder's output (the ``memory``);
- ``TransformerEncoder`` / ``TransformerDecoder`` stack copies of one layer
  (``layers.0``, ``layers.1``, ...) and an optional final norm;
  ``Transformer`` is an encoder and a decoder, each ending in a LayerNorm.

Masks follow ``MultiheadAttention``: ``True`` (or ``-inf``) hides a key.
``generate_square_subsequent_mask(n)`` is the causal mask (``-inf`` above the
diagonal) that keeps a decoder from reading ahead. In evaluation mode without
gradients, an encoder stack given only a left-aligned padding mask gives 0 at
the padded positions (before its final norm), as PyTorch's packed-sequence
path does. Parameter names,
constructor arguments and initialisation are PyTorch's, so a state dict
moves between the two.

    >>> import minigrad as mg
    >>> model = mg.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1,
    ...                           num_decoder_layers=1, dim_feedforward=16, dropout=0.0)
    >>> src, tgt = mg.randn(5, 3, 8), mg.randn(4, 3, 8)
    >>> mask = model.generate_square_subsequent_mask(4)
    >>> model(src, tgt, tgt_mask=mask).shape
    (4, 3, 8)
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

from minigrad.nn.activation import GELU
from minigrad.nn.activation_functions import relu
from minigrad.nn.containers import ModuleList
from minigrad.nn.dropout import Dropout
from minigrad.nn.linear import Linear
from minigrad.nn.module import Module, ReLU, overwrite
from minigrad.nn.multi_head_attention import MultiheadAttention, canonical_mask
from minigrad.nn.normalization import LayerNorm
from minigrad.tensor import dtypes, factories
from minigrad.tensor.mode import is_grad_enabled
from minigrad.tensor.ops.activations import gelu
from minigrad.tensor.tensor import Tensor


def _activation(activation: str | Callable) -> Callable:
    if not isinstance(activation, str):
        return activation
    if activation == "relu":
        return relu
    if activation == "gelu":
        return gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _nested_ready(layer: Module) -> bool:
    """Whether a stack of ``layer`` may take PyTorch's packed-sequence inference path."""
    return (
        isinstance(layer, TransformerEncoderLayer) and not layer.norm_first
        and layer.self_attn.batch_first and layer.self_attn._qkv_same_embed_dim
        and layer.self_attn.in_proj_bias is not None
        and (layer.activation in (relu, gelu) or isinstance(layer.activation, (ReLU, GELU)))
        and layer.norm1.eps == layer.norm2.eps and layer.self_attn.num_heads % 2 == 0
    )  # fmt: skip


def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
    """The causal mask of ``sz`` positions: ``0`` on and below the diagonal, ``-inf`` above.

    >>> generate_square_subsequent_mask(3)
    tensor([[  0., -inf, -inf],
            [  0.,   0., -inf],
            [  0.,   0.,   0.]])
    """
    full = factories.full((sz, sz), -math.inf, dtype=dtype or dtypes.float32,
                          device=device or "cpu")  # fmt: skip
    return full.triu(1)


def _is_causal(mask: Any, is_causal: bool | None, size: int) -> bool:
    """PyTorch's guess when no hint is given: the mask equals the causal mask of ``size``."""
    if is_causal is not None or mask is None:
        return is_causal is True
    if tuple(mask.shape) != (size, size):
        return False
    if mask.dtype == dtypes.bool_:  # PyTorch's -inf filled in as bool: True above the diagonal
        causal = factories.ones((size, size), dtype=dtypes.bool_, device=mask.device).triu(1)
    else:
        causal = generate_square_subsequent_mask(size, mask.device, mask.dtype)
    return bool((mask == causal).all())


def _length(x: Tensor, batch_first: bool) -> int:
    return x.shape[0] if x.ndim == 2 else x.shape[1 if batch_first else 0]


def _layer_parts(layer: Module, d_model: int, nhead: int, dim_feedforward: int, dropout: float,
                 activation: Any, eps: float, batch_first: bool, norm_first: bool, bias: bool,
                 norms: int, device: Any, dtype: Any) -> None:  # fmt: skip
    """The sub-modules an encoder (2 norms) or decoder (3 norms) layer holds, PyTorch's names."""
    options = {"bias": bias, "device": device, "dtype": dtype}
    layer.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                         batch_first=batch_first, **options)  # fmt: skip
    if norms == 3:
        layer.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                  batch_first=batch_first, **options)  # fmt: skip
    dtype = dtypes.float32 if dtype is None else dtype
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype, device=device or "cpu")
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype, device=device or "cpu")
    layer.norm_first = norm_first
    for i in range(1, norms + 1):
        setattr(layer, f"norm{i}", LayerNorm(d_model, eps=eps, bias=bias, dtype=dtype,
                                             device=device or "cpu"))  # fmt: skip
        setattr(layer, f"dropout{i}", Dropout(dropout))
    layer.activation = _activation(activation)


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward network, each a residual branch with a LayerNorm.

    ``forward(src, src_mask=None, src_key_padding_mask=None, is_causal=False)``.

    >>> import minigrad as mg
    >>> layer = TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
    >>> layer(mg.randn(3, 5, 8)).shape
    (3, 5, 8)
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = "relu",
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        _layer_parts(self, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                     batch_first, norm_first, bias, 2, device, dtype)  # fmt: skip

    def forward(self, src: Tensor, src_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:  # fmt: skip
        src_key_padding_mask = canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                              src_mask, "src_mask", src)  # fmt: skip
        src_mask = canonical_mask(src_mask, "src_mask", None, "", src, check_other=False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x: Tensor, mask: Any, padding: Any, is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=padding,
                           need_weights=False, is_causal=is_causal)[0]  # fmt: skip
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(Module):
    """Self-attention, cross-attention over ``memory``, a feed-forward network; each residual.

    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False)``.

    >>> import minigrad as mg
    >>> layer = TransformerDecoderLayer(8, 2, dim_feedforward=16)
    >>> layer(mg.randn(4, 2, 8), mg.randn(6, 2, 8)).shape
    (4, 2, 8)
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = "relu",
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        _layer_parts(self, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                     batch_first, norm_first, bias, 3, device, dtype)  # fmt: skip

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:  # fmt: skip
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                                    memory_is_causal)  # fmt: skip
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))  # fmt: skip
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x: Tensor, mask: Any, padding: Any, is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=padding,
                           is_causal=is_causal, need_weights=False)[0]  # fmt: skip
        return self.dropout1(x)

    def _mha_block(self, x: Tensor, memory: Tensor, mask: Any, padding: Any,
                   is_causal: bool) -> Tensor:  # fmt: skip
        x = self.multihead_attn(x, memory, memory, attn_mask=mask, key_padding_mask=padding,
                                is_causal=is_causal, need_weights=False)[0]  # fmt: skip
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _clones(layer: Module, count: int) -> ModuleList:
    """``count`` independent copies of ``layer`` (each its own parameters), indexed 0, 1, ..."""
    return ModuleList([copy.deepcopy(layer) for _ in range(count)])


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` in turn, then ``norm`` if given.

    ``forward(src, mask=None, src_key_padding_mask=None, is_causal=None)``;
    ``is_causal=None`` checks whether ``mask`` is the causal mask.

    >>> import minigrad as mg
    >>> layer = TransformerEncoderLayer(8, 2, dim_feedforward=16)
    >>> TransformerEncoder(layer, 2)(mg.randn(5, 3, 8)).shape
    (5, 3, 8)
    """

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check
        self.use_nested_tensor = enable_nested_tensor and _nested_ready(encoder_layer)

    def forward(self, src: Tensor, mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:  # fmt: skip
        src_key_padding_mask = canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                              mask, "mask", src)  # fmt: skip
        mask = canonical_mask(mask, "mask", None, "", src, check_other=False)
        batch_first = self.layers[0].self_attn.batch_first
        is_causal = _is_causal(mask, is_causal, _length(src, batch_first))
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal,
                           src_key_padding_mask=src_key_padding_mask)  # fmt: skip
        if self._packed(src, mask, src_key_padding_mask):
            # PyTorch packs the unpadded tokens (a nested tensor) and pads the result with 0.
            output = output.masked_fill((src_key_padding_mask != 0)[..., None], 0.0)
        return output if self.norm is None else self.norm(output)

    def _packed(self, src: Tensor, mask: Any, padding: Any) -> bool:
        """Whether PyTorch runs this stack on packed sequences (evaluation, no gradient, a
        left-aligned padding mask and no other mask): then padded positions come out 0."""
        first = self.layers[0]
        if not (self.use_nested_tensor and not first.training and src.ndim == 3
                and padding is not None and mask is None):  # fmt: skip
            return False
        kept = padding == 0  # PyTorch reads the mask's logical_not: 0 keeps, anything else pads
        if self.mask_check and bool((kept[:, 1:] & ~kept[:, :-1]).any()):
            return False  # a kept token after a padded one: not left-aligned
        tensors = [src, *first.parameters()]
        return not (is_grad_enabled() and any(t.requires_grad for t in tensors))


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer``, each reading ``memory``, then ``norm``.

    >>> import minigrad as mg
    >>> layer = TransformerDecoderLayer(8, 2, dim_feedforward=16)
    >>> TransformerDecoder(layer, 2)(mg.randn(4, 3, 8), mg.randn(5, 3, 8)).shape
    (4, 3, 8)
    """

    def __init__(self, decoder_layer: Module, num_layers: int,
                 norm: Module | None = None) -> None:  # fmt: skip
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:  # fmt: skip
        batch_first = self.layers[0].self_attn.batch_first
        tgt_is_causal = _is_causal(tgt_mask, tgt_is_causal, _length(tgt, batch_first))
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal,
                           memory_is_causal=memory_is_causal)  # fmt: skip
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """An encoder and a decoder stack, each ending in a LayerNorm: PyTorch's ``nn.Transformer``.

    ``forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
    src_key_padding_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
    memory_is_causal=False)`` -> the decoder's output, shaped like ``tgt``.
    Every weight matrix starts Xavier-uniform, as PyTorch's.
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = "relu",
                 custom_encoder: Any = None, custom_decoder: Any = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first, bias, device, dtype)  # fmt: skip
        norm_dtype = dtypes.float32 if dtype is None else dtype

        def final_norm() -> LayerNorm:
            return LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=norm_dtype,
                             device=device or "cpu")  # fmt: skip

        self.encoder = custom_encoder
        if custom_encoder is None:
            layer = TransformerEncoderLayer(*layer_args)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, final_norm())
        self.decoder = custom_decoder
        if custom_decoder is None:
            layer = TransformerDecoderLayer(*layer_args)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, final_norm())
        for p in self.parameters():  # xavier_uniform_ of every matrix
            if p.ndim > 1:
                bound = math.sqrt(6 / (p.shape[0] + p.shape[1]))
                overwrite(p, factories.generator().uniform(-bound, bound, size=p.shape))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None,
                tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, src_is_causal: bool | None = None,
                tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:  # fmt: skip
        batch = 0 if self.batch_first else 1
        if src.ndim == 3 and src.shape[batch] != tgt.shape[batch]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)  # fmt: skip
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)  # fmt: skip

    generate_square_subsequent_mask = staticmethod(generate_square_subsequent_mask)
