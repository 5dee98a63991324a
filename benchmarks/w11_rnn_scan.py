"""W11: a recurrent network through scan (lesson 16), and an exported MLP under onnxruntime.

Part 1, training: an Elman RNN (``nn.RNN``, tanh) of hidden size 128 on
sequences of length 100, batch 32, 64 input features, float32; one step is
the forward pass, a mean-squared loss on every output and the backward pass
(the gradients of every weight). Engines:

- ``minigrad eager``: ``mg.nn.RNN`` run eagerly (its scan is a Python loop,
  recorded operation by operation) and ``loss.backward()``;
- ``minigrad jit``: ``mg.jit(mg.value_and_grad(loss))`` of the same model
  (``functional_call``): one program, the forward scan and its reversed scan;
- ``torch eager``: ``torch.nn.RNN`` (PyTorch's own fused recurrent kernel) and ``backward``;
- ``torch.compile``: the same PyTorch step under ``torch.compile`` (compiled once, first).

Every engine starts from the same weights and input; their gradients are
checked to agree before timing. Target (issue 26): minigrad jit at most 1.0x
torch eager.

Part 2, inference: the W2 MLP (784 -> 256 -> 256 -> 10, ReLU, batch 128)
exported with ``mg.onnx.export`` and run by onnxruntime, against minigrad jit
and PyTorch eager on the same input (results checked to agree).

Every engine gets 2 threads; engines take turns, run by run, so that the
machine's other load falls on all of them alike; medians are reported with
the load average.

    python benchmarks/w11_rnn_scan.py [--repeats 15] [--no-compile] [--json out.json]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

from bench import ROOT, pin_threads, print_load, target, write_json

THREADS = int(os.environ.get("OMP_NUM_THREADS", "2"))
pin_threads(THREADS)
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import minigrad as mg  # noqa: E402

torch.set_num_threads(THREADS)
HIDDEN, STEPS, BATCH, FEATURES = 128, 100, 32, 64


def _turns(engines: dict, repeats: int) -> dict[str, float]:
    """Median seconds per engine, the engines taking turns run by run."""
    times: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(repeats):
        for name, fn in engines.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def _table(title: str, medians: dict[str, float], ours: str) -> None:
    print(title)
    print(f"  {'engine':<18} {'ms':>9} {ours + ' / it':>22}")
    for name, seconds in medians.items():
        print(f"  {name:<18} {seconds * 1e3:9.2f} {medians[ours] / seconds:21.2f}x")


def rnn_step(repeats: int, compile_torch: bool) -> dict:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((STEPS, BATCH, FEATURES)).astype(np.float32)
    reference = torch.nn.RNN(FEATURES, HIDDEN)
    model = mg.nn.RNN(FEATURES, HIDDEN)
    model.load_state_dict(
        {k: mg.tensor(v.detach().numpy()) for k, v in reference.state_dict().items()}
    )
    mx, tx = mg.tensor(x), torch.tensor(x)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(params, x):
        out, _ = mg.func.functional_call(model, params, (x,))
        return (out * out).mean()

    jitted = mg.jit(mg.value_and_grad(loss))

    def eager():
        model.zero_grad()
        value = (model(mx)[0] ** 2).mean()
        value.backward()
        return value, {k: p.grad for k, p in model.named_parameters()}

    def torch_step(module):
        def step():
            module.zero_grad()
            value = (module(tx)[0] ** 2).mean()
            value.backward()
            return value

        return step

    engines = {
        "minigrad eager": eager,
        "minigrad jit": lambda: jitted(params, mx),
        "torch eager": torch_step(reference),
    }
    # Agreement first (and every compilation out of the way).
    _, grads = jitted(params, mx)
    torch_step(reference)()
    for name, p in reference.named_parameters():
        np.testing.assert_allclose(grads[name].numpy(), p.grad.numpy(), rtol=2e-3, atol=2e-5)
    eager()
    if compile_torch:
        compiled = torch.compile(reference)
        engines["torch.compile"] = torch_step(compiled)
        start = time.perf_counter()
        engines["torch.compile"]()
        print(f"  (torch.compile's first call, compiling: {time.perf_counter() - start:.1f} s)")
    medians = _turns(engines, repeats)
    _table(
        f"RNN hidden {HIDDEN}, T={STEPS}, batch {BATCH}: forward + backward",
        medians,
        "minigrad jit",
    )
    ratio = medians["minigrad jit"] / medians["torch eager"]
    met = ratio <= 1.0
    entry = target("minigrad jit <= 1.0x torch eager (RNN fwd+bwd)", ratio, met)
    return {"medians_ms": {k: v * 1e3 for k, v in medians.items()}, "target": entry}


def exported_mlp(repeats: int) -> dict:
    import onnxruntime as ort

    mg.manual_seed(0)
    model = mg.nn.MLP(784, [256, 256], 10)
    reference = torch.nn.Sequential(
        torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, 10),
    )  # fmt: skip
    with torch.no_grad():
        for (_, theirs), (_, ours) in zip(reference.named_parameters(), model.named_parameters()):
            theirs.copy_(torch.tensor(ours.detach().numpy()))
    x = np.random.default_rng(1).standard_normal((128, 784)).astype(np.float32)
    path = os.path.join(tempfile.mkdtemp(), "w2_mlp.onnx")
    mg.onnx.export(model, (mg.tensor(x),), path, input_names=["x"], output_names=["scores"])
    options = ort.SessionOptions()
    options.intra_op_num_threads = THREADS
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    mx, tx = mg.tensor(x), torch.tensor(x)
    with mg.no_grad():
        params = {k: v.detach() for k, v in model.named_parameters()}
    fast = mg.jit(lambda params, x: mg.func.functional_call(model, params, (x,)))
    engines = {
        "onnxruntime": lambda: session.run(None, {"x": x}),
        "minigrad jit": lambda: fast(params, mx),
        "torch eager": lambda: reference(tx),
    }
    want = fast(params, mx).numpy()
    np.testing.assert_allclose(session.run(None, {"x": x})[0], want, rtol=1e-4, atol=1e-5)
    with torch.no_grad():
        np.testing.assert_allclose(reference(tx).numpy(), want, rtol=1e-4, atol=1e-5)
        medians = _turns(engines, repeats)
    _table("W2 MLP inference, batch 128", medians, "onnxruntime")
    return {"medians_ms": {k: v * 1e3 for k, v in medians.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--no-compile", action="store_true", help="leave torch.compile out")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    print(f"W11 ({THREADS} threads per engine)")
    result = {"rnn": rnn_step(args.repeats, not args.no_compile)}
    result["onnx"] = exported_mlp(args.repeats)
    print_load()
    result["load"] = os.getloadavg()[0]
    if args.json:
        write_json(args.json, result)


if __name__ == "__main__":
    main()
