"""Tracing: run a function once on abstract tensors and write down what it did (lesson 13).

``make_graph(f)(*args)`` calls ``f`` on tensors that hold an ``AbstractArray``
(a shape and a dtype, no numbers: ``minigrad.backends.abstract_backend``).
Every operation goes through ``apply`` (lesson 04), which calls the row's
``forward`` - on the abstract backend, so it only works out the result's
shape and dtype - and then hands the operation to the ``Trace`` below, which
appends it to the graph. The program's own Python runs as usual: loops
unroll, ``if`` on a shape or a Python number picks a branch once, and
calls to ``mg.grad`` or ``mg.jvp`` inside ``f`` run their backward or
tangent rules through ``apply`` too, so those operations land in the graph
as well (forward and backward in one program).

What cannot be traced is Python that reads a *value*: ``if x.sum() > 0``,
``float(x)``, ``x.item()``, ``x.numpy()``, ``print(x)``. The abstract
backend raises ``TracerError`` there, naming the line.

**Side effects happen once, at trace time.** A ``print`` of a shape, a
counter, appending to a list: they run while tracing and never again when
the compiled program is replayed (the graph keeps only tensor operations).

**A trace leaves nothing traced behind** (``guards.py``): what the traced
code writes into objects from outside is put back when the trace ends, and
traced values it kept expire.

Arguments and results may be tensors or tuples, lists and dicts of them,
nested (``flatten`` / ``unflatten``); anything else in them is *static*: part
of the signature, the same Python object on every call.

    >>> import minigrad as mg
    >>> graph = mg.make_graph(lambda x, y: (x * y).sum())(mg.ones(3), mg.ones(3))
    >>> print(graph)
    graph(a: f32[3], b: f32[3]) {
      c: f32[3] = mul(a, b)
      d: f32[] = sum(c, axes=(0,), keepdims=False)
      return d
    }
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from minigrad import backends
from minigrad.backends.abstract_backend import (
    AbstractArray,
    TracerError,
    collect,
    expire,
)
from minigrad.compile.graph import Graph, Op, Var
from minigrad.compile.guards import Guards
from minigrad.compile.pytree import flatten, unflatten
from minigrad.tensor.mode import Level
from minigrad.tensor.primitive import REGISTRY
from minigrad.tensor.record import apply
from minigrad.tensor.tensor import Tensor

# Rows whose forward returns a value the program already computed: checkpoint's
# node (lesson 09) hands on its function's output, whose operations were traced.
# The graph gets no operation for them; reverse mode still sees their records.
PASS_THROUGH = frozenset({"checkpoint"})

# Rows whose eager result may share memory with their input (a view).
VIEWS = frozenset({"astype", "broadcast_to", "diagonal", "getitem", "reshape", "sum_to", "to",
                   "transpose", "windows"})  # fmt: skip


# -- the trace ------------------------------------------------------------------------------
class Trace(Guards, Level):
    """The tracing interpreter: each operation ``apply`` hands it, appended to a graph.

    It claims every operation (a trace writes down the whole program, constants
    included), computes it below itself (on the abstract backend: shapes and
    dtypes only) and records it.
    """

    kind = "trace"

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[Op] = []
        self.constants: dict[Var, Any] = {}
        self.captured: dict[int, tuple[Var, Any]] = {}  # id(tensor) -> (Var, tensor)
        self.inputs: set[Var] = set()  # the traced function's arguments
        self.aliased: set[Var] = set()  # values that may share memory with a view of them
        self.draws: list[Var] = []  # random draws (factories.randn ...), in program order
        self.replay: int | None = None  # while checkpoint recomputes: the next draw to reuse

    def process(self, prim: Any, inputs: tuple, params: dict) -> Any:
        """``prim(*inputs)`` computed by the levels below (abstract arrays), then recorded."""
        if prim.multiple_results:  # control flow (lesson 16): the row's own rule, several results
            return prim.rules[self.kind](self, inputs, params)
        with self.lowered():
            out = apply(prim, inputs, **params)
        self.record(prim, inputs, params, out)
        return out

    def record(self, prim: Any, inputs: Sequence[Any], params: dict, out: Any) -> None:
        """Write down ``out = prim(*inputs)``, its forward just run on abstract arrays."""
        if prim.name in PASS_THROUGH:
            return
        in_vars = tuple(self.var_of(t.data, t) for t in inputs)
        outs = out if prim.multiple_results else (out,)  # control flow: several (lesson 16)
        out_vars = []
        for t in outs:
            data = t.data
            if not isinstance(data, AbstractArray) or data.var is not None:
                # A row whose forward returned its input unchanged: the result
                # still gets an array (and a variable) of its own.
                t.data = data = AbstractArray(data.shape, data.dtype)
            data.var = Var(data.shape, data.dtype, t.device)
            out_vars.append(data.var)
        self.ops.append(Op(prim, in_vars, dict(params), tuple(out_vars)))
        if prim.name in VIEWS:
            self.aliased.update((*in_vars, *out_vars))

    def draw(self, prim: Any, params: dict, device: str) -> AbstractArray:
        """Called by ``randn``/``rand`` while tracing: a draw becomes an operation of the program.

        The program draws when it runs, so each call gets new numbers. While
        checkpoint recomputes a function (``replay`` set), its draws are the
        ones the program made the first time, reused in order.
        """
        data = AbstractArray(params["shape"], params["dtype"])
        if self.replay is not None and self.replay < len(self.draws):
            data.var = self.draws[self.replay]
            self.replay += 1
            return data
        data.var = Var(data.shape, data.dtype, device)
        self.ops.append(Op(prim, (), dict(params), (data.var,)))
        self.draws.append(data.var)
        return data

    def var_of(self, data: Any, tensor: Any = None, device: str = "cpu") -> Var:
        """The graph variable that holds ``data`` (a tensor's array), adding it if new."""
        device = tensor.device if tensor is not None else device
        if isinstance(data, AbstractArray):
            if data.var is not None:
                return data.var
            if data.value is not None:  # made from Python numbers or NumPy data: a constant
                data.var = Var(data.shape, data.dtype, device)
                self.constants[data.var] = data.value
                return data.var
            if data.made is not None:  # a kernel called outside apply (autograd's in-place sum)
                return self._made(data, device)
            raise RuntimeError("minigrad.compile: an abstract array that no operation made")
        if tensor is None:
            raise RuntimeError("minigrad.compile: a raw array from outside the traced function")
        # A concrete tensor from outside the function (a closure): read at every run.
        known = self.captured.get(id(tensor))
        if known is None:
            known = self.captured[id(tensor)] = (Var(data.shape, data.dtype, device), tensor)
        return known[0]

    def _made(self, data: AbstractArray, device: str) -> Var:
        """Write down ``backend.map``/``zip`` calls made outside ``apply`` as their primitives.

        Such calls may build on each other (a gradient summed in place, term
        after term), so the walk to the first known array uses a stack, not recursion.
        """
        stack = [data]
        while stack:
            top = stack[-1]
            waiting = [
                a for a in top.made[2]
                if isinstance(a, AbstractArray) and a.var is None and a.value is None
            ]  # fmt: skip
            if waiting:
                stack.extend(waiting)
                continue
            stack.pop()
            if top.var is not None:
                continue
            _, op, arrays = top.made
            prim = REGISTRY.get(op)
            if prim is None or prim.scalar != op:
                raise RuntimeError(f"minigrad.compile: cannot trace a direct {op!r} kernel call")
            in_vars = tuple(self.var_of(a, device=device) for a in arrays)
            top.var = Var(top.shape, top.dtype, device)
            self.ops.append(Op(prim, in_vars, {}, (top.var,)))
        return data.var


def abstract_like(t: Any) -> Any:
    """A tensor of ``t``'s shape, dtype and device, holding no numbers."""
    return Tensor._wrap(AbstractArray(t.shape, t.dtype), t.device)


def trace(f: Callable[..., Any], args: Sequence[Any], static_argnums: Sequence[int] = (),
          name: str | None = None) -> Graph:  # fmt: skip
    """Trace ``f(*args)`` into a ``Graph`` (``static_argnums``: arguments passed as they are)."""
    static = set(static_argnums)
    dynamic = [a for i, a in enumerate(args) if i not in static]
    leaves, in_tree = flatten(dynamic)
    inputs = [abstract_like(t) for t in leaves]
    in_vars = []
    for t in inputs:
        t.data.var = Var(t.shape, t.dtype, t.device)
        in_vars.append(t.data.var)
    rebuilt = iter(unflatten(in_tree, inputs))
    call_args = [a if i in static else next(rebuilt) for i, a in enumerate(args)]
    recorder = Trace()
    recorder.inputs.update(in_vars)
    name = name or _name_of(f)
    with recorder, collect() as made:
        made.extend(t.data for t in inputs)
        try:
            with backends.abstract():
                result = f(*call_args)
            out_leaves, out_tree = flatten(result)
            outputs = [recorder.var_of(t.data, t) for t in out_leaves]
            leaked = recorder.leaks()
        except BaseException:
            recorder.restore()  # a failed trace changes nothing outside it
            raise
        finally:
            expire(made, _qualified_name(f))
    if leaked:
        recorder.restore()
        raise TracerError(
            f"{name}: the traced function left traced values in {'; '.join(leaked)}, "
            "which belong to objects from outside it; the compiled program cannot write "
            "there.\nThey were put back as they were. Return what you need instead: "
            "mg.value_and_grad(loss)(params, ...) gives the gradients as results."
        )
    return Graph(
        in_vars, recorder.ops, outputs, recorder.constants, list(recorder.captured.values()),
        in_tree, out_tree, name=name,
    )  # fmt: skip


def _qualified_name(f: Any) -> str:
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
    return f"{name} (traced by jit or make_graph)"


def _name_of(f: Any) -> str:
    name = getattr(f, "__name__", "graph")
    return "graph" if name.startswith("<") else name


def make_graph(f: Callable[..., Any], static_argnums: int | Sequence[int] = ()) -> Callable:
    """``make_graph(f)(*args)``: the ``Graph`` of ``f`` traced on the signature of ``args``.

    Nothing is computed: only shapes, dtypes and devices are read from
    ``args``. ``static_argnums`` names arguments passed to ``f`` as they are
    (Python values that steer control flow). Like ``jax.make_jaxpr``.
    """
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    def traced(*args: Any) -> Graph:
        return trace(f, args, static)

    return traced
