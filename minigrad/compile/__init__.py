"""Static graphs (lesson 13): trace a program once, print it, draw it, optimize it, compile it.

- ``trace``   ``make_graph``: run a function on abstract tensors, write down each operation
  (``guards``: what a trace must not leave behind; ``side_doors``: draws, kernel calls)
- ``graph``   ``Graph``, ``Op``, ``Var``: the program as data, printed like a jaxpr
- ``run``     replaying a graph: a tight loop over raw arrays, or through ``apply``
- ``passes``  dead code, common subexpressions, constants, algebra (Graph -> Graph)
- ``fusion``  groups of elementwise operations -> one generated kernel (``codegen``)
- ``memory``  buffer reuse by liveness
- ``jit``     trace + passes + code generation, cached per signature
- ``control`` cond, while_loop, scan, fori_loop: control flow as operations (lesson 16),
  ``control_flow`` their rows and rules, ``subgraph`` the graphs they hold
"""

from minigrad.backends.abstract_backend import TracerError
from minigrad.compile.control import cond, fori_loop, scan, while_loop
from minigrad.compile.graph import Graph, Op, Var
from minigrad.compile.jit import jit
from minigrad.compile.trace import make_graph

__all__ = [
    "Graph",
    "Op",
    "TracerError",
    "Var",
    "cond",
    "fori_loop",
    "jit",
    "make_graph",
    "scan",
    "while_loop",
]
