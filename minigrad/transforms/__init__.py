"""Function transforms: derivatives as functions you can transform again (lessons 07-09).

- ``forward``      forward mode: ``jvp``, tangents carried along with values (07)
- ``reverse``      ``grad``, ``value_and_grad``, ``vjp``: reverse mode as transforms (07-08)
- ``jacobians``    ``jacrev`` / ``jacfwd`` (rows / columns), ``hessian``, ``hvp`` (07-08)
- ``checkpointing`` ``checkpoint``, ``checkpoint_sequential``: recompute to save memory (09)
- ``vmap``         ``vmap``: a function of one example run on a batch, one pass (14)
- ``arguments``    argnums, has_aux, tuples in and out: written once for every transform,
                   and for tools built on them (``minigrad.check``)

Names, argument order and ``argnums`` follow JAX and ``torch.func``; every
transform nests (``grad(grad(f))``, ``jvp(grad(f))``, ``jacfwd(jacrev(f))``).
"""

from minigrad.transforms.arguments import argnums_partial, outputs_of
from minigrad.transforms.checkpointing import checkpoint, checkpoint_sequential
from minigrad.transforms.forward import jvp
from minigrad.transforms.jacobians import hessian, hvp, jacfwd, jacobian, jacrev
from minigrad.transforms.reverse import grad, value_and_grad, vjp
from minigrad.transforms.vmap import vmap

__all__ = [
    "argnums_partial", "checkpoint", "checkpoint_sequential", "grad", "hessian", "hvp", "jacfwd",
    "jacobian", "jacrev", "jvp", "outputs_of", "value_and_grad", "vjp", "vmap",
]  # fmt: skip
