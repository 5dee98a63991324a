"""``mg.Generator``: a random stream of one's own, as ``torch.Generator`` (lesson 06).

``mg.manual_seed`` seeds the one generator that ``randn``, ``rand`` and the
layers' initial weights share. Anything else that draws from it (shuffling
the data, say) changes which numbers the model gets. A ``Generator`` is a
separate stream: give one to a ``DataLoader`` and the order of the batches
is fixed by its seed alone.

    >>> g = Generator().manual_seed(0)
    >>> a = g.permutation(5)
    >>> b = Generator().manual_seed(0).permutation(5)
    >>> bool((a == b).all()), sorted(a.tolist())
    (True, [0, 1, 2, 3, 4])
"""

from __future__ import annotations

import numpy as np

#: PyTorch's seed for a new generator (``torch.Generator().initial_seed()``).
DEFAULT_SEED = 67280421310721


class Generator:
    """A seeded stream of random numbers (NumPy's PCG64 underneath).

    >>> Generator().manual_seed(3).initial_seed()
    3
    """

    def __init__(self, device: str = "cpu") -> None:
        if device not in ("cpu", "cuda"):
            raise RuntimeError(
                f"Expected a 'cpu' or 'cuda' device type for generator, got {device!r}"
            )
        self.device = device
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from ``seed``; returns the generator."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"manual_seed expected an int, got {type(seed).__name__}")
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed & (2**64 - 1))
        return self

    def seed(self) -> int:
        """Restart from a seed drawn from the operating system's entropy; returns that seed."""
        fresh = int(np.random.SeedSequence().entropy) & (2**63 - 1)
        self.manual_seed(fresh)
        return fresh

    def initial_seed(self) -> int:
        """The seed the stream last started from."""
        return self._seed

    def permutation(self, n: int) -> np.ndarray:
        """The numbers ``0 .. n-1`` in a random order (an int64 NumPy array)."""
        return self._rng.permutation(n).astype(np.int64)

    def numpy(self) -> np.random.Generator:
        """The NumPy generator behind this stream (draws from it advance the stream)."""
        return self._rng

    def __repr__(self) -> str:
        return f"<mg.Generator device={self.device!r} initial_seed={self._seed}>"
