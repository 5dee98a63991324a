"""``RNNCell``, ``GRUCell`` and ``LSTMCell``: one step of a recurrent layer (lesson 16).

A recurrent layer (``nn/recurrent.py``) runs its cell over a whole sequence
with ``scan``; a cell module is that one step, for loops a user writes
(``h = cell(x_t, h)`` per token), and for decoders that feed each output back
in. The step is the layer's own (``rnn_cell``), so a layer and a loop of its
cell agree to the last bit.

Parameters, names and initialisation are PyTorch's: ``weight_ih``
``(G * hidden_size, input_size)``, ``weight_hh`` ``(G * hidden_size,
hidden_size)``, ``bias_ih`` and ``bias_hh`` ``(G * hidden_size,)``, with ``G``
gates (1, 3 in the order r, z, n, 4 in the order i, f, g, o), every number
from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)). Input ``(N, input_size)``
or unbatched ``(input_size,)``; a missing state starts at zeros.

    >>> import minigrad as mg
    >>> cell = mg.nn.GRUCell(3, 5)
    >>> h = cell(mg.randn(2, 3))
    >>> cell(mg.randn(2, 3), h).shape
    (2, 5)
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.nn.linear import uniform_parameter
from minigrad.nn.module import Module
from minigrad.nn.recurrent import GATES, rnn_cell
from minigrad.tensor import dtypes, factories
from minigrad.tensor.tensor import Tensor


def _check(input: Tensor, states: Any, w_ih: Tensor, w_hh: Tensor) -> None:
    """PyTorch's checks of a cell's batched input ``(N, input_size)`` and states ``(N, hidden)``."""
    for x in (input, *states):
        if x.ndim < 2:
            top = max(x.ndim, 1)
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-top}, {top - 1}], but "
                "got 1)"
            )
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(
            f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}"
        )
    for i, h in enumerate(states):
        if h.shape[0] != input.shape[0]:
            raise RuntimeError(
                f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size {h.shape[0]}"
            )
        if h.shape[1] != w_hh.shape[1]:
            raise RuntimeError(
                f"hidden{i} has inconsistent hidden_size: got {h.shape[1]}, expected "
                f"{w_hh.shape[1]}"
            )


def _cell(mode: str, input: Tensor, hx: Any, w_ih: Tensor, w_hh: Tensor, b_ih: Any,
          b_hh: Any) -> Any:  # fmt: skip
    """One step of the recurrent layers' own cell (``rnn_cell(mode)``), after the checks."""
    _check(input, hx if mode == "LSTM" else (hx,), w_ih, w_hh)
    gx = input @ w_ih.T
    gx = gx if b_ih is None else gx + b_ih
    return rnn_cell(mode)(tuple(hx) if mode == "LSTM" else hx, gx, w_hh, b_hh)


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """``tanh(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``: PyTorch's ``torch.rnn_tanh_cell``.

    >>> import minigrad as mg
    >>> rnn_tanh_cell(mg.zeros(1, 2), mg.ones(1, 1), mg.ones(1, 2), mg.ones(1, 1))
    tensor([[0.7616]])
    """
    return _cell("RNN_TANH", input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """``relu(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``: PyTorch's ``torch.rnn_relu_cell``.

    >>> import minigrad as mg
    >>> rnn_relu_cell(mg.zeros(1, 2), -mg.ones(1, 1), mg.ones(1, 2), mg.ones(1, 1))
    tensor([[0.]])
    """
    return _cell("RNN_RELU", input, hx, w_ih, w_hh, b_ih, b_hh)


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
             b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """One GRU step (gates r, z, n stacked in ``w_ih``, ``w_hh``): PyTorch's ``torch.gru_cell``.

    >>> import minigrad as mg
    >>> gru_cell(mg.zeros(1, 2), mg.ones(1, 1), mg.zeros(3, 2), mg.zeros(3, 1))
    tensor([[0.5]])
    """
    return _cell("GRU", input, hx, w_ih, w_hh, b_ih, b_hh)


def lstm_cell(input: Tensor, hx: Any, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
              b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """One LSTM step from ``hx = (h, c)`` to ``(h', c')``: PyTorch's ``torch.lstm_cell``.

    >>> import minigrad as mg
    >>> h, c = lstm_cell(mg.zeros(1, 2), (mg.zeros(1, 1), mg.ones(1, 1)), mg.zeros(4, 2),
    ...                  mg.zeros(4, 1))
    >>> c
    tensor([[0.5]])
    """
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    return _cell("LSTM", input, hx, w_ih, w_hh, b_ih, b_hh)


CELLS = {"RNN_TANH": rnn_tanh_cell, "RNN_RELU": rnn_relu_cell, "GRU": gru_cell, "LSTM": lstm_cell}


class RNNCellBase(Module):
    """What the three cells share: PyTorch's parameters, the input checks, the one step."""

    mode = "RNN_TANH"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        dtype = dtypes.float32 if dtype is None else dtype
        device = device or "cpu"
        gates = GATES[self.mode] * hidden_size
        bound = 1 / math.sqrt(hidden_size) if hidden_size > 0 else 0
        self.weight_ih = uniform_parameter((gates, input_size), bound, dtype, device)
        self.weight_hh = uniform_parameter((gates, hidden_size), bound, dtype, device)
        self.bias_ih = self.bias_hh = None
        if bias:
            self.bias_ih = uniform_parameter((gates,), bound, dtype, device)
            self.bias_hh = uniform_parameter((gates,), bound, dtype, device)

    def _step(self, input: Tensor, states: list[Tensor | None], mode: str) -> Any:
        """One step of ``mode`` from ``states`` (``None`` = zeros), batched or not, as PyTorch."""
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        zeros = factories.zeros((x.shape[0], self.hidden_size), dtype=x.dtype, device=x.device)
        given = [zeros if h is None else h if batched else h.unsqueeze(0) for h in states]
        hx = tuple(given) if mode == "LSTM" else given[0]
        new = CELLS[mode](x, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if batched:
            return new
        return tuple(h.squeeze(0) for h in new) if mode == "LSTM" else new.squeeze(0)

    def _check_input(self, input: Tensor) -> None:
        if input.ndim not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.ndim}D instead"
            )

    def _hidden(self, hx: Any, what: str = "hidden") -> Tensor | None:
        if hx is not None and hx.ndim not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected {what} to be 1D or 2D, got {hx.ndim}D instead"
            )
        return hx

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text


class RNNCell(RNNCellBase):
    """``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ``relu``): one Elman step.

    >>> import minigrad as mg
    >>> mg.nn.RNNCell(4, 6)(mg.randn(3, 4)).shape
    (3, 6)
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        self._check_input(input)
        hx = self._hidden(hx)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._step(input, [hx], "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU")


class GRUCell(RNNCellBase):
    """One GRU step: reset and update gates, PyTorch's equations and layout.

    >>> import minigrad as mg
    >>> mg.nn.GRUCell(2, 3).weight_hh.shape
    (9, 3)
    """

    mode = "GRU"

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        self._check_input(input)
        return self._step(input, [self._hidden(hx)], "GRU")


class LSTMCell(RNNCellBase):
    """One LSTM step: gates i, f, g, o; ``forward(input, (h, c))`` returns ``(h', c')``.

    >>> import minigrad as mg
    >>> h, c = mg.nn.LSTMCell(2, 3)(mg.randn(2))
    >>> h.shape, c.shape
    ((3,), (3,))
    """

    mode = "LSTM"

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple:
        self._check_input(input)
        states = (
            [None, None] if hx is None else [self._hidden(h, f"hx[{i}]") for i, h in enumerate(hx)]
        )
        return self._step(input, states, "LSTM")
