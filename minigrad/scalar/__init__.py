"""The scalar layer: ``Value``, one number in a computation graph (lessons 02-03).

- ``value.py``  ``Value`` and reverse mode over scalar graphs (lesson 02)
- ``rules.py``  the local derivatives both modes read (lessons 02-03)
- ``dual.py``   ``Dual`` numbers: forward mode on scalars (lesson 03)
"""

from minigrad.scalar.dual import Dual
from minigrad.scalar.value import Value, zero_grad

__all__ = ["Dual", "Value", "zero_grad"]
