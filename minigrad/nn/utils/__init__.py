"""``mg.nn.utils``: tools around a model's parameters, under PyTorch's names (lesson 06).

- ``clip_grad_norm_`` / ``clip_grad_value_``: keep one bad batch's gradient
  from throwing the parameters far away (``clip_grad.py``);
- ``stateless.functional_call``: run a module with other numbers in place of
  its parameters, as a pure function of them (``stateless.py``; also
  ``mg.func.functional_call``);
- ``get_total_norm`` / ``clip_grads_with_norm_``: ``clip_grad_norm_``'s two halves;
- ``parameters_to_vector`` / ``vector_to_parameters``: the parameters as one
  vector (``convert_parameters.py``);
- ``rnn``: padding and packing batches of sequences of different lengths.
"""

from minigrad.nn.utils import rnn, stateless
from minigrad.nn.utils.clip_grad import (
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from minigrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
    "parameters_to_vector",
    "rnn",
    "stateless",
    "vector_to_parameters",
]
