"""Evil exercise 2.2: a recursive walk that raises the recursion limit to pass "no recursion"."""

import sys

sys.setrecursionlimit(1_000_000)


def topological_order(root):
    order, visited = [], set()

    def visit(node):
        if id(node) not in visited:
            visited.add(id(node))
            for parent in node._parents:
                visit(parent)
            order.append(node)

    visit(root)
    return order
