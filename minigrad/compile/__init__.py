"""Static graphs (lesson 13): trace a program once, print it, draw it, optimize it, compile it.

- ``trace``   ``make_graph``: run a function on abstract tensors, write down each operation
- ``graph``   ``Graph``, ``Op``, ``Var``: the program as data, printed like a jaxpr
- ``run``     replaying a graph: a tight loop over raw arrays, or through ``apply``
- ``passes``  dead code, common subexpressions, constants, algebra (Graph -> Graph)
- ``fusion``  groups of elementwise operations -> one generated kernel (``codegen``)
- ``memory``  buffer reuse by liveness
- ``jit``     trace + passes + code generation, cached per signature
"""

from minigrad.backends.abstract_backend import TracerError
from minigrad.compile.graph import Graph, Op, Var
from minigrad.compile.jit import jit
from minigrad.compile.trace import make_graph

__all__ = ["Graph", "Op", "TracerError", "Var", "jit", "make_graph"]
