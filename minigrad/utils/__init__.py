"""``mg.utils``: ``mg.utils.data``, datasets and batches as in ``torch.utils.data``."""

from minigrad.utils import data

__all__ = ["data"]
