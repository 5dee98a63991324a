"""``mg.cond``, ``mg.while_loop``, ``mg.scan``, ``mg.fori_loop``: control flow (lesson 16).

Eager mode needs none of this: Python's ``if`` and ``for`` run, and the
operations they reach are recorded one by one (a loop of ``T`` steps leaves
``T`` copies of its body in the graph). A *traced* program cannot do that:
``if x.sum() > 0`` asks for a value that does not exist yet while jit
traces (``TracerError``), and a Python loop is unrolled into the program, so
its size grows with the number of steps. These four functions say the
control flow to the graph instead. Each traces its branches or its body once
and becomes **one operation** of the program (``minigrad.compile.control_flow``),
however many steps it runs.

Signatures are JAX's (``jax.lax``)::

    mg.cond(pred, true_fun, false_fun, *operands)
    mg.while_loop(cond_fun, body_fun, init_val)
    carry, ys = mg.scan(f, init, xs=None, length=None, reverse=False)   # f(carry, x) -> (carry, y)
    mg.fori_loop(lower, upper, body_fun, init_val)                     # body_fun(i, val) -> val

Outside a trace they run as plain Python (each reading of the library then
applies to the operations inside, as in eager mode); inside ``vmap`` a
``cond`` whose predicate differs between examples computes both branches
and selects, and a ``while_loop`` runs until every example stops. The body
must keep its carry's structure, shapes and dtypes, and the branches must
agree with each other: otherwise a ``TypeError`` names the mismatch.

    >>> import minigrad as mg
    >>> def total(xs):
    ...     return mg.scan(lambda c, x: (c + x, c * x), mg.tensor(0.0), xs)
    >>> total(mg.tensor([1.0, 2.0, 3.0]))
    (tensor(6.), tensor([0., 2., 9.]))
    >>> print(mg.make_graph(total)(mg.ones(3)))
    total(a: f32[3]) {
      b: f32[] = const 0.0
      c: f32[], d: f32[3] = scan(b, a, length=3, reverse=False, num_consts=0, num_carry=1)
        body(e: f32[], f: f32[]) {
          g: f32[] = add(e, f)
          h: f32[] = mul(e, f)
          return g, h
        }
      return c, d
    }
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad import tree
from minigrad.backends.abstract_backend import AbstractArray
from minigrad.compile.control_flow import COND, SCAN, WHILE, bind
from minigrad.compile.graph import Graph, Var
from minigrad.compile.pytree import flatten, unflatten
from minigrad.compile.subgraph import Spec, same_type, spec_of, trace_body, type_name
from minigrad.tensor import dtypes
from minigrad.tensor.base import every_value
from minigrad.tensor.factories import full
from minigrad.tensor.factories import tensor as make_tensor
from minigrad.tensor.mode import current, no_grad
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.movement import stack
from minigrad.tensor.tensor import Tensor
from minigrad.transforms.batched import BatchedArray


# -- which reading: a trace, or plain Python --------------------------------------------------
def _staged(*values: Any) -> bool:
    """Inside a trace (jit, make_graph), or given traced values: build one operation."""
    if current().tracing is not None:
        return True
    leaves, _ = flatten(list(values))
    return any(isinstance(_innermost_data(t), AbstractArray) for t in leaves)


def _innermost_data(t: Any) -> Any:
    data = t.data
    while type(data) is BatchedArray:
        data = data.physical.data
    return data


def _tensors(value: Any) -> Any:
    """Python numbers (and NumPy arrays) in a pytree become tensors, as JAX makes arrays."""
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_tensors(v) for v in value)
    if isinstance(value, dict):
        return {k: _tensors(v) for k, v in value.items()}
    if isinstance(value, (bool, int, float, np.number, np.bool_, np.ndarray)):
        return make_tensor(value)
    return value


def _check_same(where_: str, what: str, before: Any, after: Any, first: str, second: str) -> None:
    """``before`` and ``after`` (pytrees of tensors) must agree in structure, shapes, dtypes."""
    leaves_a, tree_a = flatten(before)
    leaves_b, tree_b = flatten(after)
    if tree_a != tree_b:
        raise TypeError(
            f"{where_}: {what} must have the same structure {first} and {second}; got "
            f"{tree.flatten(before)[1]} and {tree.flatten(after)[1]}"
        )
    for k, (a, b) in enumerate(zip(leaves_a, leaves_b)):
        if not same_type(a, b):
            raise TypeError(
                f"{where_}: {what} must keep its shapes and dtypes; leaf {k} is "
                f"{type_name(a)} {first} but {type_name(b)} {second}. Convert it with "
                ".to(...) or reshape it so that every step (or branch) gives the same type"
            )


# -- cond -------------------------------------------------------------------------------------
def _predicate(pred: Any) -> Any:
    if isinstance(pred, (bool, int, float, np.bool_, np.number)):
        return bool(pred)
    if not isinstance(pred, Tensor):
        raise TypeError(f"cond: pred must be a boolean scalar tensor or a bool, got {type(pred)}")
    if pred.shape != ():
        raise TypeError(
            f"cond: Pred must be a scalar, got a tensor of shape {pred.shape}; for an "
            "elementwise choice use mg.where(cond, x, y)"
        )
    return pred if pred.dtype == np.dtype(bool) else pred != 0


def cond(pred: Any, true_fun: Callable[..., Any], false_fun: Callable[..., Any],
         *operands: Any) -> Any:  # fmt: skip
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, as one operation.

    >>> import minigrad as mg
    >>> mg.cond(mg.tensor(True), lambda x: x * 2, lambda x: x - 1, mg.tensor(5.0))
    tensor(10.)
    """
    pred = _predicate(pred)
    operands = _tensors(operands)
    if isinstance(pred, bool):
        return true_fun(*operands) if pred else false_fun(*operands)
    if _staged(pred, operands):
        return _staged_cond(pred, true_fun, false_fun, operands)
    if type(pred.data) is BatchedArray:  # inside vmap: each example its own branch
        yes, no = true_fun(*operands), false_fun(*operands)
        _check_same("cond", "the branches' results", yes, no, "from true_fun", "from false_fun")
        return _select(pred, yes, no)
    return true_fun(*operands) if bool(pred) else false_fun(*operands)


def _select(pred: Any, yes: Any, no: Any) -> Any:
    leaves_y, structure = flatten(yes)
    leaves_n, _ = flatten(no)
    picked = [
        where(pred.reshape(pred.shape + (1,) * a.ndim), a, b) for a, b in zip(leaves_y, leaves_n)
    ]
    return unflatten(structure, picked)


def _inputs_as(graph: Graph, inputs: list[Var]) -> Graph:
    return Graph(inputs, graph.ops, graph.outputs, graph.constants, name=graph.name)


def _fresh(vs: list[Var]) -> list[Var]:
    return [Var(v.shape, v.dtype, v.device) for v in vs]


def _staged_cond(pred: Any, true_fun: Callable, false_fun: Callable, operands: tuple) -> Any:
    leaves, _ = flatten(list(operands))
    specs = list(operands)
    g_no, consts_no, tree_no = trace_body(false_fun, specs, name="false_fun")
    g_yes, consts_yes, tree_yes = trace_body(true_fun, specs, name="true_fun")
    out_no = [spec_of(v) for v in g_no.outputs]
    out_yes = [spec_of(v) for v in g_yes.outputs]
    if tree_no != tree_yes:
        raise TypeError(
            "cond: true_fun and false_fun must return the same structure; got "
            f"{tree_yes} from true_fun and {tree_no} from false_fun"
        )
    for k, (a, b) in enumerate(zip(out_yes, out_no)):
        if not same_type(a, b):
            raise TypeError(
                f"cond: true_fun and false_fun output must have identical types; output {k} "
                f"is {type_name(a)} from true_fun but {type_name(b)} from false_fun"
            )
    n_no, n_yes = len(consts_no), len(consts_yes)
    ins_no, ins_yes = g_no.inputs, g_yes.inputs
    g_no = _inputs_as(g_no, [*ins_no[:n_no], *_fresh(ins_yes[:n_yes]), *ins_no[n_no:]])
    g_yes = _inputs_as(g_yes, [*_fresh(ins_no[:n_no]), *ins_yes[:n_yes], *ins_yes[n_yes:]])
    outs = bind(COND, [pred, *consts_no, *consts_yes, *leaves], {"branches": (g_no, g_yes)})
    return unflatten(tree_no, outs)


# -- while_loop -------------------------------------------------------------------------------
def while_loop(cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any],
               init_val: Any) -> Any:  # fmt: skip
    """``val = init_val; while cond_fun(val): val = body_fun(val)``, as one operation.

    Forward mode and vmap work; reverse mode does not (the trip count is not
    known in advance): use ``scan`` or ``fori_loop`` with int bounds.

    >>> import minigrad as mg
    >>> mg.while_loop(lambda v: v < 10, lambda v: v * 2, mg.tensor(1))
    tensor(16)
    """
    val = _tensors(init_val)
    if _staged(val):
        return _staged_while(cond_fun, body_fun, val)
    while True:
        test = _test(cond_fun(val))
        if type(test.data) is BatchedArray:  # inside vmap: until every example stops
            if not bool(every_value(test).any()):
                return val
            new = body_fun(val)
            _check_same("while_loop", "body_fun's result", val, new, "going in", "coming out")
            val = _select(test, new, val)
            continue
        if not bool(test):
            return val
        new = body_fun(val)
        _check_same("while_loop", "body_fun's result", val, new, "going in", "coming out")
        val = new


def _test(value: Any) -> Any:
    value = value if isinstance(value, Tensor) else make_tensor(value)
    if value.shape != () or value.dtype != np.dtype(bool):
        raise TypeError(
            f"while_loop: cond_fun must return a boolean scalar, got {type_name(value)}"
        )
    return value


def _staged_while(cond_fun: Callable, body_fun: Callable, val: Any) -> Any:
    leaves, structure = flatten(val)

    def checked_test(v: Any) -> Any:
        return _test(cond_fun(v))

    def checked_body(v: Any) -> Any:
        new = _tensors(body_fun(v))
        _check_same("while_loop", "body_fun's result", v, new, "going in", "coming out")
        return new

    g_c, consts_c, _ = trace_body(checked_test, [val], name="cond_fun")
    g_b, consts_b, _ = trace_body(checked_body, [val], name="body_fun")
    nc, nb = len(consts_c), len(consts_b)
    g_c = _inputs_as(g_c, [*g_c.inputs[:nc], *_fresh(g_b.inputs[:nb]), *g_c.inputs[nc:]])
    g_b = _inputs_as(g_b, [*_fresh(g_c.inputs[:nc]), *g_b.inputs])
    outs = bind(WHILE, [*consts_c, *consts_b, *leaves],
                {"cond": g_c, "body": g_b, "num_consts": nc + nb})  # fmt: skip
    return unflatten(structure, outs)


# -- scan -------------------------------------------------------------------------------------
def scan(f: Callable[[Any, Any], tuple[Any, Any]], init: Any, xs: Any = None,
         length: int | None = None, reverse: bool = False,
         unroll: int = 1) -> tuple[Any, Any]:  # fmt: skip
    """Loop ``f(carry, x) -> (carry, y)`` over the leading axis of ``xs``; return the last
    carry and the ``y`` s stacked, as one operation (``jax.lax.scan``).

    ``xs`` may be a pytree of tensors (each scanned along axis 0) or None with
    ``length`` given. ``reverse=True`` runs from the last step to the first
    (the ``y`` s still stack in time order). ``unroll`` is accepted for JAX's
    signature and changes nothing.

    >>> import minigrad as mg
    >>> mg.scan(lambda c, x: (c * x, c), mg.tensor(1.0), mg.tensor([2.0, 3.0, 4.0]))
    (tensor(24.), tensor([1., 2., 6.]))
    """
    del unroll
    init, xs = _tensors(init), _tensors(xs)
    x_leaves, x_structure = flatten(xs)
    lengths = {t.shape[0] if t.ndim else None for t in x_leaves}
    if None in lengths:
        raise ValueError("scan: every leaf of xs needs a leading axis to scan over, got a scalar")
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1:
        found = ", ".join(str(t.shape) for t in x_leaves)
        raise ValueError(
            f"scan got values with different leading axis sizes: {found}"
            + (f" and length={length}" if length is not None else "")
            if lengths
            else "scan: give xs or length (how many steps to run)"
        )
    length = lengths.pop()
    if _staged(init, xs):
        return _staged_scan(f, init, xs, x_leaves, x_structure, length, reverse)
    carry, ys = init, []
    for t in range(length - 1, -1, -1) if reverse else range(length):
        x = unflatten(x_structure, [leaf[t] for leaf in x_leaves])
        new, y = _step_result(f(carry, x))
        _check_same("scan", "the carry", carry, new, "going in", "coming out")
        carry = new
        ys.append(y)
    if reverse:
        ys.reverse()
    if not ys:
        return carry, _empty_ys(f, init, x_leaves, x_structure)
    leaves = [flatten(y)[0] for y in ys]
    structure = flatten(ys[0])[1]
    stacked = [stack([step[j] for step in leaves]) for j in range(len(leaves[0]))]
    return carry, unflatten(structure, stacked)


def _step_result(result: Any) -> tuple[Any, Any]:
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise TypeError(
            f"scan: f must return a pair (carry, y), got {type(result).__name__}"
            + (f" of length {len(result)}" if isinstance(result, (tuple, list)) else "")
        )
    return _tensors(result[0]), _tensors(result[1])


def _empty_ys(f: Callable, init: Any, x_leaves: list, x_structure: Any) -> Any:
    """The ``y`` s of a scan of no steps: empty, shaped like what ``f`` would give.

    (Eager mode has no trace to read the shapes from: ``f`` runs once, on zeros,
    without recording, and only the shapes and dtypes of its ``y`` are kept.)
    """
    with no_grad():
        zeros = [full((*t.shape[1:],), 0, dtype=t.dtype, device=t.device) for t in x_leaves]
        _, y = _step_result(f(init, unflatten(x_structure, zeros)))
    y_leaves, structure = flatten(y)
    empty = [full((0, *t.shape), 0, dtype=t.dtype, device=t.device) for t in y_leaves]
    # Connected to the inputs (a zero slope), as the results of a traced scan of 0 steps are.
    live = [t for t in (*flatten(init)[0], *x_leaves) if t.requires_grad]
    if live:
        anchor = sum(t.sum() for t in live) * 0
        empty = [e + anchor.to(e.dtype) if dtypes.is_floating(e.dtype) else e for e in empty]
    return unflatten(structure, empty)


def _staged_scan(f: Callable, init: Any, xs: Any, x_leaves: list, x_structure: Any,
                 length: int, reverse: bool) -> tuple[Any, Any]:  # fmt: skip
    init_leaves, _ = flatten(init)

    def body(carry: Any, x: Any) -> tuple[Any, Any]:
        new, y = _step_result(f(carry, x))
        _check_same("scan", "the carry", carry, new, "going in", "coming out")
        return new, y

    slices = unflatten(x_structure, [Spec(t.shape[1:], t.dtype, t.device) for t in x_leaves])
    graph, consts, out_tree = trace_body(body, [init, slices], name="body")
    outs = bind(SCAN, [*consts, *init_leaves, *x_leaves], {
        "body": graph, "length": length, "reverse": bool(reverse),
        "num_consts": len(consts), "num_carry": len(init_leaves),
    })  # fmt: skip
    return unflatten(out_tree, outs)


# -- fori_loop --------------------------------------------------------------------------------
def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any) -> Any:
    """``val = body_fun(i, val)`` for ``i`` from ``lower`` up to ``upper`` (excluded).

    With Python-int bounds the trip count is static and it is a ``scan``
    (reverse mode works); with tensor bounds it is a ``while_loop``. ``i`` is
    an int64 scalar tensor either way.

    >>> import minigrad as mg
    >>> mg.fori_loop(0, 4, lambda i, v: v + i, mg.tensor(0))
    tensor(6)
    """
    # i lives where the carry does (a CUDA carry gets a CUDA counter).
    device = next((x.device for x in tree.leaves(init_val) if isinstance(x, Tensor)), "cpu")
    if isinstance(lower, int) and isinstance(upper, int):

        def step(carry: Any, _: Any) -> tuple[Any, None]:
            i, val = carry
            return (i + 1, body_fun(i, val)), None

        start = make_tensor(lower, dtype=np.int64, device=device)
        (_, val), _ = scan(step, (start, init_val), None, length=max(upper - lower, 0))
        return val
    if not isinstance(lower, Tensor):
        lower = make_tensor(lower, dtype=np.int64, device=device)
    if not isinstance(upper, Tensor):
        upper = make_tensor(upper, dtype=np.int64, device=device)
    _, _, val = while_loop(
        lambda c: c[0] < c[1], lambda c: (c[0] + 1, c[1], body_fun(c[0], c[2])),
        (lower, upper, init_val),
    )  # fmt: skip
    return val
