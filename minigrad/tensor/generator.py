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

    def get_state(self) -> np.ndarray:
        """Where the stream stands (``encode_state``); ``mg.Tensor`` or NumPy int64 values."""
        return Generator.encode_state(self._rng)

    def set_state(self, new_state: object) -> Generator:
        """Put the stream back where ``get_state`` found it; returns the generator."""
        Generator.decode_state(self._rng, new_state, "set_state")
        return self

    @staticmethod
    def encode_state(rng: np.random.Generator) -> np.ndarray:
        """A PCG64 stream's state as ten int64 numbers: its 128-bit state and increment in
        32-bit words, then the cached half-word and whether it is used.

        >>> Generator().manual_seed(1).get_state().shape
        (10,)
        """
        state = rng.bit_generator.state
        words = [(state["state"][key] >> (32 * i)) & 0xFFFFFFFF
                 for key in ("state", "inc") for i in range(4)]  # fmt: skip
        return np.array([*words, state["has_uint32"], state["uinteger"]], dtype=np.int64)

    @staticmethod
    def decode_state(rng: np.random.Generator, new_state: object, where: str) -> None:
        """Set ``rng`` to a state made by ``encode_state`` (a clear error for anything else)."""
        values = np.asarray(getattr(new_state, "numpy", lambda: new_state)())
        words_fit = values.shape == (10,) and bool(((values[:8] >= 0) & (values[:8] < 2**32)).all())
        if values.dtype != np.int64 or not words_fit:
            raise RuntimeError(
                f"{where}: expected the int64 tensor of 10 numbers that get_rng_state/get_state "
                f"returned, got dtype {values.dtype} and shape {tuple(values.shape)} "
                "(minigrad's state is not PyTorch's 5056-byte one)"
            )
        words = [int(v) for v in values]
        state, inc = (sum(w << (32 * i) for i, w in enumerate(words[k : k + 4])) for k in (0, 4))
        rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": state, "inc": inc},
            "has_uint32": words[8],
            "uinteger": words[9],
        }

    def numpy(self) -> np.random.Generator:
        """The NumPy generator behind this stream (draws from it advance the stream)."""
        return self._rng

    def __repr__(self) -> str:
        return f"<mg.Generator device={self.device!r} initial_seed={self._seed}>"
