"""Finite-difference checks: trust, but verify (lesson 01, used in every lesson after).

- ``differences``  central differences and the verdict, for any kind of input (01)
- ``scalar``       the check of ``Value`` functions (01-03)
- ``tensor``       ``gradcheck``, ``check_jvp``, ``gradgradcheck`` of Tensor functions
                   (04-08); ``gradcheck`` hands Value functions to ``scalar``
"""

from minigrad.check.differences import GradcheckError
from minigrad.check.tensor import check_jvp, gradcheck, gradgradcheck

__all__ = ["GradcheckError", "check_jvp", "gradcheck", "gradgradcheck"]
