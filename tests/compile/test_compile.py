"""Static graphs (lesson 13): tracing, printing, the passes one by one, fusion, jit and composition."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import backends
from minigrad.backends.threads import Workers
from minigrad.compile import passes
from minigrad.compile.codegen import FusedKernel
from minigrad.compile.fusion import fuse
from minigrad.compile.graph import Graph
from minigrad.compile.memory import reuse_buffers


def names(graph: Graph) -> list[str]:
    return [op.name for op in graph]


def close(a, b, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


# -- tracing ------------------------------------------------------------------------------
def test_make_graph_records_every_operation_and_computes_nothing():
    graph = mg.make_graph(lambda x, y: (x * y + 1).tanh().sum())(mg.ones(3, 4), mg.ones(4))
    assert isinstance(graph, mg.Graph)
    assert names(graph) == ["mul", "add", "tanh", "sum"]
    assert len(graph) == 4
    text = str(graph)
    assert text.splitlines()[0] == "graph(a: f32[3,4], b: f32[4]) {"
    assert "= tanh(" in text and "return" in text and "f32[]" in text


def test_a_graph_runs_on_new_arguments_and_checks_them():
    f = lambda x, y: (x * y + 1).tanh().sum(axis=1)
    graph = mg.make_graph(f)(mg.ones(3, 4), mg.ones(4))
    x, y = mg.randn(3, 4), mg.randn(4)
    close(graph(x, y), f(x, y))
    with pytest.raises(TypeError, match="traced for f32\\[3,4\\]"):
        graph(mg.ones(2, 4), y)


def test_tracer_error_names_the_line_and_the_ways_out():
    def f(x):
        if x.sum() > 0:  # the line the error names
            return x
        return -x

    with pytest.raises(mg.TracerError) as info:
        mg.jit(f)(mg.ones(3))
    message = str(info.value)
    assert "if x.sum() > 0:" in message and "test_compile.py" in message
    assert "static_argnums" in message and "mg.where" in message
    for read in (lambda x: x.item(), lambda x: x.numpy(), lambda x: float(x.sum())):
        with pytest.raises(mg.TracerError):
            mg.make_graph(read)(mg.ones(1))


def test_static_arguments_and_retracing_per_signature():
    calls = []

    def f(x, n):
        calls.append(n)  # a side effect: runs at trace time only
        for _ in range(n):
            x = x * 2
        return x

    fast = mg.jit(f, static_argnums=1)
    assert fast(mg.ones(2), 3).tolist() == [8.0, 8.0]
    assert fast(mg.ones(2), 3).tolist() == [8.0, 8.0]
    assert fast(mg.ones(2), 2).tolist() == [4.0, 4.0]
    assert fast(mg.ones(5), 2).tolist() == [4.0] * 5
    assert calls == [3, 2, 2] and len(fast.compiled) == 3


def test_nested_tuples_lists_and_dicts_in_and_out():
    def f(params):
        return {"s": params["a"] + params["b"][0], "t": (params["b"][1] * 2, [params["a"]])}

    fast = mg.jit(f)
    args = {"a": mg.randn(2), "b": [mg.randn(2), mg.randn(2)]}
    got, want = fast(args), f(args)
    close(got["s"], want["s"])
    close(got["t"][0], want["t"][0])
    close(got["t"][1][0], want["t"][1][0])


def test_captured_tensors_are_read_at_every_run():
    w = mg.ones(3)
    fast = mg.jit(lambda x: x * w)
    assert fast(mg.ones(3)).tolist() == [1.0, 1.0, 1.0]
    w.data = w.data * 3
    assert fast(mg.ones(3)).tolist() == [3.0, 3.0, 3.0]
    assert "captured" in str(fast.graph(mg.ones(3)))


# -- the passes, one at a time ---------------------------------------------------------------
def test_dead_code_elimination_drops_unused_results():
    def f(x):
        unused = x.exp() * 3  # noqa: F841
        return x + 1

    graph = mg.make_graph(f)(mg.ones(2))
    assert names(graph) == ["exp", "mul", "add"]
    assert names(passes.eliminate_dead_code(graph)) == ["add"]
    assert names(graph) == ["exp", "mul", "add"]  # the pass returns a new graph


def test_common_subexpressions_are_computed_once():
    graph = mg.make_graph(lambda x: x.exp() + x.exp())(mg.ones(2))
    assert names(passes.eliminate_common_subexpressions(graph)) == ["exp", "add"]
    # different parameters are different expressions
    graph = mg.make_graph(lambda x: x.sum(axis=0) + x.sum(axis=1))(mg.ones(2, 2))
    assert names(passes.eliminate_common_subexpressions(graph)).count("sum") == 2


def test_constant_folding_computes_constant_subgraphs_once():
    def f(x):
        c = mg.tensor([1.0, 2.0]).exp() * 2  # no input involved
        return x * c

    graph = mg.make_graph(f)(mg.ones(2))
    folded = passes.fold_constants(graph)
    assert names(folded) == ["mul"]
    close(folded(mg.ones(2)), f(mg.ones(2)))


@pytest.mark.parametrize(
    "f, left",
    [
        (lambda x: x * 1, []),
        (lambda x: 1 * x + 0, []),
        (lambda x: x - 0, []),
        (lambda x: mg.neg(mg.neg(x)), []),
        (lambda x: x.reshape(6, 1).reshape(3, 2), ["reshape"]),
        (lambda x: x.reshape(6).reshape(2, 3), []),
        (lambda x: x.T.T, []),
        (lambda x: x.permute(1, 0).reshape(6), ["transpose", "reshape"]),
        (lambda x: x * mg.ones(4, 2, 3), ["mul"]),  # broadcasts: not an identity
    ],
)
def test_algebraic_simplification(f, left):
    graph = mg.make_graph(f)(mg.ones(2, 3))
    simple = passes.simplify(graph)
    assert names(simple) == left
    x = mg.randn(2, 3)
    close(simple(x), f(x))


# -- fusion and the generated kernels ------------------------------------------------------------
W3 = mg.value_and_grad(lambda a, b, c: (a * b + c).tanh().sum(), argnums=(0, 1, 2))


def test_w3_forward_and_backward_fuse_into_one_kernel():
    mg.manual_seed(0)
    args = [mg.randn(64, 32) for _ in range(3)]
    graph = fuse(passes.optimize(mg.make_graph(W3)(*args)), fuse_from=1)
    assert len(graph) == 1 and isinstance(graph.ops[0].prim, FusedKernel)
    source = graph.ops[0].prim.source
    assert "tanh_grad" in source and "# mul(a, b)" in source and "range(_stop - _start)" in source
    got, want = graph(*args), W3(*args)
    # The fused kernel sums in float64, eager in float32: 2048 terms of size ~1
    # leave eager's sum up to ~1e-4 off, whatever the sum's size.
    close(got[0], want[0], rtol=1e-5, atol=1e-4)
    for g, w in zip(got[1], want[1]):  # fused float32 tanh: 4e-7 relative, on values ~1
        close(g, w, rtol=1e-5, atol=1e-5)


class CountingWorkers(Workers):
    """The backend's threads, counting the ranges they run."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ranges = []

    def run(self, kernel, size, *args, grain=None):
        def counted(start, stop, *rest):
            self.ranges.append((start, stop))
            kernel(start, stop, *rest)

        super().run(counted, size, *args, grain=grain)


@pytest.mark.parametrize("broadcast", [False, True], ids=["flat", "broadcast rows"])
def test_fused_kernels_run_on_the_backends_worker_threads(monkeypatch, broadcast):
    # A fused kernel's loop is split into ranges that the backend's threads take as
    # they come free (never numba's prange, whose fixed shares wait for a thread a
    # busy machine runs late); the ranges' sums add up to the whole.
    backend = backends.for_device("cpu")
    if not hasattr(backend, "workers"):
        pytest.skip("the numba backend is not the CPU backend here")
    workers = CountingWorkers(2, grain=64)
    monkeypatch.setattr(backend, "workers", workers)

    def f(x, b):
        h = (x * b + 1).tanh()
        return h.sum(), h * 2

    mg.manual_seed(0)
    x, b = mg.randn(50, 40), mg.randn(40) if broadcast else mg.randn(50, 40)
    graph = fuse(passes.optimize(mg.make_graph(f)(x, b)), fuse_from=1)
    kernel = next(op.prim for op in graph if isinstance(op.prim, FusedKernel))
    assert kernel.nd == broadcast and "_prange" not in kernel.source
    got, want = graph(x, b), f(x, b)
    rows = 50 if broadcast else 2000
    assert len(workers.ranges) > 2 and sorted(workers.ranges)[0][0] == 0
    assert sum(stop - start for start, stop in workers.ranges) == rows
    close(got[0], want[0], rtol=1e-5, atol=1e-4)
    close(got[1], want[1], rtol=1e-5, atol=1e-6)


def test_fusion_reads_broadcast_inputs_and_keeps_order():
    def f(x, b):
        h = (x + b).relu()  # b broadcasts along rows
        return (h * h).sum(), h.sum(axis=0)

    x, b = mg.randn(40, 8), mg.randn(8)
    graph = fuse(passes.optimize(mg.make_graph(f)(x, b)), fuse_from=1)
    kernels = [op for op in graph if isinstance(op.prim, FusedKernel)]
    assert kernels and "broadcast" in kernels[0].prim.kinds
    got, want = graph(x, b), f(x, b)
    close(got[0], want[0], rtol=1e-5)
    close(got[1], want[1], rtol=1e-5)


def test_fused_float32_is_within_1e5_of_float64():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((300, 7)) * 3 for _ in range(3)]
    f32 = [mg.tensor(a, dtype=mg.float32) for a in arrays]
    f64 = [mg.tensor(a, dtype=mg.float64) for a in arrays]
    run = lambda args: fuse(passes.optimize(mg.make_graph(W3)(*args)), fuse_from=1)(*args)
    (v32, g32), (v64, g64) = run(f32), run(f64)
    np.testing.assert_allclose(v32.numpy(), v64.numpy(), rtol=1e-5)
    # 1 - tanh^2 cancels where tanh is near 1: float32 itself is only that good
    # there, so the fused gradient is held to eager float32's own error.
    _, eager32 = W3(*f32)
    for fused, exact, eager in zip(g32, g64, eager32):
        error = np.abs(fused.numpy() - exact.numpy()).max()
        assert error <= 2 * np.abs(eager.numpy() - exact.numpy()).max() + 1e-6


def test_adding_a_negation_becomes_a_subtraction_with_the_same_bits():
    def f(x, y):
        return x + (-y), (-y) + x, x - (-y), (x - y) * -y  # the last -y is read by mul: kept

    graph = mg.make_graph(f)(mg.ones(5), mg.ones(5))
    simple = passes.simplify(graph)
    assert names(simple) == ["sub", "sub", "add", "sub", "neg", "mul"]
    x, y = mg.randn(5), mg.randn(5) * 1e-3
    for got, want in zip(simple(x, y), f(x, y)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())  # exactly: x + (-y) is x - y


def test_program_is_straight_line_code_that_drops_each_value_after_its_last_read():
    from minigrad.compile.run import Program

    def f(x, w):
        h = (x * w).tanh()
        return (h - w).sum(), h * 2

    x, w = mg.randn(4, 4), mg.randn(4, 4)
    graph = passes.optimize(mg.make_graph(f)(x, w))
    program = Program(graph)
    lines = program.source.splitlines()
    assert lines[0] == "def program(arrays, captured):" and lines[-1].startswith("    return")
    assert sum("= k" in line for line in lines) == len(graph)  # one line per operation
    # The product dies at tanh: it is let go right after.
    calls = [line.split("#")[-1].strip() for line in lines if "= k" in line]
    mul_out = next(line.split()[0] for line in lines if line.endswith("# mul"))
    tanh_line = next(i for i, line in enumerate(lines) if line.endswith("# tanh"))
    assert lines[tanh_line + 1].strip() == f"del {mul_out}"
    assert calls == names(graph)
    # Small elementwise ops call NumPy directly, bound at lowering: no backend, no dispatch.
    kernels = [step[0] for step in program.steps]
    assert kernels[names(graph).index("mul")] is np.multiply
    for got, want in zip(graph(x, w), f(x, w)):
        close(got, want)
    # Small fused derivatives too (tanh_grad's NumPy spelling), with eager's exact values.
    step = mg.jit(mg.value_and_grad(lambda x, w: (x * w).tanh().sum(), argnums=(0, 1)))
    eager = mg.value_and_grad(lambda x, w: (x * w).tanh().sum(), argnums=(0, 1))
    (_, got), (_, want) = step(x, w), eager(x, w)
    for g, e in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), e.numpy())


def test_buffer_reuse_gives_a_dying_value_to_a_kernel():
    def f(x):
        y = x @ x  # fresh memory, read by the kernel only: it may be given away
        return (y.tanh() * 2).exp()

    x = mg.randn(512, 512) * 0.01
    graph = reuse_buffers(fuse(passes.optimize(mg.make_graph(f)(x)), fuse_from=1))
    kernel = next(op for op in graph if isinstance(op.prim, FusedKernel))
    assert kernel.prim.donations == (0,) and len(kernel.inputs) == 2
    close(graph(x), f(x), rtol=1e-5)


# -- jit and composition ----------------------------------------------------------------------
def test_jit_equals_eager_and_exposes_graph_and_source():
    fast = mg.jit(W3)
    args = [mg.randn(300, 300) for _ in range(3)]  # big enough to fuse by default
    got, want = fast(*args), W3(*args)
    close(got[0], want[0], rtol=1e-5)
    assert isinstance(fast.source(*args), str) and "def kernel" in fast.source(*args)
    assert len(fast.graph(*args)) == 1


def test_jit_as_a_bare_decorator_and_with_arguments():
    @mg.jit
    def f(x):
        return x * 2

    @mg.jit(static_argnums=1)
    def g(x, k):
        return x * k

    assert f(mg.ones(2)).tolist() == [2.0, 2.0] and g(mg.ones(2), 3).tolist() == [3.0, 3.0]


def test_grad_and_jvp_of_a_jitted_function():
    f = lambda x, y: (x * y).tanh().sum()
    x, y = mg.randn(5), mg.randn(5)
    for got, want in zip(
        mg.grad(mg.jit(f), argnums=(0, 1))(x, y), mg.grad(f, argnums=(0, 1))(x, y)
    ):
        close(got, want)
    t = (mg.randn(5), mg.randn(5))
    (o1, t1), (o2, t2) = mg.jvp(mg.jit(f), (x, y), t), mg.jvp(f, (x, y), t)
    close(o1, o2)
    close(t1, t2)
    xl = mg.randn(5, requires_grad=True)
    mg.jit(f)(xl, y).backward()
    close(xl.grad, mg.grad(f)(xl.detach(), y))


def test_a_jitted_function_inside_a_jitted_function_is_inlined():
    inner = mg.jit(lambda x: x.exp())
    outer = mg.jit(lambda x: inner(x) + 1)
    assert names(outer.graph(mg.ones(2))) == ["exp", "add"]
    close(outer(mg.ones(2)), mg.ones(2).exp() + 1)


def test_draw_a_graph():
    graph = mg.make_graph(lambda x: (x * 2).exp())(mg.ones(2))
    source = mg.draw(graph).source
    assert "exp" in source and "mul" in source and "(input)" in source


# -- what tracing refuses, and in-place changes ---------------------------------------------
def test_bool_of_a_traced_multi_element_tensor_is_a_tracer_error():
    def f(x):
        if x > 0:  # several elements: ambiguous in eager mode too
            return x
        return -x

    with pytest.raises(mg.TracerError) as info:
        mg.jit(f)(mg.ones(3))
    message = str(info.value)
    assert message.startswith("Boolean value of Tensor with more than one value is ambiguous")
    assert "if x > 0:" in message and "static_argnums" in message
    with pytest.raises(RuntimeError, match="ambiguous"):  # eager: PyTorch's error
        f(mg.ones(3))


def test_in_place_changes_of_values_the_function_made_are_traced():
    def f(x, v):
        y = x * 2.0
        y.add_(v, alpha=3)
        y[0] = v[1]
        y *= x
        z = mg.zeros(3)
        z += y.sum()  # a constant changed in place
        return y, z

    # float64: the traced gradient may add its terms in another order than eager's
    # backward, which in float32 can move the last bit
    x, v = mg.randn(3, dtype=mg.float64), mg.randn(3, dtype=mg.float64)
    fast = mg.jit(f)
    for got, want in zip(fast(x, v), f(x, v)):
        close(got, want, 1e-12, 1e-12)
    assert [op.name for op in fast.graph(x, v)].count("index_put") == 1
    loss = lambda x, v: sum((t * t).sum() for t in f(x, v))
    for got, want in zip(mg.jit(mg.grad(loss, argnums=(0, 1)))(x, v),
                         mg.grad(loss, argnums=(0, 1))(x, v)):  # fmt: skip
        close(got, want, 1e-12, 1e-12)


def _zero_through_a_view(y):
    view = y[1:]
    y.zero_()  # eager mode: the view sees zeros too
    return view


@pytest.mark.parametrize(
    "f, what",
    [
        (lambda x: x.add_(1), "argument"),
        (lambda x: x.__setitem__(0, 1.0), "argument"),
        (lambda x: x.reshape(2, 2).mul_(2), "view"),
        (lambda x: _zero_through_a_view(x + 1), "view"),
    ],
)
def test_in_place_changes_jit_cannot_honour_are_tracer_errors(f, what):
    with pytest.raises(mg.TracerError, match=f"in-place change of .*{what}") as info:
        mg.jit(f)(mg.ones(4) if what == "argument" else mg.ones(2, 2).reshape(4))
    assert "test_compile.py" in str(info.value)  # names the line


def test_batch_norm_running_statistics_under_jit_are_a_clear_error():
    norm = mg.nn.BatchNorm1d(3)
    before = norm.running_mean.numpy().copy()
    with pytest.raises(mg.TracerError, match="running statistics"):
        mg.jit(norm)(mg.randn(4, 3))
    np.testing.assert_array_equal(norm.running_mean.numpy(), before)  # left untouched
    norm.eval()  # evaluation mode reads the statistics only: it compiles
    x = mg.randn(4, 3)
    close(mg.jit(norm)(x), norm(x), 1e-6, 1e-6)


# -- jit and vmap compose -------------------------------------------------------------------
def test_jit_of_vmap_and_vmap_of_jit_equal_eager():
    def f(x, w):
        return (x @ w).tanh().sum() * x.mean()

    xs, w = mg.randn(5, 3), mg.randn(3, 2)
    want = mg.vmap(f, in_dims=(0, None))(xs, w)
    fast = mg.jit(mg.vmap(f, in_dims=(0, None)))
    close(fast(xs, w), want, 1e-6, 1e-6)
    assert len(fast.graph(xs, w)) > 0 and len(fast.compiled) == 1
    close(mg.vmap(mg.jit(f), in_dims=(0, None))(xs, w), want, 1e-6, 1e-6)
    # per-example gradients, compiled as one program
    per_example = mg.jit(mg.vmap(mg.grad(f, argnums=1), in_dims=(0, None)))
    close(per_example(xs, w), mg.vmap(mg.grad(f, argnums=1), in_dims=(0, None))(xs, w))
