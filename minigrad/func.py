"""``mg.func``: the function transforms under ``torch.func``'s names (lessons 07-14).

``grad``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian`` and ``vmap``
are the transforms of ``minigrad.transforms``; ``functional_call`` turns a
module into a function of its parameters so that they apply to models
(``minigrad/nn/utils/stateless.py``).

    >>> import minigrad as mg
    >>> layer = mg.nn.Linear(2, 1)
    >>> def total(bias, x):
    ...     return mg.func.functional_call(layer, {"bias": bias}, x).sum()
    >>> mg.func.grad(total)(layer.bias.detach(), mg.ones(4, 2))
    tensor([4.])
"""

from minigrad.nn.utils.stateless import functional_call
from minigrad.transforms import grad, hessian, jacfwd, jacrev, jvp, vjp, vmap

__all__ = ["functional_call", "grad", "hessian", "jacfwd", "jacrev", "jvp", "vjp", "vmap"]
