"""``minigrad.distributed.nn``: the differentiable collectives (``functional``)."""

from minigrad.distributed.nn import functional
