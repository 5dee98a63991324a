"""``RNN``, ``GRU`` and ``LSTM``: recurrent layers written with ``scan`` (lesson 16).

A recurrent layer reads a sequence one step at a time, carrying a hidden
state ``h`` from step to step: ``h_t = cell(x_t, h_{t-1})``. Written as a
Python loop, a sequence of ``T`` steps puts ``T`` copies of the cell into a
traced graph; written with ``mg.scan``, the cell is traced once and the graph
holds one ``scan`` operation, whatever ``T`` is. Its reverse mode is
backpropagation through time: a scan running backwards over the values the
cell's rules saved, step by step.

The names, gates, weight layout and initialisation are PyTorch's, so a
``state_dict`` moves between the two:

- ``weight_ih_l{k}`` of shape ``(G * hidden_size, input_size)`` (``G`` gates
  stacked: 1 for RNN, 3 for GRU in the order r, z, n, 4 for LSTM in the order
  i, f, g, o), ``weight_hh_l{k}`` of shape ``(G * hidden_size, hidden_size)``,
  ``bias_ih_l{k}`` and ``bias_hh_l{k}``; ``_reverse`` for the backward
  direction of a bidirectional layer;
- every number drawn from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size));
- input ``(T, N, input_size)``, or ``(N, T, input_size)`` with
  ``batch_first=True``, or ``(T, input_size)`` unbatched; the output holds
  the last layer's ``h_t`` for every step, ``h_n`` (and ``c_n``) the last
  step's state of every layer, shaped ``(num_layers * directions, N, hidden_size)``.

The input's share of every gate (``x_t @ W_ih.T + b_ih``) does not depend
on the carry, so it is computed for all steps at once, one matrix product,
before the scan; the scan's body is left with the recurrent product alone.

    >>> import minigrad as mg
    >>> rnn = mg.nn.GRU(3, 5, batch_first=True)
    >>> out, h = rnn(mg.randn(2, 7, 3))
    >>> out.shape, h.shape
    ((2, 7, 5), (1, 2, 5))
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.compile.control import scan
from minigrad.nn.functional import dropout
from minigrad.nn.linear import uniform_parameter
from minigrad.nn.module import Module
from minigrad.tensor import dtypes, factories
from minigrad.tensor.ops.movement import concatenate, stack
from minigrad.tensor.tensor import Tensor

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "GRU": 3, "LSTM": 4}


def rnn_cell(mode: str):
    """The cell of ``mode``: ``(h, gates_x, w_hh, b_hh) -> h`` (for LSTM, ``h`` is ``(h, c)``).

    ``gates_x`` is the input's share ``x_t @ W_ih.T + b_ih``, already computed.
    """

    def simple(h: Tensor, gx: Tensor, w_hh: Tensor, b_hh: Any) -> Tensor:
        pre = gx + _recurrent(h, w_hh, b_hh)
        return pre.tanh() if mode == "RNN_TANH" else pre.relu()

    def gru(h: Tensor, gx: Tensor, w_hh: Tensor, b_hh: Any) -> Tensor:
        gh = _recurrent(h, w_hh, b_hh)
        size = h.shape[-1]
        r = (gx[..., :size] + gh[..., :size]).sigmoid()
        z = (gx[..., size : 2 * size] + gh[..., size : 2 * size]).sigmoid()
        n = (gx[..., 2 * size :] + r * gh[..., 2 * size :]).tanh()
        return (1 - z) * n + z * h

    def lstm(hc: tuple, gx: Tensor, w_hh: Tensor, b_hh: Any) -> tuple:
        h, c = hc
        gates = gx + _recurrent(h, w_hh, b_hh)
        size = h.shape[-1]
        i = gates[..., :size].sigmoid()
        f = gates[..., size : 2 * size].sigmoid()
        g = gates[..., 2 * size : 3 * size].tanh()
        o = gates[..., 3 * size :].sigmoid()
        c = f * c + i * g
        return o * c.tanh(), c

    return {"GRU": gru, "LSTM": lstm}.get(mode, simple)


def _recurrent(h: Tensor, w_hh: Tensor, b_hh: Any) -> Tensor:
    out = h @ w_hh.T
    return out + b_hh if b_hh is not None else out


class RNNBase(Module):
    """What RNN, GRU and LSTM share: the weights, the layers and directions, the scans."""

    mode = "RNN_TANH"

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, dtype: Any = dtypes.float32,
                 device: str = "cpu") -> None:  # fmt: skip
        super().__init__()
        for name, value in (("input_size", input_size), ("hidden_size", hidden_size),
                            ("num_layers", num_layers)):  # fmt: skip
            if (
                not isinstance(value, int)
                or isinstance(value, bool)
                or value < (name != "input_size")
            ):
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional = bidirectional
        directions = 2 if bidirectional else 1
        gates = GATES[self.mode] * hidden_size
        bound = 1 / math.sqrt(hidden_size)
        self._weights: list[list[str]] = []
        for layer in range(num_layers):
            width = input_size if layer == 0 else hidden_size * directions
            for d in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if d else "")
                names = [f"weight_ih{suffix}", f"weight_hh{suffix}"]
                setattr(self, names[0], uniform_parameter((gates, width), bound, dtype, device))
                setattr(self, names[1],
                        uniform_parameter((gates, hidden_size), bound, dtype, device))  # fmt: skip
                if bias:
                    names += [f"bias_ih{suffix}", f"bias_hh{suffix}"]
                    setattr(self, names[2], uniform_parameter((gates,), bound, dtype, device))
                    setattr(self, names[3], uniform_parameter((gates,), bound, dtype, device))
                self._weights.append(names)

    def _check_input(self, x: Tensor) -> bool:
        if x.ndim not in (2, 3):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {x.ndim}D tensor "
                f"instead (shape {x.shape}: (sequence, batch, features), or (sequence, features))"
            )
        if x.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                f"{x.shape[-1]}"
            )
        return x.ndim == 2

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Any]:
        unbatched = self._check_input(input)
        x = input.unsqueeze(1) if unbatched else input
        if self.batch_first and not unbatched:
            x = x.transpose(1, 0, 2)
        steps, batch = x.shape[0], x.shape[1]
        directions = 2 if self.bidirectional else 1
        shape = (self.num_layers * directions, batch, self.hidden_size)
        states = self._initial_states(hx, shape, unbatched, x)
        finals: list[list[Tensor]] = [[] for _ in states]
        for layer in range(self.num_layers):
            outputs = []
            for d in range(directions):
                k = layer * directions + d
                names = self._weights[k]
                w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
                b_ih = getattr(self, names[2]) if self.bias else None
                b_hh = getattr(self, names[3]) if self.bias else None
                gx = x @ w_ih.T
                gx = gx + b_ih if b_ih is not None else gx
                cell = rnn_cell(self.mode)
                carry0 = tuple(s[k] for s in states)
                carry0 = carry0 if self.mode == "LSTM" else carry0[0]

                def step(carry: Any, g: Tensor, cell=cell, w_hh=w_hh, b_hh=b_hh) -> tuple:
                    new = cell(carry, g, w_hh, b_hh)
                    return new, new[0] if isinstance(new, tuple) else new

                last, ys = scan(step, carry0, gx, length=steps, reverse=bool(d))
                outputs.append(ys)
                for slot, value in zip(finals, last if isinstance(last, tuple) else (last,)):
                    slot.append(value)
            x = outputs[0] if directions == 1 else concatenate(outputs, axis=-1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = dropout(x, self.dropout, training=True)
        out = x.transpose(1, 0, 2) if self.batch_first and not unbatched else x
        finals_t = [stack(values) for values in finals]
        if unbatched:
            out = out.squeeze(1)
            finals_t = [f.squeeze(1) for f in finals_t]
        hidden = tuple(finals_t) if self.mode == "LSTM" else finals_t[0]
        return out, hidden

    def _initial_states(self, hx: Any, shape: tuple, unbatched: bool, x: Tensor) -> list[Tensor]:
        count = 2 if self.mode == "LSTM" else 1
        if hx is None:
            zeros = factories.zeros(shape, dtype=x.dtype, device=x.device)
            return [zeros] * count
        given = list(hx) if self.mode == "LSTM" else [hx]
        if len(given) != count:
            raise TypeError(
                f"{type(self).__name__}: hx must be {'(h_0, c_0)' if count == 2 else 'h_0'}"
            )
        states = []
        for h in given:
            if tuple(h.shape) != (shape[:1] + shape[2:] if unbatched else shape):
                want = shape[:1] + shape[2:] if unbatched else shape
                raise RuntimeError(f"Expected hidden size {want}, got {tuple(h.shape)}")
            h = h.unsqueeze(1) if unbatched else h
            states.append(h)
        return states

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if not self.bias:
            text += ", bias=False"
        if self.batch_first:
            text += ", batch_first=True"
        if self.dropout:
            text += f", dropout={self.dropout}"
        if self.bidirectional:
            text += ", bidirectional=True"
        return text


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ``relu``).

    >>> import minigrad as mg
    >>> out, h = mg.nn.RNN(4, 6, num_layers=2)(mg.randn(5, 3, 4))
    >>> out.shape, h.shape
    ((5, 3, 6), (2, 3, 6))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", **kwargs: Any) -> None:  # fmt: skip
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        self.mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, num_layers, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit: reset and update gates, PyTorch's equations and layout.

    >>> import minigrad as mg
    >>> mg.nn.GRU(2, 3).weight_hh_l0.shape
    (9, 3)
    """

    mode = "GRU"


class LSTM(RNNBase):
    """Long short-term memory: gates i, f, g, o and a cell state; returns ``(out, (h, c))``.

    >>> import minigrad as mg
    >>> out, (h, c) = mg.nn.LSTM(2, 3)(mg.randn(4, 2))
    >>> out.shape, h.shape, c.shape
    ((4, 3), (1, 3), (1, 3))
    """

    mode = "LSTM"

    def __init__(self, *args: Any, proj_size: int = 0, **kwargs: Any) -> None:
        if proj_size:
            raise NotImplementedError("LSTM: proj_size is not supported; use proj_size=0")
        super().__init__(*args, **kwargs)
