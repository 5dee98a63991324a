"""``mg.nn.utils``: tools around a model's parameters, under PyTorch's names (lesson 06).

- ``clip_grad_norm_`` / ``clip_grad_value_``: keep one bad batch's gradient
  from throwing the parameters far away (``clip_grad.py``);
- ``stateless.functional_call``: run a module with other numbers in place of
  its parameters, as a pure function of them (``stateless.py``; also
  ``mg.func.functional_call``).
"""

from minigrad.nn.utils import stateless
from minigrad.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_

__all__ = ["clip_grad_norm_", "clip_grad_value_", "stateless"]
