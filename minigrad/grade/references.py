"""The teacher's references: the answers the grader compares submissions with.

This module is the course's answer key, so it never ships to students:
``release`` leaves it out of the student edition (which grades against the
values these functions gave on its own inputs, stored at release time; see
``minigrad.grade.answers``), and only the teacher's course and the Gradescope
bundle hold it. A check names a reference by ``Answer("name", *args)``; each
function here takes those arguments and returns the expected value whole.

The references are written the slow, obvious way (loops over positions, one
example at a time, reachability with an explicit stack), never with the
exercises' own tricks.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.grade.checks.static_graphs import COMMUTATIVE, plain_program
from minigrad.grade.spec import named

# -- lesson 03 -------------------------------------------------------------------------------


def backward_grads(program: list[list], root: int) -> np.ndarray:
    """Reverse mode over the program, in index order (already topological)."""
    data, edges = [], []
    for op, *operands in program:
        if op == "leaf":
            data.append(operands[0])
            edges.append([])
        elif op == "add":
            i, j = operands
            data.append(data[i] + data[j])
            edges.append([(i, 1.0), (j, 1.0)])
        elif op == "mul":
            i, j = operands
            data.append(data[i] * data[j])
            edges.append([(i, data[j]), (j, data[i])])
        else:
            t = math.tanh(data[operands[0]])
            data.append(t)
            edges.append([(operands[0], 1 - t * t)])
    grads = np.zeros(len(program))
    grads[root] = 1.0
    for k in range(root, -1, -1):
        for parent, local in edges[k]:
            grads[parent] += local * grads[k]
    return grads


def _mlp(layers: list, x: np.ndarray) -> tuple[Any, np.ndarray]:
    """Outputs and d(sum of outputs)/d(parameters), in parameters() order."""
    hs = [x]
    for i, (w, b) in enumerate(layers):
        z = w @ hs[-1] + b
        hs.append(np.tanh(z) if i < len(layers) - 1 else z)
    out = hs[-1]
    g = np.ones_like(out)
    grads = []
    for i in range(len(layers) - 1, -1, -1):
        w, _ = layers[i]
        if i < len(layers) - 1:
            g = g * (1 - hs[i + 1] ** 2)
        per_neuron = [np.append(gw, gb) for gw, gb in zip(np.outer(g, hs[i]), g)]
        grads.insert(0, np.concatenate(per_neuron))
        g = w.T @ g
    return (float(out[0]) if out.size == 1 else out), np.concatenate(grads)


def mlp_output(layers: list, x: np.ndarray) -> Any:
    return _mlp(layers, x)[0]


def mlp_grads(layers: list, x: np.ndarray) -> np.ndarray:
    return _mlp(layers, x)[1]


# -- lessons 04 and 05 -----------------------------------------------------------------------


def _sum_to(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum leading axes away one at a time, then the stretched axes."""
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, n in enumerate(shape):
        if n == 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


def sum_to(grad: np.ndarray, shape: tuple[int, ...]) -> dict:
    """The summed gradient, and ``grad`` itself (the exercise must not change it)."""
    return {"out": _sum_to(grad, shape), "grad_after": grad}


def matmul_vjp(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> tuple:
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a_full = np.broadcast_to(a, batch + a.shape[-2:])
    b_full = np.broadcast_to(b, batch + b.shape[-2:])
    grad_a = np.einsum("...ij,...kj->...ik", g, b_full)
    grad_b = np.einsum("...ki,...kj->...ij", a_full, g)
    return named(grad_a=_sum_to(grad_a, a.shape), grad_b=_sum_to(grad_b, b.shape))


# -- lesson 12 -------------------------------------------------------------------------------


def windows(x: np.ndarray, kernel: tuple[int, int], stride: int) -> np.ndarray:
    n, c, h, w = x.shape
    kh, kw = kernel
    oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    out = np.empty((n, c, oh, ow, kh, kw))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = x[:, :, i * stride : i * stride + kh, j * stride : j * stride + kw]
    return out


def conv2d_backward(x, w, g, stride: int, padding: int) -> tuple:
    """dx and dw by the chain rule, one output position at a time."""
    p = padding
    padded = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    kh, kw = w.shape[2:]
    dx, dw = np.zeros_like(padded), np.zeros_like(w)
    for i in range(g.shape[2]):
        for j in range(g.shape[3]):
            rows = slice(i * stride, i * stride + kh)
            cols = slice(j * stride, j * stride + kw)
            gij = g[:, :, i, j]  # (N, O)
            dw += np.einsum("no,nchw->ochw", gij, padded[:, :, rows, cols])
            dx[:, :, rows, cols] += np.einsum("no,ochw->nchw", gij, w)
    return named(dx=dx[:, :, p : p + x.shape[2], p : p + x.shape[3]], dw=dw)


# -- lesson 13 -------------------------------------------------------------------------------
EVALUATE = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "maximum": max,
    "neg": lambda x: -x,
    "exp": math.exp,
    "tanh": math.tanh,
    "pow": lambda x, exponent: x**exponent,
}


def live_lines(program: list, outputs: list) -> list:
    """Reachability from the outputs over the lines' inputs, with an explicit stack."""
    made = {line[0]: line for line in program}
    live: set[str] = set()
    stack = [name for name in outputs if name in made]
    while stack:
        name = stack.pop()
        if name not in live:
            live.add(name)
            stack.extend(v for v in made[name][2] if v in made)
    return plain_program([line for line in program if line[0] in live])


def without_repeats(program: list, outputs: list) -> dict:
    """Value numbering: each name's canonical name first, then the lines rebuilt from it."""
    canonical: dict[str, str] = {}
    table: dict[Any, str] = {}
    for out, op, inputs, params in program:
        args = [canonical.get(v, v) for v in inputs]
        expression = (op, tuple(sorted(args) if op in COMMUTATIVE else args))
        expression += (repr(sorted(params.items())),)
        canonical[out] = table.setdefault(expression, out)
    rebuilt = [
        [out, op, [canonical.get(v, v) for v in inputs], params]
        for out, op, inputs, params in program
        if canonical[out] == out
    ]
    return {"program": plain_program(rebuilt), "outputs": [canonical.get(v, v) for v in outputs]}


def folded(program: list) -> list:
    """The value of every name that constants alone decide; then each such line as a const."""
    value: dict[str, float] = {}
    for out, op, inputs, params in program:
        if op == "const":
            value[out] = params["value"]
        elif inputs and set(inputs) <= value.keys():
            value[out] = EVALUATE[op](*[value[v] for v in inputs], **params)
    return plain_program(
        [
            [out, "const", [], {"value": value[out]}]
            if out in value and op != "const"
            else [out, op, list(inputs), params]
            for out, op, inputs, params in program
        ]
    )


# -- lesson 14 -------------------------------------------------------------------------------


def clipped_gradient(w, b, X, y, max_norm) -> dict:
    norms, total = [], np.zeros(len(w) + 1)
    for xi, yi in zip(X, y):
        p = 1 / (1 + math.exp(-(float(xi @ w) + b)))
        g = np.append((p - yi) * xi, p - yi)
        norm = math.sqrt(float(g @ g))
        norms.append(norm)
        total += g * (min(1.0, max_norm / norm) if norm > 0 else 1.0)
    mean = total / len(X)
    return {"norms": np.array(norms), "grad_w": mean[:-1], "grad_b": float(mean[-1])}


# -- lesson 17 -------------------------------------------------------------------------------


def _softmax_rows(s: np.ndarray) -> np.ndarray:
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return p / p.sum(axis=-1, keepdims=True)


def online_attention(s, v, tile) -> dict:
    """The whole row at once (the reference need not be online)."""
    top = s.max(axis=1, keepdims=True)
    lse = (top + np.log(np.exp(s - top).sum(axis=1, keepdims=True)))[:, 0]
    return {"out": _softmax_rows(s) @ v, "lse": lse}


def causal_mask(length, keys) -> np.ndarray:
    return np.array([[j <= keys - length + i for j in range(keys)] for i in range(length)],
                    dtype=np.float64)  # fmt: skip


def kv_cache_steps(qs, ks, vs, cache_k, cache_v) -> dict:
    """Recomputes every step from the whole sequence so far: no cache."""
    keys, values, outs = list(cache_k), list(cache_v), []
    for q, k, v in zip(qs, ks, vs):
        keys.append(k)
        values.append(v)
        s = np.array(keys) @ q / math.sqrt(len(q))
        outs.append(_softmax_rows(s) @ np.array(values))
    return {"outs": np.array(outs), "cache_k": np.array(keys), "cache_v": np.array(values)}


# -- lesson 18 -------------------------------------------------------------------------------


def gradient_buckets(nbytes: list, cap: int) -> tuple:
    """Reverse order, a new bucket whenever the next parameter would overflow the current one."""
    buckets: list[list[int]] = []
    room = -1
    for i in range(len(nbytes) - 1, -1, -1):
        if buckets and nbytes[i] <= room:
            buckets[-1].append(i)
            room -= nbytes[i]
        else:
            buckets.append([i])
            room = cap - nbytes[i]
    return tuple(tuple(float(i) for i in bucket) for bucket in buckets)


# -- lesson 15 -------------------------------------------------------------------------------


def round_to_bfloat16(x) -> np.ndarray:
    """ml_dtypes' own conversion (round half to even), widened back to float32."""
    import ml_dtypes

    x = np.asarray(x, dtype=np.float32)
    return x.astype(ml_dtypes.bfloat16).astype(np.float32).astype(np.float64)


def scale_updates(scale, tracker, found_infs, growth, backoff, interval) -> np.ndarray:
    """The scale and the count after each step, by GradScaler's rule, one step at a time."""
    history = []
    for found_inf in found_infs:
        if found_inf:
            scale, tracker = float(np.float32(scale * backoff)), 0
        else:
            tracker += 1
            if tracker == interval:
                with np.errstate(over="ignore"):
                    grown = np.float32(scale * growth)
                if np.isfinite(grown):
                    scale = float(grown)
                tracker = 0
        history.append((scale, float(tracker)))
    return np.array(history, dtype=np.float64)


# -- lesson 16 -------------------------------------------------------------------------------


def rnn_backward(w, hs, g_last, g_hs) -> tuple:
    """Reverse mode of minigrad through the unrolled loop: h_t = tanh(h_{t-1} @ w + x_t)."""
    from minigrad.tensor import autograd
    from minigrad.tensor.factories import tensor

    steps = len(hs) - 1
    h0 = tensor(np.asarray(hs[0], dtype=np.float64), requires_grad=True)
    wt = tensor(np.asarray(w, dtype=np.float64), requires_grad=True)
    # The xs that produced hs: x_t = arctanh(h_t) - h_{t-1} @ w.
    xs_values = np.arctanh(np.clip(hs[1:], -1 + 1e-15, 1 - 1e-15)) - hs[:-1] @ w
    xs = tensor(xs_values, requires_grad=True)
    h, total = h0, None
    for t in range(steps):
        h = (h @ wt + xs[t]).tanh()
        term = (h * tensor(np.asarray(g_hs[t], dtype=np.float64))).sum()
        total = term if total is None else total + term
    last = (h * tensor(np.asarray(g_last, dtype=np.float64))).sum()
    total = last if total is None else total + last
    g_h0, g_w, g_xs = autograd.grad(total, [h0, wt, xs])
    return (g_h0.numpy(), g_w.numpy(), g_xs.numpy())
