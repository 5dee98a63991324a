"""Checks for lesson 13: dead code, common subexpressions and constant folding on plain data.

A program is a list of lines ``(out, op, inputs, params)`` (the format of
``solutions/lesson13_static_graphs.py``). Probes live in
``minigrad.grade.probes.static_graphs`` and run in the child; the references
are the teacher's passes in ``minigrad.grade.references`` (never shipped to
students), run in the grader's process on the same lines.
Each exercise has hand-made programs for the tricky shapes (chains, diamonds,
unused side branches, repeats that appear only after renaming, commutative and
non-commutative ops, cascades of constants) and random programs from the seed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.grade.probes.static_graphs import (
    probe_common_subexpressions,
    probe_dead_code,
    probe_fold_constants,
)
from minigrad.grade.spec import Answer, Check, exercise, shown

FILE = "lesson13_static_graphs.py"
ARITY = {"add": 2, "sub": 2, "mul": 2, "div": 2, "maximum": 2, "neg": 1, "exp": 1, "tanh": 1}
COMMUTATIVE = frozenset({"add", "mul", "maximum"})


# -- comparing programs ---------------------------------------------------------------------
def plain_program(program: list) -> list:
    """Lines as lists, parameters' tuples as lists: what comes back from the child."""
    listed = lambda v: [listed(i) for i in v] if isinstance(v, (list, tuple)) else v
    return [
        [out, op, list(ins), {k: listed(v) for k, v in ps.items()}] for out, op, ins, ps in program
    ]


def _same_value(want: Any, have: Any) -> bool:
    if isinstance(want, float) and type(have) in (int, float):
        return math.isclose(want, have, rel_tol=1e-12, abs_tol=1e-15)
    return type(have) is type(want) and have == want


def _line_problem(want: list, have: Any) -> bool:
    if type(have) is not list or len(have) != 4:
        return True
    out, op, inputs, params = have
    if [out, op, inputs] != want[:3] or type(params) is not dict or set(params) != set(want[3]):
        return True
    return not all(_same_value(want[3][k], params[k]) for k in want[3])


def _names(program: list, limit: int = 80) -> str:
    """The names the lines make, for a message: ``a, b, c``."""
    text = ", ".join(str(line[0]) if type(line) is list and line else "?" for line in program)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def same_program(expected: list, got: Any) -> str | None:
    """None when ``got`` has the expected lines in the expected order, else what differs."""
    if type(got) is not list:
        return f"expected a list of lines, got {shown(got)}"
    if len(got) != len(expected):
        return (
            f"expected {len(expected)} lines ({_names(expected)}), got {len(got)} ({_names(got)})"
        )
    for k, (want, have) in enumerate(zip(expected, got)):
        if _line_problem(want, have):
            return f"line {k}: expected {shown(want)}, got {shown(have)}"
    return None


def same_program_and_outputs(expected: dict, got: Any) -> str | None:
    if type(got) is not dict or set(got) != {"program", "outputs"}:
        return f"expected (program, outputs), got {shown(got)}"
    problem = same_program(expected["program"], got["program"])
    if problem is not None:
        return problem
    if got["outputs"] != expected["outputs"]:
        return f"outputs: expected {expected['outputs']}, got {shown(got['outputs'])}"
    return None


# -- programs ------------------------------------------------------------------------------
def L(out: str, op: str, *inputs: str, **params: Any) -> list:
    return [out, op, list(inputs), params]


def C(out: str, value: float) -> list:
    return [out, "const", [], {"value": value}]


def random_program(
    rng: np.random.Generator,
    lines: int,
    repeats: float = 0.0,
    constants: float = 0.1,
    ops: tuple = tuple(ARITY),
) -> list:
    """A random program over inputs x, y, z; ``repeats``: the share of lines that copy an
    earlier line (inputs swapped when the op is commutative)."""
    names, program = ["x", "y", "z"], []
    for k in range(lines):
        out = f"v{k}"
        earlier = [line for line in program if line[1] != "const"]
        if earlier and rng.random() < repeats:
            _, op, inputs, params = earlier[rng.integers(len(earlier))]
            inputs = inputs[::-1] if op in COMMUTATIVE and rng.random() < 0.5 else inputs
            program.append([out, op, list(inputs), dict(params)])
        elif rng.random() < constants:
            program.append(C(out, float(np.round(rng.uniform(-1, 1), 3))))
        else:
            op = str(rng.choice(ops))
            # Mostly recent names (chains and diamonds), some long edges.
            pool = [names[-6:] if rng.random() < 0.8 else names for _ in range(ARITY[op])]
            program.append(L(out, op, *(str(rng.choice(choices)) for choices in pool)))
        names.append(out)
    return program


def random_outputs(rng: np.random.Generator, program: list, count: int) -> list:
    late = [line[0] for line in program[len(program) // 2 :]]
    return [str(name) for name in rng.choice(late, size=count, replace=False)]


# -- 13.1 ----------------------------------------------------------------------------------
@exercise("13.1", "eliminate_dead_code", FILE, shortcuts=("eliminate_dead_code",))
def dead_code_checks(rng: np.random.Generator) -> list[Check]:
    chain = [L("a", "mul", "x", "w"), L("b", "tanh", "a"), L("c", "exp", "b"), L("d", "neg", "c")]
    diamond = [
        L("a", "exp", "x"),
        L("b", "tanh", "a"),
        L("c", "neg", "a"),
        L("d", "add", "b", "c"),
        L("e", "mul", "x", "x"),
    ]
    side = [
        L("a", "mul", "x", "w"),
        L("s1", "exp", "a"),
        L("s2", "tanh", "s1"),
        L("b", "add", "a", "w"),
        L("s3", "mul", "s2", "b"),
        L("y", "neg", "b"),
    ]
    constants = [
        C("one", 1.0),
        C("two", 2.0),
        L("a", "mul", "x", "two"),
        L("b", "add", "one", "one"),
        L("y", "add", "a", "x"),
    ]
    outputs_kinds = [L("a", "exp", "x"), L("b", "tanh", "a"), L("c", "neg", "y")]
    long = [L("v0", "tanh", "x")]
    for k in range(1, 5000):
        long.append(L(f"v{k}", "tanh" if k % 3 else "exp", f"v{k - 1}"))
        if k % 10 == 0:
            long.append(L(f"dead{k}", "mul", f"v{k}", "x"))
    cases = [
        ("a chain, every line live", chain, ["d"]),
        ("a chain whose output is in the middle: the tail is dead", chain, ["b"]),
        ("a diamond (two paths that join) beside a dead line", diamond, ["d"]),
        ("unused side branches, one reading live values", side, ["y"]),
        ("constants: only the ones a live line reads stay", constants, ["y"]),
        ("outputs: an input, a name twice, two lines", outputs_kinds, ["y", "b", "x", "b"]),
        ("nothing live: the output is an input", chain, ["x"]),
        ("a chain of 5,000 lines with dead branches (no recursion)", long, ["v4999"]),
    ]
    for k in range(3):
        program = random_program(rng, 40)
        cases.append(
            (
                f"a random program of 40 lines, #{k + 1}",
                program,
                random_outputs(rng, program, 1 + k),
            )
        )
    checks = []
    for name, program, outputs in cases:
        args = {"program": program, "outputs": outputs}
        want = Answer("live_lines", program, outputs)
        # An empty result, or the program unchanged, is right.
        edge = name.startswith(("nothing live", "a chain, every line live"))
        checks.append(Check(name, probe_dead_code, args, want, same_program, edge=edge))
    return checks


# -- 13.2 ----------------------------------------------------------------------------------
@exercise(
    "13.2", "eliminate_common_subexpressions", FILE, shortcuts=("eliminate_common_subexpressions",)
)
def common_subexpression_checks(rng: np.random.Generator) -> list[Check]:
    twice = [L("a", "mul", "x", "w"), L("b", "mul", "x", "w"), L("y", "add", "a", "b")]
    cascade = [
        L("a", "mul", "x", "w"),
        L("b", "exp", "a"),
        L("c", "mul", "x", "w"),
        L("d", "exp", "c"),
        L("e", "tanh", "d"),
        L("f", "tanh", "b"),
        L("y", "sub", "e", "f"),
    ]
    commutative = [
        L("a", "add", "x", "w"),
        L("b", "add", "w", "x"),
        L("c", "maximum", "w", "x"),
        L("d", "maximum", "x", "w"),
        L("y", "mul", "a", "c"),
        L("z", "mul", "d", "b"),
    ]
    ordered = [
        L("a", "sub", "x", "w"),
        L("b", "sub", "w", "x"),
        L("c", "div", "x", "w"),
        L("d", "div", "w", "x"),
        L("y", "add", "a", "b"),
        L("z", "add", "c", "d"),
    ]
    params = [
        L("a", "pow", "x", exponent=2),
        L("b", "pow", "x", exponent=3),
        L("c", "pow", "x", exponent=2),
        L("d", "sum", "x", axes=[0, 1], keepdims=False),
        L("e", "sum", "x", keepdims=False, axes=[0, 1]),
        L("f", "sum", "x", axes=[0], keepdims=False),
        L("y", "add", "a", "b"),
    ]
    constants = [
        C("k1", 2.0),
        C("k2", 3.0),
        C("k3", 2.0),
        L("a", "mul", "x", "k1"),
        L("b", "mul", "x", "k3"),
        L("y", "add", "a", "b"),
        L("z", "add", "k2", "b"),
    ]
    outputs = [L("a", "exp", "x"), L("b", "exp", "x"), L("c", "tanh", "b"), L("d", "tanh", "a")]
    cases = [
        ("the same line twice", twice, ["y"]),
        ("repeats that appear only after renaming (exp(a) and exp(c))", cascade, ["y"]),
        ("commutative ops: add(x, w) is add(w, x)", commutative, ["y", "z"]),
        ("sub and div are not commutative: nothing to remove", ordered, ["y", "z"]),
        ("parameters: equal (in any order) or not", params, ["y", "c", "d", "e", "f"]),
        ("equal constants are one constant", constants, ["y", "z"]),
        ("outputs are renamed too (and an input stays)", outputs, ["d", "c", "b", "x"]),
    ]
    for k in range(3):
        program = random_program(rng, 40, repeats=0.35)
        cases.append(
            (
                f"a random program of 40 lines with repeats, #{k + 1}",
                program,
                random_outputs(rng, program, 2),
            )
        )
    checks = []
    for name, program, outs in cases:
        want = Answer("without_repeats", program, outs)
        args = {"program": program, "outputs": outs}
        edge = "nothing to remove" in name  # the program unchanged is right
        checks.append(
            Check(
                name, probe_common_subexpressions, args, want, same_program_and_outputs, edge=edge
            )
        )
    return checks


# -- 13.3 ----------------------------------------------------------------------------------
@exercise("13.3", "fold_constants", FILE, shortcuts=("fold_constants",))
def fold_constant_checks(rng: np.random.Generator) -> list[Check]:
    a, b, c = (float(np.round(v, 3)) for v in rng.uniform(0.5, 2.0, size=3))
    one = [C("k", a), L("e", "exp", "k"), L("y", "mul", "x", "e")]
    cascade = [
        C("k1", a),
        C("k2", b),
        L("s", "add", "k1", "k2"),
        L("t", "tanh", "s"),
        L("u", "div", "t", "k2"),
        L("y", "mul", "u", "x"),
        L("z", "neg", "u"),
    ]
    mixed = [C("k", a), L("m", "mul", "k", "x"), L("n", "add", "m", "k"), L("p", "neg", "k")]
    params = [
        C("k", a),
        L("sq", "pow", "k", exponent=2),
        L("cube", "pow", "k", exponent=3),
        L("y", "sub", "cube", "x"),
    ]
    inputs = [L("a", "add", "x", "w"), L("b", "exp", "a"), C("k", c), L("y", "mul", "b", "k")]
    same = [
        C("k", c),
        L("d", "sub", "k", "k"),
        L("e", "maximum", "d", "k"),
        L("y", "add", "e", "x"),
    ]
    cases = [
        ("one constant line", one),
        ("a cascade: folded lines fold the lines that read them", cascade),
        ("mixed lines (a constant and an input) stay", mixed),
        ("parameters: pow's exponent", params),
        ("inputs are not constants: nothing to fold", inputs),
        ("one constant read twice", same),
    ]
    for k in range(3):
        program = random_program(rng, 30, constants=0.4, ops=("add", "sub", "mul", "neg", "tanh"))
        cases.append((f"a random program of 30 lines with constants, #{k + 1}", program))
    return [
        Check(
            name,
            probe_fold_constants,
            {"program": program},
            Answer("folded", program),
            same_program,
            edge="nothing to fold" in name,  # the program unchanged is right
        )
        for name, program in cases
    ]
