"""``multi_head_attention_forward`` and the ``MultiheadAttention`` module that runs it (lesson 17).

Multi-head attention projects the query, key and value sequences
(``x @ W.T + b``), cuts each projection's features into ``num_heads`` slices
of ``head_dim = embed_dim / num_heads``, runs one attention per slice (the
heads are a batch axis) and projects the joined heads once more::

    q, k, v   = query @ W_q.T + b_q,  key @ W_k.T + b_k,  value @ W_v.T + b_v
    head_i    = softmax(q_i @ k_i.T / sqrt(head_dim) + mask) @ v_i
    output    = concat(head_1 .. head_H) @ W_out.T + b_out

Everything here is PyTorch's ``F.multi_head_attention_forward``, argument
for argument: sequences come ``(L, N, E)`` (or unbatched ``(L, E)``);
``attn_mask`` is ``(L, S)`` or ``(N * num_heads, L, S)``, ``key_padding_mask``
``(N, S)``; in both a boolean ``True`` *hides* a key and a float is added to
the scores. ``bias_k``/``bias_v`` append one learned key and value,
``add_zero_attn`` one zero key and value, ``static_k``/``static_v`` replace the
projected keys and values. With ``need_weights`` the ``(L, S)`` weights are
formed explicitly and returned (a query that sees no key gets NaN, as in
PyTorch); without, the fused ``scaled_dot_product_attention`` runs (such a
query gets 0) and the weights are ``None``. The module follows PyTorch's
inference kernel too: in evaluation mode, with no gradient wanted, batched
self-attention gives such a query NaN whatever ``need_weights`` says.

    >>> import minigrad as mg
    >>> mha = mg.nn.MultiheadAttention(8, 2, batch_first=True)
    >>> x = mg.ones(3, 5, 8)
    >>> out, weights = mha(x, x, x)
    >>> out.shape, weights.shape
    ((3, 5, 8), (3, 5, 5))
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from minigrad.nn.affine import linear
from minigrad.nn.attention import scaled_dot_product_attention
from minigrad.nn.dropout import dropout
from minigrad.nn.linear import Linear, uniform_parameter
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import dtypes, factories
from minigrad.tensor.mode import is_grad_enabled
from minigrad.tensor.ops.movement import concatenate
from minigrad.tensor.ops.padding import pad
from minigrad.tensor.ops.softmax import softmax
from minigrad.tensor.tensor import Tensor


def _size(shape: tuple) -> str:
    """A shape as PyTorch's messages print it."""
    return f"torch.Size({list(shape)})"


def _batched(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Any, attn_mask: Any,
             num_heads: int) -> bool:  # fmt: skip
    """Whether the inputs are batched (3-D) or not (2-D); PyTorch's shape errors otherwise."""
    if query.ndim not in (2, 3):
        raise AssertionError(
            "query should be unbatched 2D or batched 3D tensor but received "
            f"{query.ndim}-D query tensor"
        )
    batched = query.ndim == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {query.ndim}-D but found "
            f"{key.ndim}-D and {value.ndim}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
            f"{query.ndim - 1}-D but found {key_padding_mask.ndim}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(
                f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.ndim}-D tensor instead"
            )
        want = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.ndim == 3 and attn_mask.shape != want:
            raise AssertionError(
                f"Expected `attn_mask` shape to be {want} but got {_size(attn_mask.shape)}"
            )
    return batched


def canonical_mask(mask: Any, name: str, other: Any, other_name: str, like: Tensor,
                   check_other: bool = True) -> Tensor | None:  # fmt: skip
    """A mask as an additive float bias in ``like``'s dtype: boolean ``True`` -> ``-inf``."""
    if mask is None:
        return None
    if mask.dtype != dtypes.bool_ and not dtypes.is_floating(mask.dtype):
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if check_other and other is not None and mask.dtype != other.dtype:
        warnings.warn(
            f"Support for mismatched {name} and {other_name} is deprecated. Use same type for "
            "both instead.",
            stacklevel=3,
        )
    if mask.dtype == dtypes.bool_:
        zero = factories.zeros(mask.shape, dtype=like.dtype, device=like.device)
        return zero.masked_fill(mask, -math.inf)
    return mask


def _projections(query: Tensor, key: Tensor, value: Tensor, in_proj_weight: Any,
                 in_proj_bias: Any, separate: bool, weights: tuple) -> tuple:  # fmt: skip
    """``query @ W_q.T + b_q`` and the same for key and value: packed or separate weights."""
    biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
    if not separate:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        weights = in_proj_weight.chunk(3)
    else:
        for name, w in zip("qkv", weights):
            if w is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None"
                )
        e = query.shape[-1]
        for name, w, x in zip(("query", "key", "value"), weights, (query, key, value)):
            if tuple(w.shape) != (e, x.shape[-1]):
                raise AssertionError(
                    f"expecting {name} weights shape of {(e, x.shape[-1])}, but got "
                    f"{_size(w.shape)}"
                )
        for name, b in zip(("query", "key", "value"), biases):
            if b is not None and tuple(b.shape) != (e,):
                raise AssertionError(
                    f"expecting {name} bias shape of {(e,)}, but got {_size(b.shape)}"
                )
    return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def _static(given: Tensor, name: str, rows: int, head_dim: int) -> Tensor:
    if given.shape[0] != rows:
        raise AssertionError(f"expecting {name}.size(0) of {rows}, but got {given.shape[0]}")
    if given.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {given.shape[2]}")
    return given


def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
    in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
    bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
    out_proj_bias: Tensor | None, training: bool = True, key_padding_mask: Tensor | None = None,
    need_weights: bool = True, attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None, static_v: Tensor | None = None,
    average_attn_weights: bool = True, is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:  # fmt: skip
    """PyTorch's ``F.multi_head_attention_forward``: ``(output, weights or None)``.

    ``query (L, N, E)``, ``key (S, N, Ek)``, ``value (S, N, Ev)`` (or without
    the ``N`` axis) -> ``output (L, N, E)`` and, with ``need_weights``, the
    attention weights ``(N, L, S)`` averaged over heads (``(N, H, L, S)``
    with ``average_attn_weights=False``). ``dropout_p`` applies only when
    ``training``. ``is_causal`` is a hint: it needs ``attn_mask`` (the causal
    mask) and lets the fused kernel skip it when no weights are wanted.

    >>> import minigrad as mg
    >>> x = mg.ones(3, 4)
    >>> w, b = mg.eye(4).repeat(3, 1), mg.zeros(12)
    >>> out, weights = multi_head_attention_forward(x, x, x, 4, 2, w, b, None, None, False,
    ...                                             0.0, mg.eye(4), None)
    >>> out.shape, weights.tolist()[0]
    ((3, 4), [0.3333333432674408, 0.3333333432674408, 0.3333333432674408])
    """
    batched = _batched(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:  # a batch of one, squeezed again at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    length, n, embed_dim = query.shape
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", attn_mask,
                                      "attn_mask", query)  # fmt: skip
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the fused kernel applies the causal mask itself
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query, check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight and key.shape[:2] != value.shape[:2]:
        raise AssertionError(
            f"key's sequence and batch dims {_size(key.shape[:2])} do not match value's "
            f"{_size(value.shape[:2])}"
        )
    if not use_separate_proj_weight and key.shape != value.shape:
        raise AssertionError(
            f"key shape {_size(key.shape)} does not match value shape {_size(value.shape)}"
        )
    q, k, v = _projections(query, key, value, in_proj_weight, in_proj_bias,
                           use_separate_proj_weight,
                           (q_proj_weight, k_proj_weight, v_proj_weight))  # fmt: skip
    keys = key.shape[0]
    if attn_mask is not None:
        want = (length, keys) if attn_mask.ndim == 2 else (n * num_heads, length, keys)
        if tuple(attn_mask.shape) != want:
            raise RuntimeError(
                f"The shape of the {attn_mask.ndim}D attn_mask is {_size(attn_mask.shape)}, but "
                f"should be {want}."
            )
        attn_mask = attn_mask.unsqueeze(0) if attn_mask.ndim == 2 else attn_mask
    if (bias_k is None) != (bias_v is None):
        raise AssertionError(
            "bias_k is set but bias_v is None" if bias_v is None
            else "bias_v is set but bias_k is None"
        )  # fmt: skip
    if bias_k is not None:  # one more key and value, learned, that every query sees
        if static_k is not None or static_v is not None:
            which = "key" if static_k is not None else "value"
            raise AssertionError(f"bias cannot be added to static {which}.")
        k = concatenate([k, bias_k.repeat(1, n, 1)])
        v = concatenate([v, bias_v.repeat(1, n, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    # heads become a batch axis: (L, N, E) -> (N * H, L, head_dim)
    rows = n * num_heads
    q = q.reshape(length, rows, head_dim).swapaxes(0, 1)
    if static_k is None:
        k = k.reshape(k.shape[0], rows, head_dim).swapaxes(0, 1)
    else:
        k = _static(static_k, "static_k", rows, head_dim)
    if static_v is None:
        v = v.reshape(v.shape[0], rows, head_dim).swapaxes(0, 1)
    else:
        v = _static(static_v, "static_v", rows, head_dim)
    if add_zero_attn:  # one more key and value, all zeros
        zeros = factories.zeros((rows, 1, head_dim), dtype=k.dtype, device=k.device)
        k, v = concatenate([k, zeros], 1), concatenate([v, zeros.to(v.dtype)], 1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    keys = k.shape[1]
    if key_padding_mask is not None:
        for axis, size, name in ((0, n, "shape[0]"), (1, keys, "shape[1]")):
            if key_padding_mask.shape[axis] != size:
                raise AssertionError(
                    f"Expected key_padded_mask.{name} to be {size}, but got "
                    f"{key_padding_mask.shape[axis]}"
                )
        padding = key_padding_mask.reshape(n, 1, 1, keys).expand(-1, num_heads, -1, -1)
        padding = padding.reshape(rows, 1, keys)
        attn_mask = padding if attn_mask is None else attn_mask + padding
    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = (q * math.sqrt(1.0 / head_dim)) @ k.swapaxes(-2, -1)
        weights = softmax(scores if attn_mask is None else attn_mask + scores, -1)
        out = (dropout(weights, dropout_p) if dropout_p > 0 else weights) @ v
        out = out.swapaxes(0, 1).reshape(length * n, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.reshape(length, n, out.shape[1])
        weights = weights.reshape(n, num_heads, length, keys)
        if average_attn_weights:
            weights = weights.mean(1)
        return (out, weights) if batched else (out.squeeze(1), weights.squeeze(0))
    if attn_mask is not None:  # (1 or N * H, L, S) -> (1 or N, H, L, S)
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(n, num_heads, -1, keys)
    q = q.reshape(n, num_heads, length, head_dim)
    k = k.reshape(n, num_heads, keys, head_dim)
    v = v.reshape(n, num_heads, keys, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(n * length, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.reshape(length, n, out.shape[1])
    return (out if batched else out.squeeze(1)), None


class MultiheadAttention(Module):
    """PyTorch's ``nn.MultiheadAttention``: its parameters, layout, masks and outputs.

    ``forward(query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True, is_causal=False)`` returns
    ``(output, weights)`` from ``multi_head_attention_forward``. Inputs are
    ``(L, N, E)``, or ``(N, L, E)`` with ``batch_first=True``, or unbatched
    ``(L, E)``. The parameters are PyTorch's, so its state dict loads:
    ``in_proj_weight`` (the query, key and value projections stacked; with
    ``kdim``/``vdim`` other than ``embed_dim`` they are ``q_proj_weight``,
    ``k_proj_weight``, ``v_proj_weight``), ``in_proj_bias``, ``out_proj``, and
    with ``add_bias_kv`` ``bias_k`` and ``bias_v``.

    >>> import minigrad as mg
    >>> sorted(name for name, _ in mg.nn.MultiheadAttention(4, 2).named_parameters())
    ['in_proj_bias', 'in_proj_weight', 'out_proj.bias', 'out_proj.weight']
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: str | None = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                f"and num_heads={num_heads} instead"
            )
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        dtype = dtypes.float32 if dtype is None else dtype
        device = device or "cpu"
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.head_dim = embed_dim // num_heads
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.batch_first, self.add_zero_attn = batch_first, add_zero_attn
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        # Xavier-uniform projections, zero biases, Xavier-normal bias_k/v (PyTorch's init).
        self.in_proj_weight = self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        if self._qkv_same_embed_dim:
            bound = math.sqrt(6 / (embed_dim + 3 * embed_dim))
            self.in_proj_weight = uniform_parameter((3 * embed_dim, embed_dim), bound, dtype,
                                                    device)  # fmt: skip
        else:
            for name, dim in (("q", embed_dim), ("k", self.kdim), ("v", self.vdim)):
                bound = math.sqrt(6 / (embed_dim + dim))
                setattr(self, f"{name}_proj_weight",
                        uniform_parameter((embed_dim, dim), bound, dtype, device))  # fmt: skip
        zeros = factories.zeros(3 * embed_dim, dtype=dtype, device=device)
        self.in_proj_bias = Parameter(zeros) if bias else None
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, dtype=dtype, device=device)
        if bias:
            self.out_proj.bias = Parameter(factories.zeros(embed_dim, dtype=dtype, device=device))
        self.bias_k = self.bias_v = None
        if add_bias_kv:  # xavier_normal_ of a (1, 1, E) tensor: std sqrt(2 / (E + E))
            for name in ("bias_k", "bias_v"):
                values = factories.generator().normal(0.0, 1 / math.sqrt(embed_dim),
                                                      size=(1, 1, embed_dim))  # fmt: skip
                values = factories.tensor(values, dtype=dtype, device=device)
                setattr(self, name, Parameter(values))

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Any = None,
                need_weights: bool = True, attn_mask: Any = None,
                average_attn_weights: bool = True, is_causal: bool = False) -> tuple:  # fmt: skip
        key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", attn_mask,
                                          "attn_mask", query)  # fmt: skip
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query, check_other=False)
        fused = self._inference_kernel(query, key, value)
        if self.batch_first and query.ndim == 3:
            query, key, value = (x.swapaxes(0, 1) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights or fused,
            attn_mask=attn_mask, use_separate_proj_weight=separate,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )  # fmt: skip
        if self.batch_first and query.ndim == 3:
            out = out.swapaxes(0, 1)
        return out, weights if need_weights else None

    def _inference_kernel(self, query: Tensor, key: Tensor, value: Tensor) -> bool:
        """Whether PyTorch runs its fused inference kernel here (``_native_multi_head_attention``).

        Its conditions: self-attention (one tensor as query, key and value),
        batched, ``batch_first``, evaluation mode, an even number of heads, the
        packed projection with biases, no ``bias_k``/``add_zero_attn``, and no
        gradient wanted. The kernel gives the same numbers as the composition,
        except that a query that may see no key gets NaN, as on the explicit-weights
        path (the composition's fused attention gives 0); so minigrad takes that path.
        """
        tensors = (query, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight,
                   self.out_proj.bias)  # fmt: skip
        return (
            query.ndim == 3 and query is key and key is value and self.batch_first
            and not self.training and self.num_heads % 2 == 0 and self._qkv_same_embed_dim
            and self.in_proj_bias is not None and self.bias_k is None
            and not self.add_zero_attn and query.dtype == self.in_proj_weight.dtype
            and not (is_grad_enabled() and any(t is not None and t.requires_grad
                                               for t in tensors))
        )  # fmt: skip

    def extra_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}"
