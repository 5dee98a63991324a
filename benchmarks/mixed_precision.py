"""Mixed precision (issue 25): activation memory, accuracy, and 16-bit matmul, beside PyTorch.

Three measurements, each minigrad beside its peer in the same run:

1. **Saved activations of the W7 network** (32 layers ``tanh(linear(x))`` of
   width 1024, batch 256; ``nn.Linear`` and ``nn.Tanh`` in both engines, as
   W7's PyTorch model), after one forward pass in float32 and under
   bfloat16 autocast. Counted exactly, array by array: for minigrad, what
   the graph's records keep (``saved`` inputs and ``saved_out``), each array
   once; for PyTorch, what ``saved_tensors_hooks`` sees packed, each storage
   once. *Activations* are the saved arrays with the batch axis (256 rows);
   the rest is weights and their 16-bit casts, shown apart. Target: bfloat16's
   activations at most 0.55x of float32's.
2. **Accuracy** of lesson 06's MLP (30 epochs, SGD with momentum) and
   lesson 12's CNN (20 epochs, Adam) on the digits' test split, in float32,
   float16 autocast with a GradScaler, and bfloat16 autocast. Target: both
   16-bit modes within 0.5 points of float32.
3. **matmul 1024 x 1024** in float32, float16 and bfloat16 on the CPU: the
   median of ``--repeats`` calls, minigrad and PyTorch interleaved. No
   target: NumPy has no 16-bit matrix product, so minigrad multiplies in
   float32 and rounds (the CPU need not gain).

    python benchmarks/mixed_precision.py [--repeats 7] [--quick] [--json F]

``--quick``: fewer epochs (3 and 2) and repeats, to check the script runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from bench import ROOT, interleaved, pin_threads, print_load, target, write_json

pin_threads(2)
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import minigrad as mg  # noqa: E402
from minigrad.tensor.record import OpRecord  # noqa: E402

LAYERS, WIDTH, BATCH = 32, 1024, 256
F = mg.nn.functional


# -- 1. saved activations ----------------------------------------------------------------------
def minigrad_saved(autocast: bool) -> tuple[int, int]:
    """(activation bytes, other bytes) that minigrad's graph keeps after one forward pass."""
    mg.manual_seed(0)
    model = mg.nn.Sequential(
        *[m for _ in range(LAYERS) for m in (mg.nn.Linear(WIDTH, WIDTH), mg.nn.Tanh())]
    )
    x = mg.randn(BATCH, WIDTH, requires_grad=True)
    with mg.autocast("cpu", enabled=autocast):
        y = model(x)
    kept, seen, stack = {}, set(), [y._node]
    while stack:
        record = stack.pop()
        if not isinstance(record, OpRecord) or id(record) in seen:
            continue
        seen.add(id(record))
        arrays = [t.data for t in (record.saved or ()) if isinstance(t, mg.Tensor)]
        if record.saved_out is not None:
            arrays.append(record.saved_out)
        kept.update((id(a), a) for a in arrays)
        stack.extend(record.parents)
    return _split(kept.values(), lambda a: a.shape, lambda a: a.nbytes)


def torch_saved(autocast: bool) -> tuple[int, int]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        *[m for _ in range(LAYERS) for m in (torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh())]
    )
    x = torch.randn(BATCH, WIDTH, requires_grad=True)
    kept = {}

    def pack(t):
        kept[t.untyped_storage().data_ptr()] = t
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.autocast("cpu", enabled=autocast):
            model(x)
    return _split(kept.values(), lambda t: tuple(t.shape), lambda t: t.untyped_storage().nbytes())


def _split(arrays, shape, nbytes) -> tuple[int, int]:
    activations = sum(nbytes(a) for a in arrays if shape(a)[:1] == (BATCH,))
    return activations, sum(nbytes(a) for a in arrays) - activations


def memory(result: dict) -> None:
    print(
        f"\nW7 network, saved for backward after one forward pass (MB), "
        f"{LAYERS} x Linear({WIDTH}) + Tanh, batch {BATCH}:"
    )
    print(f"  {'engine':<10} {'mode':<18} {'activations':>12} {'weights, casts':>15}")
    rows = {}
    for engine, measure in (("minigrad", minigrad_saved), ("torch", torch_saved)):
        for mode, autocast in (("float32", False), ("bfloat16 autocast", True)):
            act, other = measure(autocast)
            rows[engine, mode] = act
            print(f"  {engine:<10} {mode:<18} {act / 1e6:12.1f} {other / 1e6:15.1f}")
    ratios = {e: rows[e, "bfloat16 autocast"] / rows[e, "float32"] for e in ("minigrad", "torch")}
    print(
        f"  bfloat16 / float32 activations: minigrad {ratios['minigrad']:.2f}x, "
        f"torch {ratios['torch']:.2f}x"
    )
    result["memory_mb"] = {f"{e} {m}": v / 1e6 for (e, m), v in rows.items()}
    result["targets"].append(
        target(
            "W7 bfloat16 saved activations <= 0.55x float32",
            ratios["minigrad"],
            ratios["minigrad"] <= 0.55,
        )
    )


# -- 2. accuracy -------------------------------------------------------------------------------
def digits():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    data = load_digits()
    images = (data.images / 16.0).astype(np.float32)[:, None]
    split = train_test_split(
        images, data.target, test_size=0.25, random_state=0, stratify=data.target
    )
    return [mg.tensor(a) for a in split]


def uniform(*shape, fan_in):
    bound = 1 / np.sqrt(fan_in)
    return ((mg.rand(*shape) * 2 - 1) * bound).requires_grad_()


class CNN(mg.nn.Module):  # lesson 12's
    def __init__(self, c1=16, c2=32):
        super().__init__()
        self.w1, self.b1 = uniform(c1, 1, 3, 3, fan_in=9), uniform(c1, fan_in=9)
        self.w2, self.b2 = uniform(c2, c1, 3, 3, fan_in=9 * c1), uniform(c2, fan_in=9 * c1)
        self.head = mg.nn.Linear(c2 * 4 * 4, 10)

    def forward(self, x):
        x = F.conv2d(x, self.w1, self.b1, padding=1).relu()
        x = F.max_pool2d(x, 2)
        x = F.conv2d(x, self.w2, self.b2, padding=1).relu()
        return self.head(x.reshape(x.shape[0], -1))


class MLP(mg.nn.Module):  # lesson 06's, on the flattened image
    def __init__(self):
        super().__init__()
        self.net = mg.nn.MLP(64, [64], 10)

    def forward(self, x):
        return self.net(x.reshape(x.shape[0], -1))


MODES = {"float32": None, "float16 + scaler": "float16", "bfloat16": "bfloat16"}


def train_and_test(make_model, make_optimizer, dtype, epochs, data) -> float:
    from minigrad.utils.data import DataLoader, TensorDataset

    x_train, x_test, y_train, y_test = data
    low = getattr(mg, dtype) if dtype else mg.bfloat16
    mg.manual_seed(0)
    model = make_model()
    optimizer = make_optimizer(model.parameters())
    scaler = mg.amp.GradScaler("cpu", enabled=dtype == "float16")
    batches = DataLoader(
        TensorDataset(x_train, y_train),
        batch_size=64,
        shuffle=True,
        generator=mg.Generator().manual_seed(0),
    )
    for _ in range(epochs):
        for x, labels in batches:
            with mg.autocast("cpu", dtype=low, enabled=dtype is not None):
                loss = F.cross_entropy(model(x), labels)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
    with mg.no_grad(), mg.autocast("cpu", dtype=low, enabled=dtype is not None):
        predicted = model(x_test).float().numpy().argmax(axis=1)
    return float((predicted == y_test.numpy()).mean())


def accuracy(result: dict, quick: bool) -> None:
    data = digits()
    runs = {
        "MLP": (MLP, lambda ps: mg.optim.SGD(ps, lr=0.1, momentum=0.9), 3 if quick else 30),
        "CNN": (CNN, lambda ps: mg.optim.Adam(ps, lr=0.01), 2 if quick else 20),
    }
    print(f"\ntest accuracy (%), digits, {len(data[3])} test images:")
    print(f"  {'model':<16}" + "".join(f"{m:>18}" for m in MODES) + f"{'seconds':>10}")
    result["accuracy"] = {}
    for net, (make_model, make_optimizer, epochs) in runs.items():
        start = time.perf_counter()
        scores = {
            m: train_and_test(make_model, make_optimizer, d, epochs, data) for m, d in MODES.items()
        }
        seconds = time.perf_counter() - start
        print(
            f"  {f'{net}, {epochs} epochs':<16}"
            + "".join(f"{100 * s:18.2f}" for s in scores.values())
            + f"{seconds:10.0f}"
        )
        result["accuracy"][net] = scores
        for mode in ("float16 + scaler", "bfloat16"):
            gap = 100 * abs(scores[mode] - scores["float32"])
            result["targets"].append(
                target(
                    f"{net} {mode} within 0.5 points of float32",
                    gap / 0.5,
                    gap <= 0.5,
                    shown=f"{net} {mode}: {gap:.2f} points <= 0.5",
                )
            )


# -- 3. matmul -----------------------------------------------------------------------------------
def matmul(result: dict, repeats: int) -> None:
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((1024, 1024)).astype(np.float32) for _ in range(2))
    print(f"\nmatmul 1024 x 1024 on the CPU, median of {repeats} (ms), interleaved:")
    print(f"  {'dtype':<10} {'minigrad':>10} {'torch':>10} {'minigrad / torch':>17}")
    result["matmul_ms"] = {}
    for name in ("float32", "float16", "bfloat16"):
        ma, mb = (mg.tensor(x).to(getattr(mg, name)) for x in (a, b))
        ta, tb = (torch.tensor(x).to(getattr(torch, name)) for x in (a, b))
        ours, theirs = interleaved(
            lambda ma=ma, mb=mb: ma @ mb, lambda ta=ta, tb=tb: ta @ tb, repeats
        )
        o, t = statistics.median(ours), statistics.median(theirs)
        print(f"  {name:<10} {o:10.1f} {t:10.1f} {o / t:16.2f}x")
        result["matmul_ms"][name] = {"minigrad": o, "torch": t}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    result = {"name": "mixed precision (issue 25)", "targets": []}
    print_load("load average at the start")
    memory(result)
    matmul(result, 3 if args.quick else args.repeats)
    accuracy(result, args.quick)
    print_load("load average at the end")
    if args.json:
        write_json(args.json, result)


if __name__ == "__main__":
    main()
