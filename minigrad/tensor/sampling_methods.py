"""The random samplers as ``Tensor`` methods: ``x.uniform_()``, ``x.normal_()`` ... (lesson 06).

The samplers themselves live in ``minigrad.tensor.sampling``, which makes
tensors and so cannot be imported by the ``Tensor`` class; it fills
``IMPLEMENTATIONS`` when ``minigrad.tensor`` is imported, and these methods
look their sampler up there.

    >>> import minigrad as mg
    >>> mg.zeros(3).bernoulli_(1.0)
    tensor([1., 1., 1.])
"""

from __future__ import annotations

from typing import Any

#: method name -> the sampler (filled by ``minigrad.tensor.sampling``).
IMPLEMENTATIONS: dict[str, Any] = {}


class SamplingMethods:
    """``uniform_``, ``normal_``, ``bernoulli_``, ``exponential_``, ``geometric_``,
    ``cauchy_``, ``log_normal_``, ``random_``, ``bernoulli`` and ``multinomial``."""

    def uniform_(self, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Any:
        """Overwrite with numbers uniform on [a, b); returns the tensor."""
        return IMPLEMENTATIONS["uniform_"](self, a, b, generator=generator)

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Any:
        """Overwrite with normal numbers; returns the tensor."""
        return IMPLEMENTATIONS["normal_"](self, mean, std, generator=generator)

    def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> Any:
        """Overwrite with ones (probability p) and zeros; returns the tensor."""
        return IMPLEMENTATIONS["bernoulli_"](self, p, generator=generator)

    def exponential_(self, lambd: float = 1.0, *, generator: Any = None) -> Any:
        """Overwrite with exponential numbers of rate ``lambd``; returns the tensor."""
        return IMPLEMENTATIONS["exponential_"](self, lambd, generator=generator)

    def geometric_(self, p: float, *, generator: Any = None) -> Any:
        """Overwrite with the trial (1, 2, ...) of a first success of probability p."""
        return IMPLEMENTATIONS["geometric_"](self, p, generator=generator)

    def cauchy_(self, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Any:
        """Overwrite with Cauchy numbers; returns the tensor."""
        return IMPLEMENTATIONS["cauchy_"](self, median, sigma, generator=generator)

    def log_normal_(self, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Any:
        """Overwrite with ``exp`` of normal numbers (mean, std); returns the tensor."""
        return IMPLEMENTATIONS["log_normal_"](self, mean, std, generator=generator)

    def random_(self, *args: Any, generator: Any = None) -> Any:
        """Overwrite with whole numbers: ``random_()``, ``random_(to)``, ``random_(from, to)``."""
        return IMPLEMENTATIONS["random_"](self, *args, generator=generator)

    def bernoulli(self, p: Any = None, *, generator: Any = None) -> Any:
        """``mg.bernoulli(self, p)``."""
        return IMPLEMENTATIONS["bernoulli"](self, p, generator=generator)

    def multinomial(self, num_samples: int, replacement: bool = False, *,
                    generator: Any = None) -> Any:  # fmt: skip
        """``mg.multinomial(self, num_samples, replacement)``."""
        return IMPLEMENTATIONS["multinomial"](self, num_samples, replacement, generator=generator)
