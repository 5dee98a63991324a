# Generated from solutions/ by `python -m minigrad.grade.generate`: replace each
# `raise NotImplementedError(...)` with your code, then run `python -m minigrad.grade`.
"""Lesson 13 exercises: three passes over a static graph written as plain data.

Grade them with ``python -m minigrad.grade --exercise 13``.

A *program* is a list of lines ``(out, op, inputs, params)``, in an order where
every name is made before it is read:

- ``out``: the name of the value the line makes (each name is made once);
- ``op``: the operation's name (``OPS`` below computes the ones constant folding
  meets), or ``"const"``;
- ``inputs``: a tuple of the names it reads;
- ``params``: a dict of parameters (numbers, strings or tuples of them); a
  constant is ``(name, "const", (), {"value": number})``.

A name that no line makes is an *input* of the program. ``outputs`` lists the
names the program returns (an input may be one; a name may appear twice).
The program ``y = tanh(x * w) + (x * w)`` with a dead ``exp`` reads::

    program = [
        ("a", "mul", ("x", "w"), {}),
        ("b", "tanh", ("a",), {}),
        ("c", "exp", ("a",), {}),        # nobody reads c
        ("d", "mul", ("x", "w"), {}),    # the same as a
        ("y", "add", ("b", "d"), {}),
    ]
    outputs = ["y"]

It is ``mg.make_graph``'s graph (lesson 13) without shapes: the passes you
write here are the ones ``minigrad/compile/passes.py`` runs on it.
"""

import math

Line = tuple  # (out: str, op: str, inputs: tuple[str, ...], params: dict)

# What each operation computes on Python numbers (``fold_constants`` runs them).
OPS = {
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
# add(a, b) is add(b, a): the order of the inputs does not change the value.
COMMUTATIVE = frozenset({"add", "mul", "maximum"})


def eliminate_dead_code(program: list[Line], outputs: list[str]) -> list[Line]:
    """Exercise 13.1: the lines of ``program`` that an output depends on, in their order.

    A line is *live* when an output names its result, or a live line reads
    its result. Every other line is dead code: it can go without changing
    what the program returns. Return the live lines, unchanged and in their
    original order. Programs can be thousands of lines long: no recursion.

    >>> program = [("a", "mul", ("x", "w"), {}), ("b", "exp", ("a",), {}),
    ...            ("c", "tanh", ("x",), {})]
    >>> [line[0] for line in eliminate_dead_code(program, ["b"])]
    ['a', 'b']

    Hint (lesson 13): walk the lines from last to first with a set of the names
    still needed (start: the outputs); keep a line when it makes a needed name,
    then add its inputs to the set; reverse the kept lines at the end.
    """
    raise NotImplementedError(
        "Exercise 13.1: walk the lines from last to first with a set of the names still needed "
        "(start: the outputs); keep a line when it makes a needed name, then add its inputs to the"
        " set; reverse the kept lines at the end. (lesson 13)"
    )


def eliminate_common_subexpressions(
    program: list[Line], outputs: list[str]
) -> tuple[list[Line], list[str]]:
    """Exercise 13.2: compute each distinct expression once.

    Two lines compute the same value when they apply the same ``op`` to the
    same input names with equal ``params`` (every op here is a pure function;
    two constants with equal values are the same too). For an op in
    ``COMMUTATIVE`` the order of the inputs does not matter: ``add(a, b)``
    is ``add(b, a)``.

    Walk the lines in order. A line that repeats an earlier one is dropped,
    and every later mention of its name (in later lines' inputs and in
    ``outputs``) becomes the earlier line's name. Renaming can make new
    repeats (``exp(a)`` and ``exp(d)`` once ``d`` became ``a``): they go
    too, in the same walk. Every kept line keeps its own name and the order
    of its inputs, with the renamed inputs in their places. Return
    ``(new_program, new_outputs)``.

    >>> program = [("a", "mul", ("x", "w"), {}), ("d", "mul", ("w", "x"), {}),
    ...            ("y", "add", ("a", "d"), {})]
    >>> eliminate_common_subexpressions(program, ["y", "d"])
    ([('a', 'mul', ('x', 'w'), {}), ('y', 'add', ('a', 'a'), {})], ['y', 'a'])

    Hint (lesson 13): keep a dict of renames and a dict from a line's key to the
    name that computed it first; the key is (op, inputs after renaming, sorted
    for a commutative op, sorted params items).
    """
    raise NotImplementedError(
        "Exercise 13.2: keep a dict of renames and a dict from a line's key to the name that "
        "computed it first; the key is (op, inputs after renaming, sorted for a commutative op, "
        "sorted params items). (lesson 13)"
    )


def fold_constants(program: list[Line]) -> list[Line]:
    """Exercise 13.3: compute now every line whose inputs are all constants.

    A line whose inputs are all made by ``"const"`` lines (given, or folded
    just before) is replaced, in its place, by the constant it computes:
    ``(out, "const", (), {"value": OPS[op](*input_values, **params)})``.
    Folding cascades: a line reading folded lines may fold too. Every other
    line stays as it is, and so do the constants the folded lines read (dead
    code elimination removes those nobody reads any more).

    >>> program = [("two", "const", (), {"value": 2.0}), ("t", "mul", ("two", "two"), {}),
    ...            ("y", "mul", ("t", "x"), {})]
    >>> fold_constants(program)[1]
    ('t', 'const', (), {'value': 4.0})

    Hint (lesson 13): walk the lines in order with a dict of the constant values
    known so far; a line whose inputs are all in it is run with OPS and added to it.
    """
    raise NotImplementedError(
        "Exercise 13.3: walk the lines in order with a dict of the constant values known so far; a"
        " line whose inputs are all in it is run with OPS and added to it. (lesson 13)"
    )
