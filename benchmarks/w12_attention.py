"""W12: fused attention, a GPT training step and KV-cache generation (issue 27, lesson 17).

- SDPA forward + backward, batch 8, 8 heads, head size 64, L = S = 1024,
  float32: minigrad's fused kernel (numba backend) against
  ``torch.nn.functional.scaled_dot_product_attention`` on the CPU, taking turns;
- peak memory of forward + backward, one head of size 64, L = S = 512..4096:
  the fused row against the naive composition (``reference_attention``),
  measured by ``tracemalloc`` (NumPy's allocations; the numba kernels'
  tile buffers, a few 64 x 64 tiles per thread, are not counted);
- one training step (forward, backward, AdamW) of the lesson's GPT
  (2 blocks, dim 64, 4 heads, block 128, batch 16, vocabulary 103)
  against the same model in PyTorch;
- generating 256 tokens with the KV cache against recomputing the prefix
  (block 512, so no step drops tokens), greedy, same tokens checked.

Medians of ``--repeats`` runs; the engines take turns so that load falls on
both; the load average is printed. 2 threads for everyone.

    python benchmarks/w12_attention.py [--repeats 5] [--json out.json]

Targets: SDPA <= 1.5x torch (must 3x); memory at 4096 <= 0.2x the composition's,
growing linearly in L; GPT step <= 1.5x torch; KV cache >= 5x recomputing.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import sys
import tracemalloc

from bench import ROOT, interleaved, pin_threads, print_load, target, write_json

THREADS = int(os.environ.get("OMP_NUM_THREADS", "2"))
pin_threads(THREADS)
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import minigrad as mg  # noqa: E402
from minigrad.tensor.ops.attention import reference_attention  # noqa: E402

torch.set_num_threads(THREADS)
F = mg.nn.functional


def sdpa_setups():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((8, 8, 1024, 64)).astype(np.float32) for _ in range(3)]
    g = rng.standard_normal((8, 8, 1024, 64)).astype(np.float32)

    def ours():
        xs = [mg.tensor(a, requires_grad=True) for a in arrays]
        out = F.scaled_dot_product_attention(*xs, is_causal=False)
        out.backward(mg.tensor(g))
        return [out.detach().numpy()] + [x.grad.numpy() for x in xs]

    def theirs():
        xs = [torch.tensor(a, requires_grad=True) for a in arrays]
        out = torch.nn.functional.scaled_dot_product_attention(*xs)
        out.backward(torch.from_numpy(g))
        return [out.detach().numpy()] + [x.grad.numpy() for x in xs]

    return ours, theirs


def peak_mib(attend, length: int) -> float:
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((1, length, 64)).astype(np.float32) for _ in range(3)]
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    xs = [mg.tensor(a, requires_grad=True) for a in arrays]
    attend(*xs).sum().backward()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak / 2**20


def gpt_pair(block: int, dim: int = 64, heads: int = 4, layers: int = 2, vocab: int = 103):
    """The lesson's GPT in minigrad, and the same model (same weights) in PyTorch."""
    mg.manual_seed(0)
    ours = mg.nn.GPT(vocab, block, dim=dim, heads=heads, layers=layers)

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.TransformerEncoderLayer(
                dim, heads, 4 * dim, dropout=0.0, activation="gelu", batch_first=True,
                norm_first=True)  # fmt: skip

        def forward(self, x):
            mask = torch.nn.Transformer.generate_square_subsequent_mask(x.shape[1])
            return self.layer(x, src_mask=mask, is_causal=True)

    class TorchGPT(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(vocab, dim)
            self.positions = torch.nn.Parameter(torch.zeros(block, dim))
            self.blocks = torch.nn.Sequential(*[Block() for _ in range(layers)])
            self.norm = torch.nn.LayerNorm(dim)
            self.head = torch.nn.Linear(dim, vocab)

        def forward(self, ids):
            x = self.embed(ids) + self.positions[: ids.shape[1]]
            return self.head(self.norm(self.blocks(x)))

    theirs = TorchGPT()
    # Our names -> PyTorch's: each block's layers live in its TransformerEncoderLayer.
    renames = [(r"^positions\.weight$", "positions"), (r"\.attn\.", ".layer.self_attn."),
               (r"\.mlp\.0\.", ".layer.linear1."), (r"\.mlp\.2\.", ".layer.linear2."),
               (r"^(blocks\.\d+)\.(norm\d)\.", r"\1.layer.\2.")]  # fmt: skip
    state = {}
    for key, value in ours.state_dict().items():
        for pattern, replacement in renames:
            key = re.sub(pattern, replacement, key)
        state[key] = torch.from_numpy(value.detach().numpy().copy())
    theirs.load_state_dict(state)
    return ours, theirs


def gpt_step_setups(repeat_check: bool = True):
    ours, theirs = gpt_pair(128)
    rng = np.random.default_rng(2)
    ids = rng.integers(0, 103, (16, 129))
    x, y = ids[:, :-1], ids[:, 1:]
    opt = mg.optim.AdamW(ours.parameters(), lr=1e-3)
    topt = torch.optim.AdamW(theirs.parameters(), lr=1e-3)
    mx, my, tx, ty = mg.tensor(x), mg.tensor(y), torch.from_numpy(x), torch.from_numpy(y)
    with mg.no_grad():
        first = F.cross_entropy(ours(mx).reshape(-1, 103), my.reshape(-1)).item()
    with torch.no_grad():
        same = math.isclose(first, torch.nn.functional.cross_entropy(
            theirs(tx).reshape(-1, 103), ty.reshape(-1)).item(), rel_tol=1e-4)  # fmt: skip

    def step_ours():
        loss = F.cross_entropy(ours(mx).reshape(-1, 103), my.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()

    def step_theirs():
        loss = torch.nn.functional.cross_entropy(theirs(tx).reshape(-1, 103), ty.reshape(-1))
        topt.zero_grad()
        loss.backward()
        topt.step()

    return step_ours, step_theirs, same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs; the median counts")
    parser.add_argument("--json", help="also write the results to this JSON file")
    parser.add_argument(
        "--skip", default="", help="comma-separated parts to skip: sdpa,memory,gpt,kv"
    )
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    print(f"W12 attention; backend {mg.backends.current()!r}, {THREADS} threads, median "
          f"(lowest-highest) of {args.repeats}")  # fmt: skip
    print_load("load average at the start")
    results, targets = {}, []
    if "sdpa" not in skip:
        ours, theirs = sdpa_setups()
        same = all(np.allclose(a, b, rtol=2e-3, atol=2e-4) for a, b in zip(ours(), theirs()))
        mine, torch_ms = interleaved(ours, theirs, args.repeats)
        m, t = statistics.median(mine), statistics.median(torch_ms)
        print("  SDPA forward + backward, (8, 8, 1024, 64) float32")
        print(
            f"    minigrad (fused)  {m:8.1f} ms ({min(mine):.1f}-{max(mine):.1f})   equal: {same}"
        )
        print(f"    torch SDPA        {t:8.1f} ms ({min(torch_ms):.1f}-{max(torch_ms):.1f})")
        targets.append(target("SDPA fwd+bwd <= 1.5x torch", m / t, m / t <= 1.5))
        targets.append(target("SDPA fwd+bwd must <= 3x torch", m / t, m / t <= 3.0))
        results["sdpa"] = {"minigrad": m, "torch": t, "agree": same}
        print_load()
    if "memory" not in skip:
        composition = lambda q, k, v: reference_attention(q, k, v, None, 1 / 8, False)
        for attend in (composition, F.scaled_dot_product_attention):
            peak_mib(attend, 64)  # kernels loaded before measuring
        print("  peak memory of forward + backward, one head of 64, float32 (MiB)")
        print(f"    {'L':>6} {'composition':>12} {'fused':>8} {'fused/comp':>11}")
        rows = []
        for length in (512, 1024, 2048, 4096):
            naive, fused = (
                peak_mib(composition, length),
                peak_mib(F.scaled_dot_product_attention, length),
            )
            rows.append((length, naive, fused))
            print(f"    {length:6d} {naive:12.2f} {fused:8.2f} {fused / naive:11.4f}")
        ratio = rows[-1][2] / rows[-1][1]
        growth = rows[-1][2] / rows[-2][2]
        targets.append(target("memory at L=4096 <= 0.2x the composition", ratio, ratio <= 0.2))
        targets.append(target("fused memory linear in L (x2 per doubling, <= 2.2x)", growth,
                              growth <= 2.2))  # fmt: skip
        results["memory"] = rows
    if "gpt" not in skip:
        ours, theirs, same = gpt_step_setups()
        mine, torch_ms = interleaved(ours, theirs, args.repeats)
        m, t = statistics.median(mine), statistics.median(torch_ms)
        print("  GPT training step (2 blocks, dim 64, 4 heads, 16 x 128 tokens, AdamW)")
        print(
            f"    minigrad  {m:8.1f} ms ({min(mine):.1f}-{max(mine):.1f})   same first loss: {same}"
        )
        print(f"    torch     {t:8.1f} ms ({min(torch_ms):.1f}-{max(torch_ms):.1f})")
        targets.append(target("GPT step <= 1.5x torch", m / t, m / t <= 1.5))
        results["gpt_step"] = {"minigrad": m, "torch": t, "agree": same}
        print_load()
    if "kv" not in skip:
        mg.manual_seed(0)
        model = mg.nn.GPT(103, 512, dim=64, heads=4, layers=2)
        prompt = [[1, 2, 3, 4]]
        cached = model.generate(prompt, 256, cache=True, greedy=True).numpy()
        full = model.generate(prompt, 256, cache=False, greedy=True).numpy()
        same = bool((cached == full).all())
        with_cache, without = interleaved(
            lambda: model.generate(prompt, 256, cache=True, greedy=True),
            lambda: model.generate(prompt, 256, cache=False, greedy=True),
            max(1, args.repeats // 2),
        )
        c, r = statistics.median(with_cache), statistics.median(without)
        print("  generating 256 tokens (GPT of 2 blocks, dim 64), greedy")
        print(f"    KV cache        {c:8.1f} ms   same tokens: {same}")
        print(f"    recomputing     {r:8.1f} ms")
        targets.append(target("KV cache >= 5x faster than recomputing", r / c, r / c >= 5,
                              shown=">= 5x"))  # fmt: skip
        results["kv_cache"] = {"cache": c, "recompute": r, "agree": same}
        print_load()
    if args.json:
        write_json(args.json, {"id": "W12", "title": "attention", "unit": "ms",
                               "results": results, "targets": targets})  # fmt: skip


if __name__ == "__main__":
    main()
