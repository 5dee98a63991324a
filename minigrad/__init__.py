"""minigrad: automatic differentiation, built lesson by lesson.

    >>> import minigrad as mg
    >>> a = mg.Value(3.0); b = a * a + 1
    >>> b.backward(); a.grad
    6.0

The package is laid out like the course (see ``docs/`` and ``lessons/``):

- ``graph``       the node protocol and the shared topological walk (lesson 02)
- ``scalar``      ``Value``, a micrograd-style scalar graph (lessons 02-03)
- ``backends``    kernels over raw arrays: numpy, numba CPU, numba.cuda (10-11)
- ``tensor``      ``Tensor``, broadcasting, the primitive table, reverse mode (04-06)
- ``transforms``  grad, vjp, jvp, hessian, checkpoint (07-09)
- ``nn``/``optim`` modules, losses and optimizers (06)
- ``check``       finite-difference checks (01)
- ``draw``        graphviz pictures of every graph (02)
- ``grade``       the autograder for ``exercises/``

Importing is cheap: numba kernels compile on first use, never at import.
"""

from minigrad.scalar import Value, zero_grad

__version__ = "0.1.0"

# Names are bound here in dependency order. Several public functions share a
# name with the module that defines them (``mg.tensor``, ``mg.draw``): binding
# the function after importing the module keeps ``mg.tensor(...)`` callable.
