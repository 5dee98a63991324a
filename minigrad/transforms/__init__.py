"""Function transforms: grad, vjp, jvp, Jacobians, Hessians, checkpointing (lessons 07-09)."""

from minigrad.transforms.checkpointing import checkpoint, checkpoint_sequential
from minigrad.transforms.forward import jvp
from minigrad.transforms.jacobians import hessian, hvp, jacfwd, jacobian, jacrev
from minigrad.transforms.reverse import grad, value_and_grad, vjp

__all__ = [
    "checkpoint", "checkpoint_sequential", "grad", "hessian", "hvp", "jacfwd", "jacobian",
    "jacrev", "jvp", "value_and_grad", "vjp",
]  # fmt: skip
