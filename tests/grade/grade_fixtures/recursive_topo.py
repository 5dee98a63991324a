"""A half-right exercise 2.2: micrograd's recursive topological sort (fails deep graphs)."""


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
