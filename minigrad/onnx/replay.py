"""Run an ONNX model with NumPy alone: the exported graph, read back and replayed (lesson 16).

``load(path)`` reads the file (with the ``onnx`` package: it is a protocol
buffer) and gives back a function that runs the model's nodes in order,
each one a few lines of NumPy below. Nothing of minigrad's tensors, tracing
or kernels is used, and no onnxruntime: what a model *is*, once exported, is
this list of nodes and its weights. The control-flow nodes run their bodies
as Python loops and branches, reading names from the enclosing scope as ONNX
says.

Only the operators minigrad's exporter writes are here; another one is an
error naming it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np


class ReplayError(NotImplementedError):
    """The model holds an ONNX operator this NumPy replay does not know."""


class Replay:
    """An ONNX model as a NumPy function: ``Replay(model)(*arrays) -> list of arrays``."""

    def __init__(self, model: Any) -> None:
        from onnx import numpy_helper

        graph = model.graph
        self.graph = graph
        self.weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
        self.input_names = [i.name for i in graph.input if i.name not in self.weights]
        self.output_names = [o.name for o in graph.output]
        self.nodes = [n.op_type for n in graph.node]

    def __call__(self, *arrays: Any) -> list[np.ndarray]:
        if len(arrays) != len(self.input_names):
            raise TypeError(
                f"the model takes {len(self.input_names)} inputs ({', '.join(self.input_names)}), "
                f"got {len(arrays)}"
            )
        values = dict(self.weights)
        values.update({n: np.asarray(a) for n, a in zip(self.input_names, arrays)})
        run_graph(self.graph, values)
        return [values[n] for n in self.output_names]

    def __repr__(self) -> str:
        return f"<Replay of {self.graph.name}: {len(self.nodes)} nodes>"


def load(path: Any) -> Replay:
    """The ONNX model at ``path`` as a NumPy function (see the module docstring)."""
    import onnx

    return Replay(onnx.load(str(path)))


def run_graph(graph: Any, values: dict[str, np.ndarray]) -> None:
    """Run ``graph``'s nodes in order, reading and writing ``values`` (name -> array)."""
    for node in graph.node:
        run = OPERATORS.get(node.op_type)
        if run is None:
            raise ReplayError(f"the NumPy replay has no ONNX operator {node.op_type!r}")
        ins = [values[n] if n else None for n in node.input]
        outs = run(node, values, *ins)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        for name, value in zip(node.output, outs):
            values[name] = np.asarray(value)


def _attrs(node: Any) -> dict[str, Any]:
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _unary(f: Callable) -> Callable:
    return lambda node, values, x: f(x).astype(x.dtype, copy=False)


def _binary(f: Callable) -> Callable:
    return lambda node, values, a, b: f(a, b)


def _constant(node: Any, values: dict) -> np.ndarray:
    from onnx import numpy_helper

    return numpy_helper.to_array(_attrs(node)["value"])


def _reduce(f: Callable) -> Callable:
    def run(node: Any, values: dict, x: np.ndarray, axes: Any = None) -> np.ndarray:
        a = _attrs(node)
        axes = a.get("axes", axes)
        keep = bool(a.get("keepdims", 1))
        axes = tuple(int(i) for i in np.asarray(axes).reshape(-1)) if axes is not None else None
        return f(x, axis=axes, keepdims=keep)

    return run


def _slice(node: Any, values: dict, x: np.ndarray, starts: Any, ends: Any, axes: Any = None,
           steps: Any = None) -> np.ndarray:  # fmt: skip
    index = [slice(None)] * x.ndim
    axes = range(len(starts)) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    for s, e, a, st in zip(starts, ends, axes, steps):
        s, e, st = int(s), int(e), int(st)
        e = None if (st < 0 and e < -x.shape[a]) else e
        index[int(a)] = slice(s, e, st)
    return x[tuple(index)]


def _pad(node: Any, values: dict, x: np.ndarray, pads: Any, value: Any = None) -> np.ndarray:
    n = x.ndim
    pads = [int(p) for p in pads]
    fill = 0 if value is None else np.asarray(value).item()
    return np.pad(x, list(zip(pads[:n], pads[n:])), constant_values=fill)


def _conv(node: Any, values: dict, x: np.ndarray, w: np.ndarray, b: Any = None) -> np.ndarray:
    a = _attrs(node)
    strides = a.get("strides", [1, 1])
    dilations = a.get("dilations", [1, 1])
    pads = a.get("pads", [0, 0, 0, 0])
    group = int(a.get("group", 1))
    x = np.pad(x, [(0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])])
    out_c, _, kh, kw = w.shape
    span = ((kh - 1) * dilations[0] + 1, (kw - 1) * dilations[1] + 1)
    windows = np.lib.stride_tricks.sliding_window_view(x, span, axis=(2, 3))
    windows = windows[:, :, :: strides[0], :: strides[1], :: dilations[0], :: dilations[1]]
    c = x.shape[1]
    per_in, per_out = c // group, out_c // group
    parts = []
    for g in range(group):
        xs = windows[:, g * per_in : (g + 1) * per_in]
        ws = w[g * per_out : (g + 1) * per_out]
        parts.append(np.einsum("nchwij,ocij->nohw", xs, ws))
    out = np.concatenate(parts, axis=1).astype(x.dtype, copy=False)
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def _softmax(node: Any, values: dict, x: np.ndarray) -> np.ndarray:
    axis = _attrs(node).get("axis", -1)
    shifted = np.exp(x - x.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)


def _log_softmax(node: Any, values: dict, x: np.ndarray) -> np.ndarray:
    axis = _attrs(node).get("axis", -1)
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _cast(node: Any, values: dict, x: np.ndarray) -> np.ndarray:
    from onnx import helper

    return x.astype(helper.tensor_dtype_to_np_dtype(_attrs(node)["to"]))


# -- control flow: a body runs in a scope that sees the enclosing names ----------------------------
def _body(graph: Any, values: dict, inputs: list[np.ndarray]) -> list[np.ndarray]:
    scope = dict(values)
    for spec, value in zip(graph.input, inputs):
        scope[spec.name] = value
    run_graph(graph, scope)
    return [scope[o.name] for o in graph.output]


def _if(node: Any, values: dict, condition: np.ndarray) -> list[np.ndarray]:
    a = _attrs(node)
    return _body(a["then_branch"] if bool(condition) else a["else_branch"], values, [])


def _scan(node: Any, values: dict, *inputs: np.ndarray) -> list[np.ndarray]:
    a = _attrs(node)
    body, n_x = a["body"], a["num_scan_inputs"]
    n_state = len(inputs) - n_x
    state, xs = list(inputs[:n_state]), inputs[n_state:]
    backwards = a.get("scan_input_directions", [0] * n_x)
    prepend = a.get("scan_output_directions", None)
    length = xs[0].shape[0] if xs else 0
    steps: list[list[np.ndarray]] = []
    for t in range(length):
        slices = [x[length - 1 - t] if back else x[t] for x, back in zip(xs, backwards)]
        outs = _body(body, values, [*state, *slices])
        state, ys = outs[:n_state], outs[n_state:]
        steps.append(ys)
    n_y = len(body.output) - n_state
    prepend = prepend or [0] * n_y
    stacked = []
    for j in range(n_y):
        seq = [s[j] for s in steps]
        if prepend[j]:
            seq.reverse()
        stacked.append(np.stack(seq) if seq else np.zeros((0,)))
    return [*state, *stacked]


def _loop(node: Any, values: dict, trip: Any, condition: Any, *carry: np.ndarray) -> list:
    body = _attrs(node)["body"]
    keep = True if condition is None else bool(condition)
    i, limit = 0, None if trip is None else int(trip)
    carry = list(carry)
    while keep and (limit is None or i < limit):
        outs = _body(body, values, [np.array(i, np.int64), np.array(keep), *carry])
        keep, carry = bool(outs[0]), outs[1 : 1 + len(carry)]
        i += 1
    return carry


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[x.dtype])(x)


OPERATORS: dict[str, Callable[..., Any]] = {
    "Add": _binary(np.add), "Sub": _binary(np.subtract), "Mul": _binary(np.multiply),
    "Div": _binary(np.divide), "Pow": _binary(lambda a, b: np.power(a, b).astype(a.dtype)),
    "Max": _binary(np.maximum), "Min": _binary(np.minimum), "MatMul": _binary(np.matmul),
    "Less": _binary(np.less), "LessOrEqual": _binary(np.less_equal),
    "Greater": _binary(np.greater), "GreaterOrEqual": _binary(np.greater_equal),
    "Equal": _binary(np.equal), "And": _binary(np.logical_and), "Or": _binary(np.logical_or),
    "Not": lambda node, values, x: np.logical_not(x),
    "Neg": _unary(np.negative), "Exp": _unary(np.exp), "Log": _unary(np.log),
    "Sqrt": _unary(np.sqrt), "Tanh": _unary(np.tanh), "Abs": _unary(np.abs),
    "Sigmoid": _unary(lambda x: 1 / (1 + np.exp(-x))), "Relu": _unary(lambda x: np.maximum(x, 0)),
    "Sign": _unary(np.sign), "Sin": _unary(np.sin), "Cos": _unary(np.cos), "Erf": _unary(_erf),
    "Reciprocal": _unary(np.reciprocal), "Floor": _unary(np.floor), "Ceil": _unary(np.ceil),
    "Softplus": _unary(lambda x: np.logaddexp(0, x)),
    "Where": lambda node, values, c, a, b: np.where(c, a, b),
    "Identity": lambda node, values, x: x,
    "Constant": _constant,
    "ReduceSum": _reduce(np.sum), "ReduceMax": _reduce(np.max), "ReduceMin": _reduce(np.min),
    "Reshape": lambda node, values, x, shape: x.reshape(
        [x.shape[i] if int(s) == 0 else int(s) for i, s in enumerate(shape)]
    ),
    "Expand": lambda node, values, x, shape: np.broadcast_to(
        x, np.broadcast_shapes(x.shape, tuple(int(s) for s in shape))
    ),
    "Transpose": lambda node, values, x: np.transpose(x, _attrs(node).get("perm")),
    "Concat": lambda node, values, *xs: np.concatenate(xs, axis=_attrs(node)["axis"]),
    "Squeeze": lambda node, values, x, axes: np.squeeze(x, tuple(int(a) for a in axes)),
    "Unsqueeze": lambda node, values, x, axes: np.expand_dims(x, tuple(int(a) for a in axes)),
    "Slice": _slice, "Pad": _pad, "Conv": _conv, "Cast": _cast,
    "Softmax": _softmax, "LogSoftmax": _log_softmax,
    "If": _if, "Scan": _scan, "Loop": _loop,
}  # fmt: skip
