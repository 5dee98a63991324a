"""``mg.signal``: ``torch.signal``'s namespace; its ``windows`` (lessons 04-05).

>>> import minigrad as mg
>>> mg.signal.windows.hann(3)
tensor([0., 1., 0.])
"""

from minigrad.signal import windows

__all__ = ["windows"]
