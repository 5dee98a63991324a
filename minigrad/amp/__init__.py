"""Mixed precision, as ``torch.amp``: autocast and loss scaling (lesson 15).

- ``autocast`` (``amp/autocast.py``): run each operation in the precision
  PyTorch's lists give it, as one more interpreter on the stack of transforms;
- ``GradScaler`` (``amp/grad_scaler.py``): dynamic loss scaling, so that small
  float16 gradients do not underflow to zero.
"""

from minigrad.amp.autocast import autocast  # binds the class over the module's name
from minigrad.amp.grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast"]
