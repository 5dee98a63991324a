"""Forward mode keeps no tape: peak memory of jvp and vjp along a chain of ops.

The function is a chain of ``--ops`` elementwise operations (alternately
``x * 0.999`` and ``tanh``) on a vector of ``--size`` float32 numbers. ``jvp``
carries the tangent along with the value, so each intermediate result can go
as soon as the next one exists; ``vjp`` must keep every intermediate (and its
graph node) until the backward pass has used it. Each figure is the
``tracemalloc`` peak (NumPy reports its arrays to it) of one run in a fresh
process, together with how many graph nodes the run recorded.

    python benchmarks/jvp_memory.py [--ops 10000] [--size 1000]
"""

from __future__ import annotations

import argparse
import json
import sys

from bench import ROOT, json_child


def child(mode: str, ops: int, size: int) -> dict:
    sys.path.insert(0, str(ROOT))
    import tracemalloc

    import minigrad as mg
    from minigrad.tensor.tensor import Node

    def chain(x, ops=ops):
        for i in range(ops):
            x = x * 0.999 if i % 2 == 0 else x.tanh()
        return x

    x, v = mg.randn(size), mg.ones(size)
    # warm-up, both modes on a short chain: kernels and caches are not part of the peak
    mg.jvp(lambda x: chain(x, 10), (x,), (v,))
    mg.vjp(lambda x: chain(x, 10), x)[1](v)
    before = Node.created
    tracemalloc.start()
    if mode == "jvp":
        _, _tangent = mg.jvp(chain, (x,), (v,))
    else:
        _, vjp_fn = mg.vjp(chain, x)
        (_cotangent,) = vjp_fn(v)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"peak_mb": peak / 2**20, "nodes": Node.created - before}


def measure(mode: str, ops: int, size: int) -> dict:
    command = [sys.executable, __file__, "--child", mode, "--ops", str(ops), "--size", str(size)]
    return json_child(command)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=10_000)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--child", choices=("jvp", "vjp"))
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.ops, args.size)))
        return
    print(f"a chain of ops on a float32 vector of {args.size}: tracemalloc peak, graph nodes")
    for ops in sorted({args.ops // 10, args.ops // 4, args.ops // 2, args.ops}):
        jvp, vjp = measure("jvp", ops, args.size), measure("vjp", ops, args.size)
        print(
            f"  {ops:6d} ops: jvp {jvp['peak_mb']:7.2f} MB ({jvp['nodes']} nodes)   "
            f"vjp {vjp['peak_mb']:7.2f} MB ({vjp['nodes']} nodes)"
        )


if __name__ == "__main__":
    main()
