"""Export a traced graph to ONNX: a program that runs without Python's framework (lesson 16).

A static graph (lesson 13) is data: a list of operations on values of known
shapes. ONNX is a standard spelling of such data, read by runtimes written in
C++ (onnxruntime), by compilers (TensorRT) and by phones (Core ML), none of
which know minigrad. Exporting is a translation, one operation at a time:
each primitive of the registry has an ONNX spelling here (``add`` is
``Add``, ``matmul`` is ``MatMul``, ``sum`` is ``ReduceSum`` ...), and the
control-flow operations keep their structure: ``cond`` is ``If``, ``scan``
is ``Scan`` and ``while_loop`` is ``Loop``, each holding its branches or
body as an ONNX graph of its own. A primitive with no spelling is an error
naming it: the translation never guesses.

The captured tensors (a model's weights) become the model's initializers;
``dynamic_axes`` marks axes (a batch) whose size the runtime may change.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minigrad.compile.control_flow import COND, SCAN, WHILE
from minigrad.compile.graph import Graph, Op, Var
from minigrad.compile.passes import optimize
from minigrad.compile.trace import trace
from minigrad.tensor.mode import no_grad

OPSET = 17


class ExportError(TypeError):
    """A traced program holds an operation that ONNX cannot spell (or not this way)."""


class _Writer:
    """Nodes and names for one ONNX graph (the model's, or a body's)."""

    def __init__(self, model: _Model, graph: Graph, scope: dict[Var, str]) -> None:
        self.model = model
        self.graph = graph
        self.names: dict[Var, str] = dict(scope)  # outer values a body may read by name
        self.nodes: list[Any] = []
        self.readers: dict[Var, list[Op]] = {}  # the operations that read each value
        for op in graph.ops:
            for v in op.inputs:
                self.readers.setdefault(v, []).append(op)
        for v in graph.outputs:
            self.readers.setdefault(v, []).append(_OUTPUT)

    def name(self, v: Var) -> str:
        if v not in self.names:
            self.names[v] = self.model.fresh("v")
        return self.names[v]

    def node(self, op_type: str, inputs: Sequence[str], n_out: int = 1, **attrs: Any) -> list[str]:
        from onnx import helper

        outs = [self.model.fresh(op_type.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op_type, list(inputs), outs, **attrs))
        return outs

    def const(self, value: Any, dtype: Any = None) -> str:
        from onnx import numpy_helper

        array = np.asarray(value, dtype=dtype)
        name = self.model.fresh("c")
        tensor = numpy_helper.from_array(np.array(array, order="C"), name)  # (keeps 0-d)
        self.nodes.append(_make_constant(name, tensor))
        return name

    def emit(self, op: Op) -> None:
        convert = CONVERTERS.get(op.prim.name)
        if convert is None:
            raise ExportError(
                f"ONNX export: the primitive {op.prim.name!r} has no ONNX spelling in "
                f"minigrad.onnx (operation {_describe(op, self)}). Write the model with "
                "operations that have one, or add a converter to minigrad/onnx/export.py"
            )
        outs = convert(self, op, [self.name(v) for v in op.inputs])
        for v, name in zip(op.outs, outs):
            if v in self.names:  # an output named already (a graph output): copy into it
                self.nodes.append(_identity(name, self.names[v]))
            else:
                self.names[v] = name


class _Output:
    """Stands for "a graph output reads it" among a value's readers (not elementwise)."""

    class prim:
        scalar = None

    out = None


_OUTPUT = _Output()


def _make_constant(name: str, tensor: Any) -> Any:
    from onnx import helper

    return helper.make_node("Constant", [], [name], value=tensor)


def _identity(source: str, target: str) -> Any:
    from onnx import helper

    return helper.make_node("Identity", [source], [target])


def _describe(op: Op, writer: _Writer) -> str:
    ins = ", ".join(v.type for v in op.inputs)
    outs = ", ".join(v.type for v in op.outs)
    return f"{op.prim.name}({ins}) -> {outs}"


class _Model:
    def __init__(self, opset: int = OPSET) -> None:
        self._ids = itertools.count()
        self.opset = opset

    def fresh(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids)}"


# -- converters: one per primitive --------------------------------------------------------------
def _same(op_type: str) -> Callable:
    return lambda w, op, ins: w.node(op_type, ins)


def _not_of(op_type: str) -> Callable:
    return lambda w, op, ins: w.node("Not", w.node(op_type, ins))


def _pow_scalar(w: _Writer, op: Op, ins: list[str]) -> list[str]:
    return w.node("Pow", [ins[0], w.const(op.params["exponent"], op.out.dtype)])


def _reduce(op_type: str) -> Callable:
    def convert(w: _Writer, op: Op, ins: list[str]) -> list[str]:
        axes = [int(a) for a in op.params["axes"]]
        keep = int(bool(op.params.get("keepdims", False)))
        if not axes:
            return w.node("Identity", ins)
        if op_type == "ReduceSum" or w.model.opset >= 18:  # (axes became an input)
            # Kept dimensions, then a reshape: shape inference inside a loop body cannot
            # read the axes from a constant, and would lose the result's rank.
            out = w.node(op_type, [ins[0], w.const(axes, np.int64)], keepdims=1)
            if keep:
                return out
            source = op.inputs[0].shape
            kept = tuple(1 if i in axes or i - len(source) in axes else n
                         for i, n in enumerate(source))  # fmt: skip
            return _reshape_to(w, out[0], kept, op.out.shape)
        return w.node(op_type, ins, axes=axes, keepdims=keep)

    return convert


def _vector_norm(w: _Writer, op: Op, ins: list[str]) -> list[str]:
    """The p-norm row: ``sqrt(sum(x * x))``, or ``sum(|x| ** p) ** (1 / p)``, over its axes."""
    p = float(op.params.get("ord", 2.0))
    if p == 2:
        return w.node("Sqrt", _reduce("ReduceSum")(w, op, w.node("Mul", [ins[0], ins[0]])))
    dtype = op.inputs[0].dtype
    powers = w.node("Pow", [w.node("Abs", ins)[0], w.const(p, dtype)])
    total = _reduce("ReduceSum")(w, op, powers)
    return w.node("Pow", [total[0], w.const(1.0 / p, dtype)])


def _sum_to(w: _Writer, op: Op, ins: list[str]) -> list[str]:
    source, target = op.inputs[0].shape, op.out.shape
    lead = len(source) - len(target)
    axes = list(range(lead)) + [
        lead + i for i, (a, b) in enumerate(zip(source[lead:], target)) if b == 1 and a != 1
    ]
    summed = w.node("ReduceSum", [ins[0], w.const(axes, np.int64)], keepdims=1) if axes else ins
    return w.node("Reshape", [summed[0], w.const(target, np.int64)])


def _reshape(w: _Writer, op: Op, ins: list[str]) -> list[str]:
    """``Reshape``; a leading axis the reshape keeps is written ``0`` ("as in the input"), so
    that a batch axis stays free to change (``dynamic_axes``)."""
    return _reshape_to(w, ins[0], op.inputs[0].shape, op.out.shape)


def _reshape_to(w: _Writer, name: str, source: tuple, target: tuple) -> list[str]:
    shape, keeping = [], True
    for i, n in enumerate(target):
        keeping = keeping and i < len(source) and source[i] == n
        shape.append(0 if keeping else n)
    return w.node("Reshape", [name, w.const(shape, np.int64)])


def _broadcast_to(w: _Writer, op: Op, ins: list[str]) -> list[str]:
    """``Expand``; where only elementwise operations (which broadcast in ONNX too) read the
    result, just the missing axes are added (size 1), so a batch axis stays free."""
    readers = w.readers.get(op.out, ())
    source, target = op.inputs[0].shape, op.out.shape
    if readers and all(r.prim.scalar is not None and r.out.shape == target for r in readers):
        aligned = (1,) * (len(target) - len(source)) + tuple(source)
        if aligned == tuple(source):
            return w.node("Identity", ins)
        return w.node("Reshape", [ins[0], w.const(aligned, np.int64)])
    return w.node("Expand", [ins[0], w.const(target, np.int64)])


def _cast(w: _Writer, op: Op, ins: list[str]) -> list[str]:
    from onnx import helper

    return w.node("Cast", ins, to=helper.np_dtype_to_tensor_dtype(op.out.dtype))


def _getitem(w: _Writer, op: Op, ins: list[str]) -> list[str]:
    index = op.params["index"]
    index = index if isinstance(index, tuple) else (index,)
    shape = op.inputs[0].shape
    if index.count(Ellipsis) > 1 or any(
        not isinstance(i, (slice, int, type(Ellipsis))) or isinstance(i, bool) for i in index
    ):
        raise ExportError(
            f"ONNX export: getitem with index {index!r} (only ints, slices and one ... have "
            "an ONNX spelling here: Slice)"
        )
    if Ellipsis in index:
        at = index.index(Ellipsis)
        fill = len(shape) - (len(index) - 1)
        index = index[:at] + (slice(None),) * fill + index[at + 1 :]
    index = index + (slice(None),) * (len(shape) - len(index))
    starts, ends, axes, steps, squeeze = [], [], [], [], []
    for axis, (i, n) in enumerate(zip(index, shape)):
        if isinstance(i, int):
            i = i + n if i < 0 else i
            starts.append(i), ends.append(i + 1), axes.append(axis), steps.append(1)
            squeeze.append(axis)
        elif i != slice(None):
            start, stop, step = i.indices(n)
            if step < 0 and stop < 0:
                stop = -(2**62)  # past the front: ONNX reads a negative end from the back
            starts.append(start), ends.append(stop), axes.append(axis), steps.append(step)
    out = ins
    if axes:
        args = [starts, ends, axes, steps]
        out = w.node("Slice", [ins[0], *(w.const(a, np.int64) for a in args)])
    if squeeze:
        out = w.node("Squeeze", [out[0], w.const(squeeze, np.int64)])
    return out


def _pad(w: _Writer, op: Op, ins: list[str]) -> list[str]:
    """``scatter_add`` of a value into zeros at a block of slices: ONNX's ``Pad``."""
    index = op.params["index"]
    shape = op.params["shape"]
    index = index if isinstance(index, tuple) else (index,)
    inner = op.inputs[0].shape
    if len(index) != len(shape) or not all(
        isinstance(i, slice) and i.step in (None, 1) for i in index
    ):
        raise ExportError(
            f"ONNX export: scatter_add at index {index!r} (only a block of unit-step slices, "
            "a padding, has an ONNX spelling here: Pad)"
        )
    before = [i.indices(n)[0] for i, n in zip(index, shape)]
    after = [n - b - m for n, b, m in zip(shape, before, inner)]
    return w.node("Pad", [ins[0], w.const(before + after, np.int64)])


def _windows(w: _Writer, op: Op, ins: list[str]) -> list[str]:
    """Sliding windows ``(N, C, H', W', kh, kw)``: one strided ``Slice`` per kernel offset."""
    kernel, stride, dilation = op.params["kernel"], op.params["stride"], op.params["dilation"]
    out_shape = op.out.shape
    spatial = len(kernel)
    lead = len(out_shape) - 2 * spatial
    sizes = out_shape[lead : lead + spatial]
    pieces = []
    for offsets in itertools.product(*(range(k) for k in kernel)):
        starts = [o * d for o, d in zip(offsets, dilation)]
        ends = [s + (n - 1) * st + 1 for s, n, st in zip(starts, sizes, stride)]
        axes = list(range(lead, lead + spatial))
        sliced = w.node(
            "Slice",
            [ins[0], *(w.const(a, np.int64) for a in (starts, ends, axes, list(stride)))],
        )
        pieces.append(w.node("Unsqueeze", [sliced[0], w.const([-1], np.int64)])[0])
    joined = w.node("Concat", pieces, axis=-1) if len(pieces) > 1 else [pieces[0]]
    flat = (*out_shape[: lead + spatial], math.prod(kernel))
    return _reshape_to(w, joined[0], flat, out_shape)


def _conv2d(w: _Writer, op: Op, ins: list[str]) -> list[str]:
    p = op.params
    return w.node("Conv", ins, strides=list(p["stride"]), dilations=list(p["dilation"]),
                  group=int(p["groups"]), pads=[0, 0, 0, 0])  # fmt: skip


def _softmax(op_type: str) -> Callable:
    return lambda w, op, ins: w.node(op_type, ins, axis=int(op.params["axis"]))


# -- control flow: the bodies become ONNX graphs --------------------------------------------
def _body(w: _Writer, graph: Graph, inputs: list[Var], name: str, extra_in: Sequence = (),
          outputs: Sequence[Var] | None = None) -> Any:  # fmt: skip
    """``graph`` as an ONNX graph whose inputs are ``inputs`` (values of it) and whose other
    inputs (constants of the operation) are read from the enclosing graph by name."""
    from onnx import helper

    inner = _Writer(w.model, graph, w.names)
    graph_inputs = [*extra_in]
    for v in inputs:
        inner.names[v] = w.model.fresh("in")
        graph_inputs.append(_value_info(inner.names[v], v))
    for v, value in graph.constants.items():
        inner.names[v] = inner.const(value, v.dtype)
    for op in graph.ops:
        inner.emit(op)
    outs = []
    for v in outputs if outputs is not None else graph.outputs:
        name_out = w.model.fresh("out")
        inner.nodes.append(_identity(inner.name(v), name_out))
        outs.append(_value_info(name_out, v))
    return helper.make_graph(inner.nodes, name, graph_inputs, outs)


def _scan(w: _Writer, op: Op, ins: list[str]) -> list[str]:
    p = op.params
    body, nc, ncar = p["body"], p["num_consts"], p["num_carry"]
    # The constants are read from the enclosing scope; the carry and the xs slices are
    # the ONNX Scan body's inputs ("state" then "scan" inputs), as in minigrad's order.
    scope = dict(w.names)
    for v, name in zip(body.inputs[:nc], ins[:nc]):
        scope[v] = name
    saved, w.names = w.names, scope
    graph = _body(w, body, body.inputs[nc:], w.model.fresh("scan_body"))
    w.names = saved
    n_x = len(ins) - nc - ncar
    backwards = 1 if p["reverse"] else 0  # (ys still stack in time order: prepended)
    # An empty list is no attribute (onnx cannot type one): a scan whose ys nobody
    # reads (dead-code elimination dropped them) has no scan outputs.
    return w.node("Scan", ins[nc:], len(op.outs), body=graph, num_scan_inputs=n_x,
                  scan_input_directions=[backwards] * n_x or None,
                  scan_output_directions=[backwards] * (len(op.outs) - ncar) or None)  # fmt: skip


def _cond(w: _Writer, op: Op, ins: list[str]) -> list[str]:
    branches = op.params["branches"]
    if len(branches) != 2:
        raise ExportError("ONNX export: a cond of more than two branches has no If spelling")
    scope = dict(w.names)
    for branch in branches:
        for v, name in zip(branch.inputs, ins[1:]):
            scope[v] = name
    saved, w.names = w.names, scope
    no, yes = (_body(w, b, [], w.model.fresh("branch")) for b in branches)
    w.names = saved
    return w.node("If", [ins[0]], len(op.outs), then_branch=yes, else_branch=no)


def _while(w: _Writer, op: Op, ins: list[str]) -> list[str]:
    from onnx import TensorProto, helper

    p = op.params
    cond, body, nc = p["cond"], p["body"], p["num_consts"]
    scope = dict(w.names)
    for graph in (cond, body):
        for v, name in zip(graph.inputs[:nc], ins[:nc]):
            scope[v] = name
    saved, w.names = w.names, scope
    # ONNX's Loop body: (iteration, condition, carry...) -> (condition, carry...): the body
    # computes the new carry, then the test on it (the first test is run before the Loop).
    carry = body.inputs[nc:]
    step = Graph(body.inputs, [*body.ops], body.outputs, body.constants, name=body.name)
    tested = _chain(step, cond, nc)
    extra = [
        helper.make_tensor_value_info(w.model.fresh("iter"), TensorProto.INT64, []),
        helper.make_tensor_value_info(w.model.fresh("keep"), TensorProto.BOOL, []),
    ]
    graph = _body(w, tested, list(carry), w.model.fresh("loop_body"), extra)
    first = _body_inline(w, cond, ins[:nc] + ins[nc:])
    w.names = saved
    return w.node("Loop", ["", first, *ins[nc:]], len(op.outs), body=graph)


def _chain(step: Graph, test: Graph, nc: int) -> Graph:
    """One graph: the body's new carry, then the test on it (for ONNX's Loop body)."""
    renamed = dict(zip(test.inputs[:nc], step.inputs[:nc]))
    renamed.update(zip(test.inputs[nc:], step.outputs))
    ops = list(step.ops)
    for op in test.ops:
        ops.append(Op(op.prim, tuple(renamed.get(v, v) for v in op.inputs), op.params, op.outs))
    out = renamed.get(test.outputs[0], test.outputs[0])
    constants = {**step.constants, **test.constants}
    return Graph(step.inputs, ops, [out, *step.outputs], constants, name=step.name)


def _body_inline(w: _Writer, graph: Graph, names: list[str]) -> str:
    """Write ``graph``'s operations into ``w`` on inputs ``names``; its one output's name."""
    for v, name in zip(graph.inputs, names):
        w.names[v] = name
    for v, value in graph.constants.items():
        w.names[v] = w.const(value, v.dtype)
    for op in graph.ops:
        w.emit(op)
    return w.name(graph.outputs[0])


def _value_info(name: str, v: Var, dims: Sequence[Any] | None = None) -> Any:
    from onnx import helper

    dtype = helper.np_dtype_to_tensor_dtype(v.dtype)
    return helper.make_tensor_value_info(name, dtype, list(dims if dims is not None else v.shape))


CONVERTERS: dict[str, Callable[[_Writer, Op, list[str]], list[str]]] = {
    "add": _same("Add"), "sub": _same("Sub"), "mul": _same("Mul"), "div": _same("Div"),
    "pow": _same("Pow"), "maximum": _same("Max"), "minimum": _same("Min"),
    "neg": _same("Neg"), "exp": _same("Exp"), "log": _same("Log"), "sqrt": _same("Sqrt"),
    "tanh": _same("Tanh"), "sigmoid": _same("Sigmoid"), "relu": _same("Relu"),
    "abs": _same("Abs"), "sign": _same("Sign"), "sin": _same("Sin"), "cos": _same("Cos"),
    "erf": _same("Erf"), "reciprocal": _same("Reciprocal"), "floor": _same("Floor"),
    "ceil": _same("Ceil"), "softplus": _same("Softplus"),
    "lt": _same("Less"), "le": _same("LessOrEqual"), "gt": _same("Greater"),
    "ge": _same("GreaterOrEqual"), "eq": _same("Equal"), "ne": _not_of("Equal"),
    "logical_and": _same("And"), "logical_or": _same("Or"), "logical_not": _same("Not"),
    "where": _same("Where"), "matmul": _same("MatMul"), "clone": _same("Identity"),
    "pow_scalar": _pow_scalar,
    "sum": _reduce("ReduceSum"), "max": _reduce("ReduceMax"), "min": _reduce("ReduceMin"),
    "sum_to": _sum_to, "vector_norm": _vector_norm,
    "reshape": _reshape,
    "broadcast_to": _broadcast_to,
    "transpose": lambda w, op, ins: w.node("Transpose", ins, perm=list(op.params["axes"])),
    "concatenate": lambda w, op, ins: w.node("Concat", ins, axis=int(op.params["axis"])),
    "astype": _cast, "to": _cast, "getitem": _getitem, "scatter_add": _pad,
    "windows": _windows, "conv2d": _conv2d,
    "softmax": _softmax("Softmax"), "log_softmax": _softmax("LogSoftmax"),
    SCAN.name: _scan, COND.name: _cond, WHILE.name: _while,
}  # fmt: skip


# -- the model ------------------------------------------------------------------------------------
def to_onnx(graph: Graph, input_names: Sequence[str] | None = None,
            output_names: Sequence[str] | None = None,
            dynamic_axes: dict[str, dict[int, str]] | None = None,
            opset_version: int = OPSET,
            weight_names: dict[int, str] | None = None) -> Any:  # fmt: skip
    """``graph`` as an ONNX ``ModelProto`` (checked by ``onnx.checker``)."""
    import onnx
    from onnx import helper, numpy_helper

    if opset_version < OPSET:
        raise ValueError(
            f"ONNX export: opset_version must be {OPSET} or newer, got {opset_version}"
        )
    model = _Model(opset_version)
    w = _Writer(model, graph, {})
    input_names = list(input_names or [f"input_{i}" for i in range(len(graph.inputs))])
    output_names = list(output_names or [f"output_{i}" for i in range(len(graph.outputs))])
    if len(input_names) != len(graph.inputs) or len(output_names) != len(graph.outputs):
        raise ValueError(
            f"ONNX export: {len(input_names)} input names and {len(output_names)} output names "
            f"for a graph of {len(graph.inputs)} inputs and {len(graph.outputs)} outputs"
        )
    dynamic_axes = dynamic_axes or {}
    for name in dynamic_axes:
        if name not in input_names and name not in output_names:
            raise ValueError(
                f"ONNX export: dynamic_axes names {name!r}, which is no input or output"
            )
    for v, name in zip(graph.inputs, input_names):
        w.names[v] = name
    initializers = []
    for k, (v, tensor) in enumerate(graph.captured):
        name = (weight_names or {}).get(id(tensor)) or tensor.label or f"weight_{k}"
        name = name if name not in w.names.values() else f"{name}_{k}"
        w.names[v] = name
        values = np.array(tensor.detach().numpy(), order="C")
        initializers.append(numpy_helper.from_array(values, name))
    for v, value in graph.constants.items():
        w.names[v] = w.const(value, v.dtype)
    for op in graph.ops:
        w.emit(op)
    outputs = []
    for v, name in zip(graph.outputs, output_names):
        w.nodes.append(_identity(w.name(v), name))
        outputs.append(_value_info(name, v, _dims(v, dynamic_axes.get(name))))
    inputs = [
        _value_info(n, v, _dims(v, dynamic_axes.get(n))) for v, n in zip(graph.inputs, input_names)
    ]
    onnx_graph = helper.make_graph(w.nodes, graph.name, inputs, outputs, initializers)
    proto = helper.make_model(
        onnx_graph, opset_imports=[helper.make_opsetid("", opset_version)],
        producer_name="minigrad",
    )  # fmt: skip
    proto.ir_version = min(proto.ir_version, 10)  # what onnxruntime reads
    onnx.checker.check_model(proto, full_check=True)
    return proto


def _dims(v: Var, dynamic: dict[int, str] | None) -> list[Any]:
    dims: list[Any] = list(v.shape)
    for axis, label in (dynamic or {}).items():
        dims[axis] = label
    return dims


def export(f: Callable[..., Any], args: Any, path: Any = None, *,
           input_names: Sequence[str] | None = None, output_names: Sequence[str] | None = None,
           dynamic_axes: dict[str, dict[int, str]] | None = None,
           opset_version: int = OPSET) -> Any:  # fmt: skip
    """Trace ``f`` (a function or a Module) on ``args``, write it as an ONNX model to ``path``.

    Like ``torch.onnx.export(model, args, f, input_names=..., output_names=...,
    dynamic_axes=...)``: the program is traced once (under ``no_grad``: an
    exported model computes, it does not train), optimized, translated and
    checked with ``onnx.checker``; the ``ModelProto`` is returned (and saved
    when ``path`` is given). Weights the function reads become initializers.
    ``dynamic_axes`` maps an input or output name to ``{axis: label}``; the
    traced shapes must not depend on that axis' size (a reshape to a fixed
    batch would), which onnxruntime then checks when it runs.
    """
    import onnx

    args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
    with no_grad():
        graph = optimize(trace(f, args))
    named = {}
    if hasattr(f, "named_parameters"):  # a Module: its weights keep their names
        named = {id(p): n for n, p in f.named_parameters()}
        named.update({id(b): n for n, b in getattr(f, "named_buffers", lambda: [])()})
    model = to_onnx(graph, input_names, output_names, dynamic_axes, opset_version, named)
    if path is not None:
        onnx.save(model, str(path))
    return model
