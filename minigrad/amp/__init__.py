"""Mixed precision, as ``torch.amp``: autocast and loss scaling (lesson 15).

- ``GradScaler`` (``amp/grad_scaler.py``): dynamic loss scaling, so that small
  float16 gradients do not underflow to zero.
"""

from minigrad.amp.grad_scaler import GradScaler

__all__ = ["GradScaler"]
