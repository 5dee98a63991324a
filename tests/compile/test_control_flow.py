"""cond, while_loop, scan and fori_loop as operations of a graph (lesson 16).

The correctness database (tests/opdb/control.py) holds them against PyTorch
under every oracle; here: the graph they make (one operation, printed and
drawn with its bodies), each reading of the traced operation against the
unrolled Python loop and against torch.func / torch.cond, what reverse mode
keeps per step, and the errors.
"""

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.compile.control_flow import SCAN
from minigrad.tensor.mode import Level
from minigrad.tensor.record import apply

RNG = np.random.default_rng(0)
W = RNG.normal(size=(3, 3)) * 0.6
XS = RNG.normal(size=(6, 3))
H = RNG.normal(size=3)


def _rnn(lib, h, xs, w, reverse=False):
    """An Elman RNN over xs, unrolled in Python: the oracle."""
    ys = [None] * xs.shape[0]
    order = range(xs.shape[0] - 1, -1, -1) if reverse else range(xs.shape[0])
    for t in order:
        h = lib.tanh(h @ w + xs[t])
        ys[t] = h * xs[t]
    return h, lib.stack(ys)


def _scanned(h, xs, w, reverse=False):
    def step(c, x):
        new = (c @ w + x).tanh()
        return new, new * x

    return mg.scan(step, h, xs, reverse=reverse)


def _loss(f):
    def loss(h, xs, w):
        last, ys = f(h, xs, w)
        return (last * last).sum() + (ys * ys.sin()).sum()

    return loss


def _args(dtype=mg.float64):
    return mg.tensor(H, dtype=dtype), mg.tensor(XS, dtype=dtype), mg.tensor(W, dtype=dtype)


def _close(a, b, tol=1e-12):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# -- the graph: one operation, its body printed and drawn --------------------------------------
@pytest.mark.parametrize("steps", [2, 40])
def test_a_scan_is_one_operation_whatever_its_length(steps):
    xs = mg.zeros((steps, 3), dtype=mg.float64)
    h, _, w = _args()
    scanned = mg.make_graph(_scanned)(h, xs, w)
    unrolled = mg.make_graph(lambda h, xs, w: _rnn(mg, h, xs, w))(h, xs, w)
    assert [op.name for op in scanned].count("scan") == 1
    assert len(scanned) == 1  # the body's operations live inside the scan
    assert len(unrolled) >= 4 * steps  # a Python loop: every step written out


def test_the_body_is_printed_indented_under_its_operation():
    text = str(mg.make_graph(_scanned)(*_args()))
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "= scan(" in line)
    assert lines[at + 1].startswith("    body(") and "tanh(" in text
    assert any(line.startswith("      ") and "tanh(" in line for line in lines[at + 1 :])


def test_draw_boxes_the_bodies():
    graph = mg.make_graph(lambda p, x: mg.cond(p, lambda a: a.exp(), lambda a: a * 2, x))(
        mg.tensor(True), mg.ones(2)
    )
    source = mg.draw(graph).source
    assert source.count("subgraph cluster_") == 2
    assert "cond branches: true_fun" in source and "cond branches: false_fun" in source
    assert "exp" in source


def test_jit_optimizes_and_fuses_the_body():
    from minigrad.backends.crossover import FUSE_FROM
    from minigrad.compile.subgraph import program_of

    width = max(FUSE_FROM, 1)  # big enough that fusing pays (the pass's own threshold)
    h, xs = mg.zeros((1, width)), mg.ones((2, 1, width))

    def f(h, xs):
        return mg.scan(lambda c, x: ((c * 0.5 + x).tanh() * 2 + 1, c.sum()), h, xs)

    fast = mg.jit(f)
    for a, b in zip(fast(h, xs), f(h, xs)):
        _close(a, b, 1e-6)
    body = fast.graph(h, xs).ops[0].params["body"]
    program = program_of(body)
    assert len(program.graph) < len(body)  # the elementwise chain became one kernel
    assert any(op.name.startswith("fused") for op in program.graph)


# -- every reading of the traced operation against the unrolled loop -------------------------------
@pytest.mark.parametrize("reverse", [False, True])
def test_reverse_mode_equals_backpropagation_through_the_unrolled_loop(reverse):
    loss = _loss(lambda h, xs, w: _scanned(h, xs, w, reverse))
    want = mg.grad(_loss(lambda h, xs, w: _rnn(mg, h, xs, w, reverse)), argnums=(0, 1, 2))(*_args())
    for transform in (
        lambda f: mg.jit(mg.grad(f, argnums=(0, 1, 2))),
        lambda f: mg.grad(mg.jit(f), argnums=(0, 1, 2)),
    ):
        for got, ref in zip(transform(loss)(*_args()), want):
            _close(got, ref)
    # and against torch.func.grad of the same loop in PyTorch
    ts = [torch.tensor(a) for a in (H, XS, W)]
    theirs = torch.func.grad(_loss(lambda h, xs, w: _rnn(torch, h, xs, w, reverse)), (0, 1, 2))(*ts)
    for got, ref in zip(want, theirs):
        _close(got, ref.detach().numpy())


def test_forward_mode_matches_torch_func_jvp():
    tangents = tuple(mg.tensor(RNG.normal(size=a.shape)) for a in (H, XS, W))
    loss = _loss(_scanned)
    got = mg.jit(lambda *p: mg.jvp(loss, p, tangents)[1])(*_args())
    also = mg.jvp(mg.jit(loss), _args(), tangents)[1]
    ts = tuple(torch.tensor(a) for a in (H, XS, W))
    _, ref = torch.func.jvp(
        _loss(lambda h, xs, w: _rnn(torch, h, xs, w)),
        ts,
        tuple(torch.tensor(t.detach().numpy()) for t in tangents),
    )
    _close(got, ref.detach().numpy(), 1e-10)
    _close(also, ref.detach().numpy(), 1e-10)


def test_gradients_of_gradients_match_torch():
    def inner(lib, grad):
        def gnorm(w):
            g = grad(w)
            return (g * g).sum()

        return gnorm

    h, xs, _ = _args()
    ours = mg.jit(mg.grad(inner(mg, mg.grad(lambda w: _loss(_scanned)(h, xs, w)))))(mg.tensor(W))
    th, txs = torch.tensor(H), torch.tensor(XS)
    tloss = _loss(lambda h, xs, w: _rnn(torch, h, xs, w))
    theirs = torch.func.grad(inner(torch, torch.func.grad(lambda w: tloss(th, txs, w))))(
        torch.tensor(W)
    )
    _close(ours, theirs.detach().numpy(), 1e-10)


def test_vmap_of_scan_matches_torch_func_vmap():
    hs = mg.tensor(RNG.normal(size=(4, 3)))
    _, xs, w = _args()
    f = lambda h: _scanned(h, xs, w)
    ref = torch.func.vmap(lambda h: _rnn(torch, h, torch.tensor(XS), torch.tensor(W)))(
        torch.tensor(hs.detach().numpy())
    )
    for got in (mg.vmap(f)(hs), mg.jit(mg.vmap(f))(hs)):
        for a, b in zip(got, ref):
            _close(a, b.detach().numpy())
    # per-example gradients: vmap of grad, jitted (the scan's batch rule on its reverse scans)
    per = mg.jit(mg.vmap(mg.grad(lambda h: _loss(_scanned)(h, xs, w))))(hs)
    tref = torch.func.vmap(
        torch.func.grad(
            lambda h: _loss(lambda h, xs, w: _rnn(torch, h, xs, w))(
                h, torch.tensor(XS), torch.tensor(W)
            )
        )
    )(torch.tensor(hs.detach().numpy()))
    _close(per, tref.detach().numpy())


# -- the one stack: control flow meets each level in the stack's order ---------------------------
class _Watcher(Level):
    """A level of one's own: notes each row it is handed, with its inputs' shapes."""

    kind = "watch"

    def __init__(self):
        super().__init__()
        self.seen = []

    def process(self, prim, inputs, params):
        self.seen.append((prim.name, [tuple(t.shape) for t in inputs]))
        with self.lowered():
            return apply(prim, inputs, **params)


@pytest.mark.parametrize("inside_vmap", [False, True])
def test_a_level_of_ones_own_sees_control_flow_through_its_process(inside_vmap):
    # jit (outermost), vmap, and a watcher between them or inside vmap: the watcher is
    # handed the scan as the stack's order says: the batched scan (a carry of 4 examples)
    # when vmap is inside it, the per-example scan when it is inside vmap.
    hs = mg.tensor(RNG.normal(size=(4, 3)))
    _, xs, w = _args()
    watchers = []

    def per_example(h):
        if not inside_vmap:
            return _scanned(h, xs, w)
        with _Watcher() as watcher:
            watchers.append(watcher)
            return _scanned(h, xs, w)

    def program(hs):
        if inside_vmap:
            return mg.vmap(per_example)(hs)
        with _Watcher() as watcher:
            watchers.append(watcher)
            return mg.vmap(per_example)(hs)

    last, ys = mg.jit(program)(hs)
    (watcher,) = watchers
    scans = [shapes for name, shapes in watcher.seen if name == "scan"]
    # inputs: w (a constant of the body), the carry, xs
    assert scans == ([[(3, 3), (3,), (6, 3)]] if inside_vmap else [[(3, 3), (4, 3), (6, 3)]])
    ref = torch.func.vmap(lambda h: _rnn(torch, h, torch.tensor(XS), torch.tensor(W)))(
        torch.tensor(hs.numpy())
    )
    _close(last, ref[0].numpy())
    _close(ys, ref[1].numpy())


def test_gradients_of_per_example_gradients_through_scan_and_cond_match_torch():
    # grad of vmap of grad: the inner gradient records the per-example scan, the outer one
    # the batched scan it became (the fixed order of an older bind refused this nesting).
    hs = mg.tensor(RNG.normal(size=(4, 3)))
    _, xs, w = _args()
    inner = lambda h: _loss(_scanned)(h, xs, w) + _branchy(h)
    ours = mg.jit(mg.grad(lambda hs: (mg.vmap(mg.grad(inner))(hs) ** 2).sum()))(hs)
    txs, tw = torch.tensor(XS), torch.tensor(W)
    tinner = lambda h: (
        _loss(lambda h, xs, w: _rnn(torch, h, xs, w))(h, txs, tw)
        + torch.where(h.sum() > 0, (h.exp() * h).sum(), (h.sin() * 3).sum())
    )
    tgrad = torch.func.grad
    theirs = tgrad(lambda hs: (torch.func.vmap(tgrad(tinner))(hs) ** 2).sum())(
        torch.tensor(hs.numpy())
    )
    _close(ours, theirs.detach().numpy(), 1e-10)


def _branchy(x):
    return mg.cond(x.sum() > 0, lambda a: (a.exp() * a).sum(), lambda a: (a.sin() * 3).sum(), x)


def _torch_branchy(x):
    return torch.cond(
        x.sum() > 0, lambda a: (a.exp() * a).sum(), lambda a: (a.sin() * 3).sum(), (x,)
    )


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_matches_torch_cond_values_and_gradients(sign):
    x = sign * np.array([1.0, -2.0, 3.5])
    tx = torch.tensor(x, requires_grad=True)
    ref = _torch_branchy(tx)
    (tgrad,) = torch.autograd.grad(ref, tx)
    for f in (_branchy, mg.jit(_branchy)):
        _close(f(mg.tensor(x)), ref.detach().numpy())
    for g in (mg.grad(_branchy), mg.jit(mg.grad(_branchy)), mg.grad(mg.jit(_branchy))):
        _close(g(mg.tensor(x)), tgrad.detach().numpy())
    # forward mode and the Hessian (forward over reverse) against torch.func on the taken branch
    taken = (lambda a: (a.exp() * a).sum()) if sign > 0 else (lambda a: (a.sin() * 3).sum())
    hess = torch.func.hessian(taken)(torch.tensor(x))
    _close(mg.jit(mg.hessian(_branchy))(mg.tensor(x)), hess.detach().numpy(), 1e-10)
    _close(mg.jit(mg.jacfwd(mg.jacrev(_branchy)))(mg.tensor(x)), hess.detach().numpy(), 1e-10)


def test_cond_with_a_batched_predicate_computes_both_branches_and_selects():
    xs = np.array([[1.0, 2.0], [-3.0, 1.0], [0.5, -4.0]])
    each = [_torch_branchy(torch.tensor(x)).item() for x in xs]
    for f in (mg.vmap(_branchy), mg.jit(mg.vmap(_branchy))):
        _close(f(mg.tensor(xs)), np.array(each))
    graph = mg.make_graph(mg.vmap(_branchy))(mg.tensor(xs))
    names = [op.name for op in graph]
    assert "cond" not in names and "where" in names  # lowered to a select
    grads = mg.jit(mg.vmap(mg.grad(_branchy)))(mg.tensor(xs))
    # (torch.func cannot transform torch.cond's gradient in torch 2.13: autograd, per example)
    ref = []
    for x in xs:
        t = torch.tensor(x, requires_grad=True)
        ref.append(torch.autograd.grad(_torch_branchy(t), t)[0].detach().numpy())
    _close(grads, np.stack(ref))


def test_cond_with_a_shared_predicate_stays_one_cond_under_vmap():
    f = lambda x, p: mg.cond(p, lambda a: a * 2, lambda a: a - 1, x)
    xs = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    graph = mg.make_graph(mg.vmap(f, in_axes=(0, None)))(xs, mg.tensor(False))
    assert [op.name for op in graph] == ["cond"]
    _close(graph(xs, mg.tensor(False)), xs.detach().numpy() - 1)


def _doubling(v):
    return mg.while_loop(lambda c: c[0] < c[1], lambda c: (c[0] * 2, c[1]), (v, mg.tensor(10.0)))[0]


def test_while_loop_with_a_batched_predicate_runs_until_every_example_stops():
    vs = mg.tensor([1.0, 3.0, 0.5, 20.0])
    want = np.array([16.0, 12.0, 16.0, 20.0])
    for f in (mg.vmap(_doubling), mg.jit(mg.vmap(_doubling))):
        _close(f(vs), want)
    assert [op.name for op in mg.make_graph(mg.vmap(_doubling))(vs)].count("while_loop") == 1


def test_while_loop_forward_mode_and_its_reverse_mode_error():
    out, tangent = mg.jit(lambda v: mg.jvp(_doubling, (v,), (mg.ones_like(v),)))(mg.tensor(1.5))
    _close(out, 12.0)
    _close(tangent, 8.0)  # three doublings
    with pytest.raises(RuntimeError, match=r"does not work for while_loop.*scan.*fori_loop"):
        mg.jit(mg.grad(_doubling))(mg.tensor(1.5))


def test_fori_loop_is_a_scan_with_int_bounds_and_a_while_loop_with_tensor_bounds():
    body = lambda i, v: v * v + i
    assert [
        op.name for op in mg.make_graph(lambda v: mg.fori_loop(0, 3, body, v))(mg.ones(()))
    ] == ["scan"]
    dynamic = mg.make_graph(lambda v, n: mg.fori_loop(0, n, body, v))(mg.ones(()), mg.tensor(3))
    assert "while_loop" in [op.name for op in dynamic]
    v = mg.tensor(0.7, dtype=mg.float64)
    want = body(2, body(1, body(0, 0.7)))
    _close(mg.fori_loop(0, 3, body, v), want)
    _close(dynamic(mg.tensor(0.7), mg.tensor(3)), want, 1e-6)
    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    (tgrad,) = torch.autograd.grad(body(2, body(1, body(0, x))), x)
    _close(mg.grad(mg.jit(lambda v: mg.fori_loop(0, 3, body, v)))(v), tgrad.detach().numpy())


# -- what reverse mode keeps per step ------------------------------------------------------------
def test_reverse_mode_keeps_per_step_only_what_the_body_rules_save():
    h, xs, w = _args()
    graph = mg.make_graph(mg.grad(lambda w: _loss(_scanned)(h, xs, w)))(w)
    scans = [op for op in graph if op.prim is SCAN]
    forward, backward = scans
    assert not forward.params["reverse"] and backward.params["reverse"]
    # per step the forward scan keeps: its outputs (the carry, y) and the residuals.
    n_carry_y = 2
    residuals = forward.outs[n_carry_y:]
    # tanh saves its output and matmul its inputs (the carry, and w's transpose - which is
    # not per step and is computed again by the backward body, not stacked); mul saves
    # both inputs (the new carry again, and x, read from xs itself): no more than 3 per step.
    assert 1 <= len(residuals) <= 3
    assert all(v.shape[0] == xs.shape[0] for v in residuals)
    assert not any(v.shape[1:] == (3, 3) for v in residuals)  # nothing of w's size per step


# -- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [lambda f: f, mg.jit])
def test_a_carry_that_changes_shape_or_dtype_is_named(mode):
    x = mg.ones(3)
    with pytest.raises(
        TypeError, match=r"scan: the carry .* leaf 0 is float32\[3\] going in but float32\[\]"
    ):
        mode(lambda x: mg.scan(lambda c, t: (c.sum(), t), x, x))(x)
    with pytest.raises(TypeError, match=r"while_loop: .* float32\[3\] going in but float64\[3\]"):
        mode(lambda x: mg.while_loop(lambda c: c.sum() < 5, lambda c: c.to(mg.float64), x))(x)
    with pytest.raises(TypeError, match="must return a pair"):
        mode(lambda x: mg.scan(lambda c, t: c, x, x))(x)


def test_branches_that_disagree_are_named():
    x = mg.ones(3)
    with pytest.raises(TypeError, match=r"output 0 is float32\[3\] from true_fun but float64\[3\]"):
        mg.jit(lambda x: mg.cond(x.sum() > 0, lambda a: a, lambda a: a.to(mg.float64), x))(x)
    with pytest.raises(TypeError, match="same structure"):
        mg.jit(lambda x: mg.cond(x.sum() > 0, lambda a: (a, a), lambda a: a, x))(x)
    with pytest.raises(TypeError, match="Pred must be a scalar"):
        mg.cond(x > 0, lambda a: a, lambda a: a, x)


def test_scan_lengths_must_agree():
    with pytest.raises(ValueError, match="different leading axis sizes"):
        mg.scan(lambda c, x: (c, x), mg.zeros(()), (mg.ones(3), mg.ones(4)))
    with pytest.raises(ValueError, match="give xs or length"):
        mg.scan(lambda c, x: (c, x), mg.zeros(()))


def test_a_body_cannot_close_over_a_value_batched_outside_it():
    xs = mg.ones((2, 3))
    f = lambda x: mg.scan(lambda c, t: (c + x, t), mg.zeros(3), mg.ones((4, 1)))[0]
    with pytest.raises(TypeError, match="batched by an enclosing vmap"):
        mg.jit(mg.vmap(f))(xs)
    _close(mg.vmap(f)(xs), np.full((2, 3), 4.0))  # eager: plain Python, fine


def test_residuals_nobody_reads_are_dropped_from_the_scan():
    # Traced with gradients on (a module's weights require grad), the scan makes residuals
    # for a backward pass; when the program runs none, dead-code elimination drops them.
    model = mg.nn.RNN(3, 4)
    x = mg.randn(5, 2, 3)
    traced = mg.make_graph(lambda x: model(x)[0])(x)
    assert next(len(op.outs) for op in traced if op.name == "scan") > 2  # carry, y, residuals
    fast = mg.jit(lambda x: model(x)[0])
    assert [len(op.outs) for op in fast.graph(x) if op.name == "scan"] == [2]  # carry, y
    with mg.no_grad():
        _close(fast(x), model(x)[0])
        only_last = mg.jit(lambda x: model(x)[1]).graph(x)
    assert [len(op.outs) for op in only_last if op.name == "scan"] == [1]  # the carry alone
