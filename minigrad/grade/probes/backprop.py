"""Probes for lesson 03: the backward pass, a neuron and an MLP of ``Value``s.

A probe runs in the child process, on the submission: it feeds the grader's
inputs to the student's code and returns the outputs as plain data. It decides
nothing; the references and comparisons live in ``checks`` and never reach
the child.
"""

from __future__ import annotations

from typing import Any


def probe_backward(module: Any, args: dict) -> Any:
    nodes: list = []
    for op, *operands in args["program"]:
        if op == "leaf":
            nodes.append(module.Node(operands[0]))
        else:
            make = {"add": module.add, "mul": module.mul, "tanh": module.tanh}[op]
            nodes.append(make(*(nodes[i] for i in operands)))
    module.backward(nodes[args["root"]])
    return [node.grad for node in nodes]


def probe_neuron(module: Any, args: dict) -> Any:
    from minigrad.scalar.value import Value

    neuron = module.Neuron(args["w"], args["b"], args["nonlin"])
    x = [Value(v) for v in args["x"]] if args["part"] == "grad_x" else args["x"]
    out = neuron(x)
    out.backward()
    parts = {
        "data": lambda: out.data,
        "grad_params": lambda: [p.grad for p in [*neuron.w, neuron.b]],
        "grad_x": lambda: [v.grad for v in x],
        "parameters": lambda: [p.data for p in neuron.parameters()],
    }
    return parts[args["part"]]()


def probe_mlp(module: Any, args: dict) -> Any:
    mlp = module.MLP([(w, b) for w, b in args["layers"]])
    out = mlp(args["x"])
    if args["part"] == "out":
        return out.data if not isinstance(out, list) else [o.data for o in out]
    if args["part"] == "parameters":
        return [p.data for p in mlp.parameters()]
    total = out if not isinstance(out, list) else sum(out[1:], out[0])
    total.backward()
    return [p.grad for p in mlp.parameters()]
